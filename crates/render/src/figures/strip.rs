//! `plot: strip` — one or more strips of squares with coins, and pairs of coins drawn as
//! arcs above the strip.
//!
//! Data (`from:`): an object (e.g. a `welter.position` result) read through sub-paths.
//! Options: see [`KIND`] (printed by `countersign figures strip`).
//!
//! Example: a position's low-bit matching, each arc labelled with its animating value; or
//! the five rules' matchings of one position, one strip each.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::table::at;
use super::{finish_svg, options, palette, Drawn, FigureError, Kind, Meta, OptionDoc};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StripSpec {
    #[serde(default)]
    label: Option<String>,
    #[serde(default)]
    pairs: Option<String>,
    #[serde(default)]
    leftover: Option<String>,
    #[serde(default)]
    note: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Options {
    #[serde(default = "default_squares")]
    squares: String,
    #[serde(default)]
    length: Option<u32>,
    #[serde(default)]
    pairs: Option<String>,
    #[serde(default)]
    pair_label: Option<String>,
    #[serde(default)]
    leftover: Option<String>,
    #[serde(default)]
    strips: Option<Vec<StripSpec>>,
    #[serde(default)]
    note_prefix: String,
}

fn default_squares() -> String {
    "squares".into()
}

/// `plot: strip`: its data shape, options and an example.
pub const KIND: Kind = Kind {
    name: "strip",
    draw,
    summary: "one or more strips of squares with coins, pairs of squares joined by arcs above the strip",
    data: "an object (e.g. a welter.position result) that the options' sub-paths read: a list of occupied \
           squares, lists of pairs ([a, b] or {a, b}), a leftover square; at most 128 squares and 12 strips",
    options: &[
        OptionDoc { name: "squares", ty: "sub-path", default: "squares", meaning: "the list of occupied squares (integers)" },
        OptionDoc { name: "length", ty: "integer", default: "the highest coin plus two", meaning: "how many squares to draw" },
        OptionDoc {
            name: "pairs",
            ty: "sub-path",
            default: "none (no arcs)",
            meaning: "a list of pairs, each [a, b] or {a, b}, drawn as arcs; a pair may join any two squares, occupied or not",
        },
        OptionDoc { name: "pair_label", ty: "field name", default: "none", meaning: "a field of each pair object printed above its arc" },
        OptionDoc {
            name: "leftover",
            ty: "sub-path",
            default: "none",
            meaning: "a square (or null) drawn in the accent colour: a coin there is filled, an empty square ringed",
        },
        OptionDoc {
            name: "strips",
            ty: "list of {label, pairs, leftover, note}",
            default: "one strip from `pairs` and `leftover`",
            meaning: "several strips of the same coins, one per matching; `pairs`, `leftover` and `note` are sub-paths \
                      as above (they replace the top-level ones); `note` is a value printed under the label",
        },
        OptionDoc {
            name: "note_prefix",
            ty: "string",
            default: "empty",
            meaning: "text printed before every strip's note (e.g. \"reads \")",
        },
    ],
    example: "pairs: low.pairs\npair_label: animating\nleftover: low.leftover",
    example_data: "{\"squares\": [1, 2, 4, 7], \"low\": {\"pairs\": [{\"a\": 1, \"b\": 7, \"animating\": 5}, \
                   {\"a\": 2, \"b\": 4, \"animating\": 5}], \"leftover\": null}}",
    fields: super::reference::fields::<Options>,
};

/// Most squares a strip may have.
pub const MAX_LENGTH: u32 = 128;
/// Most strips in one figure.
pub const MAX_STRIPS: usize = 12;

fn err(key: &str, message: String, hint: &str) -> FigureError {
    FigureError { message, key: Some(key.into()), hint: hint.into() }
}

fn fail<E: std::fmt::Display>(e: E) -> FigureError {
    FigureError::data(format!("cannot draw: {e}"), "")
}

fn square_of(v: &Value) -> Option<u32> {
    v.as_u64().and_then(|x| u32::try_from(x).ok())
}

/// Pairs `(a, b, label)` from a list value.
fn read_pairs(v: &Value, label: Option<&str>, key: &str) -> Result<Vec<(u32, u32, Option<String>)>, FigureError> {
    let hint = "pairs are a list of [a, b] or of objects with fields a and b";
    let list = v.as_array().ok_or_else(|| err(key, "the pairs are not a list".into(), hint))?;
    let mut out = Vec::new();
    for p in list {
        let (a, b, l) = match p {
            Value::Array(x) if x.len() == 2 => (square_of(&x[0]), square_of(&x[1]), None),
            Value::Object(m) => (
                m.get("a").and_then(square_of),
                m.get("b").and_then(square_of),
                label.and_then(|f| m.get(f)).map(|x| match x {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                }),
            ),
            _ => (None, None, None),
        };
        match (a, b) {
            (Some(a), Some(b)) => out.push((a.min(b), a.max(b), l)),
            _ => return Err(err(key, format!("a pair is not two squares: {p}"), hint)),
        }
    }
    Ok(out)
}

/// Draw strips; see the module docs for data and options.
pub fn draw(data: &Value, opts: &Map<String, Value>, meta: &Meta) -> Result<Drawn, FigureError> {
    let o: Options = options(opts, &KIND)?;
    let coins: Vec<u32> = at(data, &o.squares)
        .and_then(Value::as_array)
        .ok_or_else(|| err("squares", format!("no list of squares at `{}`", o.squares), "point `squares` at a list of integers"))?
        .iter()
        .map(|v| square_of(v).ok_or_else(|| err("squares", format!("{v} is not a square"), "squares are non-negative integers")))
        .collect::<Result<_, _>>()?;
    let rows = read_rows(data, &o)?;
    let length = strip_length(&o, &coins, &rows)?;
    let svg = render_strip(&o, &coins, &rows, length)?;
    Ok(Drawn::Svg(finish_svg(&svg, meta)))
}

/// A strip: (label, pairs as (low square, high square, arc label), leftover square, note).
type Row = (Option<String>, Vec<(u32, u32, Option<String>)>, Option<u32>, Option<String>);

/// The strips to draw: those of `strips`, else the one of `pairs` and `leftover`.
///
/// Errors: a path with nothing at it, a value that is not a square, too many strips.
fn read_rows(data: &Value, o: &Options) -> Result<Vec<Row>, FigureError> {
    let read_leftover = |path: &Option<String>, key: &str| -> Result<Option<u32>, FigureError> {
        match path {
            None => Ok(None),
            Some(p) => match at(data, p) {
                None => Err(err(key, format!("nothing at `{p}`"), "point it at a square or null")),
                Some(Value::Null) => Ok(None),
                Some(v) => square_of(v).map(Some).ok_or_else(|| err(key, format!("{v} is not a square"), "a square or null")),
            },
        }
    };
    let read_pairs_at = |path: &Option<String>, key: &str| -> Result<Vec<(u32, u32, Option<String>)>, FigureError> {
        match path {
            None => Ok(Vec::new()),
            Some(p) => {
                let v = at(data, p).ok_or_else(|| err(key, format!("nothing at `{p}`"), "point it at a list of pairs"))?;
                read_pairs(v, o.pair_label.as_deref(), key)
            }
        }
    };
    let rows: Vec<Row> = match &o.strips {
        Some(specs) => {
            if specs.is_empty() || specs.len() > MAX_STRIPS {
                return Err(err("strips", format!("{} strips; 1..={MAX_STRIPS} allowed", specs.len()), "list fewer strips"));
            }
            specs
                .iter()
                .map(|s| {
                    let note = match &s.note {
                        None => None,
                        Some(p) => Some(match at(data, p) {
                            None => return Err(err("strips", format!("nothing at `{p}`"), "point `note` at a value")),
                            Some(Value::String(t)) => t.clone(),
                            Some(v) => v.to_string(),
                        }),
                    };
                    Ok((s.label.clone(), read_pairs_at(&s.pairs, "strips")?, read_leftover(&s.leftover, "strips")?, note))
                })
                .collect::<Result<_, FigureError>>()?
        }
        None => vec![(None, read_pairs_at(&o.pairs, "pairs")?, read_leftover(&o.leftover, "leftover")?, None)],
    };
    Ok(rows)
}

/// The strip's length in squares: `length`, else two past the highest square shown.
///
/// Errors: a square or length over the limit, or a length that cannot show a square.
fn strip_length(o: &Options, coins: &[u32], rows: &[Row]) -> Result<u32, FigureError> {
    let highest = coins
        .iter()
        .copied()
        .chain(rows.iter().flat_map(|r| r.1.iter().map(|p| p.1)))
        .chain(rows.iter().filter_map(|r| r.2))
        .max()
        .unwrap_or(0);
    if highest >= MAX_LENGTH {
        return Err(FigureError::data(
            format!("square {highest} is beyond the longest strip drawn ({MAX_LENGTH} squares)"),
            "draw a shorter strip",
        ));
    }
    let length = o.length.unwrap_or(highest + 2);
    if length > MAX_LENGTH {
        return Err(err("length", format!("{length} squares is over the limit of {MAX_LENGTH}"), "draw a shorter strip"));
    }
    if length <= highest {
        return Err(err("length", format!("{length} squares cannot show square {highest}"), "give a longer strip, or leave `length` out"));
    }
    Ok(length)
}

/// An arc's height in px above the squares for a pair `span` squares apart: it grows
/// with the span, so nested arcs and their labels never coincide.
fn rise(span: i32, cell: i32) -> i32 {
    12 + span * cell * 3 / 10
}

/// The strips drawn as SVG (before `finish_svg`), `length` squares each.
fn render_strip(o: &Options, coins: &[u32], rows: &[Row], length: u32) -> Result<String, FigureError> {
    let cell: i32 = 34;
    let label_w: i32 = if rows.iter().any(|r| r.0.is_some()) { 120 } else { 16 };
    let max_span = rows.iter().flat_map(|r| r.1.iter().map(|p| p.1 - p.0)).max().unwrap_or(0) as i32;
    // Arc heights grow with the span, so nested arcs and their labels never coincide.
    let arc_h: i32 = if max_span == 0 { 10 } else { rise(max_span, cell) + 30 };
    let row_h = arc_h + cell + 26;
    let width = (label_w + cell * length as i32 + 16) as u32;
    let height = (rows.len() as i32 * row_h + 8) as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        // 14 is 11.3 px in the SVG (plotters writes n / 1.24), the least a reader is shown.
        let small = ("sans-serif", 14).into_font().color(&palette::FAINT).pos(Pos::new(HPos::Center, VPos::Top));
        let label_style = ("sans-serif", 16).into_font().color(&palette::INK).pos(Pos::new(HPos::Left, VPos::Center));
        let arc_text = ("sans-serif", 15).into_font().color(&palette::INK).pos(Pos::new(HPos::Center, VPos::Bottom));
        for (r, (label, pairs, leftover, note)) in rows.iter().enumerate() {
            let top = r as i32 * row_h + 4;
            let base = top + arc_h; // top edge of the squares
            if let Some(l) = label {
                root.draw(&Text::new(l.clone(), (6, base + cell / 2), label_style.clone())).map_err(fail)?;
            }
            if let Some(n) = note {
                let style = small.pos(Pos::new(HPos::Left, VPos::Top));
                root.draw(&Text::new(format!("{}{n}", o.note_prefix), (6, base + cell / 2 + 12), style)).map_err(fail)?;
            }
            for s in 0..length as i32 {
                let x = label_w + s * cell;
                root.draw(&Rectangle::new([(x, base), (x + cell, base + cell)], palette::FAINT.stroke_width(1))).map_err(fail)?;
                root.draw(&Text::new(s.to_string(), (x + cell / 2, base + cell + 4), small.clone())).map_err(fail)?;
            }
            for (i, &(a, b, ref text)) in pairs.iter().enumerate() {
                let colour = palette::SERIES[i % palette::SERIES.len()];
                draw_arc(&root, (a, b), text.as_deref(), colour, (label_w, base, cell), &arc_text)?;
            }
            for &s in coins {
                let x = label_w + s as i32 * cell + cell / 2;
                let fill = if Some(s) == *leftover { palette::ACCENT } else { palette::INK };
                root.draw(&Circle::new((x, base + cell / 2), cell / 2 - 6, fill.filled())).map_err(fail)?;
            }
            if let Some(l) = leftover.filter(|l| !coins.contains(l)) {
                let x = label_w + l as i32 * cell + cell / 2;
                root.draw(&Circle::new((x, base + cell / 2), cell / 2 - 6, palette::ACCENT.stroke_width(3))).map_err(fail)?;
            }
        }
        root.present().map_err(fail)?;
    }
    Ok(svg)
}

