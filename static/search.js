// Search over every essay from the static index search-index.json (built with the site).
// No external service: the index is fetched once, on the first keystroke.
(function () {
  "use strict";
  function init() {
    var input = document.getElementById("search-input");
    var list = document.getElementById("search-results");
    if (!input || !list) return;
    var index = null, loading = null;
    function load() {
      if (!loading) {
        loading = fetch(input.getAttribute("data-index"))
          .then(function (r) { return r.json(); })
          .then(function (j) { index = j.essays || []; return index; });
      }
      return loading;
    }
    function snippet(text, word) {
      var i = text.toLowerCase().indexOf(word);
      if (i < 0) return "";
      var a = Math.max(0, i - 60), b = Math.min(text.length, i + word.length + 60);
      return (a > 0 ? "…" : "") + text.slice(a, b) + (b < text.length ? "…" : "");
    }
    function show(query) {
      var words = query.toLowerCase().split(/\s+/).filter(function (w) { return w.length > 1; });
      list.textContent = "";
      if (!words.length) return;
      var hits = [];
      index.forEach(function (e) {
        var title = e.title.toLowerCase(), body = (e.summary + " " + e.text).toLowerCase(), score = 0;
        for (var k = 0; k < words.length; k++) {
          var inTitle = title.indexOf(words[k]) >= 0, inBody = body.indexOf(words[k]) >= 0;
          if (!inTitle && !inBody) return;
          score += (inTitle ? 10 : 0) + (inBody ? 1 : 0);
        }
        hits.push({ e: e, score: score });
      });
      hits.sort(function (x, y) { return y.score - x.score || x.e.title.localeCompare(y.e.title); });
      if (!hits.length) {
        var none = document.createElement("li");
        none.className = "none";
        none.textContent = "No essay mentions “" + query + "”.";
        list.appendChild(none);
        return;
      }
      hits.slice(0, 10).forEach(function (h) {
        var li = document.createElement("li"), a = document.createElement("a");
        a.href = input.getAttribute("data-root") + h.e.slug + "/";
        a.textContent = h.e.title;
        li.appendChild(a);
        var s = snippet(h.e.text, words[0]);
        if (s) {
          var p = document.createElement("span");
          p.className = "snippet";
          p.textContent = s;
          li.appendChild(p);
        }
        list.appendChild(li);
      });
    }
    input.addEventListener("input", function () {
      var q = input.value;
      load().then(function () { if (input.value === q) show(q); });
    });
    input.addEventListener("keydown", function (ev) {
      if (ev.key === "Escape") { input.value = ""; list.textContent = ""; }
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
