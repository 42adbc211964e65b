//! `plot: trie` — the low-bit (2-adic) binary trie of a set of non-negative integers, read
//! from bit 0 upwards, with chosen nodes marked.
//!
//! Each number walks down from the root, left at a 0 and right at a 1, bit 0 first; a
//! branch stops at a leaf as soon as it holds one number. So two numbers share a path
//! exactly as long as they share trailing bits, and part at the node of their lowest
//! differing bit. The figure builds the trie itself from the numbers (a layout, not a game
//! computation); what to mark comes from the data.
//!
//! Options: see [`KIND`] (printed by `countersign figures trie`).
//!
//! Example: the trie of 1, 2, 4, 7, 9, 11 with the low-bit pairs 1–9, 7–11, 2–4 at their
//! nodes.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::table::at;
use super::{finish_svg, options, palette, Drawn, FigureError, Kind, Meta, OptionDoc};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Options {
    #[serde(default = "default_squares")]
    squares: String,
    #[serde(default)]
    nodes: Option<String>,
    #[serde(default = "yes")]
    binary: bool,
}

fn default_squares() -> String {
    "squares".into()
}

fn yes() -> bool {
    true
}

/// `plot: trie`: its data shape, options and an example.
pub const KIND: Kind = Kind {
    name: "trie",
    draw,
    summary: "the low-bit (2-adic) binary trie of a set of non-negative integers, chosen nodes marked",
    data: "an object (e.g. a welter.position result) holding a list of at most 40 non-negative integers \
           and, optionally, a list of node objects to mark",
    options: &[
        OptionDoc { name: "squares", ty: "sub-path", default: "squares", meaning: "the list of numbers" },
        OptionDoc {
            name: "nodes",
            ty: "sub-path",
            default: "none marked",
            meaning: "a list of node objects {bit, residue, pair, odd}: the node at that bit below which every number is \
                      ≡ residue mod 2^bit; `pair` ([a, b], {a, b} or null) is printed at the node and fills it; \
                      `odd: true` rings it",
        },
        OptionDoc { name: "binary", ty: "bool", default: "true", meaning: "print each leaf's binary digits under it" },
    ],
    example: "nodes: trie\nbinary: true",
    example_data: "{\"squares\": [1, 2, 4, 7, 9, 11], \"trie\": [{\"bit\": 1, \"residue\": 0, \"pair\": [2, 4], \"odd\": true}, \
                   {\"bit\": 3, \"residue\": 1, \"pair\": [1, 9], \"odd\": true}]}",
    fields: super::reference::fields::<Options>,
};

/// Most numbers a trie may hold.
pub const MAX_NUMBERS: usize = 40;

struct Node {
    depth: u32,
    residue: u64,
    numbers: Vec<u64>,
    children: [Option<usize>; 2],
    x: f64,
    pair: Option<String>,
    odd: bool,
}

fn build(numbers: Vec<u64>, depth: u32, residue: u64, nodes: &mut Vec<Node>, next_leaf: &mut f64) -> usize {
    let id = nodes.len();
    nodes.push(Node { depth, residue, numbers: numbers.clone(), children: [None, None], x: 0.0, pair: None, odd: false });
    if numbers.len() <= 1 || depth >= 63 {
        nodes[id].x = *next_leaf;
        *next_leaf += 1.0;
        return id;
    }
    let (zeros, ones): (Vec<u64>, Vec<u64>) = numbers.iter().partition(|&&n| (n >> depth) & 1 == 0);
    let mut xs = Vec::new();
    for (side, part) in [(0usize, zeros), (1usize, ones)] {
        if !part.is_empty() {
            let c = build(part, depth + 1, residue | ((side as u64) << depth), nodes, next_leaf);
            nodes[id].children[side] = Some(c);
            xs.push(nodes[c].x);
        }
    }
    nodes[id].x = xs.iter().sum::<f64>() / xs.len() as f64;
    id
}

fn fail<E: std::fmt::Display>(e: E) -> FigureError {
    FigureError::data(format!("cannot draw: {e}"), "")
}

fn err(key: &str, message: String, hint: &str) -> FigureError {
    FigureError { message, key: Some(key.into()), hint: hint.into() }
}

