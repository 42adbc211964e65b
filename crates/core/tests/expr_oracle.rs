//! The claim evaluator (`check::expr`) against an oracle written plainly here over big
//! rationals: random expression trees over random result values are written out as claim
//! text, parsed by the claim grammar and evaluated; the value (and whether it is an
//! unreduced share, with its numerator and denominator) or the first error's code must be
//! what the oracle computes from the tree itself.

use std::ops::Range;
use std::sync::Arc;

use countersign_core::check::expr::{Env, Val};
use countersign_core::check::forms::Computed;
use countersign_core::check::{resolve, Bound};
use countersign_core::content::claim::{parse_claim, ClaimKind, Path};
use countersign_core::diag::Code;
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{Signed, Zero};
use proptest::prelude::*;
use serde_json::{json, Value};

/// A number expression as generated.
#[derive(Clone, Debug)]
enum T {
    /// An integer literal (written with its sign when negative).
    Int(i64),
    /// A decimal literal: digits / 10.
    Dec(i64),
    /// A path `s.KEY`.
    Path(&'static str),
    Neg(Box<T>),
    /// `+ - * /` by index 0..4, with a spelling choice.
    Arith(u8, bool, Box<T>, Box<T>),
    /// len/sum/min/max (0..4) of a list path, or of several arguments.
    Call(u8, Vec<T>),
}

/// A true/false expression as generated.
#[derive(Clone, Debug)]
enum B {
    Cmp(u8, T, T),
    And(Box<B>, Box<B>),
    Or(Box<B>, Box<B>),
    Not(Box<B>),
}

/// The oracle's value: a rational and, for `x / y` of two integers, the share (x, y).
type OVal = (BigRational, Option<(BigInt, BigInt)>);

/// The result every tree reads: numbers, a share, lists (one empty) and a map.
fn result(a: i64, b: i64, c: i64, l: &[i64], num: i64, den: i64) -> Value {
    let m: serde_json::Map<String, Value> = l.iter().enumerate().map(|(i, v)| (format!("k{i}"), json!(v))).collect();
    json!({ "a": a, "b": b, "c": c, "l": l, "e": [], "m": m, "sh": { "num": num, "den": den } })
}

fn int(n: i64) -> BigRational {
    BigRational::from_integer(BigInt::from(n))
}

/// The oracle's view of a value: a number, or a list or map (no number).
#[derive(Clone, Debug)]
enum O {
    Num(OVal),
    Agg,
}

/// The oracle: the tree's value over `r`, or the code of the first error, left to right
/// (every operand is evaluated before its operator judges the kinds).
fn oracle(t: &T, r: &Value) -> Result<O, Code> {
    let num = |t: &T| -> Result<OVal, Code> {
        match oracle(t, r)? {
            O::Num(v) => Ok(v),
            O::Agg => Err(Code::TypeMismatch),
        }
    };
    Ok(O::Num(match t {
        T::Int(n) => (int(*n), None),
        T::Dec(n) => (BigRational::new(BigInt::from(*n), BigInt::from(10)), None),
        T::Path(k) => match &r[*k] {
            Value::Number(n) => (int(n.as_i64().unwrap()), None),
            Value::Object(o) if o.contains_key("num") => {
                let (n, d) = (o["num"].as_i64().unwrap(), o["den"].as_i64().unwrap());
                (BigRational::new(BigInt::from(n), BigInt::from(d)), Some((BigInt::from(n), BigInt::from(d))))
            }
            _ => return Ok(O::Agg),
        },
        T::Neg(x) => (-num(x)?.0, None),
        T::Arith(op, _, x, y) => {
            let (x, y) = (oracle(x, r), oracle(y, r));
            let (O::Num(x), O::Num(y)) = (x?, y?) else { return Err(Code::TypeMismatch) };
            let whole = |v: &OVal| v.1.is_none() && v.0.is_integer();
            match op {
                0 => (x.0 + y.0, None),
                1 => (x.0 - y.0, None),
                2 => (x.0 * y.0, None),
                _ if y.0.is_zero() => return Err(Code::DivisionByZero),
                _ => {
                    let share = (whole(&x) && whole(&y)).then(|| (x.0.to_integer(), y.0.to_integer()));
                    (x.0 / y.0, share)
                }
            }
        }
        T::Call(f, args) => return call(*f, args, r).map(O::Num),
    }))
}

/// `len`, `sum`, `min` or `max` (f = 0..4) of `args`.
fn call(f: u8, args: &[T], r: &Value) -> Result<OVal, Code> {
    // A lone list or map argument is spread; any other argument must be a number.
    let spread = |k: &str| -> Option<Vec<i64>> {
        match &r[k] {
            Value::Array(a) => Some(a.iter().map(|v| v.as_i64().unwrap()).collect()),
            Value::Object(o) if !o.contains_key("num") => Some(o.values().map(|v| v.as_i64().unwrap()).collect()),
            _ => None,
        }
    };
    let lone = match args {
        [T::Path(k)] => spread(k),
        _ => None,
    };
    if f == 0 {
        return match lone {
            Some(items) => Ok((int(items.len() as i64), None)),
            None => {
                oracle(&args[0], r)?;
                Err(Code::TypeMismatch)
            }
        };
    }
    let nums: Vec<BigRational> = match lone {
        Some(items) => items.into_iter().map(int).collect(),
        None => {
            let vals: Vec<Result<O, Code>> = args.iter().map(|a| oracle(a, r)).collect();
            let mut seen = Vec::new();
            for v in vals {
                seen.push(v?);
            }
            let mut out = Vec::new();
            for v in seen {
                match v {
                    O::Num(v) => out.push(v.0),
                    O::Agg => return Err(Code::TypeMismatch),
                }
            }
            out
        }
    };
    let v = match f {
        1 => Some(nums.into_iter().fold(int(0), |a, b| a + b)),
        2 => nums.into_iter().min(),
        _ => nums.into_iter().max(),
    };
    v.map(|q| (q, None)).ok_or(Code::EmptyList)
}

/// True when the tree reads a path (a claim that reads none is a syntax error).
fn reads(t: &T) -> bool {
    match t {
        T::Int(_) | T::Dec(_) => false,
        T::Path(_) => true,
        T::Neg(x) => reads(x),
        T::Arith(_, _, x, y) => reads(x) || reads(y),
        T::Call(_, args) => args.iter().any(reads),
    }
}

fn reads_b(b: &B) -> bool {
    match b {
        B::Cmp(_, x, y) => reads(x) || reads(y),
        B::And(x, y) | B::Or(x, y) => reads_b(x) || reads_b(y),
        B::Not(x) => reads_b(x),
    }
}

fn oracle_b(b: &B, r: &Value) -> Result<bool, Code> {
    match b {
        B::Cmp(op, x, y) => {
            let (x, y) = (oracle(x, r), oracle(y, r));
            let (O::Num((x, _)), O::Num((y, _))) = (x?, y?) else { return Err(Code::NotANumber) };
            Ok(match op {
                0 => x == y,
                1 => x != y,
                2 => x < y,
                3 => x <= y,
                4 => x > y,
                _ => x >= y,
            })
        }
        B::And(x, y) => {
            let (x, y) = (oracle_b(x, r), oracle_b(y, r));
            let (x, y) = (x?, y?);
            Ok(x && y)
        }
        B::Or(x, y) => {
            let (x, y) = (oracle_b(x, r), oracle_b(y, r));
            let (x, y) = (x?, y?);
            Ok(x || y)
        }
        B::Not(x) => Ok(!oracle_b(x, r)?),
    }
}

/// The tree as claim text, fully parenthesised, with the operators' other spellings.
fn write(t: &T) -> String {
    match t {
        T::Int(n) => n.to_string(),
        T::Dec(n) => format!("{}{}.{}", if *n < 0 { "-" } else { "" }, n.abs() / 10, n.abs() % 10),
        T::Path(k) => format!("s.{k}"),
        T::Neg(x) => format!("−({})", write(x)),
        T::Arith(op, alt, x, y) => {
            let sign = match (op, alt) {
                (0, _) => "+",
                (1, false) => "-",
                (1, true) => "−",
                (2, false) => "*",
                (2, true) => "×",
                (_, false) => "/",
                (_, true) => "÷",
            };
            format!("({} {sign} {})", write(x), write(y))
        }
        T::Call(f, args) => {
            let name = ["len", "sum", "min", "max"][*f as usize];
            format!("{name}({})", args.iter().map(write).collect::<Vec<_>>().join(", "))
        }
    }
}

fn write_b(b: &B) -> String {
    match b {
        B::Cmp(op, x, y) => format!("{} {} {}", write(x), ["==", "!=", "<", "<=", ">", ">="][*op as usize], write(y)),
        B::And(x, y) => format!("({}) and ({})", write_b(x), write_b(y)),
        B::Or(x, y) => format!("({}) or ({})", write_b(x), write_b(y)),
        B::Not(x) => format!("not ({})", write_b(x)),
    }
}

fn tree() -> impl Strategy<Value = T> {
    let leaf = prop_oneof![
        (-20i64..20).prop_map(T::Int),
        (-200i64..200).prop_map(T::Dec),
        prop::sample::select(vec!["a", "b", "c", "sh", "l"]).prop_map(T::Path),
    ];
    leaf.prop_recursive(4, 24, 3, |inner| {
        prop_oneof![
            inner.clone().prop_map(|x| T::Neg(Box::new(x))),
            (0u8..4, any::<bool>(), inner.clone(), inner.clone()).prop_map(|(o, alt, x, y)| T::Arith(o, alt, Box::new(x), Box::new(y))),
            (0u8..4, prop::sample::select(vec!["l", "e", "m", "a"])).prop_map(|(f, k)| T::Call(f, vec![T::Path(k)])),
            (1u8..4, prop::collection::vec(inner, 1..4)).prop_map(|(f, args)| T::Call(f, args)),
        ]
    })
}

fn boolean() -> impl Strategy<Value = B> {
    let leaf = (0u8..6, tree(), tree()).prop_map(|(o, x, y)| B::Cmp(o, x, y));
    leaf.prop_recursive(3, 8, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(x, y)| B::And(Box::new(x), Box::new(y))),
            (inner.clone(), inner.clone()).prop_map(|(x, y)| B::Or(Box::new(x), Box::new(y))),
            inner.prop_map(|x| B::Not(Box::new(x))),
        ]
    })
}

