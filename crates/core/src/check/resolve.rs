//! Following a claim's path into a bound result.

use std::borrow::Cow;

use serde_json::Value;

use crate::content::claim::{Path, Step};

/// A census result bound to an id in one essay.
#[derive(Clone, Debug)]
pub struct Bound {
    /// The id the block bound.
    pub id: String,
    /// The census name.
    pub census: String,
    /// The parameters in canonical form (addressed as `id.with.…`).
    pub params: Value,
    /// The result (shared: results can be large).
    pub result: std::sync::Arc<Value>,
}

/// Why a path does not lead anywhere.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolveError {
    /// How many steps resolved before the failing one (0: the first step failed).
    pub step: usize,
    /// What went wrong.
    pub message: String,
    /// What is there instead (the keys of the map, the length of the list).
    pub hint: String,
}

fn keys_of(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let keys: Vec<&str> = m.keys().map(|k| k.as_str()).collect();
            if keys.len() > 24 {
                format!("available keys: {}, … ({} in all)", keys[..24].join(", "), keys.len())
            } else {
                format!("available keys: {}", keys.join(", "))
            }
        }
        Value::Array(a) => format!("a list of {} elements; index it with [0]..[{}]", a.len(), a.len().saturating_sub(1)),
        Value::Number(_) => "a number; the path should end here".into(),
        Value::String(_) => "a string".into(),
        Value::Bool(_) => "true/false; the path should end here".into(),
        Value::Null => "null (no value)".into(),
    }
}

/// What `k`, a key `m` lacks, was likely meant to be: a key that `k` begins with followed
/// by `-` (identifiers may hold `-`, so `positions-1` is one key, not a subtraction), or
/// the closest key by Damerau–Levenshtein distance (at most a third of its length, at
/// least 1 and at most 3), as rustc's "did you mean". `None` for a number (the keys listed
/// say more than the nearest digit) and when no key is that close.
fn nearest_key(k: &str, m: &serde_json::Map<String, Value>) -> Option<String> {
    if let Some(head) = m.keys().find(|key| k.strip_prefix(key.as_str()).is_some_and(|r| r.len() > 1 && r.starts_with('-'))) {
        return Some(format!("`{head}` is there: a minus after a path needs a space before it (`{head} - …`)"));
    }
    if k.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let limit = (k.chars().count() / 3).clamp(1, 3);
    let best = m.keys().map(|key| (strsim::damerau_levenshtein(key, k), key)).filter(|(d, _)| *d <= limit).min();
    best.map(|(_, key)| format!("did you mean `{key}`?"))
}

/// The value at `path.steps` below `bound` (`with` as the first step addresses the
/// parameters). Slices produce new lists, so the value is returned owned; the walk itself
/// borrows, so only the value reached is copied (a path into a large result once copied
/// every subtree it passed through).
pub fn resolve(bound: &Bound, path: &Path) -> Result<Value, ResolveError> {
    let mut steps = path.steps.as_slice();
    let mut start: &Value = bound.result.as_ref();
    let mut done = 0;
    if let Some(Step::Key(k)) = steps.first() {
        if k == "with" && bound.result.get("with").is_none() {
            start = &bound.params;
            steps = &steps[1..];
            done = 1;
        }
    }
    let mut cur: Cow<'_, Value> = Cow::Borrowed(start);
    for (i, s) in steps.iter().enumerate() {
        cur = match cur {
            Cow::Borrowed(here) => step(here, s, done + i)?,
            Cow::Owned(here) => Cow::Owned(step(&here, s, done + i)?.into_owned()),
        };
    }
    Ok(cur.into_owned())
}

