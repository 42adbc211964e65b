//! Templates that would render forever: a template that includes itself, an include
//! cycle, a macro that calls itself (directly, through other macros, or through an
//! include). tera follows each of them until the stack overflows, which aborts the process
//! (and with it `countersign watch`), so they are found in the template texts before tera
//! compiles them, and refused with a diagnostic at the tag that closes the cycle.
//!
//! Recursive macros are refused even when they would stop: a macro's arguments are not
//! known before rendering, so a recursion that ends cannot be told from one that does
//! not, and tera has no depth limit to fall back on.
//!
//! Pure: takes the `(name, text)` list [`super::template_sources`] returns.

use std::collections::BTreeMap;
use std::ops::Range;

use countersign_core::diag::{Code, Diagnostic};

/// What rendering may enter: a whole template (its text outside macros) or one macro.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Node {
    Template(String),
    Macro(String, String),
}

impl Node {
    fn file(&self) -> &str {
        match self {
            Node::Template(f) | Node::Macro(f, _) => f,
        }
    }
    fn shown(&self) -> String {
        match self {
            Node::Template(f) => f.clone(),
            Node::Macro(f, m) => format!("{f}::{m}"),
        }
    }
}

/// One way rendering `from` enters `to`, at `at` (bytes of the tag in `from`'s file).
struct Edge {
    to: Node,
    at: Range<usize>,
}

/// Every `{% … %}` and `{{ … }}` of `text` with its span and its inside (without the
/// delimiters and whitespace-control dashes); comments and `{% raw %}` blocks skipped.
pub(super) fn tags(text: &str) -> Vec<(Range<usize>, &str)> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut raw = false;
    while let Some(off) = text[i..].find('{') {
        let start = i + off;
        let close = match text.get(start + 1..start + 2) {
            Some("%") => "%}",
            Some("{") => "}}",
            Some("#") => "#}",
            _ => {
                i = start + 1;
                continue;
            }
        };
        let Some(len) = text[start + 2..].find(close) else { break };
        let end = start + 2 + len + 2;
        let inner = text[start + 2..end - 2].trim_matches('-').trim();
        i = end;
        if close == "#}" {
            continue;
        }
        if raw {
            raw = !(close == "%}" && inner == "endraw");
            continue;
        }
        if close == "%}" && inner == "raw" {
            raw = true;
            continue;
        }
        out.push((start..end, inner));
    }
    out
}

/// The quoted strings of a tag (tera quotes with `"`, `'` or a backtick).
pub(super) fn quoted(inner: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = inner;
    while let Some(q) = rest.find(['"', '\'', '`']) {
        let quote = &rest[q..q + 1];
        let Some(len) = rest[q + 1..].find(quote) else { break };
        out.push(&rest[q + 1..q + 1 + len]);
        rest = &rest[q + 1 + len + 1..];
    }
    out
}

/// Macro calls in a tag: `ns::name(` → (ns, name).
fn calls(inner: &str) -> Vec<(&str, &str)> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = Vec::new();
    for (i, _) in inner.match_indices("::") {
        let ns_start = inner[..i].rfind(|c: char| !ident(c)).map_or(0, |p| p + 1);
        let after = &inner[i + 2..];
        let name_len = after.find(|c: char| !ident(c)).unwrap_or(after.len());
        if ns_start < i && name_len > 0 && after[name_len..].trim_start().starts_with('(') {
            out.push((&inner[ns_start..i], &after[..name_len]));
        }
    }
    out
}

/// The edges out of every node of one template file.
fn edges_of(file: &str, text: &str, names: &[&str], graph: &mut BTreeMap<Node, Vec<Edge>>) {
    let tags = tags(text);
    let mut imports: BTreeMap<&str, &str> = BTreeMap::new();
    for (_, inner) in &tags {
        if let Some(rest) = inner.strip_prefix("import ") {
            if let (Some(f), Some(ns)) = (quoted(rest).first(), rest.rsplit(" as ").next()) {
                imports.insert(ns.trim(), f);
            }
        }
    }
    let mut current = Node::Template(file.to_string());
    graph.entry(current.clone()).or_default();
    for (at, inner) in tags {
        let word = inner.split_whitespace().next().unwrap_or("");
        match word {
            "macro" => {
                let name = inner["macro".len()..].split('(').next().unwrap_or("").trim();
                current = Node::Macro(file.to_string(), name.to_string());
                graph.entry(current.clone()).or_default();
                continue;
            }
            "endmacro" => {
                current = Node::Template(file.to_string());
                continue;
            }
            "include" | "extends" => {
                let from = if word == "extends" { Node::Template(file.to_string()) } else { current.clone() };
                for name in quoted(inner).into_iter().filter(|n| names.contains(n)) {
                    graph.entry(from.clone()).or_default().push(Edge { to: Node::Template(name.to_string()), at: at.clone() });
                }
                continue;
            }
            _ => {}
        }
        for (ns, name) in calls(inner) {
            let target = if ns == "self" { Some(file) } else { imports.get(ns).copied() };
            if let Some(f) = target {
                graph.entry(current.clone()).or_default().push(Edge { to: Node::Macro(f.to_string(), name.to_string()), at: at.clone() });
            }
        }
    }
}

