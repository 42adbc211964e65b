//! `plot: lines` — several series of (x, y) points on shared axes, drawn as dots joined
//! by thin lines, one colour per series, with a legend.
//!
//! Data (`from:`): a list of series, each `{ "name": "a = 2", "points": [[x, y], …] }`
//! with numbers (or Ratios) for x and y; or an object whose keys are the names and whose
//! values are the point lists.
//! Options: see [`KIND`] (printed by `countersign figures lines`).
//!
//! Example: the offsets c − b of the held-pass partner function against the middle heap b,
//! one series per smallest heap.

use plotters::prelude::*;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::{finish_svg, number, options, palette, Drawn, FigureError, Kind, Meta, OptionDoc};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Options {
    #[serde(default)]
    x_label: Option<String>,
    #[serde(default)]
    y_label: Option<String>,
    #[serde(default = "yes")]
    join: bool,
    #[serde(default)]
    dots: Option<bool>,
    #[serde(default)]
    series: Option<Vec<String>>,
    #[serde(default = "yes")]
    zero_line: bool,
    #[serde(default)]
    stack: Option<f64>,
}

fn yes() -> bool {
    true
}

/// `plot: lines`: its data shape, options and an example.
pub const KIND: Kind = Kind {
    name: "lines",
    draw,
    summary: "several series of (x, y) points on shared axes, dots joined by thin lines, with a legend",
    data: "a list of series {name: \"a = 2\", points: [[x, y], …]} with numbers (or Ratios) for x and y, \
           or an object whose keys are the names and whose values are the point lists; \
           at most one series per palette colour and 50,000 points",
    options: &[
        OptionDoc { name: "x_label", ty: "string", default: "none", meaning: "the x axis title" },
        OptionDoc { name: "y_label", ty: "string", default: "none", meaning: "the y axis title" },
        OptionDoc { name: "join", ty: "bool", default: "true", meaning: "join each series' points with a line" },
        OptionDoc { name: "dots", ty: "bool", default: "true when a series has at most 400 points", meaning: "draw a dot at each point" },
        OptionDoc {
            name: "series",
            ty: "list of names",
            default: "all, in order",
            meaning: "which series to draw, by name, in that order",
        },
        OptionDoc { name: "zero_line", ty: "bool", default: "true", meaning: "draw a faint horizontal line at y = 0" },
        OptionDoc {
            name: "stack",
            ty: "number",
            default: "none",
            meaning: "draw series i shifted up by i × stack, each with its own zero line and no y-axis numbers (for series that overlap)",
        },
    ],
    example: "x_label: b\ny_label: c − b\nseries: [a = 1, a = 2]",
    example_data:
        "[{\"name\": \"a = 1\", \"points\": [[1, 0], [2, -2], [3, 0]]}, {\"name\": \"a = 2\", \"points\": [[2, 0], [3, 2], [4, 3]]}]",
    fields: super::reference::fields::<Options>,
};

/// Most series drawn (one per palette colour).
pub const MAX_SERIES: usize = palette::SERIES.len();
/// Most points drawn over all series.
pub const MAX_POINTS: usize = 50_000;

const SHAPE_HINT: &str = "lines needs a list of series {name, points: [[x, y], …]} or an object name → points";

fn points(name: &str, v: &Value) -> Result<Vec<(f64, f64)>, FigureError> {
    let list = v.as_array().ok_or_else(|| FigureError::data(format!("the points of series {name:?} are not a list"), SHAPE_HINT))?;
    let mut out = Vec::with_capacity(list.len());
    for (i, p) in list.iter().enumerate() {
        let xy = p.as_array().filter(|a| a.len() == 2).and_then(|a| Some((number(&a[0])?, number(&a[1])?)));
        out.push(xy.ok_or_else(|| FigureError::data(format!("point {i} of series {name:?} is not a pair of numbers"), SHAPE_HINT))?);
    }
    Ok(out)
}

/// A named series of points.
type Named = (String, Vec<(f64, f64)>);

fn series(data: &Value) -> Result<Vec<Named>, FigureError> {
    match data {
        Value::Array(list) => list
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let name = s
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| FigureError::data(format!("series {i} has no name"), SHAPE_HINT))?;
                let pts = s.get("points").ok_or_else(|| FigureError::data(format!("series {name:?} has no points"), SHAPE_HINT))?;
                Ok((name.to_string(), points(name, pts)?))
            })
            .collect(),
        Value::Object(m) => m.iter().map(|(k, v)| Ok((k.clone(), points(k, v)?))).collect(),
        _ => Err(FigureError::data("the data is neither a list of series nor an object", SHAPE_HINT)),
    }
}

