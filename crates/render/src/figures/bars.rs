//! `plot: bars` — grouped bars: for each group (e.g. a coin count, a genus) one bar per
//! series (e.g. a rule), heights numbers or Ratios; a single series gives a plain
//! histogram.
//!
//! Data (`from:`): an object (or list) of series, each an object (or list) keyed by group
//! — `{rule: {coins: leaf}}` — or, with `layout: groups_series`, the other way round.
//! A leaf is a number, a Ratio `{num, den}`, or an object read through `value`.
//! Options: see [`KIND`] (printed by `countersign figures bars`).
//!
//! Example: each matching rule's share of positions read right, by number of coins.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::reference::present;
use super::table::at;
use super::{finish_svg, number, options, palette, Drawn, FigureError, Kind, Meta, OptionDoc};

#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
enum Layout {
    #[default]
    SeriesGroups,
    GroupsSeries,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Options {
    #[serde(default)]
    layout: Layout,
    #[serde(default)]
    value: Option<String>,
    #[serde(default)]
    upto: Option<String>,
    #[serde(default)]
    series: Option<Vec<Value>>,
    #[serde(default)]
    groups: Option<Vec<Value>>,
    #[serde(default)]
    labels: Option<Vec<String>>,
    #[serde(default)]
    x_label: Option<String>,
    #[serde(default)]
    y_label: Option<String>,
    #[serde(default)]
    y_max: Option<f64>,
    #[serde(default)]
    percent: bool,
}

/// `plot: bars`: its data shape, options and an example.
pub const KIND: Kind = Kind {
    name: "bars",
    draw,
    summary: "grouped bars: for each group one bar per series; a single series is a histogram",
    data: "an object (or list) of series, each an object (or list) keyed by group: {series: {group: leaf}} \
           (or {group: {series: leaf}} with layout: groups_series); a leaf is a number, a Ratio {num, den}, \
           or an object read through `value`; at most 400 bars",
    options: &[
        OptionDoc {
            name: "layout",
            ty: "series_groups | groups_series",
            default: "series_groups",
            meaning: "whether the data's outer keys are the series or the groups",
        },
        OptionDoc { name: "value", ty: "sub-path", default: "the leaf itself", meaning: "the path from a leaf to the bar's height" },
        OptionDoc {
            name: "upto",
            ty: "sub-path",
            default: "none",
            meaning:
                "the path from a leaf to a second, higher value: the bar is solid to `value` and an outline from there to `upto` (a range)",
        },
        OptionDoc {
            name: "series",
            ty: "list of keys",
            default: "all, in the data's order",
            meaning: "which series to draw, in that order",
        },
        OptionDoc {
            name: "groups",
            ty: "list of keys",
            default: "all, in the data's order",
            meaning: "which groups to draw, in that order",
        },
        OptionDoc {
            name: "labels",
            ty: "list of strings",
            default: "the series' keys",
            meaning: "legend names for the series, one per series drawn, in order",
        },
        OptionDoc { name: "x_label", ty: "string", default: "none", meaning: "the x axis title" },
        OptionDoc { name: "y_label", ty: "string", default: "none", meaning: "the y axis title" },
        OptionDoc { name: "y_max", ty: "number", default: "the largest height", meaning: "the top of the y axis" },
        OptionDoc { name: "percent", ty: "bool", default: "false", meaning: "label the y axis in per cent of 1" },
    ],
    example: "series: [low_bits, closest]\nlabels: [low bits, closest numbers]\nx_label: coins\npercent: true\ny_max: 1",
    example_data: "{\"low_bits\": {\"2\": {\"num\": 1, \"den\": 1}, \"4\": {\"num\": 9, \"den\": 10}}, \
                   \"closest\": {\"2\": {\"num\": 1, \"den\": 1}, \"4\": {\"num\": 1, \"den\": 2}}}",
    fields: super::reference::fields::<Options>,
};

/// Most bars in one figure.
pub const MAX_BARS: usize = 400;

fn key_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// (key, value) entries of an object or list.
fn entries(v: &Value) -> Option<Vec<(String, &Value)>> {
    match v {
        Value::Object(m) => Some(m.iter().map(|(k, x)| (k.clone(), x)).collect()),
        Value::Array(a) => Some(a.iter().enumerate().map(|(i, x)| (i.to_string(), x)).collect()),
        _ => None,
    }
}

fn fail<E: std::fmt::Display>(e: E) -> FigureError {
    FigureError::data(format!("cannot draw: {e}"), "")
}

fn err(key: &str, message: String, hint: &str) -> FigureError {
    FigureError { message, key: Some(key.into()), hint: hint.into() }
}

fn pick(all: Vec<String>, wanted: &Option<Vec<Value>>, key: &str) -> Result<Vec<String>, FigureError> {
    match wanted {
        None => Ok(all),
        Some(w) => w
            .iter()
            .map(|k| {
                let k = key_text(k);
                if all.contains(&k) {
                    Ok(k)
                } else {
                    Err(err(key, format!("no `{k}` in the data"), &present(key, &all)))
                }
            })
            .collect(),
    }
}

/// Draw grouped bars; see the module docs for data and options.
pub fn draw(data: &Value, opts: &Map<String, Value>, meta: &Meta) -> Result<Drawn, FigureError> {
    let o: Options = options(opts, &KIND)?;
    let bars = read_bars(data, &o)?;
    let svg = render_bars(&o, &bars)?;
    Ok(Drawn::Svg(finish_svg(&svg, meta)))
}

/// Heights of bars of a value and, where `upto` is given, of the range above it.
type Height = (Option<f64>, Option<f64>);

/// What the bars show: series and groups in drawing order and `heights[series][group]`.
struct Bars {
    series: Vec<String>,
    groups: Vec<String>,
    heights: Vec<Vec<Height>>,
}

/// The hint of the bars' data errors.
const HINT: &str = "bars need an object of series, each an object of groups, e.g. `rules` → rule → coins → count";

/// Reads the series, groups and heights the options select from `data`.
///
/// Errors: data not of the shape, names not in the data, too many bars, labels not one a series.
fn read_bars(data: &Value, o: &Options) -> Result<Bars, FigureError> {
    let hint = HINT;
    let outer = entries(data).ok_or_else(|| FigureError::data("the data is neither an object nor a list", hint))?;
    // cells[(series, group)] = leaf
    // Only the outer entries the options select are read, so a result object with other
    // fields beside its series (counts, totals) can be drawn directly.
    let outer_filter = if o.layout == Layout::SeriesGroups { &o.series } else { &o.groups };
    let mut cells: Vec<(String, String, &Value)> = Vec::new();
    for (k, inner) in &outer {
        if let Some(w) = outer_filter {
            if !w.iter().any(|x| key_text(x) == *k) {
                continue;
            }
        }
        let inner = entries(inner).ok_or_else(|| FigureError::data(format!("`{k}` is not an object or list"), hint))?;
        for (j, leaf) in inner {
            let (s, g) = if o.layout == Layout::SeriesGroups { (k.clone(), j) } else { (j, k.clone()) };
            cells.push((s, g, leaf));
        }
    }
    let mut all_series: Vec<String> = Vec::new();
    let mut all_groups: Vec<String> = Vec::new();
    for (s, g, _) in &cells {
        if !all_series.contains(s) {
            all_series.push(s.clone());
        }
        if !all_groups.contains(g) {
            all_groups.push(g.clone());
        }
    }
    // The outer dimension is filtered while reading, so its names come from the data's
    // own outer keys (else a wrong name would find nothing present at all).
    let outer_keys: Vec<String> = outer.iter().map(|(k, _)| k.clone()).collect();
    let (all_series, all_groups) = if o.layout == Layout::SeriesGroups { (outer_keys, all_groups) } else { (all_series, outer_keys) };
    let series = pick(all_series, &o.series, "series")?;
    let groups = pick(all_groups, &o.groups, "groups")?;
    if series.is_empty() || groups.is_empty() {
        return Err(FigureError::data("nothing to draw", hint));
    }
    if series.len() * groups.len() > MAX_BARS {
        return Err(FigureError::data(
            format!("{} bars is over the limit of {MAX_BARS}", series.len() * groups.len()),
            "pick fewer series or groups",
        ));
    }
    if let Some(l) = &o.labels {
        if l.len() != series.len() {
            return Err(err("labels", format!("{} labels for {} series", l.len(), series.len()), "give one label per series"));
        }
    }
    let heights = read_heights(&cells, &series, &groups, o)?;
    Ok(Bars { series, groups, heights })
}

/// `heights[series][group]` from the cells `(series, group, leaf)`, each leaf read
/// through the options' `value` and `upto` paths.
fn read_heights(
    cells: &[(String, String, &Value)],
    series: &[String],
    groups: &[String],
    o: &Options,
) -> Result<Vec<Vec<Height>>, FigureError> {
    let hint = HINT;
    let read = |leaf: &Value, path: &Option<String>, key: &str| -> Result<Option<f64>, FigureError> {
        let v = match path {
            None => leaf,
            Some(p) => at(leaf, p).ok_or_else(|| err(key, format!("a leaf has no `{p}`"), "the path is relative to each leaf"))?,
        };
        if v.is_null() {
            return Ok(None);
        }
        number(v).map(Some).ok_or_else(|| FigureError::data(format!("{v} is not a number or Ratio"), hint))
    };
    // heights[series][group] = (value, upto)
    let mut heights = vec![vec![(None, None); groups.len()]; series.len()];
    for (s, g, leaf) in cells {
        let (Some(si), Some(gi)) = (series.iter().position(|x| x == s), groups.iter().position(|x| x == g)) else {
            continue;
        };
        let v = read(leaf, &o.value, "value")?;
        let u = match &o.upto {
            None => None,
            Some(_) => read(leaf, &o.upto, "upto")?,
        };
        heights[si][gi] = (v, u);
    }
    Ok(heights)
}

/// The bars drawn as SVG (before `finish_svg`).
fn render_bars(o: &Options, bars: &Bars) -> Result<String, FigureError> {
    let (series, groups, heights) = (&bars.series, &bars.groups, &bars.heights);
    let top = o.y_max.unwrap_or_else(|| heights.iter().flatten().flat_map(|(v, u)| [*v, *u]).flatten().fold(0.0f64, f64::max));
    let top = if top.is_finite() && top > 0.0 { top } else { 1.0 };

    // Bars 14 px wide, narrower (to 6) where that keeps the chart within the essay column
    // (672 px) so its text is seen at the size drawn.
    let fit = (672u32.saturating_sub(240) / groups.len().max(1) as u32).saturating_sub(16) / series.len().max(1) as u32;
    let bar_w: u32 = fit.clamp(6, 14);
    let group_w = bar_w * series.len() as u32 + 16;
    let plot_w = group_w * groups.len() as u32;
    let width = plot_w + 90 + 150;
    let height = 330u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        let (chart_area, legend_area) = root.split_horizontally(plot_w + 90);
        let mut chart = ChartBuilder::on(&chart_area)
            .margin(12)
            .x_label_area_size(if o.x_label.is_some() { 44 } else { 28 })
            .y_label_area_size(if o.y_label.is_some() { 62 } else { 48 })
            .build_cartesian_2d(0f64..groups.len() as f64, 0f64..top)
            .map_err(fail)?;
        let label_style = ("sans-serif", 15).into_font().color(&palette::INK);
        let percent = o.percent;
        let y_fmt = move |y: &f64| y_tick(*y, percent);
        let mut mesh = chart.configure_mesh();
        mesh.disable_x_mesh()
            .disable_x_axis()
            .bold_line_style(palette::FAINT.mix(0.3))
            .light_line_style(TRANSPARENT)
            .axis_style(palette::INK)
            .label_style(label_style.clone())
            .y_labels(6)
            .y_label_formatter(&y_fmt);
        if let Some(l) = &o.y_label {
            mesh.y_desc(l.as_str());
        }
        mesh.axis_desc_style(label_style.clone()).draw().map_err(fail)?;
        let unit = 1.0 / group_w as f64;
        for (gi, _) in groups.iter().enumerate() {
            for (si, _) in series.iter().enumerate() {
                let colour = palette::SERIES[si % palette::SERIES.len()];
                let x0 = gi as f64 + unit * (8 + si as u32 * bar_w) as f64;
                let x1 = x0 + unit * (bar_w - 2) as f64;
                let (v, u) = heights[si][gi];
                if let Some(v) = v {
                    chart.draw_series(std::iter::once(Rectangle::new([(x0, 0.0), (x1, v)], colour.filled()))).map_err(fail)?;
                    if let Some(u) = u {
                        if u > v {
                            chart.draw_series(std::iter::once(Rectangle::new([(x0, v), (x1, u)], colour.stroke_width(1)))).map_err(fail)?;
                        }
                    }
                }
            }
        }
        // group labels under the axis, and the x axis line
        let base_left = chart.backend_coord(&(0.0, 0.0));
        let base_right = chart.backend_coord(&(groups.len() as f64, 0.0));
        chart_area.draw(&PathElement::new(vec![base_left, base_right], palette::INK.stroke_width(1))).map_err(fail)?;
        let centre = label_style.pos(Pos::new(HPos::Center, VPos::Top));
        for (gi, g) in groups.iter().enumerate() {
            let p = chart.backend_coord(&(gi as f64 + 0.5, 0.0));
            chart_area.draw(&Text::new(g.clone(), (p.0, p.1 + 6), centre.clone())).map_err(fail)?;
        }
        if let Some(l) = &o.x_label {
            let p = chart.backend_coord(&(groups.len() as f64 / 2.0, 0.0));
            chart_area.draw(&Text::new(l.clone(), (p.0, p.1 + 24), centre.clone())).map_err(fail)?;
        }
        draw_legend(&legend_area, o, series, &label_style)?;
        root.present().map_err(fail)?;
    }
    Ok(svg)
}

