//! Bounds on what a template may make tera do, kept before and around tera (which has
//! none of its own): nesting that would overflow the stack, loops and values that would
//! run the machine out of memory.
//!
//! - Before tera parses a template, its text is read for nesting: more than
//!   [`MAX_NESTING`] blocks (`if`, `for`, `block`, `macro`, `filter`) open at once, more
//!   than [`MAX_NESTING`] brackets open in one tag, or more than [`MAX_OPERATORS`]
//!   operators in one tag (tera nests a chain of them, one level each) is a
//!   `template-error` at the tag. So is a `set_global` inside a `for` whose value reads
//!   assigned variables twice (`s ~ s`): its value could double each time round.
//! - `range` is this module's: tera's, but one page's calls make at most [`MAX_RANGE`]
//!   numbers in all (tera's made a vector of `range(end=10^9)`).
//! - A page is written through a writer that refuses more than [`MAX_PAGE`] bytes.

use std::cell::Cell;
use std::collections::{BTreeSet, HashMap};
use std::io::Write;
use std::ops::Range;

use countersign_core::diag::{Code, Diagnostic};
use serde_json::Value;

use crate::template_cycles::tags;

/// How many blocks may be open at once, and how many brackets in one tag.
pub const MAX_NESTING: usize = 64;
/// How many operators one tag may hold.
pub const MAX_OPERATORS: usize = 256;
/// How many numbers the `range` calls of one page may make in all.
pub const MAX_RANGE: usize = 1_000_000;
/// The largest page a template may write, in bytes.
pub const MAX_PAGE: usize = 256 << 20;

/// Tags that open a block, and the tags that close them.
const OPENERS: [&str; 5] = ["if", "for", "block", "macro", "filter"];
const CLOSERS: [&str; 5] = ["endif", "endfor", "endblock", "endmacro", "endfilter"];

/// Operators of tera's expressions: symbols, then words.
const SYMBOLS: [&str; 13] = ["==", "!=", "<=", ">=", "+", "-", "*", "/", "%", "~", "<", ">", "|"];
const WORDS: [&str; 5] = ["and", "or", "not", "in", "is"];

/// One error per template of `list` (name, text) that nests too deeply or may grow
/// without bound, at its first tag that does; empty when none does.
pub fn check(list: &[(String, String)]) -> Vec<Diagnostic> {
    list.iter().filter_map(|(name, text)| first_excess(text).map(|(at, message)| diag(name, at, message))).collect()
}

fn diag(name: &str, at: Range<usize>, message: String) -> Diagnostic {
    Diagnostic::error(Code::TemplateError, format!("templates/{name}"), at, message)
        .with_label("here")
        .with_hint("tera follows nesting on its stack and keeps every value in memory: flatten the template")
}

/// The first tag of `text` past a bound, and what it passes.
fn first_excess(text: &str) -> Option<(Range<usize>, String)> {
    let all = tags(text);
    let assigned: BTreeSet<&str> = all.iter().filter_map(|(_, inner)| assignment(inner).map(|(name, _)| name)).collect();
    let mut open: Vec<&str> = Vec::new();
    for (at, inner) in all {
        let word = inner.split(|c: char| !c.is_ascii_alphanumeric() && c != '_').next().unwrap_or("");
        if OPENERS.contains(&word) {
            open.push(word);
            if open.len() > MAX_NESTING {
                return Some((at, format!("more than {MAX_NESTING} blocks are open here")));
            }
        } else if CLOSERS.contains(&word) {
            open.pop();
        }
        let (depth, operators, reads) = scan(inner, &assigned);
        if depth > MAX_NESTING {
            return Some((at, format!("this tag nests brackets more than {MAX_NESTING} deep")));
        }
        if operators > MAX_OPERATORS {
            return Some((at, format!("this tag holds {operators} operators, more than {MAX_OPERATORS}")));
        }
        if word == "set_global" && open.contains(&"for") && reads >= 2 {
            return Some((at, "a `set_global` in a loop reads assigned variables twice: its value could double each time round".into()));
        }
    }
    None
}