fn draw_err(e: impl std::fmt::Display) -> FigureError {
    FigureError::data(format!("cannot draw: {e}"), "")
}

/// Draw the series; see the module docs for data and options.
pub fn draw(data: &Value, opts: &Map<String, Value>, meta: &Meta) -> Result<Drawn, FigureError> {
    let o: Options = options(opts, &KIND)?;
    let all = select_series(data, &o)?;
    let baselines: Vec<f64> = match o.stack {
        Some(step) if o.zero_line => (0..all.len()).map(|i| i as f64 * step).collect(),
        None if o.zero_line => vec![0.0],
        _ => Vec::new(),
    };
    let bounds = plot_bounds(&all, &o, &baselines);
    let svg = render_lines(&o, &all, &baselines, bounds)?;
    Ok(Drawn::Svg(finish_svg(&svg, meta)))
}

/// The series to draw: those `series` names (in its order), else all; raised by `stack`.
///
/// Errors: an unknown name, a bad `stack`, no points, too many series or points.
fn select_series(data: &Value, o: &Options) -> Result<Vec<Named>, FigureError> {
    let mut all = series(data)?;
    if let Some(names) = &o.series {
        let mut picked = Vec::new();
        for n in names {
            let i = all.iter().position(|(k, _)| k == n).ok_or_else(|| FigureError {
                message: format!("no series named {n:?}"),
                key: Some("series".into()),
                hint: super::reference::present("series", &all.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>()),
            })?;
            picked.push(all[i].clone());
        }
        all = picked;
    }
    if let Some(step) = o.stack {
        if !(step.is_finite() && step > 0.0) {
            return Err(FigureError {
                message: format!("stack is {step}"),
                key: Some("stack".into()),
                hint: "stack is the vertical distance between series, a positive number".into(),
            });
        }
        for (i, (_, pts)) in all.iter_mut().enumerate() {
            for p in pts.iter_mut() {
                p.1 += i as f64 * step;
            }
        }
    }
    if all.is_empty() || all.iter().all(|(_, p)| p.is_empty()) {
        return Err(FigureError::data("there are no points to draw", SHAPE_HINT));
    }
    if all.len() > MAX_SERIES {
        return Err(FigureError::data(format!("{} series; the most drawn is {MAX_SERIES}", all.len()), "pick a few with `series:`"));
    }
    let total: usize = all.iter().map(|(_, p)| p.len()).sum();
    if total > MAX_POINTS {
        return Err(FigureError::data(format!("{total} points; the most drawn is {MAX_POINTS}"), "plot a shorter range"));
    }
    Ok(all)
}

