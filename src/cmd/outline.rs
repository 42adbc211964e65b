//! An outline of a census result for a reader at a terminal (`countersign run` without
//! `--json`): the paths a claim can name, with their types and sizes, instead of the whole
//! JSON (one call of a big census prints thousands of lines of it).

use serde_json::Value;

use countersign_core::text::count;

/// At most this many lines are printed; the last says how many were left out.
pub const MAX_LINES: usize = 200;

/// Items of a list of numbers or strings shown before `…`.
const SHOWN_ITEMS: usize = 8;

/// The outline of `v`, a census result: one line per path, as a claim writes it after its
/// block's id (`{{ id.positions = 14 }}`),
///
/// ```text
/// positions = 14
/// slices: list of 13 objects; slices[0] (and each other item) has:
///   slices[0].period = 10
/// values: list of 30 numbers: 0, 1, 0, 1, 2, 3, 2, 0, …
/// ```
///
/// A list of objects or lists is shown by its first item's paths (indented), since its
/// items usually share their shape. At most [`MAX_LINES`] lines.
pub fn outline(v: &Value) -> String {
    let mut lines = Vec::new();
    walk(v, "", 0, &mut lines);
    let total = lines.len();
    if total > MAX_LINES {
        lines.truncate(MAX_LINES - 1);
        lines.push(format!("… {} more lines; `--json` prints the whole result", total - (MAX_LINES - 1)));
    }
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

fn walk(v: &Value, path: &str, depth: usize, lines: &mut Vec<String>) {
    let indent = "  ".repeat(depth);
    match v {
        Value::Object(map) if map.is_empty() => lines.push(format!("{indent}{}: empty object", or_result(path))),
        Value::Object(map) => {
            for (k, x) in map {
                let path = if path.is_empty() { key(k) } else { format!("{path}.{}", key(k)) };
                walk(x, &path, depth, lines);
            }
        }
        Value::Array(items) => list(items, path, depth, lines),
        scalar => lines.push(format!("{indent}{} = {}", or_result(path), shown(scalar))),
    }
}

/// `path`, or "the result" for the whole of it.
fn or_result(path: &str) -> &str {
    if path.is_empty() {
        "the result"
    } else {
        path
    }
}

fn list(items: &[Value], path: &str, depth: usize, lines: &mut Vec<String>) {
    let indent = "  ".repeat(depth);
    let Some(first) = items.first() else {
        lines.push(format!("{indent}{}: empty list", or_result(path)));
        return;
    };
    let n = items.len();
    // "list of 1 number", "list of 2 numbers".
    let listed = count(n, kind_of(items));
    if items.iter().all(|x| !x.is_array() && !x.is_object()) {
        let mut shown_items: Vec<String> = items.iter().take(SHOWN_ITEMS).map(shown).collect();
        if n > SHOWN_ITEMS {
            shown_items.push("…".into());
        }
        lines.push(format!("{indent}{}: list of {listed}: {}", or_result(path), shown_items.join(", ")));
        return;
    }
    let each = if n > 1 { " (and each other item)" } else { "" };
    lines.push(format!("{indent}{}: list of {listed}; {path}[0]{each} has:", or_result(path)));
    walk(first, &format!("{path}[0]"), depth + 1, lines);
}

/// What the items of a list are, as a noun for [`count`]: "number", "object", … or "value"
/// when mixed.
fn kind_of(items: &[Value]) -> &'static str {
    let name = |x: &Value| match x {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "object",
    };
    let first = name(&items[0]);
    if items.iter().all(|x| name(x) == first) {
        first
    } else {
        "value"
    }
}

/// A key as a claim's path writes it (letters, digits, `_`, `-`); any other key, which no
/// claim can name, quoted as JSON.
fn key(k: &str) -> String {
    let bare = !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare {
        k.to_string()
    } else {
        serde_json::to_string(k).unwrap_or_default()
    }
}

/// A scalar as JSON, a long string cut to 60 characters.
fn shown(v: &Value) -> String {
    match v {
        Value::String(s) if s.chars().count() > 60 => {
            format!(
                "{}…\" ({} characters)",
                serde_json::to_string(&s.chars().take(60).collect::<String>()).unwrap_or_default().trim_end_matches('"'),
                s.chars().count()
            )
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_lists_and_lists_of_objects_are_outlined() {
        let v = serde_json::json!({
            "positions": 14,
            "name": "sylver",
            "values": (0..30).collect::<Vec<u32>>(),
            "slices": [{ "period": 10, "from": [1, 2] }, { "period": 6, "from": [3] }],
            "empty": [],
            "odd key": true,
        });
        let text = outline(&v);
        let want = "positions = 14\n\
                    name = \"sylver\"\n\
                    values: list of 30 numbers: 0, 1, 2, 3, 4, 5, 6, 7, …\n\
                    slices: list of 2 objects; slices[0] (and each other item) has:\n  \
                    slices[0].period = 10\n  \
                    slices[0].from: list of 2 numbers: 1, 2\n\
                    empty: empty list\n\
                    \"odd key\" = true\n";
        assert_eq!(text, want);
        assert_eq!(
            outline(&serde_json::json!([[1], [2]])),
            "the result: list of 2 lists; [0] (and each other item) has:\n  [0]: list of 1 number: 1\n"
        );
        assert_eq!(outline(&serde_json::json!(7)), "the result = 7\n");
        assert_eq!(outline(&serde_json::json!([{ "a": 1 }])), "the result: list of 1 object; [0] has:\n  [0].a = 1\n");
    }

    #[test]
    fn a_huge_result_is_cut_at_the_line_limit() {
        let big: serde_json::Map<String, Value> = (0..1000).map(|i| (format!("k{i}"), Value::from(i))).collect();
        let text = outline(&Value::Object(big));
        assert_eq!(text.lines().count(), MAX_LINES);
        assert!(text.ends_with(&format!("… {} more lines; `--json` prints the whole result\n", 1000 - (MAX_LINES - 1))), "{text}");
        let long = outline(&serde_json::json!({ "s": "x".repeat(100) }));
        assert_eq!(long, format!("s = \"{}…\" (100 characters)\n", "x".repeat(60)));
    }
}
