// axe-core's audit of the page with its default rules (WCAG 2 A and AA, and best
// practices); axe's source is arguments[0]. Returns one line per violation.
if (typeof axe === 'undefined') {
  const s = document.createElement('script');
  s.textContent = arguments[0];
  document.head.appendChild(s);
  s.remove();
}
const r = await axe.run(document, { resultTypes: ['violations'] });
return r.violations.map((v) => {
  const nodes = v.nodes.slice(0, 4).map((n) => n.target.join(' ')).join(' | ');
  const more = v.nodes.length > 4 ? ` and ${v.nodes.length - 4} more` : '';
  return `${v.id} (${v.impact}): ${v.help} — ${nodes}${more}`;
});