/// The cycle through `stack` closed by an edge back to `back`: its nodes, in order.
fn describe(cycle: &[Node]) -> String {
    let first = &cycle[0];
    match (cycle.len(), first) {
        (1, Node::Template(f)) => format!("{f} includes itself, so rendering it would never end"),
        (1, Node::Macro(f, m)) => format!("the macro {m} in {f} calls itself, so rendering it would never end"),
        _ => {
            let mut chain: Vec<String> = cycle.iter().map(Node::shown).collect();
            chain.push(first.shown());
            let what = if cycle.iter().all(|n| matches!(n, Node::Template(_))) {
                "templates include each other"
            } else {
                "macros call each other"
            };
            format!("{what} in a cycle ({}), so rendering would never end", chain.join(" → "))
        }
    }
}

/// Depth-first search from `node`; a cycle found is pushed to `found` as (its nodes, the
/// closing edge's file and span).
fn visit(
    node: &Node,
    graph: &BTreeMap<Node, Vec<Edge>>,
    state: &mut BTreeMap<Node, bool>,
    stack: &mut Vec<Node>,
    found: &mut Vec<(Vec<Node>, String, Range<usize>)>,
) {
    state.insert(node.clone(), false);
    stack.push(node.clone());
    for e in graph.get(node).into_iter().flatten() {
        match state.get(&e.to) {
            Some(false) => {
                let from = stack.iter().position(|n| *n == e.to).unwrap_or(0);
                found.push((stack[from..].to_vec(), node.file().to_string(), e.at.clone()));
            }
            Some(true) => {}
            None => visit(&e.to, graph, state, stack, found),
        }
    }
    stack.pop();
    state.insert(node.clone(), true);
}

/// One error per cycle of includes and macro calls among the templates `list` (name,
/// text), at the tag in `templates/<name>` that closes it; empty when there is none.
/// Deterministic: nodes and tags are visited in name and text order.
pub fn find(list: &[(String, String)]) -> Vec<Diagnostic> {
    let names: Vec<&str> = list.iter().map(|(n, _)| n.as_str()).collect();
    let mut graph = BTreeMap::new();
    for (name, text) in list {
        edges_of(name, text, &names, &mut graph);
    }
    let mut state = BTreeMap::new();
    let mut found = Vec::new();
    for node in graph.keys() {
        if !state.contains_key(node) {
            visit(node, &graph, &mut state, &mut Vec::new(), &mut found);
        }
    }
    found
        .into_iter()
        .map(|(cycle, file, at)| {
            Diagnostic::error(Code::TemplateCycle, format!("templates/{file}"), at, describe(&cycle))
                .with_label("this closes the cycle")
                .with_hint(
                    "break the cycle: tera follows it until the stack overflows (recursive macros are refused, even ones that would stop)",
                )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(items: &[(&str, &str)]) -> Vec<(String, String)> {
        items.iter().map(|(n, t)| (n.to_string(), t.to_string())).collect()
    }

    fn messages(items: &[(&str, &str)]) -> Vec<String> {
        find(&list(items)).into_iter().map(|d| format!("{} {:?} {}", d.origin.file().unwrap(), d.span, d.message)).collect()
    }

    #[test]
    fn self_includes_include_cycles_and_recursive_macros_are_found() {
        assert_eq!(
            messages(&[("a.html", "x {% include \"a.html\" %}")]),
            ["templates/a.html 2..24 a.html includes itself, so rendering it would never end"]
        );
        assert_eq!(
            messages(&[("a.html", "{%- include 'b.html' -%}"), ("b.html", "{% include \"a.html\" %}")]),
            ["templates/b.html 0..22 templates include each other in a cycle (a.html → b.html → a.html), so rendering would never end"]
        );
        assert_eq!(
            messages(&[("m.html", "{% macro f(n) %}{{ self::f(n=n) }}{% endmacro f %}")]),
            ["templates/m.html 16..34 the macro f in m.html calls itself, so rendering it would never end"]
        );
        let mutual = messages(&[
            ("m.html", "{% import \"m.html\" as m %}{% macro f() %}{{ m::g() }}{% endmacro %}{% macro g() %}{% if true %}{{ self::f() }}{% endif %}{% endmacro %}"),
            ("page.html", "{% import \"m.html\" as mm %}{{ mm::f() }}"),
        ]);
        assert_eq!(mutual.len(), 1, "{mutual:?}");
        assert!(mutual[0].contains("macros call each other in a cycle (m.html::f → m.html::g → m.html::f)"), "{mutual:?}");
    }

    #[test]
    fn ordinary_templates_pass() {
        // The built-ins, a macro used twice, an include of another template, raw and
        // comment text that only looks like an include.
        let mut l: Vec<(String, String)> =
            crate::view::REPOSITORY_THEME.templates.iter().map(|(n, t)| (n.to_string(), t.to_string())).collect();
        l.extend(list(&[
            ("m.html", "{% macro f(n) %}<b>{{ n }}</b>{% endmacro %}{% macro g() %}{{ self::f(n=1) }}{{ self::f(n=2) }}{% endmacro %}"),
            ("p.html", "{% import \"m.html\" as m %}{{ m::g() }}{% include \"q.html\" %}"),
            ("q.html", "{# {% include \"q.html\" %} #}{% raw %}{% include \"q.html\" %}{% endraw %} text {{ 'a::b(' }}"),
        ]));
        assert_eq!(find(&l).len(), 0, "{:?}", find(&l));
    }
}
