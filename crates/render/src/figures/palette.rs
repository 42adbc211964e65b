//! Colours every figure kind uses. Series colours are mid-tones chosen to read on both a
//! light and a dark background (Okabe–Ito, colour-blind safe); "ink" and "faint" are
//! placeholders that [`finish_svg`](super::finish_svg) maps to theme colours with CSS.

use plotters::style::RGBColor;

/// Text and axis lines; restyled per theme.
pub const INK: RGBColor = RGBColor(1, 1, 1);
/// `INK` as SVG writes it.
pub const INK_HEX: &str = "#010101";
/// Grid lines and secondary text; restyled per theme.
pub const FAINT: RGBColor = RGBColor(2, 2, 2);
/// `FAINT` as SVG writes it.
pub const FAINT_HEX: &str = "#020202";
/// The accent for marked cells (zeros, P-positions): vermilion.
pub const ACCENT: RGBColor = RGBColor(213, 94, 0);

/// Series colours (Okabe–Ito without black).
pub const SERIES: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(213, 94, 0),
    RGBColor(240, 228, 66),
];

/// A sequential colour for `t` in `[0, 1]`: light teal to deep blue, readable under text
/// of [`contrast_text`] on either theme.
pub fn sequential(t: f64) -> RGBColor {
    let t = t.clamp(0.0, 1.0);
    let a = (199.0, 233.0, 229.0);
    let b = (8.0, 48.0, 107.0);
    let mix = |x: f64, y: f64| (x + (y - x) * t).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// Black or white, whichever reads on `c`.
pub fn contrast_text(c: RGBColor) -> RGBColor {
    let l = 0.299 * c.0 as f64 + 0.587 * c.1 as f64 + 0.114 * c.2 as f64;
    if l > 140.0 {
        RGBColor(0, 0, 0)
    } else {
        RGBColor(255, 255, 255)
    }
}
