//! The grammar inside `{{ … }}`: checked claims, interpolations, asserts and plain text.
//!
//! ```text
//! claim    = "{{" ws sum ws "=" ws stated ws "}}"      checked
//!          | "{{" ws sum ws "}}"                        interpolated (flagged by --strict)
//!          | "{{" ws "assert" ws or ws "}}"             checked, renders nothing
//!          | "{{" ws "plain" ws text ws "}}"            not computed: renders text as is
//! or       = and ( "or" and )*
//! and      = not ( "and" not )*
//! not      = "not" not | compare
//! compare  = sum ( ( "==" | "!=" | "<=" | ">=" | "<" | ">" | "in" | "not" "in" ) sum )?
//! sum      = term ( ( "+" | "-" | "−" ) term )*
//! term     = unary ( ( "*" | "×" | "/" | "÷" ) unary )*
//! unary    = ( "-" | "−" ) unary | atom
//! atom     = number | path | func "(" or ( "," or )* ")" | "(" or ")"
//! func     = "len" | "sum" | "min" | "max"
//! number   = "-"? digits ( "." digits )?
//! path     = id ( "." key | "[" index "]" | "[" index ".." "="? index "]" )*
//! key      = identifier | integer        an integer key is a map key, not an index
//! ```
//!
//! Identifiers may hold `-`, so a minus after a path needs a space before it (`s.a - 1`;
//! `s.a-1` is the key `a-1`). An expression must read at least one path: one that reads
//! no census result certifies nothing. Values and their types are judged when the claim
//! is checked (`check::expr`).
//!
//! Spans are byte offsets into the essay's source, so diagnostics point at the path or
//! the stated value itself.
//!
//! A run of operators of one level (`a + b - c + …`, `x and y and …`) is one flat
//! [`Expr::Arith`] or [`Expr::Logic`] chain, so a sum of thousands of terms is parsed,
//! walked and evaluated without recursion. Nesting — `(`, a function call, a unary minus,
//! `not` — is bounded: more than [`MAX_DEPTH`] levels is a `claim-syntax` error at the
//! token that goes one level too deep, so no claim can overflow the stack.

use std::fmt;
use std::ops::Range;

use crate::diag::Code;

/// One step of a path into a result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// `.name` or `.2`: a map key (integer keys are map keys too).
    Key(String),
    /// `[i]`: the i-th element of a list, from 0.
    Index(usize),
    /// `[a..b]` (b exclusive) or `[a..=b]` (stored as exclusive end): a sub-list.
    Slice(usize, usize),
}

/// A path into a bound result: `small.positions.2`, `m.rules[0].hits`, `s.with.coins.3`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Path {
    /// The id a ```` ```census ```` block bound.
    pub id: String,
    /// The steps below it.
    pub steps: Vec<Step>,
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.id)?;
        for s in &self.steps {
            match s {
                Step::Key(k) => write!(f, ".{k}")?,
                Step::Index(i) => write!(f, "[{i}]")?,
                Step::Slice(a, b) => write!(f, "[{a}..{b}]")?,
            }
        }
        Ok(())
    }
}

/// A comparison operator of an assert.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `in`: the left side is an element of the list on the right.
    In,
    /// `not in`: it is not.
    NotIn,
}

impl Op {
    /// The operator as written.
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::In => "in",
            Op::NotIn => "not in",
        }
    }
}

/// An arithmetic operator of an expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-` or `−`
    Sub,
    /// `*` or `×`
    Mul,
    /// `/` or `÷`
    Div,
}

/// A boolean connective of an assert.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Logic {
    /// `and`
    And,
    /// `or`
    Or,
}

/// A function an expression may call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    /// `len(x)`: the elements of a list, the keys of a map.
    Len,
    /// `sum(x)`: the sum of a list's (or a map's) numbers, or of several arguments.
    Sum,
    /// `min(x)`: the least of a list's (or a map's) numbers, or of several arguments.
    Min,
    /// `max(x)`: the greatest, likewise.
    Max,
}

impl Func {
    /// The function named `name`, if there is one.
    pub fn named(name: &str) -> Option<Func> {
        match name {
            "len" => Some(Func::Len),
            "sum" => Some(Func::Sum),
            "min" => Some(Func::Min),
            "max" => Some(Func::Max),
            _ => None,
        }
    }

