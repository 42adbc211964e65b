// Show each claim's certificate (by focusing the claim, as the keyboard does) and say where
// it falls: it stays inside the window, keeps the page no wider than the window, and does
// not cover the claim or the line above it. Returns a list of problems.
const W = window.innerWidth;
const out = [];
const px = (x) => Math.round(x);
const claims = Array.from(document.querySelectorAll('.claim'));
claims.forEach((c, k) => {
  const id = c.getAttribute('aria-describedby');
  const t = id && document.getElementById(id);
  if (!t) return;
  c.focus();
  const r = t.getBoundingClientRect();
  const lines = Array.from(c.getClientRects());
  const last = lines[lines.length - 1];
  const label = `claim ${k} (“${c.textContent.trim().slice(0, 30)}”)`;
  if (!t.checkVisibility({ visibilityProperty: true })) out.push(`${label}: its certificate is not shown on focus`);
  if (r.left < -0.5 || r.right > W + 0.5) out.push(`${label}: its certificate spans ${px(r.left)}–${px(r.right)} px in a ${W} px window`);
  if (document.documentElement.scrollWidth > W) out.push(`${label}: with its certificate shown the page is ${document.documentElement.scrollWidth} px wide in a ${W} px window`);
  if (last && r.top < last.bottom - 1) out.push(`${label}: its certificate (top ${px(r.top)} px) covers the claim's line or the line above it (the claim ends at ${px(last.bottom)} px)`);
  c.blur();
});
return out;
