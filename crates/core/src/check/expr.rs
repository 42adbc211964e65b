//! Evaluating a claim's expression exactly, over big rationals.
//!
//! Values: a path's value as the census returned it (a number, a share `{num, den}`, a
//! range, a list, a map, true/false), a number an expression computed, or true/false.
//!
//! - `x / y` of two integers (neither of them a share) is the share "x of y", unreduced,
//!   so a claim may state it as `N of M` as well as `a half` or `51.5 per cent`. Every
//!   other arithmetic result is a reduced rational (a share taking part in arithmetic
//!   counts as its value).
//! - `len` counts a list's elements or a map's keys. `sum`, `min` and `max` take a list,
//!   a map (its values) or several numbers; `sum` of nothing is 0, `min` and `max` of
//!   nothing an error.
//! - A comparison compares numbers (true counts as 1, false as 0, as asserts always
//!   have); `and`, `or` and `not` take true/false. Both sides are always evaluated, so an
//!   error on either side is reported whatever the other gives.
//! - No overflow is possible: numbers are big rationals, and an expression has no power,
//!   so a result's size is bounded by the expression's length and its operands'.
//!
//! Errors are diagnostics at the operator's (or function's) own span: a division by zero
//! at the `/`, a list added to a number at the `+`, the wrong kind of argument at the
//! function's name.

use std::ops::Range;

use num_bigint::BigInt;
use serde_json::Value;

use super::forms::{self, Computed};
use super::rational::Q;
use crate::content::claim::{BinOp, Expr, Func, Logic, Op, Path};
use crate::diag::{Code, Diagnostic};

/// A value an expression takes.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    /// A path's value as the census returned it.
    Json(Value),
    /// A computed number; `Some((x, y))` when it is the unreduced share `x / y`.
    Num(Q, Option<(BigInt, BigInt)>),
    /// true or false.
    Bool(bool),
}

impl Val {
    /// The checker's view of the value (what a stated form is compared with).
    pub fn computed(&self) -> Computed {
        match self {
            Val::Json(v) => Computed::from_json(v),
            Val::Num(q, share) => Computed::Number(q.clone(), share.clone()),
            Val::Bool(b) => Computed::Bool(*b),
        }
    }

    /// The value as JSON, for the essay's published results: a share (and any fraction
    /// that is not whole) as `{num, den}`, an integer as an integer when JSON can hold it,
    /// otherwise as its exact text.
    pub fn to_json(&self) -> Value {
        let int = |n: &BigInt| i64::try_from(n).map(Value::from).unwrap_or_else(|_| Value::String(n.to_string()));
        match self {
            Val::Json(v) => v.clone(),
            Val::Bool(b) => Value::Bool(*b),
            Val::Num(_, Some((n, d))) => serde_json::json!({ "num": int(n), "den": int(d) }),
            Val::Num(q, None) if q.is_integer() => int(q.numer()),
            Val::Num(q, None) => serde_json::json!({ "num": int(q.numer()), "den": int(q.denom()) }),
        }
    }

    /// A number, if the value is one (a share counts as its value).
    fn number(&self) -> Option<(Q, Option<(BigInt, BigInt)>)> {
        match self.computed() {
            Computed::Number(q, share) => Some((q, share)),
            Computed::Float(q) => Some((q, None)),
            _ => None,
        }
    }

    /// true/false, if the value is one.
    fn truth(&self) -> Option<bool> {
        match self {
            Val::Bool(b) | Val::Json(Value::Bool(b)) => Some(*b),
            _ => None,
        }
    }

    /// What kind of value this is, for a type-mismatch diagnostic.
    fn kind(&self) -> String {
        match self {
            Val::Json(Value::Array(a)) => format!("a list of {}", a.len()),
            Val::Json(Value::Object(m)) if matches!(self.computed(), Computed::Other(_)) => format!("a map of {} keys", m.len()),
            Val::Json(Value::String(_)) => "a string".into(),
            Val::Json(Value::Null) => "null".into(),
            _ => match self.computed() {
                Computed::Range(..) => "a range {min, max}".into(),
                Computed::Bool(_) => "true/false".into(),
                _ => "a number".into(),
            },
        }
    }
}

