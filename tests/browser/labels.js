// The text of each SVG image on the page as the reader sees it: for every <text>, its
// computed font size times the scale it is drawn at (the image's width on the page over
// its own width, and the text's own transform). Returns [src, smallest size, the text].
const out = [];
for (const img of document.querySelectorAll('main img')) {
  const src = img.currentSrc || img.src;
  if (!/\.svg(\?|#|$)/.test(src) || !img.naturalWidth) continue;
  const text = await (await fetch(src)).text();
  const svg = new DOMParser().parseFromString(text, 'image/svg+xml').documentElement;
  const box = document.createElement('div');
  box.style.cssText = 'position:fixed;left:0;top:0;visibility:hidden;';
  box.appendChild(document.importNode(svg, true));
  document.body.appendChild(box);
  const scale = img.getBoundingClientRect().width / img.naturalWidth;
  let least = null;
  for (const t of box.querySelectorAll('text')) {
    if (!t.textContent.trim()) continue;
    const m = t.getCTM();
    const size = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b) * scale;
    if (!least || size < least[1]) least = [img.getAttribute('src'), size, t.textContent.trim()];
  }
  box.remove();
  if (least) out.push(least);
}
return out;