/// The name and value of a `set`/`set_global` tag's inside.
fn assignment(inner: &str) -> Option<(&str, &str)> {
    let rest = inner.strip_prefix("set_global").or_else(|| inner.strip_prefix("set"))?;
    let (name, value) = rest.split_once('=')?;
    let name = name.trim();
    (!name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')).then_some((name, value))
}

/// A tag's inside read outside its string literals: the deepest bracket nesting, the
/// operators, and how often the value of an assignment reads a name of `assigned`.
fn scan(inner: &str, assigned: &BTreeSet<&str>) -> (usize, usize, usize) {
    let value = assignment(inner).map(|(_, v)| v);
    let (mut depth, mut deepest, mut operators, mut reads) = (0usize, 0usize, 0usize, 0usize);
    let b = inner.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if matches!(c, b'"' | b'\'' | b'`') {
            i += 1 + b[i + 1..].iter().position(|&d| d == c).map_or(b.len(), |p| p + 1);
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let len = b[i..].iter().take_while(|d| d.is_ascii_alphanumeric() || **d == b'_').count();
            let word = &inner[i..i + len];
            let after_dot = i > 0 && b[i - 1] == b'.';
            operators += usize::from(WORDS.contains(&word));
            let in_value = value.is_some_and(|v| i >= inner.len() - v.len());
            reads += usize::from(in_value && !after_dot && assigned.contains(word));
            i += len;
            continue;
        }
        match c {
            b'(' | b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        match SYMBOLS.iter().find(|s| inner[i..].starts_with(**s)) {
            Some(s) => {
                operators += 1;
                i += s.len();
            }
            None => i += 1,
        }
    }
    (deepest, operators, reads)
}

thread_local! {
    /// How many more numbers `range` may make for the page being rendered on this thread.
    static RANGE_LEFT: Cell<usize> = const { Cell::new(MAX_RANGE) };
}

/// tera's `range(start=0, end, step_by=1)`, within the page's allowance of
/// [`MAX_RANGE`] numbers.
pub fn range(args: &HashMap<String, Value>) -> tera::Result<Value> {
    let arg = |name: &str, default: Option<usize>| match args.get(name) {
        Some(v) => v.as_u64().and_then(|n| usize::try_from(n).ok()).ok_or_else(|| {
            tera::Error::msg(format!("Function `range` received {name}={v} but `{name}` can only be a non-negative integer"))
        }),
        None => default.ok_or_else(|| tera::Error::msg(format!("Function `range` was called without a `{name}` argument"))),
    };
    let (start, end, step) = (arg("start", Some(0))?, arg("end", None)?, arg("step_by", Some(1))?);
    if start > end {
        return Err(tera::Error::msg("Function `range` was called with a `start` argument greater than the `end` one"));
    }
    if step == 0 {
        return Err(tera::Error::msg("Function `range` was called with a `step_by` argument of 0"));
    }
    let count = (end - start).div_ceil(step);
    let left = RANGE_LEFT.with(Cell::get);
    if count > left {
        return Err(tera::Error::msg(format!(
            "Function `range` would make {count} numbers: one page's calls of `range` make at most {MAX_RANGE} in all"
        )));
    }
    RANGE_LEFT.with(|l| l.set(left - count));
    Ok(Value::Array((start..end).step_by(step).map(Value::from).collect()))
}

/// A writer that refuses to grow past [`MAX_PAGE`] bytes.
struct Bounded(Vec<u8>);

impl Write for Bounded {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.0.len() + buf.len() > MAX_PAGE {
            return Err(std::io::Error::other(format!("the page would be larger than {} MiB", MAX_PAGE >> 20)));
        }
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Render the template `name` with `ctx`, within the page's bounds (a fresh allowance of
/// `range` numbers, at most [`MAX_PAGE`] bytes).
pub fn render(tera: &tera::Tera, name: &str, ctx: &tera::Context) -> tera::Result<String> {
    RANGE_LEFT.with(|l| l.set(MAX_RANGE));
    let mut out = Bounded(Vec::new());
    tera.render_to(name, ctx, &mut out)?;
    String::from_utf8(out.0).map_err(|e| tera::Error::msg(format!("the page is not UTF-8: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn excess(text: &str) -> Option<String> {
        first_excess(text).map(|(at, m)| format!("{}: {m}", &text[at]))
    }

    #[test]
    fn nesting_operators_and_doubling_are_found_at_their_tag() {
        let deep_if = format!("{}x{}", "{% if a %}".repeat(65), "{% endif %}".repeat(65));
        assert_eq!(excess(&deep_if).unwrap(), "{% if a %}: more than 64 blocks are open here");
        assert!(excess(&format!("{}x{}", "{% if a %}".repeat(64), "{% endif %}".repeat(64))).is_none());
        let parens = format!("{{{{ {}1{} }}}}", "(".repeat(65), ")".repeat(65));
        assert!(excess(&parens).unwrap().contains("brackets more than 64 deep"));
        let flat = format!("{{{{ {} }}}}", vec!["1"; 300].join(" + "));
        assert!(excess(&flat).unwrap().contains("299 operators"));
        let double = "{% set_global s = 'x' %}{% for i in range(end=64) %}{% set_global s = s ~ s %}{% endfor %}";
        assert!(excess(double).unwrap().starts_with("{% set_global s = s ~ s %}: a `set_global`"));
    }

    #[test]
    fn ordinary_templates_pass() {
        let ok = "{% for e in essays %}{% set_global n = n + 1 %}{% if e.title == \"((((\" %}{{ e.title | upper }}{% endif %}{% endfor %}";
        assert!(excess(ok).is_none());
        let theme = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../templates");
        for entry in std::fs::read_dir(theme).unwrap() {
            let path = entry.unwrap().path();
            assert!(excess(&std::fs::read_to_string(&path).unwrap()).is_none(), "{}", path.display());
        }
    }

    #[test]
    fn range_keeps_to_the_allowance() {
        let args = |end: u64| HashMap::from([("end".to_string(), Value::from(end))]);
        RANGE_LEFT.with(|l| l.set(MAX_RANGE));
        assert_eq!(range(&args(3)).unwrap(), serde_json::json!([0, 1, 2]));
        assert!(range(&args(1_000_000_000)).is_err());
        assert!(range(&args(MAX_RANGE as u64 - 3)).is_ok());
        assert!(range(&args(1)).is_err());
    }
}
