//! `plot: grid` — a matrix of cells coloured by value, zeros marked.
//!
//! Data (`from:`): a list of rows, each a list of numbers (or Ratios) or `null` for an
//! empty cell; row `r`, column `c` is drawn at x = c, y = r with y increasing upwards.
//! Options: see [`KIND`] (printed by `countersign figures grid`).
//!
//! Example: the two-coin Welter values ⟨a|b⟩ with a on x and b on y, zeros at the mates.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
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
    mark_zeros: bool,
    #[serde(default)]
    values: Option<bool>,
}

fn yes() -> bool {
    true
}

/// `plot: grid`: its data shape, options and an example.
pub const KIND: Kind = Kind {
    name: "grid",
    draw,
    summary: "a matrix of cells coloured by value, zeros marked",
    data: "a list of rows, each a list of numbers (or Ratios {num, den}) or null for an empty cell; \
           row r, column c is drawn at x = c, y = r, y increasing upwards; at most 200 cells a side",
    options: &[
        OptionDoc { name: "x_label", ty: "string", default: "none", meaning: "the x axis title" },
        OptionDoc { name: "y_label", ty: "string", default: "none", meaning: "the y axis title" },
        OptionDoc { name: "mark_zeros", ty: "bool", default: "true", meaning: "ring each cell whose value is 0" },
        OptionDoc { name: "values", ty: "bool", default: "true when the grid is at most 24 wide", meaning: "print each value in its cell" },
    ],
    example: "x_label: a\ny_label: b\nmark_zeros: true",
    example_data: "[[null, 0, 1], [0, null, 2], [1, 2, null]]",
    fields: super::reference::fields::<Options>,
};

/// Largest grid drawn, in cells per side.
pub const MAX_SIDE: usize = 200;

/// Draw a grid; see the module docs for data and options.
pub fn draw(data: &Value, opts: &Map<String, Value>, meta: &Meta) -> Result<Drawn, FigureError> {
    let o: Options = options(opts, &KIND)?;
    let shape_hint = "a grid needs a list of rows, each a list of numbers or nulls, e.g. [[0, 1], [1, null]]";
    let cells = read_cells(data, shape_hint)?;
    let height = cells.len();
    let width = cells.iter().map(Vec::len).max().unwrap_or(0);
    if height == 0 || width == 0 {
        return Err(FigureError::data("the grid is empty", shape_hint));
    }
    if height > MAX_SIDE || width > MAX_SIDE {
        return Err(FigureError::data(
            format!("the grid is {width} by {height}; the most drawn is {MAX_SIDE} a side"),
            "plot a slice of the result",
        ));
    }
    let max = cells.iter().flatten().flatten().fold(0.0f64, |m, &v| m.max(v));
    // At most 28 px a cell, and the grid no wider than the essay column (672 px), so its
    // text is seen at the size drawn.
    let cell = (600 / width.max(height)).clamp(3, 28) as u32;
    let show_values = o.values.unwrap_or(width <= 24);
    let margin = 50u32;
    let (w, h) = (margin + cell * width as u32 + 20, margin + cell * height as u32 + 20);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
        let mut chart = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(if o.x_label.is_some() { 40 } else { 25 })
            .y_label_area_size(if o.y_label.is_some() { 40 } else { 25 })
            .build_cartesian_2d(0..width as i32, 0..height as i32)
            .map_err(|e| FigureError::data(format!("cannot draw: {e}"), ""))?;
        // 14 is 11.3 px in the SVG (plotters writes n / 1.24), the least a reader is shown.
        let label_style = ("sans-serif", 14).into_font().color(&palette::INK);
        let mut mesh = chart.configure_mesh();
        mesh.disable_mesh()
            .axis_style(palette::INK)
            .label_style(label_style.clone())
            .x_labels(width.min(25))
            .y_labels(height.min(25))
            .x_label_formatter(&|x| x.to_string())
            .y_label_formatter(&|y| y.to_string());
        if let Some(l) = &o.x_label {
            mesh.x_desc(l.as_str());
        }
        if let Some(l) = &o.y_label {
            mesh.y_desc(l.as_str());
        }
        mesh.axis_desc_style(label_style).draw().map_err(|e| FigureError::data(format!("cannot draw: {e}"), ""))?;
        let mut rects = Vec::new();
        let mut rings = Vec::new();
        let mut texts = Vec::new();
        for (r, row) in cells.iter().enumerate() {
            for (c, v) in row.iter().enumerate() {
                let Some(v) = v else { continue };
                let fill = palette::sequential(if max > 0.0 { v / max } else { 0.0 });
                let (x, y) = (c as i32, r as i32);
                rects.push(Rectangle::new([(x, y), (x + 1, y + 1)], fill.filled()));
                if *v == 0.0 && o.mark_zeros {
                    rings.push(Rectangle::new([(x, y), (x + 1, y + 1)], palette::ACCENT.stroke_width(3)));
                }
                if show_values {
                    let txt = if v.fract() == 0.0 { format!("{}", *v as i64) } else { format!("{v:.2}") };
                    texts.push((txt, (x, y + 1), palette::contrast_text(fill)));
                }
            }
        }
        chart.draw_series(rects).map_err(|e| FigureError::data(format!("cannot draw: {e}"), ""))?;
        chart.draw_series(rings).map_err(|e| FigureError::data(format!("cannot draw: {e}"), ""))?;
        let cellf = cell as i32;
        for (t, (x, y), colour) in texts {
            let style = ("sans-serif", 14).into_font().color(&colour).pos(Pos::new(HPos::Center, VPos::Center));
            let pos = chart.backend_coord(&(x, y));
            root.draw_text(&t, &style, (pos.0 + cellf / 2, pos.1 + cellf / 2))
                .map_err(|e| FigureError::data(format!("cannot draw: {e}"), ""))?;
        }
        root.present().map_err(|e| FigureError::data(format!("cannot draw: {e}"), ""))?;
    }
    Ok(Drawn::Svg(finish_svg(&svg, meta)))
}