fn pair_text(v: &Value) -> Option<String> {
    match v {
        Value::Array(x) if x.len() == 2 => Some(format!("{}–{}", x[0].as_u64()?, x[1].as_u64()?)),
        Value::Object(m) => Some(format!("{}–{}", m.get("a")?.as_u64()?, m.get("b")?.as_u64()?)),
        _ => None,
    }
}

/// Draw a trie; see the module docs for data and options.
pub fn draw(data: &Value, opts: &Map<String, Value>, meta: &Meta) -> Result<Drawn, FigureError> {
    let o: Options = options(opts, &KIND)?;
    let numbers = read_numbers(data, &o)?;
    let mut nodes = Vec::new();
    let mut leaves = 0.0;
    build(numbers.clone(), 0, 0, &mut nodes, &mut leaves);
    mark_nodes(data, &o, &mut nodes)?;
    let depth = nodes.iter().map(|n| n.depth).max().unwrap_or(0);
    let digits = (64 - numbers.iter().copied().max().unwrap_or(0).leading_zeros()).max(depth).max(1);
    let hgap = 64.0;
    let vgap = 62;
    let left = 70;
    let top = 24;
    let width = (left as f64 + hgap * leaves + 30.0) as u32;
    let height = (top + vgap * depth as i32 + 70) as u32;
    let px = |n: &Node| ((left as f64 + hgap * n.x + hgap / 2.0).round() as i32, top + vgap * n.depth as i32);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        // 14 is 11.3 px in the SVG (plotters writes n / 1.24), the least a reader is shown.
        let faint = ("sans-serif", 14).into_font().color(&palette::FAINT);
        let ink = ("sans-serif", 16).into_font().color(&palette::INK);
        for d in 0..=depth {
            if nodes.iter().any(|n| n.depth == d && n.children.iter().any(Option::is_some)) {
                root.draw(&Text::new(format!("bit {d}"), (6, top + vgap * d as i32), faint.pos(Pos::new(HPos::Left, VPos::Center))))
                    .map_err(fail)?;
            }
        }
        for n in &nodes {
            let (x, y) = px(n);
            for (side, c) in n.children.iter().enumerate() {
                if let Some(c) = c {
                    let (cx, cy) = px(&nodes[*c]);
                    root.draw(&PathElement::new(vec![(x, y), (cx, cy)], palette::FAINT.stroke_width(1))).map_err(fail)?;
                    let (mx, my) = ((x + cx) / 2, (y + cy) / 2);
                    let hpos = if side == 0 { HPos::Right } else { HPos::Left };
                    let dx = if side == 0 { -4 } else { 4 };
                    root.draw(&Text::new(side.to_string(), (mx + dx, my), faint.pos(Pos::new(hpos, VPos::Center)))).map_err(fail)?;
                }
            }
        }
        for n in &nodes {
            let (x, y) = px(n);
            if n.children.iter().all(Option::is_none) {
                let label = n.numbers.first().map_or(String::new(), |v| v.to_string());
                root.draw(&Rectangle::new([(x - 16, y - 11), (x + 16, y + 11)], palette::INK.stroke_width(1))).map_err(fail)?;
                root.draw(&Text::new(label, (x, y), ink.pos(Pos::new(HPos::Center, VPos::Center)))).map_err(fail)?;
                if o.binary {
                    if let Some(v) = n.numbers.first() {
                        let bin = format!("{v:0width$b}", width = digits as usize);
                        root.draw(&Text::new(bin, (x, y + 15), faint.pos(Pos::new(HPos::Center, VPos::Top)))).map_err(fail)?;
                    }
                }
            } else {
                let marked = n.pair.is_some();
                let colour = if marked { palette::ACCENT } else { palette::INK };
                root.draw(&Circle::new((x, y), if marked { 7 } else { 4 }, colour.filled())).map_err(fail)?;
                if n.odd {
                    root.draw(&Circle::new((x, y), 11, palette::ACCENT.stroke_width(2))).map_err(fail)?;
                }
                if let Some(p) = &n.pair {
                    root.draw(&Text::new(p.clone(), (x + 14, y - 10), ink.pos(Pos::new(HPos::Left, VPos::Bottom)))).map_err(fail)?;
                }
            }
        }
        root.present().map_err(fail)?;
    }
    Ok(Drawn::Svg(finish_svg(&svg, meta)))
}