/// A y-axis tick: a percentage (of a share) or the number, whole or to two places.
fn y_tick(y: f64, percent: bool) -> String {
    if percent {
        format!("{:.0}%", y * 100.0)
    } else if y.fract() == 0.0 {
        format!("{y:.0}")
    } else {
        format!("{y:.2}")
    }
}

/// The legend: a swatch and a name for each series, and the range swatch with `upto`.
fn draw_legend(
    legend_area: &DrawingArea<SVGBackend<'_>, Shift>,
    o: &Options,
    series: &[String],
    label_style: &TextStyle<'_>,
) -> Result<(), FigureError> {
    let left = label_style.pos(Pos::new(HPos::Left, VPos::Center));
    for (si, s) in series.iter().enumerate() {
        let colour = palette::SERIES[si % palette::SERIES.len()];
        let y = 24 + si as i32 * 22;
        legend_area.draw(&Rectangle::new([(8, y - 6), (20, y + 6)], colour.filled())).map_err(fail)?;
        let name = o.labels.as_ref().map_or(s.clone(), |l| l[si].clone());
        legend_area.draw(&Text::new(name, (26, y), left.clone())).map_err(fail)?;
    }
    if o.upto.is_some() {
        let y = 24 + series.len() as i32 * 22 + 6;
        legend_area.draw(&Rectangle::new([(8, y - 6), (20, y + 6)], palette::INK.stroke_width(1))).map_err(fail)?;
        legend_area.draw(&Text::new("range".to_string(), (26, y), left.clone())).map_err(fail)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn meta() -> Meta<'static> {
        Meta { id: "b", caption: "Shares", alt: "Bars", number: 1 }
    }

    fn opts(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn grouped_bars_with_ranges_draw_deterministically() {
        let data = json!({
            "outermost": {"2": {"lo": {"num": 1, "den": 1}, "hi": {"num": 1, "den": 1}}, "4": {"lo": {"num": 501, "den": 1001}, "hi": {"num": 501, "den": 1001}}},
            "closest": {"2": {"lo": {"num": 1, "den": 1}, "hi": {"num": 1, "den": 1}}, "4": {"lo": {"num": 317, "den": 1001}, "hi": {"num": 405, "den": 1001}}}
        });
        let o = opts(
            json!({"value": "lo", "upto": "hi", "percent": true, "y_max": 1.0, "x_label": "coins", "labels": ["outermost first", "closest numbers"]}),
        );
        let a = draw(&data, &o, &meta()).unwrap();
        assert_eq!(a, draw(&data, &o, &meta()).unwrap());
        let Drawn::Svg(s) = a else { panic!("svg") };
        assert!(s.contains("closest numbers") && s.contains("range") && s.contains("\n4\n"));
    }

    #[test]
    fn histogram_and_transposed_layouts() {
        let data = json!([3, 5, 2]);
        assert!(draw(&json!({"counts": data}), &Map::new(), &meta()).is_ok());
        let t = json!({"2": {"a": 1, "b": 2, "c": "x"}, "3": {"a": 2, "b": 1, "c": "y"}});
        let o = opts(json!({"layout": "groups_series", "series": ["b"]}));
        assert!(draw(&t, &o, &meta()).is_ok());
        // series picked out of a result object that has other fields too
        let r = json!({"positions": 12, "wrong": {"1": 6, "2": 4}, "patched": {"1": 0, "2": 0}});
        assert!(draw(&r, &opts(json!({"series": ["wrong", "patched"]})), &meta()).is_ok());
        assert!(draw(&r, &Map::new(), &meta()).is_err());
    }

    #[test]
    fn bad_inputs_are_errors() {
        let t = json!({"a": {"x": 1}});
        assert_eq!(draw(&t, &opts(json!({"series": ["z"]})), &meta()).unwrap_err().key.as_deref(), Some("series"));
        assert_eq!(draw(&t, &opts(json!({"labels": ["p", "q"]})), &meta()).unwrap_err().key.as_deref(), Some("labels"));
        assert!(draw(&json!({"a": {"x": "y"}}), &Map::new(), &meta()).is_err());
        assert!(draw(&json!(4), &Map::new(), &meta()).is_err());
        assert_eq!(draw(&t, &opts(json!({"value": "q"})), &meta()).unwrap_err().key.as_deref(), Some("value"));
    }

    /// A series name not in the data is answered with the names that are (the outer
    /// keys, which the filter had dropped: the hint once read "present: " and nothing).
    #[test]
    fn a_bad_series_name_lists_the_series_present() {
        let data = json!({"low": {"2": 1, "3": 2}, "high": {"2": 3}});
        let e = draw(&data, &opts(json!({"series": ["lo"]})), &meta()).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("series"));
        assert_eq!(e.hint, "series present: low, high");
        let e = draw(&data, &opts(json!({"groups": ["9"]})), &meta()).unwrap_err();
        assert_eq!(e.hint, "groups present: 2, 3");
        let t = opts(json!({"layout": "groups_series", "groups": ["9"]}));
        assert_eq!(draw(&data, &t, &meta()).unwrap_err().hint, "groups present: low, high");
        let e = draw(&json!({}), &opts(json!({"series": ["a"]})), &meta()).unwrap_err();
        assert_eq!(e.hint, "the data has no series at all");
    }

    #[test]
    fn an_unknown_option_names_the_documented_ones_and_the_reference() {
        let e = draw(&json!({"a": [1]}), &opts(json!({"colour": "red"})), &meta()).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("colour"));
        assert!(e.message.contains("its options are layout, value, upto"), "{}", e.message);
        assert!(e.hint.contains("countersign figures bars"), "{}", e.hint);
    }
}