/// The grid's cells, row by row: a number, or `None` for a null (an empty cell).
/// Errors: data not a list of lists of numbers or nulls.
fn read_cells(data: &Value, shape_hint: &str) -> Result<Vec<Vec<Option<f64>>>, FigureError> {
    let rows = data.as_array().ok_or_else(|| FigureError::data("the data is not a list of rows", shape_hint))?;
    let mut cells: Vec<Vec<Option<f64>>> = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        let r = r.as_array().ok_or_else(|| FigureError::data(format!("row {i} is not a list"), shape_hint))?;
        let mut row = Vec::new();
        for (j, v) in r.iter().enumerate() {
            if v.is_null() {
                row.push(None);
            } else {
                row.push(Some(number(v).ok_or_else(|| FigureError::data(format!("cell [{i}][{j}] is not a number"), shape_hint))?));
            }
        }
        cells.push(row);
    }
    Ok(cells)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn meta() -> Meta<'static> {
        Meta { id: "g", caption: "Values", alt: "A grid", number: 1 }
    }

    #[test]
    fn draws_deterministically_with_title_and_desc() {
        let data = json!([[null, 0, 1], [0, null, 2], [1, 2, null]]);
        let a = draw(&data, &Map::new(), &meta()).unwrap();
        let b = draw(&data, &Map::new(), &meta()).unwrap();
        assert_eq!(a, b);
        let Drawn::Svg(s) = a else { panic!() };
        assert!(s.contains("<title id=\"g-title\">Values</title>"));
        assert!(s.contains("<desc id=\"g-desc\">A grid</desc>"));
        assert!(s.contains("prefers-color-scheme"));
    }

    #[test]
    fn wrong_shapes_and_options_are_errors() {
        assert!(draw(&json!(3), &Map::new(), &meta()).is_err());
        assert!(draw(&json!([[1, "x"]]), &Map::new(), &meta()).is_err());
        assert!(draw(&json!([]), &Map::new(), &meta()).is_err());
        let mut o = Map::new();
        o.insert("colour".into(), json!("red"));
        let e = draw(&json!([[1]]), &o, &meta()).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("colour"));
    }
}