    /// The name as written.
    pub fn name(self) -> &'static str {
        match self {
            Func::Len => "len",
            Func::Sum => "sum",
            Func::Min => "min",
            Func::Max => "max",
        }
    }
}

/// An expression over result values (see the module docs for the grammar). Every node
/// keeps the span of its operator or name, so a diagnostic points at the operator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    /// A path into a result, with its span.
    Path(Path, Range<usize>),
    /// A number as written (`0`, `-3`, `0.5`), with its span.
    Number(String, Range<usize>),
    /// `-e`: the span of the minus sign.
    Neg(Box<Expr>, Range<usize>),
    /// `a op b op c …`, left to right: the first operand, then each operator (with its
    /// span) and the operand after it; never an empty chain.
    Arith(Box<Expr>, Vec<(BinOp, Expr, Range<usize>)>),
    /// `f(args)`: the span of the name.
    Call(Func, Vec<Expr>, Range<usize>),
    /// `a op b`, a comparison: the span of the operator.
    Compare(Op, Box<Expr>, Box<Expr>, Range<usize>),
    /// `a and b and …`, `a or b or …`: the first operand, then each word (with its span)
    /// and the operand after it; never an empty chain.
    Logic(Box<Expr>, Vec<(Logic, Expr, Range<usize>)>),
    /// `not e`: the span of the word.
    Not(Box<Expr>, Range<usize>),
}

impl Expr {
    /// Every path the expression reads, in the order written.
    pub fn paths(&self) -> Vec<&Path> {
        let mut out = Vec::new();
        self.walk(&mut |e| {
            if let Expr::Path(p, _) = e {
                out.push(p);
            }
        });
        out
    }

    /// Call `f` on this node and every node below it, parents first, left to right.
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        f(self);
        match self {
            Expr::Path(..) | Expr::Number(..) => {}
            Expr::Neg(e, _) | Expr::Not(e, _) => e.walk(f),
            Expr::Compare(_, a, b, _) => {
                a.walk(f);
                b.walk(f);
            }
            Expr::Arith(a, rest) => {
                a.walk(f);
                rest.iter().for_each(|(_, b, _)| b.walk(f));
            }
            Expr::Logic(a, rest) => {
                a.walk(f);
                rest.iter().for_each(|(_, b, _)| b.walk(f));
            }
            Expr::Call(_, args, _) => args.iter().for_each(|a| a.walk(f)),
        }
    }

    /// The path, when the whole expression is one path.
    pub fn as_path(&self) -> Option<&Path> {
        match self {
            Expr::Path(p, _) => Some(p),
            _ => None,
        }
    }
}

/// What a `{{ … }}` says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClaimKind {
    /// `{{ expr = stated }}`: the stated text must agree with the value of `expr`.
    Check {
        /// The expression (most often a single path).
        expr: Expr,
        /// Span of the expression.
        expr_span: Range<usize>,
        /// The stated text exactly as written (rendered on the page).
        stated: String,
        /// Span of the stated text.
        stated_span: Range<usize>,
    },
    /// `{{ expr }}`: the computed value is written into the page; checks nothing.
    Interpolate {
        /// The expression.
        expr: Expr,
        /// Span of the expression.
        expr_span: Range<usize>,
    },
    /// `{{ assert a == b and … }}`: the expression must be true; renders nothing.
    Assert {
        /// The expression, true or false.
        expr: Expr,
    },
    /// `{{ plain text }}`: a number that is not computed (a year, a prize); rendered as is.
    Plain {
        /// The text.
        text: String,
    },
}

/// A claim found in an essay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    /// Span of the whole `{{ … }}`.
    pub span: Range<usize>,
    /// What it says.
    pub kind: ClaimKind,
}

/// A syntax error inside a claim, with the span it concerns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimSyntaxError {
    /// The kind of problem (the code of its diagnostic).
    pub code: Code,
    /// What is wrong.
    pub message: String,
    /// Where (byte offsets into the essay).
    pub span: Range<usize>,
    /// What to do.
    pub hint: String,
}