/// The numbers of `squares`, sorted without repeats. Errors: not a list of non-negative
/// integers, or none or more than the most drawn.
fn read_numbers(data: &Value, o: &Options) -> Result<Vec<u64>, FigureError> {
    let mut numbers: Vec<u64> = at(data, &o.squares)
        .and_then(Value::as_array)
        .ok_or_else(|| err("squares", format!("no list of numbers at `{}`", o.squares), "point `squares` at a list of integers"))?
        .iter()
        .map(|v| v.as_u64().ok_or_else(|| err("squares", format!("{v} is not a non-negative integer"), "numbers only")))
        .collect::<Result<_, _>>()?;
    numbers.sort_unstable();
    numbers.dedup();
    if numbers.is_empty() || numbers.len() > MAX_NUMBERS {
        return Err(err("squares", format!("{} numbers; 1..={MAX_NUMBERS} allowed", numbers.len()), "draw a smaller set"));
    }
    Ok(numbers)
}

/// Marks the nodes `nodes` names (each `{bit, residue, pair, odd}`) on the trie: its pair
/// label and whether it is odd. Errors: no list there, a node lacking bit or residue, or
/// naming no branching node of the trie.
fn mark_nodes(data: &Value, o: &Options, nodes: &mut [Node]) -> Result<(), FigureError> {
    let Some(path) = &o.nodes else {
        return Ok(());
    };
    let list = at(data, path)
        .and_then(Value::as_array)
        .ok_or_else(|| err("nodes", format!("no list of nodes at `{path}`"), "point `nodes` at a list of {bit, residue, pair} objects"))?;
    for m in list {
        let (Some(bit), Some(residue)) = (m.get("bit").and_then(Value::as_u64), m.get("residue").and_then(Value::as_u64)) else {
            return Err(err("nodes", format!("a node lacks bit or residue: {m}"), "each node needs integer `bit` and `residue`"));
        };
        let found =
            nodes.iter_mut().find(|n| n.depth as u64 == bit && n.residue == residue && n.children.iter().all(Option::is_some)).ok_or_else(
                || err("nodes", format!("no node where numbers part at bit {bit}, residue {residue}"), "nodes are where two branches meet"),
            )?;
        found.pair = m.get("pair").and_then(pair_text);
        found.odd = m.get("odd").and_then(Value::as_bool).unwrap_or(false);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn meta() -> Meta<'static> {
        Meta { id: "t", caption: "A trie", alt: "Tree", number: 1 }
    }

    fn opts(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn draws_the_six_coin_trie_with_its_pairs() {
        let data = json!({
            "squares": [1, 2, 4, 7, 9, 11],
            "trie": [
                {"bit": 0, "residue": 0, "pair": null, "odd": false},
                {"bit": 1, "residue": 0, "pair": [2, 4], "odd": true},
                {"bit": 1, "residue": 1, "pair": null, "odd": false},
                {"bit": 2, "residue": 3, "pair": [7, 11], "odd": true},
                {"bit": 3, "residue": 1, "pair": [1, 9], "odd": true}
            ]
        });
        let o = opts(json!({"nodes": "trie"}));
        let a = draw(&data, &o, &meta()).unwrap();
        assert_eq!(a, draw(&data, &o, &meta()).unwrap());
        let Drawn::Svg(s) = a else { panic!("svg") };
        assert!(s.contains("1–9") && s.contains("7–11") && s.contains("2–4"));
        assert!(s.contains("\n1001\n"), "binary of 9");
    }

    #[test]
    fn unknown_nodes_and_bad_data_are_errors() {
        let data = json!({"squares": [1, 3], "trie": [{"bit": 0, "residue": 0}]});
        assert_eq!(draw(&data, &opts(json!({"nodes": "trie"})), &meta()).unwrap_err().key.as_deref(), Some("nodes"));
        assert!(draw(&json!({"squares": []}), &Map::new(), &meta()).is_err());
        assert!(draw(&json!({"squares": [-1]}), &Map::new(), &meta()).is_err());
        assert!(draw(&json!({"squares": [1]}), &opts(json!({"zoom": 2})), &meta()).is_err());
    }
}