/// The exact value as a reader's certificate shows it: `255 of 495` for a share, `1/8`
/// for a fraction, `1,001` for an integer, `[1, 4, 10]` for a list.
pub fn exact_text(c: &Computed) -> String {
    match c {
        Computed::Number(_, Some((n, d))) => format!("{} of {}", super::rational::group(n), super::rational::group(d)),
        Computed::Number(q, None) if q.is_integer() => super::rational::group(q.numer()),
        Computed::Number(q, None) => format!("{}/{}", q.numer(), q.denom()),
        Computed::Range(a, b) => {
            format!("{} to {}", exact_text(&Computed::Number(a.clone(), None)), exact_text(&Computed::Number(b.clone(), None)))
        }
        Computed::List(l) => format!("[{}]", l.iter().map(exact_text).collect::<Vec<_>>().join(", ")),
        Computed::Bool(b) => b.to_string(),
        Computed::Float(q) => forms::float_text(q),
        Computed::Text(s) => format!("{s:?}"),
        Computed::Other(s) => s.clone(),
    }
}

/// How evaluation reads a path: the value at it (with its span), or the diagnostic saying
/// why there is none.
pub type Lookup<'a> = dyn FnMut(&Path, &Range<usize>) -> Result<Value, Diagnostic> + 'a;

/// What evaluation needs: the essay (for spans and messages) and how to read a path.
pub struct Env<'a> {
    /// The essay's file, for diagnostics.
    pub file: &'a str,
    /// The essay's source (spans index it).
    pub source: &'a str,
    /// The value at a path (with its span), or the diagnostic saying why there is none.
    pub lookup: &'a mut Lookup<'a>,
    /// Diagnostics found so far.
    pub diags: Vec<Diagnostic>,
}

/// A value and how it reads in an assert's explanation (`8 == 8`).
type Shown = (Val, String);

