//! `plot: table` — an HTML table from a census result.
//!
//! Data (`from:`): either a list of row objects, or an object whose values are the rows
//! (its keys become the first column). A row may also be a plain value, shown in a single
//! column.
//! Options: see [`KIND`] (printed by `countersign figures table`).
//!
//! Cells: numbers as above; booleans as "yes"/"no"; null as "—"; a `{min, max}` object as
//! "min to max" (one number when equal); a `{num, den}` object per `format`; a pair object
//! with `a` and `b` as "a–b"; a list as its items joined by ", ". Everything is escaped.
//! [`at`] is the sub-path reader every kind here uses.

use serde::Deserialize;
use serde_json::{Map, Value};

use countersign_core::check::rational::group;
use countersign_core::text::escape_html as escape;

use super::{options, Drawn, FigureError, Kind, Meta, OptionDoc};

/// `plot: table`: its data shape, options and an example.
pub const KIND: Kind = Kind {
    name: "table",
    draw,
    summary: "an HTML table from a census result",
    data: "a list of row objects, or an object whose values are the rows (its keys become the first column); \
           a row may be a plain value, shown in one column. Cells: numbers with thousands separators, booleans as \
           yes/no, null as —, {min, max} as \"min to max\", {num, den} per the column's format, {a, b} as a–b, \
           a list as its items joined by \", \"",
    options: &[
        OptionDoc {
            name: "columns",
            ty: "list of sub-paths or {path, label, format}",
            default: "every field of the first row that is not a list or object of objects",
            meaning: "the columns, each a sub-path into a row (`reading`, `right.min`, `pairs[0].a`) or {path, label, format}, \
                      format being number (the default), percent (one decimal), ratio (num/den) or plain",
        },
        OptionDoc {
            name: "rows",
            ty: "list of keys",
            default: "all, in the result's order",
            meaning: "for object data, which rows to show and in what order",
        },
        OptionDoc { name: "key_label", ty: "string", default: "empty", meaning: "the header of the key column, for object data" },
        OptionDoc { name: "keys", ty: "bool", default: "true", meaning: "show the key column (false drops it)" },
        OptionDoc { name: "transpose", ty: "bool", default: "false", meaning: "rows become columns (for a map such as coins → counts)" },
    ],
    example: "columns: [n, {path: right, label: Read right, format: percent}]\nkey_label: Coins",
    example_data:
        "{\"2\": {\"n\": 66, \"right\": {\"num\": 66, \"den\": 66}}, \"3\": {\"n\": 220, \"right\": {\"num\": 180, \"den\": 220}}}",
    fields: super::reference::fields::<Options>,
};