/// One step of a path from `here` (step number `at`, for the error): a key or an index
/// borrows, a slice makes a new list.
fn step<'v>(here: &'v Value, s: &Step, at: usize) -> Result<Cow<'v, Value>, ResolveError> {
    let err = |message: String| ResolveError { step: at, message, hint: keys_of(here) };
    match (s, here) {
        (Step::Key(k), Value::Object(m)) => m.get(k).map(Cow::Borrowed).ok_or_else(|| {
            let e = err(format!("no key `{k}`"));
            match nearest_key(k, m) {
                Some(near) => ResolveError { hint: format!("{near} ({})", e.hint), ..e },
                None => e,
            }
        }),
        (Step::Index(n), Value::Array(a)) => a.get(*n).map(Cow::Borrowed).ok_or_else(|| err(format!("index [{n}] is past the end"))),
        (Step::Slice(a, b), Value::Array(l)) => {
            if *b > l.len() {
                return Err(err(format!("slice [{a}..{b}] runs past the end")));
            }
            Ok(Cow::Owned(Value::Array(l[*a..*b].to_vec())))
        }
        (Step::Key(k), _) => Err(err(format!("cannot take key `{k}` here"))),
        (_, _) => Err(err("cannot index here".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::claim::parse_path;
    use serde_json::json;

    fn b() -> Bound {
        Bound {
            id: "s".into(),
            census: "x.y".into(),
            params: json!({"coins": {"2": 11}}),
            result: std::sync::Arc::new(json!({"positions": {"2": 55, "3": 120}, "list": [1, 2, 3, 4]})),
        }
    }

    fn at(p: &str) -> Result<Value, ResolveError> {
        resolve(&b(), &parse_path(p, 0).unwrap().0)
    }

    #[test]
    fn keys_indices_slices_and_params() {
        assert_eq!(at("s.positions.2").unwrap(), json!(55));
        assert_eq!(at("s.list[1]").unwrap(), json!(2));
        assert_eq!(at("s.list[1..3]").unwrap(), json!([2, 3]));
        assert_eq!(at("s.list[1..=3]").unwrap(), json!([2, 3, 4]));
        assert_eq!(at("s.with.coins.2").unwrap(), json!(11));
        let e = at("s.positions.7").unwrap_err();
        assert_eq!(e.step, 1);
        assert!(e.hint.contains("2, 3"), "{}", e.hint);
        assert!(at("s.list[9]").is_err());
        assert!(at("s.list[2..9]").is_err());
        assert!(at("s.positions[0]").is_err());
    }

    #[test]
    fn a_missing_key_names_the_nearest_and_a_minus_without_a_space() {
        let hint = |p: &str| at(p).unwrap_err().hint;
        assert!(hint("s.positons.2").starts_with("did you mean `positions`? (available keys: positions, list"), "{}", hint("s.positons.2"));
        assert!(hint("s.lsit").starts_with("did you mean `list`?"), "{}", hint("s.lsit"));
        assert!(hint("s.positions-1").starts_with("`positions` is there: a minus after a path needs a space"), "{}", hint("s.positions-1"));
        // Nothing close, and a number: the keys alone.
        for far in ["s.grundy", "s.positions.7"] {
            assert!(hint(far).starts_with("available keys") || hint(far).starts_with("a list"), "{far}: {}", hint(far));
        }
    }

    #[test]
    fn a_failed_step_counts_the_with_step_and_a_long_key_list_is_cut_at_24() {
        let e = at("s.with.coins.7").unwrap_err();
        assert_eq!((e.step, e.message.as_str()), (2, "no key `7`"));
        assert_eq!(e.hint, "available keys: 2");
        let keys = |n: usize| -> Bound {
            let m: serde_json::Map<String, Value> = (0..n).map(|i| (format!("k{i:02}"), json!(i))).collect();
            Bound { id: "s".into(), census: "x.y".into(), params: json!({}), result: std::sync::Arc::new(Value::Object(m)) }
        };
        let path = parse_path("s.zz", 0).unwrap().0;
        let all: Vec<String> = (0..24).map(|i| format!("k{i:02}")).collect();
        assert_eq!(resolve(&keys(24), &path).unwrap_err().hint, format!("available keys: {}", all.join(", ")));
        let cut = resolve(&keys(25), &path).unwrap_err().hint;
        assert_eq!(cut, format!("available keys: {}, … (25 in all)", all.join(", ")));
        assert_eq!(at("s.list.x").unwrap_err().hint, "a list of 4 elements; index it with [0]..[3]");
        // A step after a slice (which makes a new list) still counts its place.
        assert_eq!(at("s.list[1..3][0]").unwrap(), json!(2));
        assert_eq!(at("s.list[1..3][5]").unwrap_err().step, 2);
        assert_eq!(at("s.list[0..4][1..2][3]").unwrap_err().step, 3);
    }
}