impl Env<'_> {
    fn fail<T>(&mut self, code: Code, span: &Range<usize>, message: String, hint: &str) -> Option<T> {
        self.diags.push(Diagnostic::error(code, self.file, span.clone(), message).with_hint(hint.to_string()));
        None
    }

    fn text(&self, span: &Range<usize>) -> &str {
        self.source.get(span.clone()).unwrap_or("")
    }

    /// Evaluate `e`; `None` when it cannot be (the reasons are in `self.diags`).
    pub fn eval(&mut self, e: &Expr) -> Option<Val> {
        self.eval_shown(e).map(|(v, _)| v)
    }

    /// Evaluate `e` and say how it reads with its values in place.
    pub fn eval_shown(&mut self, e: &Expr) -> Option<Shown> {
        match e {
            Expr::Path(p, span) => match (self.lookup)(p, span) {
                Ok(v) => {
                    let shown = exact_text(&Computed::from_json(&v));
                    Some((Val::Json(v), super::short(shown)))
                }
                Err(d) => {
                    self.diags.push(d);
                    None
                }
            },
            Expr::Number(t, span) => match forms::parse_num(t).filter(|n| !matches!(n.style, forms::NumStyle::Words { .. })) {
                Some(n) => Some((Val::Num(n.value, None), t.clone())),
                None => self.fail(Code::NotANumber, span, format!("`{t}` is not a number"), "write at most 40 digits"),
            },
            Expr::Neg(inner, at) => {
                let (v, _) = self.eval_shown(inner)?;
                let Some((q, _)) = v.number() else {
                    return self.fail(Code::TypeMismatch, at, format!("`-` needs a number, not {}", v.kind()), "negate a number");
                };
                let r = Val::Num(Q::int(0) - q, None);
                let shown = exact_text(&r.computed());
                Some((r, shown))
            }
            Expr::Arith(first, rest) => self.chain(first, rest),
            Expr::Call(f, args, at) => self.call(*f, args, at),
            Expr::Compare(op, a, b, at) => self.compare(*op, a, b, at),
            Expr::Logic(first, rest) => self.connect(first, rest),
            Expr::Not(inner, at) => {
                let (x, xs) = self.truth_of(inner, at)?;
                Some((Val::Bool(!x), format!("not ({xs})")))
            }
        }
    }

    /// `e` as true/false, for the connective at `at`.
    fn truth_of(&mut self, e: &Expr, at: &Range<usize>) -> Option<(bool, String)> {
        let (v, shown) = self.eval_shown(e)?;
        match v.truth() {
            Some(t) => Some((t, shown)),
            None => {
                let word = self.text(at).to_string();
                self.fail(
                    Code::TypeMismatch,
                    at,
                    format!("`{word}` needs true or false, not {} ({shown})", v.kind()),
                    "join comparisons: {{ assert s.a == 0 or s.b > 1 }}",
                )
            }
        }
    }

    /// A chain `a op b op c …`, left to right, in a loop: every operand is evaluated (so
    /// each error is reported), and each operator judged once both its sides have values.
    fn chain(&mut self, first: &Expr, rest: &[(BinOp, Expr, Range<usize>)]) -> Option<Shown> {
        let mut acc = self.eval_shown(first);
        for (op, b, at) in rest {
            let y = self.eval_shown(b);
            acc = match (acc, y) {
                (Some((x, _)), Some((y, _))) => self.arith(*op, x, y, at),
                _ => None,
            };
        }
        acc
    }

    /// A chain `a and b or …` of one connective, left to right, in a loop; every operand
    /// is evaluated and must be true or false (the first is judged at the first word).
    fn connect(&mut self, first: &Expr, rest: &[(Logic, Expr, Range<usize>)]) -> Option<Shown> {
        let mut acc = rest.first().and_then(|(_, _, at)| self.truth_of(first, at)).map(|(x, xs)| (x, format!("({xs})")));
        for (l, b, at) in rest {
            let y = self.truth_of(b, at);
            acc = match (acc, y) {
                (Some((x, mut shown)), Some((y, ys))) => {
                    let (v, w) = match l {
                        Logic::And => (x && y, "and"),
                        Logic::Or => (x || y, "or"),
                    };
                    shown.push_str(&format!(" {w} ({ys})"));
                    Some((v, shown))
                }
                _ => None,
            };
        }
        acc.map(|(v, shown)| (Val::Bool(v), shown))
    }

    fn arith(&mut self, op: BinOp, x: Val, y: Val, at: &Range<usize>) -> Option<Shown> {
        let sign = self.text(at).to_string();
        let (Some((p, ps)), Some((q, qs))) = (x.number(), y.number()) else {
            let which =
                if x.number().is_none() { format!("the left side is {}", x.kind()) } else { format!("the right side is {}", y.kind()) };
            return self.fail(
                Code::TypeMismatch,
                at,
                format!("`{sign}` needs two numbers: {which}"),
                "arithmetic takes numbers; len(…), sum(…), min(…) and max(…) turn a list or a map into one",
            );
        };
        let r = match op {
            BinOp::Add => Val::Num(p + q, None),
            BinOp::Sub => Val::Num(p - q, None),
            BinOp::Mul => Val::Num(p * q, None),
            BinOp::Div => {
                let Some(v) = &p / &q else {
                    return self.fail(
                        Code::DivisionByZero,
                        at,
                        format!("division by zero: the right side of `{sign}` is 0"),
                        "a share of nothing has no value; guard it with an assert, or state the count",
                    );
                };
                let whole = |n: &Q, share: &Option<(BigInt, BigInt)>| share.is_none() && n.is_integer();
                let share = (whole(&p, &ps) && whole(&q, &qs)).then(|| (p.numer().clone(), q.numer().clone()));
                Val::Num(v, share)
            }
        };
        let shown = exact_text(&r.computed());
        Some((r, shown))
    }

    fn compare(&mut self, op: Op, a: &Expr, b: &Expr, at: &Range<usize>) -> Option<Shown> {
        // Both sides are evaluated before either is judged, so errors come left to right.
        let (x, y) = (self.eval_shown(a), self.eval_shown(b));
        let (x, y) = (x?, y?);
        if matches!(op, Op::In | Op::NotIn) {
            return self.member(op, a, x, y, at);
        }
        let (x, y) = (self.operand(a, x), self.operand(b, y));
        let ((p, ps), (q, qs)) = (x?, y?);
        let holds = match op {
            Op::Eq => p == q,
            Op::Ne => p != q,
            Op::Lt => p < q,
            Op::Le => p <= q,
            Op::Gt => p > q,
            Op::Ge => p >= q,
            Op::In | Op::NotIn => return None,
        };
        Some((Val::Bool(holds), format!("{ps} {} {qs}", op.as_str())))
    }

    /// `x in y` (`x not in y`, when `op` is [`Op::NotIn`]): the number `x` (true counts as
    /// 1, false as 0, as in comparisons) is equal to an element of the list `y`. A right
    /// side that is not a list, or a list holding anything but numbers and true/false, is
    /// `type-mismatch` at the operator `at`.
    fn member(&mut self, op: Op, a: &Expr, x: Shown, (y, _): Shown, at: &Range<usize>) -> Option<Shown> {
        let left = self.operand(a, x);
        let word = op.as_str();
        let Val::Json(Value::Array(items)) = &y else {
            let hint = match y.computed() {
                Computed::Range(..) => "for a range {min, max}, compare with its ends: s.r.min <= x and x <= s.r.max",
                _ => "`in` looks in a list: {{ assert 6 not in s.values }}",
            };
            return self.fail(Code::TypeMismatch, at, format!("`{word}` needs a list on its right, not {}", y.kind()), hint);
        };
        let mut elements = Vec::with_capacity(items.len());
        for (i, v) in items.iter().enumerate() {
            let v = Val::Json(v.clone());
            match v.truth().map(|t| Q::int(t as u8)).or_else(|| v.number().map(|(q, _)| q)) {
                Some(q) => elements.push(q),
                None => {
                    let message = format!("`{word}` compares numbers, and element [{i}] of the list is {}", v.kind());
                    return self.fail(Code::TypeMismatch, at, message, "look for a number in a list of numbers, or index into the list");
                }
            }
        }
        let (p, ps) = left?;
        let found = elements.contains(&p);
        let list = super::short(exact_text(&y.computed()));
        Some((Val::Bool(found == (op == Op::In)), format!("{ps} {word} {list}")))
    }

    /// The value `(v, shown)` of the side `e` of a comparison as a number (true is 1,
    /// false 0).
    fn operand(&mut self, e: &Expr, (v, shown): Shown) -> Option<(Q, String)> {
        if let Some(t) = v.truth() {
            return Some((Q::int(t as u8), t.to_string()));
        }
        if let Some((q, _)) = v.number() {
            return Some((q, shown));
        }
        let span = span_of(e);
        let what = match e {
            Expr::Path(p, _) => p.to_string(),
            _ => self.text(&span).to_string(),
        };
        let c = super::short(v.computed().display());
        self.fail(
            Code::NotANumber,
            &span,
            format!("`{what}` is not a number: it is {c}"),
            "an assert compares numbers (true counts as 1, false as 0)",
        )
    }

    fn call(&mut self, f: Func, args: &[Expr], at: &Range<usize>) -> Option<Shown> {
        let vals: Vec<Option<Shown>> = args.iter().map(|a| self.eval_shown(a)).collect();
        let vals: Vec<Val> = vals.into_iter().collect::<Option<Vec<_>>>()?.into_iter().map(|(v, _)| v).collect();
        let r = match f {
            Func::Len => {
                let n = match &vals[0] {
                    Val::Json(Value::Array(a)) => a.len(),
                    v @ Val::Json(Value::Object(m)) if matches!(v.computed(), Computed::Other(_)) => m.len(),
                    v => {
                        let k = v.kind();
                        return self.fail(Code::TypeMismatch, at, format!("`len` needs a list or a map, not {k}"), "write len(s.rules)");
                    }
                };
                Val::Num(Q::int(n), None)
            }
            _ => self.fold(f, &vals, at)?,
        };
        let shown = exact_text(&r.computed());
        Some((r, shown))
    }

    /// `sum`, `min` or `max` of `vals`: one list or map, or several numbers.
    fn fold(&mut self, f: Func, vals: &[Val], at: &Range<usize>) -> Option<Val> {
        let items: Vec<Val> = match vals {
            [Val::Json(Value::Array(a))] => a.iter().cloned().map(Val::Json).collect(),
            [v @ Val::Json(Value::Object(m))] if matches!(v.computed(), Computed::Other(_)) => m.values().cloned().map(Val::Json).collect(),
            _ => vals.to_vec(),
        };
        let mut nums = Vec::with_capacity(items.len());
        for v in &items {
            match v.number() {
                Some((q, _)) => nums.push(q),
                None => {
                    let k = v.kind();
                    return self.fail(
                        Code::TypeMismatch,
                        at,
                        format!("`{}` needs numbers, and one of them is {k}", f.name()),
                        "sum, min and max take a list or a map of numbers, or several numbers",
                    );
                }
            }
        }
        let r = match f {
            Func::Sum => Some(nums.into_iter().fold(Q::int(0), |a, b| a + b)),
            Func::Min => nums.into_iter().min(),
            _ => nums.into_iter().max(),
        };
        match r {
            Some(q) => Some(Val::Num(q, None)),
            None => self.fail(
                Code::EmptyList,
                at,
                format!("`{}` of an empty list has no value", f.name()),
                "guard it: {{ assert len(s.list) > 0 }}, or state the count",
            ),
        }
    }
}

/// The span a diagnostic about `e` as a whole points at: a path's or number's own, an
/// operator's or function name's for the rest.
pub fn span_of(e: &Expr) -> Range<usize> {
    match e {
        Expr::Path(_, s) | Expr::Number(_, s) | Expr::Neg(_, s) | Expr::Not(_, s) => s.clone(),
        Expr::Call(_, _, s) | Expr::Compare(_, _, _, s) => s.clone(),
        Expr::Arith(first, rest) => rest.last().map_or_else(|| span_of(first), |(_, _, s)| s.clone()),
        Expr::Logic(first, rest) => rest.last().map_or_else(|| span_of(first), |(_, _, s)| s.clone()),
    }
}