/// One pair's arc from square `a` to square `b` above a strip whose squares (`cell` px)
/// start at x = `label_w` with their top edge at y = `base`, and its label above it.
fn draw_arc(
    root: &DrawingArea<SVGBackend<'_>, Shift>,
    (a, b): (u32, u32),
    text: Option<&str>,
    colour: RGBColor,
    (label_w, base, cell): (i32, i32, i32),
    arc_text: &TextStyle<'_>,
) -> Result<(), FigureError> {
    let (xa, xb) = (label_w + a as i32 * cell + cell / 2, label_w + b as i32 * cell + cell / 2);
    let rx = (xb - xa) as f64 / 2.0;
    let ry = rise((b - a) as i32, cell) as f64;
    let cx = (xa + xb) as f64 / 2.0;
    let y0 = (base + cell / 2 - 12) as f64;
    let points: Vec<(i32, i32)> = (0..=48)
        .map(|k| {
            let t = std::f64::consts::PI * k as f64 / 48.0;
            ((cx - rx * t.cos()).round() as i32, (y0 - ry * t.sin()).round() as i32)
        })
        .collect();
    root.draw(&PathElement::new(points, colour.stroke_width(2))).map_err(fail)?;
    if let Some(t) = text {
        root.draw(&Text::new(t.to_string(), (cx.round() as i32, (y0 - ry).round() as i32 - 3), arc_text.clone())).map_err(fail)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn meta() -> Meta<'static> {
        Meta { id: "s", caption: "A strip", alt: "Coins", number: 1 }
    }

    fn opts(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn draws_deterministically() {
        let data = json!({"squares": [1, 2, 4, 7], "low": {"pairs": [{"a": 1, "b": 7, "animating": 5}, {"a": 2, "b": 4, "animating": 5}], "leftover": null}});
        let o = opts(json!({"pairs": "low.pairs", "pair_label": "animating", "leftover": "low.leftover"}));
        let a = draw(&data, &o, &meta()).unwrap();
        assert_eq!(a, draw(&data, &o, &meta()).unwrap());
        let Drawn::Svg(s) = a else { panic!("svg") };
        assert!(s.contains("<title id=\"s-title\">A strip</title>"));
        assert!(s.contains("\n5\n"));
        let several = opts(json!({"strips": [{"label": "low bits", "pairs": "low.pairs"}, {"label": "none", "note": "low.leftover"}]}));
        let Drawn::Svg(t) = draw(&data, &several, &meta()).unwrap() else { panic!("svg") };
        assert!(t.contains("low bits"));
    }

    #[test]
    fn bad_data_is_an_error() {
        let data = json!({"squares": [1, 2], "p": [[1, 5]], "far": [[1, 500]]});
        assert!(draw(&data, &opts(json!({"pairs": "p"})), &meta()).is_ok(), "arcs may join empty squares");
        assert!(draw(&data, &opts(json!({"pairs": "far"})), &meta()).is_err());
        assert_eq!(draw(&data, &opts(json!({"pairs": "p", "length": 4})), &meta()).unwrap_err().key.as_deref(), Some("length"));
        assert!(draw(&data, &opts(json!({"pairs": "p", "leftover": "squares[0]"})), &meta()).is_ok());
        assert_eq!(draw(&data, &opts(json!({"pairs": "q"})), &meta()).unwrap_err().key.as_deref(), Some("pairs"));
        assert!(draw(&json!({"squares": "x"}), &Map::new(), &meta()).is_err());
        assert!(draw(&json!({"squares": [1]}), &opts(json!({"length": 1000})), &meta()).is_err());
        assert!(draw(&json!({"squares": [1]}), &opts(json!({"colour": 1})), &meta()).is_err());
    }
}