/// The plot's ranges `((x0, x1), (y0, y1))`: the points and `baselines`, with room for
/// the legend above stacked series, padded by 4% (or 1 where a range is a single value).
fn plot_bounds(all: &[Named], o: &Options, baselines: &[f64]) -> ((f64, f64), (f64, f64)) {
    let (mut x0, mut x1, mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
    for (x, y) in all.iter().flat_map(|(_, p)| p.iter()) {
        x0 = x0.min(*x);
        x1 = x1.max(*x);
        y0 = y0.min(*y);
        y1 = y1.max(*y);
    }
    for &z in baselines {
        y0 = y0.min(z);
        y1 = y1.max(z);
    }
    if let Some(step) = o.stack {
        // Room above the top band for the legend.
        y1 += 1.5 * step;
    }
    let pad = |lo: f64, hi: f64| {
        let d = if hi > lo { (hi - lo) * 0.04 } else { 1.0 };
        (lo - d, hi + d)
    };
    let (x0, x1) = pad(x0, x1);
    let (y0, y1) = pad(y0, y1);
    ((x0, x1), (y0, y1))
}

/// The series drawn as SVG (before `finish_svg`) over `bounds`, with the `baselines`.
fn render_lines(
    o: &Options,
    all: &[Named],
    baselines: &[f64],
    ((x0, x1), (y0, y1)): ((f64, f64), (f64, f64)),
) -> Result<String, FigureError> {
    let max_len = all.iter().map(|(_, p)| p.len()).max().unwrap_or(0);
    let dots = o.dots.unwrap_or(max_len <= 400);
    let stacked = o.stack.is_some();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (760, 420)).into_drawing_area();
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .x_label_area_size(if o.x_label.is_some() { 50 } else { 30 })
            .y_label_area_size(if o.y_label.is_some() { 58 } else { 42 })
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(draw_err)?;
        // Drawn 760 px wide and shown at most 672 px wide (the essay column): a font of 16
        // (12.9 px in the SVG; plotters writes n / 1.24) is seen at 11.4 px.
        let label_style = ("sans-serif", 16).into_font().color(&palette::INK);
        let y_fmt = |y: &f64| if stacked { String::new() } else { format!("{}", y.round() as i64) };
        let mut mesh = chart.configure_mesh();
        mesh.disable_mesh()
            .axis_style(palette::INK)
            .label_style(label_style.clone())
            .x_labels(10)
            .y_labels(8)
            .x_label_formatter(&|x| format!("{}", x.round() as i64))
            .y_label_formatter(&y_fmt);
        if let Some(l) = &o.x_label {
            mesh.x_desc(l.as_str());
        }
        if let Some(l) = &o.y_label {
            mesh.y_desc(l.as_str());
        }
        mesh.axis_desc_style(label_style.clone()).draw().map_err(draw_err)?;
        for &z in baselines {
            chart.draw_series(LineSeries::new([(x0, z), (x1, z)], palette::FAINT.stroke_width(1))).map_err(draw_err)?;
        }
        for (i, (name, pts)) in all.iter().enumerate() {
            let colour = palette::SERIES[i % palette::SERIES.len()];
            if o.join {
                chart.draw_series(LineSeries::new(pts.iter().copied(), colour.stroke_width(1))).map_err(draw_err)?;
            }
            let anno = if dots {
                chart.draw_series(pts.iter().map(|&p| Circle::new(p, 2, colour.filled()))).map_err(draw_err)?
            } else {
                chart.draw_series(std::iter::empty::<Circle<(f64, f64), i32>>()).map_err(draw_err)?
            };
            anno.label(name.as_str()).legend(move |(x, y)| Rectangle::new([(x, y - 4), (x + 12, y + 4)], colour.filled()));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .border_style(palette::FAINT)
            .label_font(label_style)
            .draw()
            .map_err(draw_err)?;
        root.present().map_err(draw_err)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn meta() -> Meta<'static> {
        Meta { id: "l", caption: "Offsets", alt: "Two series", number: 1 }
    }

    #[test]
    fn draws_deterministically_with_legend() {
        let data = json!([
            {"name": "a = 1", "points": [[1, 0], [2, -2], [3, 0]]},
            {"name": "a = 2", "points": [[2, 0], [3, 2], [4, 3]]}
        ]);
        let a = draw(&data, &Map::new(), &meta()).unwrap();
        assert_eq!(a, draw(&data, &Map::new(), &meta()).unwrap());
        let Drawn::Svg(s) = a else { panic!("not an SVG") };
        assert!(s.contains("<title id=\"l-title\">Offsets</title>"));
        assert!(s.contains("a = 2"));
        // The object form draws the same picture.
        let obj = json!({"a = 1": [[1, 0], [2, -2], [3, 0]], "a = 2": [[2, 0], [3, 2], [4, 3]]});
        assert_eq!(draw(&obj, &Map::new(), &meta()).unwrap(), draw(&data, &Map::new(), &meta()).unwrap());
    }

    #[test]
    fn picks_series_and_reports_bad_shapes() {
        let data = json!([{"name": "first-one", "points": [[0, 1]]}, {"name": "second-one", "points": [[0, 2]]}]);
        let mut o = Map::new();
        o.insert("series".into(), json!(["second-one"]));
        let Drawn::Svg(s) = draw(&data, &o, &meta()).unwrap() else { panic!("not an SVG") };
        assert!(s.contains("second-one") && !s.contains("first-one"));
        o.insert("series".into(), json!(["z"]));
        assert_eq!(draw(&data, &o, &meta()).unwrap_err().key.as_deref(), Some("series"));
        assert!(draw(&json!(3), &Map::new(), &meta()).is_err());
        assert!(draw(&json!([{"name": "x", "points": [[0]]}]), &Map::new(), &meta()).is_err());
        assert!(draw(&json!([{"name": "x", "points": []}]), &Map::new(), &meta()).is_err());
        let mut st = Map::new();
        st.insert("stack".into(), json!(-1));
        assert_eq!(draw(&data, &st, &meta()).unwrap_err().key.as_deref(), Some("stack"));
        st.insert("stack".into(), json!(10));
        assert!(draw(&data, &st, &meta()).is_ok());
        let mut bad = Map::new();
        bad.insert("colour".into(), json!("red"));
        assert_eq!(draw(&data, &bad, &meta()).unwrap_err().key.as_deref(), Some("colour"));
    }
}