/// The end of the character starting at byte `at` of `s` (`at` itself at the end), so
/// that a one-character error span never splits a multi-byte character (found by the
/// fuzz tests: `{{ é }}` gave a span ending inside `é`).
fn char_end(s: &str, at: usize) -> usize {
    s.get(at..).and_then(|r| r.chars().next()).map_or(at.min(s.len()), |c| at + c.len_utf8())
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Parse a path starting at the beginning of `s` (no leading space); `base` is the byte
/// offset of `s` in the essay. Returns the path and the number of bytes it took.
pub fn parse_path(s: &str, base: usize) -> Result<(Path, usize), ClaimSyntaxError> {
    let bytes = s.as_bytes();
    let err = |msg: &str, at: usize, hint: &str| ClaimSyntaxError {
        code: Code::ClaimSyntax,
        message: msg.to_string(),
        span: base + at..base + char_end(s, at),
        hint: hint.to_string(),
    };
    let first = s.chars().next();
    if !first.is_some_and(is_ident_start) {
        return Err(err(
            "expected the id of a census block",
            0,
            "a claim starts with the `id:` of a ```census block, e.g. {{ small.positions = 523 }}",
        ));
    }
    let mut i = s.find(|c: char| !is_ident_char(c)).unwrap_or(s.len());
    let id = s[..i].to_string();
    let mut steps = Vec::new();
    loop {
        match bytes.get(i) {
            Some(b'.') => {
                let rest = &s[i + 1..];
                let end = rest.find(|c: char| !is_ident_char(c)).unwrap_or(rest.len());
                if end == 0 {
                    return Err(err("expected a key after `.`", i + 1, "keys are names or integers"));
                }
                steps.push(Step::Key(rest[..end].to_string()));
                i += 1 + end;
            }
            Some(b'[') => {
                let close =
                    s[i..].find(']').map(|c| i + c).ok_or_else(|| err("unclosed `[`", i, "write an index as [3] or a slice as [0..4]"))?;
                let step = bracket_step(s[i + 1..close].trim(), i, &err)?;
                steps.push(step);
                i = close + 1;
            }
            _ => break,
        }
    }
    Ok((Path { id, steps }, i))
}

/// The step of one `[…]` of a path: `inner` is the text between the brackets, trimmed;
/// `i` the offset of `[` in the path's text, which `err` turns into a diagnostic's span.
/// An index, a slice `a..b` or `a..=b`; an error for anything else, a number past every
/// list, or a slice running backwards.
fn bracket_step(inner: &str, i: usize, err: &dyn Fn(&str, usize, &str) -> ClaimSyntaxError) -> Result<Step, ClaimSyntaxError> {
    let num = |t: &str| t.trim().parse::<usize>().ok();
    // Digits past the largest index (or an inclusive end at it) are their own
    // error, not "needs two integers" nor, wrapped round, "runs backwards".
    let too_large = |t: &str| {
        t.trim().parse::<usize>().is_err_and(|e| *e.kind() == std::num::IntErrorKind::PosOverflow)
            || inner.contains("..=") && num(t) == Some(usize::MAX)
    };
    let parts: Vec<&str> = inner.splitn(2, "..").map(|t| t.trim_start_matches('=')).collect();
    if let Some(t) = parts.iter().find(|t| too_large(t)) {
        return Err(err(
            &format!("a list index is out of range: {} is larger than any list", t.trim()),
            i + 1,
            "no list has that many elements; write an index below the list's length",
        ));
    }
    let step = if let Some((a, b)) = inner.split_once("..") {
        let (inclusive, b) = match b.strip_prefix('=') {
            Some(b) => (true, b),
            None => (false, b),
        };
        match (num(a), num(b)) {
            (Some(a), Some(b)) => {
                let end = if inclusive { b + 1 } else { b };
                if end < a {
                    return Err(err("a slice must not run backwards", i, "write [a..b] with a ≤ b"));
                }
                Step::Slice(a, end)
            }
            _ => return Err(err("a slice needs two integers", i + 1, "write [a..b] or [a..=b]")),
        }
    } else {
        match num(inner) {
            Some(n) => Step::Index(n),
            None => {
                return Err(err(
                    "a list index must be a non-negative integer",
                    i + 1,
                    "write [0] for the first element; use .key for a map key",
                ))
            }
        }
    };
    Ok(step)
}

/// Parse the text between `{{` and `}}`. `inner` is that text, `base` its byte offset in
/// the essay, `span` the span of the whole claim.
pub fn parse_claim(inner: &str, base: usize, span: Range<usize>) -> Result<Claim, ClaimSyntaxError> {
    let lead = inner.len() - inner.trim_start().len();
    let t = inner.trim();
    let tbase = base + lead;
    if t.is_empty() {
        return Err(ClaimSyntaxError {
            code: Code::ClaimSyntax,
            message: "empty claim".into(),
            span,
            hint: "write {{ id.path = value }}, or \\{{ for a literal `{{`".into(),
        });
    }
    let word_end = t.find(char::is_whitespace).unwrap_or(t.len());
    let word = &t[..word_end];
    if word == "assert" && word_end < t.len() {
        let rest = &t[word_end..];
        let rlead = rest.len() - rest.trim_start().len();
        let expr = parse_assert(rest.trim_start(), tbase + word_end + rlead)?;
        return Ok(Claim { span, kind: ClaimKind::Assert { expr } });
    }
    if word == "plain" && word_end < t.len() {
        return Ok(Claim { span, kind: ClaimKind::Plain { text: t[word_end..].trim().to_string() } });
    }
    // A lone keyword is a marker with its text left out, not an interpolation of a census
    // bound as `plain` or `assert`.
    if t == "plain" || t == "assert" {
        return Err(ClaimSyntaxError {
            code: Code::ClaimSyntax,
            message: format!("`{t}` with nothing after it"),
            span: tbase..tbase + t.len(),
            hint: if t == "plain" {
                "write the number that is not computed after it: {{ plain 1954 }}".into()
            } else {
                "write the comparison after it: {{ assert id.path == 0 }}".into()
            },
        });
    }
    let mut p = Parser { s: t, base: tbase, i: 0, end: 0, depth: 0 };
    let expr = p.sum()?;
    let expr_span = tbase..tbase + p.end;
    reads_a_result(&expr, &expr_span)?;
    p.skip();
    let rest_trim = &t[p.i..];
    if rest_trim.is_empty() {
        return Ok(Claim { span, kind: ClaimKind::Interpolate { expr, expr_span } });
    }
    let eq_at = tbase + p.i;
    if let Some(after) = rest_trim.strip_prefix('=') {
        if after.starts_with('=') {
            return Err(ClaimSyntaxError {
                code: Code::ClaimSyntax,
                message: "`==` in a claim".into(),
                span: eq_at..eq_at + 2,
                hint: "a claim states a value with one `=`; comparisons belong in {{ assert … }}".into(),
            });
        }
        let stated = after.trim();
        if stated.is_empty() {
            return Err(ClaimSyntaxError {
                code: Code::ClaimSyntax,
                message: "nothing stated after `=`".into(),
                span: eq_at..eq_at + 1,
                hint: "write the value as the sentence should read, e.g. {{ small.positions = 523 }}".into(),
            });
        }
        let s_off = eq_at + 1 + (after.len() - after.trim_start().len());
        return Ok(Claim {
            span,
            kind: ClaimKind::Check { expr, expr_span, stated: stated.to_string(), stated_span: s_off..s_off + stated.len() },
        });
    }
    Err(ClaimSyntaxError {
        code: Code::ClaimSyntax,
        message: format!("unexpected `{}` after the path", rest_trim.chars().next().unwrap_or(' ')),
        span: eq_at..eq_at + rest_trim.chars().next().map(char::len_utf8).unwrap_or(1),
        hint:
            "write {{ path = stated }} to check a number, {{ path }} to print it, or an expression such as {{ s.a / s.b = 12.5 per cent }}"
                .into(),
    })
}

/// The assert after `assert `: a whole expression, then nothing.
fn parse_assert(s: &str, base: usize) -> Result<Expr, ClaimSyntaxError> {
    let mut p = Parser { s, base, i: 0, end: 0, depth: 0 };
    let expr = p.or()?;
    reads_a_result(&expr, &(base..base + p.end))?;
    p.skip();
    if p.i >= s.len() {
        return Ok(expr);
    }
    let is_test = matches!(expr, Expr::Compare(..) | Expr::Logic(..) | Expr::Not(..));
    let (message, hint) = if is_test {
        ("expected `and`, `or` or the end of the assert", "join comparisons with `and` or `or`")
    } else {
        ("expected a comparison (==, !=, <, <=, >, >=, in, not in)", "an assert compares, e.g. {{ assert moves.struck_winning == 0 }}")
    };
    Err(ClaimSyntaxError { code: Code::ClaimSyntax, message: message.into(), span: p.here(), hint: hint.into() })
}

/// An expression that reads no census result certifies nothing: an error (a year written
/// as `{{ 1954 }}` is `{{ plain 1954 }}`).
fn reads_a_result(expr: &Expr, span: &Range<usize>) -> Result<(), ClaimSyntaxError> {
    if !expr.paths().is_empty() {
        return Ok(());
    }
    Err(ClaimSyntaxError {
        code: Code::ClaimSyntax,
        message: "expected the id of a census block".into(),
        span: span.clone(),
        hint: "a claim reads a census result through the `id:` of a ```census block, e.g. {{ small.positions = 523 }}; a number that is not computed is {{ plain 1954 }}".into(),
    })
}

/// How deeply an expression may nest: parentheses, function calls, unary minus signs and
/// `not`s, counted together. Chains of operators of one level do not count.
pub const MAX_DEPTH: usize = 64;

/// A recursive-descent parser of expressions over `s` (which lies at `base` in the
/// essay); `i` is the next byte to read, `end` the end of the last token read, `depth`
/// how many nesting levels are open.
struct Parser<'a> {
    s: &'a str,
    base: usize,
    i: usize,
    end: usize,
    depth: usize,
}