/// The value at `path` below `v`: keys separated by `.`, list indices as `[i]` (a key
/// that is an integer also indexes a list). The empty path is `v` itself. `None` when any
/// step is missing.
pub fn at<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    let mut cur = v;
    let normalised = path.replace('[', ".").replace(']', "");
    for step in normalised.split('.').filter(|s| !s.is_empty()) {
        cur = match cur {
            Value::Object(m) => m.get(step)?,
            Value::Array(a) => a.get(step.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Column {
    Path(String),
    Full {
        path: String,
        #[serde(default)]
        label: Option<String>,
        #[serde(default)]
        format: Option<Format>,
    },
}

#[derive(Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum Format {
    Number,
    Percent,
    Ratio,
    Plain,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Options {
    #[serde(default)]
    columns: Option<Vec<Column>>,
    #[serde(default)]
    rows: Option<Vec<Value>>,
    #[serde(default)]
    key_label: Option<String>,
    #[serde(default = "yes")]
    keys: bool,
    #[serde(default)]
    transpose: bool,
}

fn yes() -> bool {
    true
}

/// Most cells a table may have.
pub const MAX_CELLS: usize = 5_000;

fn number_text(n: &serde_json::Number, fmt: Format) -> String {
    if fmt == Format::Plain {
        return n.to_string();
    }
    if let Some(i) = n.as_i64() {
        if fmt == Format::Percent {
            return format!("{:.1}%", i as f64 * 100.0);
        }
        return group(&num_bigint::BigInt::from(i));
    }
    if let Some(u) = n.as_u64() {
        return group(&num_bigint::BigInt::from(u));
    }
    let f = n.as_f64().unwrap_or(0.0);
    if fmt == Format::Percent {
        format!("{:.1}%", f * 100.0)
    } else {
        format!("{f}")
    }
}

/// The text of one cell (not yet escaped).
fn cell_text(v: &Value, fmt: Format) -> String {
    match v {
        Value::Null => "—".into(),
        Value::Bool(b) => if *b { "yes" } else { "no" }.into(),
        Value::Number(n) => number_text(n, fmt),
        Value::String(s) => s.clone(),
        Value::Array(a) => a.iter().map(|x| cell_text(x, fmt)).collect::<Vec<_>>().join(", "),
        Value::Object(m) => {
            if let (Some(lo), Some(hi)) = (m.get("min"), m.get("max")) {
                let (l, h) = (cell_text(lo, fmt), cell_text(hi, fmt));
                return if l == h { l } else { format!("{l} to {h}") };
            }
            if let (Some(Value::Number(n)), Some(Value::Number(d))) = (m.get("num"), m.get("den")) {
                return match fmt {
                    Format::Percent => {
                        let (n, d) = (n.as_f64().unwrap_or(0.0), d.as_f64().unwrap_or(1.0));
                        if d == 0.0 {
                            "—".into()
                        } else {
                            format!("{:.1}%", 100.0 * n / d)
                        }
                    }
                    _ => format!("{n}/{d}"),
                };
            }
            if let (Some(a), Some(b)) = (m.get("a"), m.get("b")) {
                return format!("{}–{}", cell_text(a, Format::Plain), cell_text(b, Format::Plain));
            }
            serde_json::to_string(v).unwrap_or_default()
        }
    }
}

/// Is this value worth a default column (a scalar, a list of scalars, or a small
/// recognised object)?
fn default_column(v: &Value) -> bool {
    match v {
        Value::Array(a) => a.iter().all(|x| !x.is_object() && !x.is_array()),
        Value::Object(m) => m.contains_key("min") || m.contains_key("num"),
        _ => true,
    }
}

/// Draw a table; see the module docs for data and options.
pub fn draw(data: &Value, opts: &Map<String, Value>, _meta: &Meta) -> Result<Drawn, FigureError> {
    let o: Options = options(opts, &KIND)?;
    let hint = HINT;
    let rows = select_rows(data, &o)?;
    if rows.is_empty() {
        return Err(FigureError::data("the table has no rows", hint));
    }
    let columns = select_columns(&o, &rows)?;
    if rows.len().saturating_mul(columns.len() + 1) > MAX_CELLS {
        return Err(FigureError::data(
            format!("{} rows by {} columns is over {MAX_CELLS} cells", rows.len(), columns.len()),
            "show a slice of the result",
        ));
    }
    let with_keys = o.keys && rows.iter().any(|(k, _)| k.is_some());
    let (header, body) = text_matrix(&o, &rows, &columns, with_keys)?;
    let (header, body) = if o.transpose {
        let mut all = vec![header];
        all.extend(body);
        let width = all.iter().map(Vec::len).max().unwrap_or(0);
        let t: Vec<Vec<String>> = (0..width).map(|c| all.iter().map(|r| r.get(c).cloned().unwrap_or_default()).collect()).collect();
        let mut it = t.into_iter();
        let h = it.next().unwrap_or_default();
        (h, it.collect())
    } else {
        (header, body)
    };
    let text = std::iter::once(&header).chain(&body).flatten().map(String::as_str).collect::<Vec<_>>().join(" ");
    Ok(Drawn::Html { html: table_html(&header, &body, with_keys || o.transpose), text })
}

/// The hint of the table's data errors.
const HINT: &str = "a table needs a list of rows or an object of rows, e.g. the `rules.low_bits` map of a census";

/// A column: (path in each row, header label, format).
type TableColumn = (String, String, Format);

/// The rows, each `(key, row)` (a key for object data): all, or those `rows` names.
///
/// Errors: data neither a list nor an object; `rows` on a list; a name not in the data.
fn select_rows<'a>(data: &'a Value, o: &Options) -> Result<Vec<(Option<String>, &'a Value)>, FigureError> {
    let hint = HINT;
    // (key, row)
    let mut rows: Vec<(Option<String>, &Value)> = match data {
        Value::Array(a) => a.iter().map(|r| (None, r)).collect(),
        Value::Object(m) => m.iter().map(|(k, r)| (Some(k.clone()), r)).collect(),
        _ => return Err(FigureError::data("the data is neither a list nor an object", hint)),
    };
    if let Some(wanted) = &o.rows {
        let Value::Object(m) = data else {
            return Err(FigureError { message: "`rows` needs object data".into(), key: Some("rows".into()), hint: hint.into() });
        };
        let mut picked = Vec::new();
        for w in wanted {
            let k = match w {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let r = m.get(&k).ok_or_else(|| FigureError {
                message: format!("no row `{k}` in the data"),
                key: Some("rows".into()),
                hint: super::reference::present("rows", &m.keys().cloned().collect::<Vec<_>>()),
            })?;
            picked.push((Some(k), r));
        }
        rows = picked;
    }
    Ok(rows)
}

/// The columns: those of `columns`, else the first row's number-like fields (or the row
/// itself when it is not an object). Errors: no columns.
fn select_columns(o: &Options, rows: &[(Option<String>, &Value)]) -> Result<Vec<TableColumn>, FigureError> {
    let columns: Vec<(String, String, Format)> = match &o.columns {
        Some(cols) => cols
            .iter()
            .map(|c| match c {
                Column::Path(p) => (p.clone(), p.clone(), Format::Number),
                Column::Full { path, label, format } => {
                    (path.clone(), label.clone().unwrap_or_else(|| path.clone()), format.unwrap_or(Format::Number))
                }
            })
            .collect(),
        None => match rows[0].1 {
            Value::Object(m) => m.iter().filter(|(_, v)| default_column(v)).map(|(k, _)| (k.clone(), k.clone(), Format::Number)).collect(),
            _ => vec![(String::new(), String::new(), Format::Number)],
        },
    };
    if columns.is_empty() {
        return Err(FigureError {
            message: "no columns to show".into(),
            key: Some("columns".into()),
            hint: "name them under `columns:`".into(),
        });
    }
    Ok(columns)
}

/// The table as text: the header row and the body rows, with the keys first when
/// `with_keys`. Errors: a row without a column's path.
fn text_matrix(
    o: &Options,
    rows: &[(Option<String>, &Value)],
    columns: &[TableColumn],
    with_keys: bool,
) -> Result<(Vec<String>, Vec<Vec<String>>), FigureError> {
    // Build a matrix of text: header row then body rows.
    let mut header: Vec<String> = Vec::new();
    if with_keys {
        header.push(o.key_label.clone().unwrap_or_default());
    }
    header.extend(columns.iter().map(|c| c.1.clone()));
    let mut body: Vec<Vec<String>> = Vec::new();
    for (key, row) in rows {
        let mut line = Vec::new();
        if with_keys {
            line.push(key.clone().unwrap_or_default());
        }
        for (path, _, fmt) in columns {
            let v = at(row, path).ok_or_else(|| FigureError {
                message: format!("a row has no `{path}`"),
                key: Some("columns".into()),
                hint: "column paths are relative to each row, e.g. `right.min` or `pairs[0].a`".into(),
            })?;
            line.push(cell_text(v, *fmt));
        }
        body.push(line);
    }
    Ok((header, body))
}

/// The HTML table of `header` and `body`, escaped; each body row's first cell a row
/// header when `first_is_key`.
fn table_html(header: &[String], body: &[Vec<String>], first_is_key: bool) -> String {
    let mut html = String::from("<table class=\"census-table\">\n<thead><tr>");
    for h in header {
        html.push_str(&format!("<th scope=\"col\">{}</th>", escape(h)));
    }
    html.push_str("</tr></thead>\n<tbody>\n");
    for line in body {
        html.push_str("<tr>");
        for (i, cell) in line.iter().enumerate() {
            if i == 0 && first_is_key {
                html.push_str(&format!("<th scope=\"row\">{}</th>", escape(cell)));
            } else {
                html.push_str(&format!("<td>{}</td>", escape(cell)));
            }
        }
        html.push_str("</tr>\n");
    }
    html.push_str("</tbody>\n</table>\n");
    html
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn meta() -> Meta<'static> {
        Meta { id: "t", caption: "c", alt: "a", number: 1 }
    }

    fn html(d: Drawn) -> String {
        match d {
            Drawn::Html { html, .. } => html,
            Drawn::Svg(_) => panic!("a table is HTML"),
        }
    }

    #[test]
    fn object_rows_with_chosen_columns() {
        let data = json!({"2": {"right": {"min": 120, "max": 120}, "n": 1001}, "8": {"right": {"min": 24, "max": 80}, "n": 165}});
        let mut o = Map::new();
        o.insert("columns".into(), json!([{"path": "right", "label": "Right"}, "n"]));
        o.insert("key_label".into(), json!("Coins"));
        let h = html(draw(&data, &o, &meta()).unwrap());
        assert!(h.contains("<th scope=\"col\">Coins</th><th scope=\"col\">Right</th><th scope=\"col\">n</th>"));
        assert!(h.contains("<th scope=\"row\">8</th><td>24 to 80</td><td>165</td>"));
        assert!(h.contains("<td>120</td><td>1,001</td>"));
        assert_eq!(h, html(draw(&data, &o, &meta()).unwrap()));
    }

    #[test]
    fn list_rows_pairs_ratios_and_escaping() {
        let data = json!([{"pairs": [{"a": 0, "b": 4}, {"a": 1, "b": 2}], "s": {"num": 1, "den": 3}, "ok": true, "x": "<b>"}]);
        let mut o = Map::new();
        o.insert("columns".into(), json!(["pairs", {"path": "s", "format": "percent"}, "ok", "x"]));
        let h = html(draw(&data, &o, &meta()).unwrap());
        assert!(h.contains("<td>0–4, 1–2</td><td>33.3%</td><td>yes</td><td>&lt;b&gt;</td>"), "{h}");
    }

    #[test]
    fn transpose_and_errors() {
        let data = json!({"2": {"n": 1}, "3": {"n": 2}});
        let mut o = Map::new();
        o.insert("transpose".into(), json!(true));
        let h = html(draw(&data, &o, &meta()).unwrap());
        assert!(h.contains("<th scope=\"row\">n</th><td>1</td><td>2</td>"), "{h}");
        let mut bad = Map::new();
        bad.insert("columns".into(), json!(["missing"]));
        assert_eq!(draw(&data, &bad, &meta()).unwrap_err().key.as_deref(), Some("columns"));
        let mut bad = Map::new();
        bad.insert("colour".into(), json!(1));
        assert!(draw(&data, &bad, &meta()).is_err());
        assert!(draw(&json!(3), &Map::new(), &meta()).is_err());
        let mut rows = Map::new();
        rows.insert("rows".into(), json!([9]));
        assert_eq!(draw(&data, &rows, &meta()).unwrap_err().key.as_deref(), Some("rows"));
    }

    #[test]
    fn numbers_are_grouped_as_prose_groups_them() {
        let n = |v: i64| number_text(&serde_json::Number::from(v), Format::Number);
        assert_eq!(n(-1234567), "−1,234,567");
        assert_eq!(n(1234), "1,234");
        assert_eq!(number_text(&serde_json::Number::from(u64::MAX), Format::Number), "18,446,744,073,709,551,615");
    }

    #[test]
    fn paths() {
        let v = json!({"a": [{"b": 5}], "m": {"2": 7}});
        assert_eq!(at(&v, "a[0].b"), Some(&json!(5)));
        assert_eq!(at(&v, "m.2"), Some(&json!(7)));
        assert_eq!(at(&v, ""), Some(&v));
        assert_eq!(at(&v, "a[3]"), None);
    }
}
