// The page's layout at the current window width: what reaches past the window, what
// overflows its column, display equations whose number is painted over the formula, and
// footnotes whose back-link sits on a line of its own. Returns a list of problems.
const W = window.innerWidth;
const out = [];
const name = (e) => {
  const cls = typeof e.className === 'string' && e.className.trim() ? '.' + e.className.trim().split(/\s+/).join('.') : '';
  return e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + cls;
};
const px = (x) => Math.round(x);
const pageWidth = () => document.documentElement.scrollWidth;
if (pageWidth() > W) {
  const past = Array.from(document.querySelectorAll('body *'))
    .filter((e) => e.getBoundingClientRect().right + window.scrollX > W + 0.5 && !e.closest('.eq-body, pre, .figure.table'))
    .map(name);
  out.push(`the page is ${pageWidth()} px wide in a ${W} px window (reaching past it: ${past.slice(0, 6).join(', ')}${past.length > 6 ? ', …' : ''})`);
}
const main = document.querySelector('main');
if (main) {
  const col = main.getBoundingClientRect();
  for (const e of main.querySelectorAll('figure, img, .display-math, table, pre')) {
    const r = e.getBoundingClientRect();
    if (r.width === 0 || e.closest('.figure.table') && e !== e.closest('.figure.table')) continue;
    if (r.left < col.left - 0.5 || r.right > col.right + 0.5) {
      out.push(`${name(e)} overflows its column: it spans ${px(r.left)}–${px(r.right)} px, the column ${px(col.left)}–${px(col.right)} px`);
    }
  }
}
// A display equation: a formula wider than its box scrolls inside it, and the number is
// never over the part of the formula that is shown.
for (const d of document.querySelectorAll('.display-math')) {
  const body = d.querySelector('.eq-body') || d;
  const math = body.querySelector('math') || body;
  const num = d.querySelector('.eq-number');
  // The formula's own extent (a block <math> is as wide as its box, whatever it holds).
  const extent = document.createRange();
  extent.selectNodeContents(math);
  const m = extent.getBoundingClientRect();
  let box = body.getBoundingClientRect();
  for (let e = math.parentElement; e && e !== d.parentElement; e = e.parentElement) {
    const s = getComputedStyle(e);
    if (['auto', 'scroll', 'hidden', 'clip'].includes(s.overflowX)) {
      box = e.getBoundingClientRect();
      break;
    }
    if (e === d) box = null;
  }
  if (!box) {
    if (m.right > d.getBoundingClientRect().right + 0.5 || m.left < d.getBoundingClientRect().left - 0.5) {
      out.push(`equation ${d.id} is wider than its box and does not scroll inside it`);
    }
    box = m;
  }
  const shown = { left: Math.max(m.left, box.left), right: Math.min(m.right, box.right), top: Math.max(m.top, box.top), bottom: Math.min(m.bottom, box.bottom) };
  if (num) {
    const n = num.getBoundingClientRect();
    const overlap = Math.min(shown.right, n.right) - Math.max(shown.left, n.left);
    const vertical = Math.min(shown.bottom, n.bottom) - Math.max(shown.top, n.top);
    if (overlap > 0.5 && vertical > 0.5) {
      out.push(`equation ${d.id}: its number ${num.textContent} is painted over the formula (${px(overlap)} px of it)`);
    }
  }
}
// A footnote's back-link ends the note's last line of text.
for (const li of document.querySelectorAll('.footnote-definition')) {
  const a = li.querySelector('.footnote-backref');
  if (!a) continue;
  const before = document.createRange();
  before.setStart(li, 0);
  before.setEndBefore(a);
  const rects = Array.from(before.getClientRects()).filter((r) => r.height > 0);
  if (!rects.length) continue;
  const bottom = Math.max(...rects.map((r) => r.bottom));
  const r = a.getBoundingClientRect();
  if (r.top >= bottom - 1) {
    out.push(`footnote ${li.id}: its back-link ${a.textContent} sits on a line of its own, under the note's text`);
  }
}
return out;