/// Comparison operators, longest first.
const COMPARISONS: [(&str, Op); 6] = [("==", Op::Eq), ("!=", Op::Ne), ("<=", Op::Le), (">=", Op::Ge), ("<", Op::Lt), (">", Op::Gt)];

impl<'a> Parser<'a> {
    fn skip(&mut self) {
        let r = &self.s[self.i..];
        self.i += r.len() - r.trim_start().len();
    }

    fn rest(&self) -> &'a str {
        &self.s[self.i..]
    }

    /// The span of the character at the cursor (empty at the end).
    fn here(&self) -> Range<usize> {
        self.base + self.i..self.base + char_end(self.s, self.i)
    }

    fn error(&self, message: &str, span: Range<usize>, hint: &str) -> ClaimSyntaxError {
        ClaimSyntaxError { code: Code::ClaimSyntax, message: message.into(), span, hint: hint.into() }
    }

    /// Take `tok` (after spaces) if it comes next; its span.
    fn take(&mut self, tok: &str) -> Option<Range<usize>> {
        self.skip();
        self.rest().starts_with(tok).then(|| {
            let at = self.base + self.i;
            self.i += tok.len();
            self.end = self.i;
            at..at + tok.len()
        })
    }

    /// Take the word `w` if it comes next, followed by a space or `(`.
    fn word(&mut self, w: &str) -> Option<Range<usize>> {
        self.skip();
        let after = self.rest().strip_prefix(w)?;
        (after.is_empty() || after.starts_with(|c: char| c.is_whitespace() || c == '(')).then(|| self.take(w)).flatten()
    }

    /// Open one nesting level at `at` (the `(`, name, `-` or `not` that opens it): an
    /// error past [`MAX_DEPTH`].
    fn enter(&mut self, at: &Range<usize>) -> Result<(), ClaimSyntaxError> {
        self.depth += 1;
        if self.depth <= MAX_DEPTH {
            return Ok(());
        }
        let hint = format!("parentheses, function calls, minus signs and `not`s nest at most {MAX_DEPTH} levels; split the claim in two");
        Err(self.error(&format!("the expression nests more than {MAX_DEPTH} deep"), at.clone(), &hint))
    }

    /// Parse `inner` one nesting level down, opened at `at`.
    fn nested(&mut self, at: &Range<usize>, inner: fn(&mut Self) -> Result<Expr, ClaimSyntaxError>) -> Result<Expr, ClaimSyntaxError> {
        self.enter(at)?;
        let e = inner(self)?;
        self.depth -= 1;
        Ok(e)
    }

    fn or(&mut self) -> Result<Expr, ClaimSyntaxError> {
        let first = self.and()?;
        let mut rest = Vec::new();
        while let Some(at) = self.word("or") {
            rest.push((Logic::Or, self.and()?, at));
        }
        Ok(if rest.is_empty() { first } else { Expr::Logic(Box::new(first), rest) })
    }

    fn and(&mut self) -> Result<Expr, ClaimSyntaxError> {
        let first = self.not()?;
        let mut rest = Vec::new();
        while let Some(at) = self.word("and") {
            rest.push((Logic::And, self.not()?, at));
        }
        Ok(if rest.is_empty() { first } else { Expr::Logic(Box::new(first), rest) })
    }

    fn not(&mut self) -> Result<Expr, ClaimSyntaxError> {
        match self.word("not") {
            Some(at) => Ok(Expr::Not(Box::new(self.nested(&at, Self::not)?), at)),
            None => self.compare(),
        }
    }

    fn compare(&mut self) -> Result<Expr, ClaimSyntaxError> {
        let left = self.sum()?;
        self.skip();
        let Some((tok, op)) = COMPARISONS.iter().find(|(t, _)| self.rest().starts_with(t)) else {
            return self.member(left);
        };
        let at = self.take(tok).unwrap_or_default();
        Ok(Expr::Compare(*op, Box::new(left), Box::new(self.sum()?), at))
    }

    /// `left in sum` or `left not in sum` when one follows, else `left`.
    fn member(&mut self, left: Expr) -> Result<Expr, ClaimSyntaxError> {
        let before = (self.i, self.end);
        let (op, at) = if let Some(at) = self.word("in") {
            (Op::In, at)
        } else if let Some(not) = self.word("not") {
            let Some(at) = self.word("in") else {
                (self.i, self.end) = before;
                return Ok(left);
            };
            (Op::NotIn, not.start..at.end)
        } else {
            return Ok(left);
        };
        if self.rest().trim().is_empty() {
            let message = format!("expected a list after `{}`", op.as_str());
            return Err(self.error(&message, at, "`in` looks in a list: {{ assert 6 not in s.values }}"));
        }
        Ok(Expr::Compare(op, Box::new(left), Box::new(self.sum()?), at))
    }

    fn sum(&mut self) -> Result<Expr, ClaimSyntaxError> {
        let first = self.term()?;
        let mut rest = Vec::new();
        loop {
            let op =
                [("+", BinOp::Add), ("-", BinOp::Sub), ("−", BinOp::Sub)].into_iter().find_map(|(t, op)| self.take(t).map(|at| (op, at)));
            let Some((op, at)) = op else { break };
            rest.push((op, self.term()?, at));
        }
        Ok(if rest.is_empty() { first } else { Expr::Arith(Box::new(first), rest) })
    }

    fn term(&mut self) -> Result<Expr, ClaimSyntaxError> {
        let first = self.unary()?;
        let mut rest = Vec::new();
        loop {
            let ops = [("*", BinOp::Mul), ("×", BinOp::Mul), ("/", BinOp::Div), ("÷", BinOp::Div)];
            let Some((op, at)) = ops.into_iter().find_map(|(t, op)| self.take(t).map(|at| (op, at))) else { break };
            rest.push((op, self.unary()?, at));
        }
        Ok(if rest.is_empty() { first } else { Expr::Arith(Box::new(first), rest) })
    }

    fn unary(&mut self) -> Result<Expr, ClaimSyntaxError> {
        self.skip();
        let minus = ["-", "−"].into_iter().find(|m| self.rest().starts_with(m));
        if let Some(m) = minus {
            if !self.rest()[m.len()..].starts_with(|c: char| c.is_ascii_digit()) {
                let at = self.take(m).unwrap_or_default();
                return Ok(Expr::Neg(Box::new(self.nested(&at, Self::unary)?), at));
            }
        }
        self.atom()
    }

    fn atom(&mut self) -> Result<Expr, ClaimSyntaxError> {
        self.skip();
        let r = self.rest();
        if r.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '−') {
            return self.number();
        }
        if let Some(open) = self.take("(") {
            self.enter(&open)?;
            let e = self.or()?;
            if self.take(")").is_none() {
                return Err(self.error("unclosed `(`", open, "close it with `)`"));
            }
            self.depth -= 1;
            return Ok(e);
        }
        let name_len = r.find(|c: char| !is_ident_char(c)).unwrap_or(r.len());
        if r.starts_with(is_ident_start) && r[name_len..].starts_with('(') {
            return self.call(name_len);
        }
        let at = self.i;
        let (p, used) = parse_path(r, self.base + at)?;
        self.i += used;
        self.end = self.i;
        Ok(Expr::Path(p, self.base + at..self.base + self.i))
    }

    /// A number literal: `-?digits(.digits)?`, read as written (its value is judged when
    /// the claim is checked, so a too-long one is reported there).
    fn number(&mut self) -> Result<Expr, ClaimSyntaxError> {
        let r = self.rest();
        let sign = r.chars().next().filter(|c| *c == '-' || *c == '−').map_or(0, char::len_utf8);
        let mut len = sign;
        for (k, c) in r[sign..].char_indices() {
            let digit_after_point = c == '.' && r[sign + k + 1..].starts_with(|c: char| c.is_ascii_digit());
            if c.is_ascii_digit() || digit_after_point {
                len = sign + k + 1;
            } else {
                break;
            }
        }
        if r[len..].starts_with(is_ident_start) {
            return Err(self.error(
                "expected the id of a census block",
                self.here(),
                "an id starts with a letter: a claim starts with the `id:` of a ```census block, e.g. {{ small.positions = 523 }}",
            ));
        }
        let at = self.base + self.i;
        self.i += len;
        self.end = self.i;
        Ok(Expr::Number(r[..len].to_string(), at..at + len))
    }

    /// `name(arg, …)`; the cursor is at the name, `name_len` bytes long.
    fn call(&mut self, name_len: usize) -> Result<Expr, ClaimSyntaxError> {
        let name = &self.rest()[..name_len];
        let at = self.base + self.i..self.base + self.i + name_len;
        let Some(f) = Func::named(name) else {
            return Err(ClaimSyntaxError {
                code: Code::UnknownFunction,
                message: format!("no function `{name}`"),
                span: at,
                hint: "the functions are len, sum, min and max".into(),
            });
        };
        self.enter(&at)?;
        self.i += name_len + 1;
        let mut args = vec![self.or()?];
        while self.take(",").is_some() {
            args.push(self.or()?);
        }
        if self.take(")").is_none() {
            return Err(self.error("expected `,` or `)` after an argument", self.here(), "write len(s.rules) or max(s.a, s.b)"));
        }
        if f == Func::Len && args.len() != 1 {
            return Err(self.error("`len` takes one argument", at, "write len(s.rules)"));
        }
        self.depth -= 1;
        Ok(Expr::Call(f, args, at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(s: &str) -> Claim {
        parse_claim(s, 0, 0..s.len()).unwrap()
    }

    #[test]
    fn paths_with_keys_indices_and_slices() {
        let (p, n) = parse_path("small.positions.2[3][1..=4].with-x rest", 0).unwrap();
        assert_eq!(n, "small.positions.2[3][1..=4].with-x".len());
        assert_eq!(p.id, "small");
        assert_eq!(
            p.steps,
            vec![Step::Key("positions".into()), Step::Key("2".into()), Step::Index(3), Step::Slice(1, 5), Step::Key("with-x".into())]
        );
        assert!(parse_path("1abc", 0).is_err());
        assert!(parse_path("a[x]", 0).is_err());
        assert!(parse_path("a[3..1]", 0).is_err());
        assert!(parse_path("a.", 0).is_err());
    }

    #[test]
    fn check_claim_spans() {
        let src = "x {{ small.positions = 1,001 }} y";
        let c = parse_claim(&src[4..29], 4, 2..31).unwrap();
        match c.kind {
            ClaimKind::Check { expr, expr_span, stated, stated_span } => {
                assert_eq!(expr.as_path().unwrap().to_string(), "small.positions");
                assert_eq!(&src[expr_span], "small.positions");
                assert_eq!(stated, "1,001");
                assert_eq!(&src[stated_span], "1,001");
            }
            k => panic!("{k:?}"),
        }
    }

    #[test]
    fn error_spans_cover_whole_characters() {
        for inner in [" é ", " assert x é 1 ", " assert a == 1 é ", " a.b[é] ", " a.é ", "é"] {
            let e = parse_claim(inner, 10, 8..inner.len() + 12).unwrap_err();
            let r = e.span.start - 10..e.span.end - 10;
            assert!(inner.get(r.clone()).is_some(), "{inner:?}: span {r:?} splits a character");
        }
    }

    #[test]
    fn a_membership_with_nothing_after_it_is_an_error_at_its_end() {
        // `in` and `not in` are operators at the end of the claim too: the error is the
        // missing list after them, not the number before them.
        for inner in [" assert 6 in ", " assert 6 not in ", " assert s.a in"] {
            let e = parse_claim(inner, 0, 0..inner.len()).unwrap_err();
            assert!(inner[e.span.clone()].ends_with("in"), "{inner:?}: {} at {:?}", e.message, e.span);
            assert!(e.message.starts_with("expected a list after `"), "{inner:?}: {}", e.message);
        }
    }

    #[test]
    fn kinds() {
        assert!(matches!(claim(" a.b ").kind, ClaimKind::Interpolate { .. }));
        assert!(matches!(claim("plain 1954").kind, ClaimKind::Plain { ref text } if text == "1954"));
        for lone in ["plain", " assert "] {
            let e = parse_claim(lone, 0, 0..lone.len()).unwrap_err();
            assert!(e.message.contains("with nothing after it"), "{lone}: {}", e.message);
        }
        match claim("assert m.x == 0 and m.y <= -2.5").kind {
            ClaimKind::Assert { expr: Expr::Logic(_, rest) } => match &rest[..] {
                [(Logic::And, Expr::Compare(Op::Le, _, r, _), _)] => assert!(matches!(**r, Expr::Number(ref n, _) if n == "-2.5")),
                e => panic!("{e:?}"),
            },
            k => panic!("{k:?}"),
        }
        assert!(parse_claim("", 0, 0..4).is_err());
        assert!(parse_claim("a.b = ", 0, 0..4).is_err());
        assert!(parse_claim("a.b == 3", 0, 0..4).is_err());
        assert!(parse_claim("a.b ~ 3", 0, 0..4).is_err());
        assert!(parse_claim("assert a.b = 1", 0, 0..4).is_err());
        assert!(parse_claim("assert a.b == 1 or c == 2", 0, 0..4).is_ok());
        assert!(parse_claim("assert a.b == 1 xor c == 2", 0, 0..4).is_err());
        assert!(parse_claim("3 = 3", 0, 0..4).is_err());
        assert!(parse_claim("assert 1 == 1", 0, 0..4).is_err());
    }

    /// The expression of a check claim, written back with full parentheses.
    fn shape(e: &Expr) -> String {
        match e {
            Expr::Path(p, _) => p.to_string(),
            Expr::Number(n, _) => n.clone(),
            Expr::Neg(e, _) => format!("(-{})", shape(e)),
            Expr::Arith(a, rest) => rest.iter().fold(shape(a), |l, (op, b, _)| format!("({l} {op:?} {})", shape(b))),
            Expr::Call(f, args, _) => format!("{}({})", f.name(), args.iter().map(shape).collect::<Vec<_>>().join(", ")),
            Expr::Compare(op, a, b, _) => format!("({} {} {})", shape(a), op.as_str(), shape(b)),
            Expr::Logic(a, rest) => rest.iter().fold(shape(a), |l, (w, b, _)| format!("({l} {w:?} {})", shape(b))),
            Expr::Not(e, _) => format!("(not {})", shape(e)),
        }
    }

    #[test]
    fn expressions_bind_as_in_arithmetic() {
        let check = |src: &str| match claim(src).kind {
            ClaimKind::Check { expr, .. } | ClaimKind::Interpolate { expr, .. } => shape(&expr),
            ClaimKind::Assert { expr } => shape(&expr),
            k => panic!("{k:?}"),
        };
        assert_eq!(check("s.a + s.b * 2 = 3"), "(s.a Add (s.b Mul 2))");
        assert_eq!(check("(s.a + s.b) × 2 ÷ s.c"), "(((s.a Add s.b) Mul 2) Div s.c)");
        assert_eq!(check("s.a - s.b − -3 = 1"), "((s.a Sub s.b) Sub -3)");
        assert_eq!(check("- s.a-b / len(s.rules) = 1"), "((-s.a-b) Div len(s.rules))");
        assert_eq!(check("max(s.a, 2, min(s.l)) = 1"), "max(s.a, 2, min(s.l))");
        assert_eq!(check("assert len(s.r) == 8 or not s.x == 0 and s.y < 1"), "((len(s.r) == 8) Or ((not (s.x == 0)) And (s.y < 1)))");
        assert_eq!(check("assert (s.a == 1 or s.b == 2) and s.c != 3"), "(((s.a == 1) Or (s.b == 2)) And (s.c != 3))");
        // A census bound as `sum` or `not` is still a path where no call or word is meant.
        assert_eq!(check("sum.x + not.y = 1"), "(sum.x Add not.y)");
    }

    #[test]
    fn expression_errors_point_at_their_token() {
        let err = |src: &str| parse_claim(src, 0, 0..src.len()).unwrap_err();
        let e = err("s.a + mean(s.l) = 1");
        assert_eq!((e.code, e.span), (Code::UnknownFunction, 6..10));
        let e = err("(s.a + 1 = 2");
        assert_eq!((e.message.as_str(), e.span), ("unclosed `(`", 0..1));
        let e = err("len(s.a, s.b) = 2");
        assert_eq!(e.span, 0..3);
        let e = err("s.a + = 2");
        assert!(e.message.contains("expected the id"), "{}", e.message);
    }
}