/// Parse `inner` as a claim and evaluate its expression with the countersign evaluator:
/// the value, or the code of the first diagnostic.
fn evaluate(inner: &str, r: &Value) -> Result<Val, Code> {
    let source = format!("{{{{{inner}}}}}");
    let claim = parse_claim(inner, 2, 0..source.len()).map_err(|e| e.code)?;
    let expr = match claim.kind {
        ClaimKind::Check { expr, .. } | ClaimKind::Interpolate { expr, .. } | ClaimKind::Assert { expr } => expr,
        k => panic!("{k:?}"),
    };
    let bound = Bound { id: "s".into(), census: "test".into(), params: json!({}), result: Arc::new(r.clone()) };
    let mut look = |p: &Path, _: &Range<usize>| {
        resolve(&bound, p).map_err(|e| countersign_core::diag::Diagnostic::error(Code::PathNotInResult, "e.md", 0..1, e.message))
    };
    let mut env = Env { file: "e.md", source: &source, lookup: &mut look, diags: Vec::new() };
    let v = env.eval(&expr);
    match (v, env.diags.first()) {
        (Some(v), None) => Ok(v),
        (_, Some(d)) => Err(d.code),
        (None, None) => panic!("{inner}: no value and no diagnostic"),
    }
}

fn values() -> impl Strategy<Value = Value> {
    (-50i64..50, -50i64..50, 0i64..3, prop::collection::vec(-30i64..30, 0..5), -9i64..9, 1i64..9)
        .prop_map(|(a, b, c, l, n, d)| result(a, b, c, &l, n, d))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn the_evaluator_agrees_with_the_oracle(t in tree(), r in values()) {
        let text = format!(" {} = 1 ", write(&t));
        let want = if reads(&t) { oracle(&t, &r) } else { Err(Code::ClaimSyntax) };
        let got = evaluate(&text, &r);
        match (&want, &got) {
            (Ok(O::Agg), Ok(v)) => prop_assert!(matches!(v.computed(), Computed::List(_) | Computed::Other(_)), "{}", text),
            (Ok(O::Num((q, share))), Ok(v)) => match v.computed() {
                Computed::Number(g, gshare) => {
                    prop_assert_eq!((g.numer(), g.denom()), (q.numer(), q.denom()), "{}", text);
                    prop_assert_eq!(&gshare, share, "share of {}", text);
                }
                c => prop_assert!(false, "{}: a number expected, got {:?}", text, c),
            },
            (Err(w), Err(g)) => prop_assert_eq!(w, g, "{}", text),
            _ => prop_assert!(false, "{}: oracle {:?}, evaluator {:?}", text, want, got.map(|v| v.computed())),
        }
    }

    #[test]
    fn asserts_agree_with_the_oracle(b in boolean(), r in values()) {
        let text = format!("assert {}", write_b(&b));
        let want = if reads_b(&b) { oracle_b(&b, &r) } else { Err(Code::ClaimSyntax) };
        let got = evaluate(&text, &r).map(|v| match v {
            Val::Bool(x) => x,
            v => panic!("{text}: true or false expected, got {v:?}"),
        });
        prop_assert_eq!(want, got, "{}", text);
    }
}

#[test]
fn a_share_is_kept_unreduced_and_negative_values_stay_exact() {
    let r = result(255, 495, 0, &[1, 2], 3, 6);
    let v = evaluate(" s.a / s.b ", &r).unwrap();
    assert_eq!(
        v.computed(),
        Computed::Number(countersign_core::check::rational::Q::new(255, 495).unwrap(), Some((255.into(), 495.into())))
    );
    let v = evaluate(" s.sh * 2 ", &r).unwrap();
    assert_eq!(v.computed(), Computed::Number(countersign_core::check::rational::Q::int(1), None));
    assert!(BigRational::new(BigInt::from(-1), BigInt::from(3)).is_negative());
}
