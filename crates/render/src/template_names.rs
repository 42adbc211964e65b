//! Templates that name a template the site does not have: `{% extends "x.html" %}`,
//! `{% import "x.html" as m %}`, or `{% include "x.html" %}` (an include with a list
//! needs one of its names; `ignore missing` needs none). Found in the loaded template
//! texts by the site crate's `pipeline::validate`, so `check` reports them as `build` does, and at
//! the quoted name, before tera compiles anything.
//!
//! Pure: takes the `(name, text)` list of [`crate::SiteFiles::templates`].

use std::ops::Range;

use super::template_cycles::{quoted, tags};
use countersign_core::diag::{Code, Diagnostic};

/// The quoted template names of a tag's inside, with their byte ranges in `text`, where
/// `inner` is a slice of `text`.
fn names_in<'a>(text: &str, inner: &'a str) -> Vec<(&'a str, Range<usize>)> {
    let base = inner.as_ptr() as usize - text.as_ptr() as usize;
    // `quoted` returns slices of `inner`.
    quoted(inner)
        .into_iter()
        .map(|name| {
            let at = base + (name.as_ptr() as usize - inner.as_ptr() as usize);
            (name, at..at + name.len())
        })
        .collect()
}

/// One error per `extends`, `import` or `include` of the templates `list` (name, text)
/// that names no template of `list`, at the name in `templates/<file>`; empty when every
/// name exists. Deterministic: templates in list order, tags in text order.
pub fn unknown(list: &[(String, String)]) -> Vec<Diagnostic> {
    let exists = |n: &str| list.iter().any(|(name, _)| name == n);
    let mut diags = Vec::new();
    for (file, text) in list {
        for (tag, inner) in tags(text) {
            let word = inner.split_whitespace().next().unwrap_or("");
            let names = match word {
                "extends" | "import" => names_in(text, inner).into_iter().take(1).collect(),
                "include" if !inner.split_whitespace().collect::<Vec<_>>().ends_with(&["ignore", "missing"]) => names_in(text, inner),
                _ => continue,
            };
            if names.is_empty() || names.iter().any(|(n, _)| exists(n)) {
                continue;
            }
            let (name, span) = names[0].clone();
            let span = if span.is_empty() { tag } else { span };
            diags.push(unknown_diag(list, file, word, name, span));
        }
    }
    diags
}

/// The diagnostic for `file`'s `word` (extends, import, include) naming `name`, at `span`.
fn unknown_diag(list: &[(String, String)], file: &str, word: &str, name: &str, span: Range<usize>) -> Diagnostic {
    let verb = match word {
        "extends" => "extends",
        "import" => "imports macros from",
        _ => "includes",
    };
    let mut known: Vec<&str> = list.iter().map(|(n, _)| n.as_str()).collect();
    known.sort();
    Diagnostic::error(Code::UnknownTemplate, format!("templates/{file}"), span, format!("{file} {verb} `{name}`, which is not a template"))
        .with_label("no such template")
        .with_hint(format!(
            "put {name} in templates/, or name one of the templates: {} (`{{% include \"…\" ignore missing %}}` may name none)",
            known.join(", ")
        ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(items: &[(&str, &str)]) -> Vec<(String, String)> {
        items.iter().map(|(n, t)| (n.to_string(), t.to_string())).collect()
    }

    fn found(items: &[(&str, &str)]) -> Vec<(String, String)> {
        let l = list(items);
        unknown(&l)
            .into_iter()
            .map(|d| {
                assert_eq!(d.code, Code::UnknownTemplate);
                let text = &l.iter().find(|(n, _)| Some(format!("templates/{n}").as_str()) == d.origin.file()).unwrap().1;
                (d.origin.file().unwrap().to_string(), text[d.span.clone()].to_string())
            })
            .collect()
    }

    #[test]
    fn unknown_parents_imports_and_includes_are_found_at_their_names() {
        let t = [
            ("base.html", "<p>{% block b %}{% endblock %}</p>"),
            ("a.html", "{% extends \"layout.html\" %}"),
            ("b.html", "{% import 'm.html' as m %}{% include \"base.html\" %}{%- include `gone.html` -%}"),
        ];
        let want = [("templates/a.html", "layout.html"), ("templates/b.html", "m.html"), ("templates/b.html", "gone.html")];
        assert_eq!(found(&t), want.map(|(f, n)| (f.to_string(), n.to_string())));
    }

    #[test]
    fn names_that_exist_ignore_missing_lists_and_raw_text_pass() {
        let t = [
            ("base.html", "{% raw %}{% include \"nowhere.html\" %}{% endraw %}{# {% extends \"x.html\" %} #}"),
            ("a.html", "{% extends \"base.html\" %}{% include \"nowhere.html\" ignore missing %}"),
            ("b.html", "{% include [\"nowhere.html\", \"a.html\"] %}<p>\"extends 'x.html'\"</p>"),
        ];
        assert_eq!(found(&t), vec![]);
        // A list none of whose names exists points at its first name.
        assert_eq!(found(&[("a.html", "{% include [\"x.html\", \"y.html\"] %}")]), [("templates/a.html".into(), "x.html".into())]);
    }
}
