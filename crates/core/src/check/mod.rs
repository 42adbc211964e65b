//! Checking: resolve each claim's path in its census result, parse the stated text,
//! compare exactly, and turn every disagreement into a diagnostic.

pub mod expr;
pub mod forms;
pub mod num;
pub mod ratio;
pub mod rational;
pub mod resolve;
pub mod words;

use std::collections::BTreeMap;
use std::ops::Range;

use serde::Serialize;

use crate::content::claim::{ClaimKind, Expr, Path};
use crate::content::Essay;
use crate::diag::{line_col, Applicability, Code, Diagnostic, Fix};
use forms::{Computed, Verdict};
pub use resolve::{resolve, Bound};

/// What became of one claim.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The stated value agrees with the computation (or the assert holds).
    Pass,
    /// It disagrees.
    Fail,
    /// It could not be checked: unknown id or path, unparseable or ill-fitting form.
    Error,
    /// It was not checked because the census block it reads failed (that block's
    /// diagnostic is the one reported).
    Skipped,
    /// `{{ path }}`: printed, not checked.
    Interpolated,
    /// `{{ plain … }}`: not computed.
    Plain,
}

impl ClaimReport {
    /// True when the stated value or assert was compared with a computed result (it
    /// passed or failed); the summaries count these as "claims checked".
    pub fn was_checked(&self) -> bool {
        matches!(self.status, Status::Pass | Status::Fail)
    }
}

/// What a claim does, as [`ClaimReport::kind`] says; written `check`, `assert`,
/// `interpolate` or `plain` in the JSON report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ReportKind {
    /// `{{ path = stated }}`: a stated value checked against the computed one.
    Check,
    /// `{{ assert … }}`: a condition that must hold.
    Assert,
    /// `{{ path }}`: a computed value printed, nothing checked.
    Interpolate,
    /// Text read as no claim at all (shown as written).
    Plain,
}

impl ReportKind {
    /// The kind as the report writes it: `check`, `assert`, `interpolate`, `plain`.
    pub fn as_str(self) -> &'static str {
        match self {
            ReportKind::Check => "check",
            ReportKind::Assert => "assert",
            ReportKind::Interpolate => "interpolate",
            ReportKind::Plain => "plain",
        }
    }
}

/// One claim's outcome, for diagnostics, `--bless`, `--format json` and rendering.
#[derive(Clone, Debug, Serialize)]
pub struct ClaimReport {
    /// The essay file.
    pub file: String,
    /// 1-based line of the claim.
    pub line: usize,
    /// 1-based column (Unicode scalar values) of the claim.
    pub column: usize,
    /// Byte span of the whole `{{ … }}`.
    #[serde(skip)]
    pub span: Range<usize>,
    /// What the claim does.
    pub kind: ReportKind,
    /// The claim's text between the braces.
    pub text: String,
    /// The path (or the assert's expression).
    pub path: String,
    /// The stated text, exactly as written (`null` for asserts and interpolations).
    pub stated: Option<String>,
    /// The computed value as the diagnostics show it.
    pub computed: Option<String>,
    /// The computed value as JSON (for the essay's published results).
    pub value: Option<serde_json::Value>,
    /// The census call that certifies it: the bound id.
    pub census_id: Option<String>,
    /// The census name.
    pub census: Option<String>,
    /// Its parameters.
    pub params: Option<serde_json::Value>,
    /// Pass, fail, error, interpolated or plain.
    pub status: Status,
    /// What `--bless` would write instead of the stated text, when it can.
    #[serde(skip)]
    pub bless: Option<Result<String, String>>,
    /// The stated text's span, for `--bless`.
    #[serde(skip)]
    pub stated_span: Option<Range<usize>>,
    /// The text to show on the page.
    #[serde(skip)]
    pub html_text: String,
    /// The exact computed value as the reader's certificate shows it (`255 of 495`,
    /// `1/8`, `1,001`); see [`expr::exact_text`].
    #[serde(skip)]
    pub exact: Option<String>,
    /// The value in the form the author stated (`≈ 1 in 6.7, ≈ 14.9 %` for "one in
    /// seven"), shown after the exact value; see [`forms::in_form`].
    #[serde(skip)]
    pub in_form: Option<String>,
}

fn value_diag(essay: &Essay, path: &Path, span: Range<usize>, e: &resolve::ResolveError, bound: &Bound) -> Diagnostic {
    Diagnostic::error(
        Code::PathNotInResult,
        &essay.file,
        span,
        format!("`{path}` is not in the result of `{}` ({})", bound.id, bound.census),
    )
    .with_label(e.message.clone())
    .with_hint(e.hint.clone())
}

/// The hint for an id no census block of `essay` binds: the ids it does bind, or how to
/// add a block.
pub fn unknown_id_hint(essay: &Essay) -> String {
    let ids: Vec<&str> = essay.calls.iter().map(|c| c.id.as_str()).collect();
    if ids.is_empty() {
        "this essay has no ```census block; add one with `id:`, `run:` and `with:`".to_string()
    } else {
        format!("census ids bound in this essay: {}", ids.join(", "))
    }
}

fn unknown_id(essay: &Essay, path: &Path, span: Range<usize>) -> Diagnostic {
    let hint = unknown_id_hint(essay);
    Diagnostic::error(
        Code::UnboundId,
        &essay.file,
        span.start..span.start + path.id.len(),
        format!("no census result is bound to `{}`", path.id),
    )
    .with_label("unknown id")
    .with_hint(hint)
}

/// The value at `path` in the results `bound`, or the diagnostic saying why there is none.
fn lookup(essay: &Essay, bound: &BTreeMap<String, Bound>, path: &Path, span: &Range<usize>) -> Result<serde_json::Value, Diagnostic> {
    let b = bound.get(&path.id).ok_or_else(|| unknown_id(essay, path, span.clone()))?;
    resolve(b, path).map_err(|e| value_diag(essay, path, span.clone(), &e, b))
}

/// Evaluate `expr` against `bound`; the value and how it reads with its values in place,
/// or `None` with the reasons pushed to `diags`.
fn evaluate(essay: &Essay, bound: &BTreeMap<String, Bound>, expr: &Expr, diags: &mut Vec<Diagnostic>) -> Option<(expr::Val, String)> {
    let mut look = |p: &Path, span: &Range<usize>| lookup(essay, bound, p, span);
    let mut env = expr::Env { file: &essay.file, source: &essay.source, lookup: &mut look, diags: Vec::new() };
    let v = env.eval_shown(expr);
    diags.append(&mut env.diags);
    v
}

/// Fill in the census that certifies an expression: the first bound id it reads.
fn certify(bound: &BTreeMap<String, Bound>, expr: &Expr, r: &mut ClaimReport) {
    if let Some(b) = expr.paths().iter().find_map(|p| bound.get(&p.id)) {
        r.census_id = Some(b.id.clone());
        r.census = Some(b.census.clone());
        r.params = Some(b.params.clone());
    }
}

/// Check (or interpolate) one claim with an expression (most often one path); fills `r`
/// and pushes diagnostics.
fn check_expr(
    essay: &Essay,
    bound: &BTreeMap<String, Bound>,
    expr: &Expr,
    expr_span: &Range<usize>,
    stated_info: Option<(&String, &Range<usize>)>,
    r: &mut ClaimReport,
    diags: &mut Vec<Diagnostic>,
) {
    let path = match expr.as_path() {
        Some(p) => p.to_string(),
        None => essay.source[expr_span.clone()].to_string(),
    };
    r.path = path.clone();
    r.html_text = stated_info.map(|(s, _)| s.to_string()).unwrap_or_default();
    certify(bound, expr, r);
    let Some((val, _)) = evaluate(essay, bound, expr, diags) else { return };
    let v = val.to_json();
    let c = val.computed();
    r.computed = Some(c.display());
    r.exact = Some(short(expr::exact_text(&c)));
    // How the value reads in a diagnostic: a whole map or a long list cut short.
    let shown = short(r.computed.clone().unwrap_or_default());
    r.value = Some(v.clone());
    let Some((stated, stated_span)) = stated_info else {
        r.kind = ReportKind::Interpolate;
        r.status = Status::Interpolated;
        r.html_text = match &c {
            Computed::Number(q, _) if q.is_integer() => rational::group(q.numer()),
            _ => c.display(),
        };
        return;
    };
    r.stated = Some(stated.clone());
    r.stated_span = Some(stated_span.clone());
    let Some(form) = forms::parse_stated_for(stated, &c) else {
        diags.push(unreadable(essay, stated, stated_span, &shown));
        return;
    };
    r.in_form = forms::in_form(&form, &c);
    match forms::check(&form, &c) {
        Verdict::Pass => r.status = Status::Pass,
        Verdict::Disagrees => {
            r.status = Status::Fail;
            let blessed = forms::bless(&form, &c);
            let message = format!("stated value disagrees with `{path}`: the essay says {stated}, the census gives {shown}");
            let label = forms::list_difference(&form, &c).unwrap_or_else(|| "disagrees with the census".to_string());
            diags.push(mismatch(essay, stated_span, message, (label, census_note(bound, expr)), &blessed));
            r.bless = Some(blessed);
        }
        Verdict::WrongShape(why) => {
            diags.push(
                Diagnostic::error(
                    Code::Incomparable,
                    &essay.file,
                    stated_span.clone(),
                    format!("`{stated}` cannot be compared with `{path}`"),
                )
                .with_label(format!("computed: {}", shown))
                .with_hint(why),
            );
        }
    }
}

/// The `claim-mismatch` diagnostic at `stated_span`; `message` says the computed value
/// (once: the `label` points at the stated text without repeating it — for a list, where
/// it parts from the computed one) and, when `--bless` can rewrite the stated form, the
/// rewrite is a safe fix (the `help:` line), else the hint says why not; `note` names the
/// census calls (it comes before the hint).
fn mismatch(
    essay: &Essay,
    stated_span: &Range<usize>,
    message: String,
    (label, note): (String, String),
    blessed: &Result<String, String>,
) -> Diagnostic {
    let d = Diagnostic::error(Code::ClaimMismatch, &essay.file, stated_span.clone(), message).with_label(label).with_note(note);
    match blessed {
        Ok(s) => d.with_fix(Fix {
            span: stated_span.clone(),
            replacement: s.clone(),
            description: format!("write `{s}`"),
            applicability: Applicability::Safe,
        }),
        Err(why) => d.with_hint(format!("--bless cannot rewrite this form: {why}")),
    }
}

/// "census: id = name {params}" for each census `expr` reads, in the order first read.
fn census_note(bound: &BTreeMap<String, Bound>, expr: &Expr) -> String {
    let mut ids: Vec<&str> = Vec::new();
    for p in expr.paths() {
        if !ids.contains(&p.id.as_str()) {
            ids.push(&p.id);
        }
    }
    let calls: Vec<String> = ids
        .iter()
        .filter_map(|id| bound.get(*id))
        .map(|b| format!("{} = {} {}", b.id, b.census, serde_json::to_string(&b.params).unwrap_or_default()))
        .collect();
    format!("census: {}", calls.join("; "))
}

/// The number before a trailing point that ends `stated` (`55` of `55.`, `1,001` of
/// `about 1,001.`), or `None` when `stated` does not end in digits and a point.
fn before_trailing_point(stated: &str) -> Option<&str> {
    let base = stated.trim_end().strip_suffix('.')?;
    let n = base.rsplit(char::is_whitespace).next()?;
    n.ends_with(|c: char| c.is_ascii_digit()).then_some(n)
}

/// The diagnostic for a stated text no form reads; `shown` is the computed value.
fn unreadable(essay: &Essay, stated: &str, span: &Range<usize>, shown: &str) -> Diagnostic {
    let longest_run = stated.split(|c: char| !c.is_ascii_digit()).map(str::len).max().unwrap_or(0);
    let digits = stated.chars().filter(char::is_ascii_digit).count();
    let label = if longest_run > forms::MAX_DIGITS || (digits > forms::MAX_DIGITS && !stated.contains(' ')) {
        format!("a number of more than {} digits is refused, never cut short", forms::MAX_DIGITS)
    } else if let Some(n) = before_trailing_point(stated) {
        format!("a trailing point states no precision: write `{n}` or `{n}.0`")
    } else if let Some(why) = forms::fraction_problem(stated) {
        why.to_string()
    } else {
        "unreadable stated value".to_string()
    };
    Diagnostic::error(Code::UnreadableStated, &essay.file, span.clone(), format!("cannot read `{stated}` as a number"))
        .with_label(label)
        .with_hint(format!(
            "the census gives {shown}; state it as digits (1,001), words (fifty-five), a decimal or percentage, a fraction (1/8), `N of M`, `A to B`, a list, or a ratio (a third, two in five)"
        ))
}

/// `s` cut to about 160 characters for a diagnostic (a census map or a long list would
/// fill screens), saying how long it was.
fn short(s: String) -> String {
    const MAX: usize = 160;
    match s.char_indices().nth(MAX) {
        None => s,
        Some((at, _)) => format!("{}… ({} characters in all)", &s[..at], s.chars().count()),
    }
}

/// Line and column of offsets asked for in increasing order, each found by reading on from
/// the last (so the claims of an essay cost one pass over it, not one pass each); the same
/// answers as `diag::line_col`, which it falls back to for an offset before the last.
struct Lines<'a> {
    text: &'a str,
    /// The last offset asked for and its 1-based line and column.
    at: usize,
    line: usize,
    column: usize,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Lines<'a> {
        Lines { text, at: 0, line: 1, column: 1 }
    }

    fn line_col(&mut self, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        if offset < self.at {
            return line_col(self.text, offset);
        }
        let between = &self.text[self.at..offset];
        match between.rfind('\n') {
            Some(nl) => {
                self.line += between.matches('\n').count();
                self.column = between[nl + 1..].chars().count() + 1;
            }
            None => self.column += between.chars().count(),
        }
        self.at = offset;
        (self.line, self.column)
    }
}

/// Check one assert: it must evaluate to true. Fills `r` and pushes diagnostics.
fn check_assert(
    essay: &Essay,
    bound: &BTreeMap<String, Bound>,
    expr: &Expr,
    span: Range<usize>,
    text: &str,
    r: &mut ClaimReport,
    diags: &mut Vec<Diagnostic>,
) {
    r.kind = ReportKind::Assert;
    r.path = text.trim_start_matches("assert").trim().to_string();
    certify(bound, expr, r);
    let Some((val, shown)) = evaluate(essay, bound, expr, diags) else { return };
    r.computed = Some(shown.clone());
    r.value = Some(val.to_json());
    let holds = match val {
        expr::Val::Bool(b) | expr::Val::Json(serde_json::Value::Bool(b)) => b,
        v => {
            diags.push(
                Diagnostic::error(
                    Code::TypeMismatch,
                    &essay.file,
                    expr::span_of(expr),
                    format!("an assert must be true or false, not {}", short(v.computed().display())),
                )
                .with_hint("compare the value: {{ assert s.lost == 0 }}"),
            );
            return;
        }
    };
    r.status = if holds { Status::Pass } else { Status::Fail };
    if !holds {
        diags.push(
            Diagnostic::error(Code::AssertFailed, &essay.file, span, format!("assertion failed: {}", r.path))
                .with_label(format!("{shown} is false"))
                .with_hint("the computation no longer supports this assert: correct the sentence it stands for"),
        );
    }
}

/// Check every claim of `essay` against the results bound in it. Returns one report per
/// claim (in order) and the diagnostics for those that fail or cannot be checked.
pub fn check_essay(essay: &Essay, bound: &BTreeMap<String, Bound>) -> (Vec<ClaimReport>, Vec<Diagnostic>) {
    let mut reports = Vec::new();
    let mut diags = Vec::new();
    let mut lines = Lines::new(&essay.source);
    for claim in &essay.claims {
        let (line, column) = lines.line_col(claim.span.start);
        let text = essay.source[claim.span.start + 2..claim.span.end - 2].trim().to_string();
        let mut r = ClaimReport {
            file: essay.file.clone(),
            line,
            column,
            span: claim.span.clone(),
            kind: ReportKind::Check,
            text: text.clone(),
            path: String::new(),
            stated: None,
            computed: None,
            value: None,
            census_id: None,
            census: None,
            params: None,
            status: Status::Error,
            bless: None,
            stated_span: None,
            html_text: String::new(),
            exact: None,
            in_form: None,
        };
        match &claim.kind {
            ClaimKind::Plain { text } => {
                r.kind = ReportKind::Plain;
                r.status = Status::Plain;
                r.html_text = text.clone();
            }
            ClaimKind::Check { expr, expr_span, stated, stated_span } => {
                check_expr(essay, bound, expr, expr_span, Some((stated, stated_span)), &mut r, &mut diags);
            }
            ClaimKind::Interpolate { expr, expr_span } => {
                check_expr(essay, bound, expr, expr_span, None, &mut r, &mut diags);
            }
            ClaimKind::Assert { expr } => check_assert(essay, bound, expr, claim.span.clone(), &text, &mut r, &mut diags),
        }
        reports.push(r);
    }
    (reports, diags)
}

#[cfg(test)]
mod tests {
    #[test]
    fn long_values_are_cut_short_in_diagnostics() {
        assert_eq!(super::short("[1, 2]".into()), "[1, 2]");
        let long = "é".repeat(500);
        let s = super::short(long);
        assert!(s.starts_with(&"é".repeat(160)) && s.ends_with("… (500 characters in all)"), "{s}");
    }

    #[test]
    fn lines_read_on_give_the_same_answers_as_line_col() {
        let text = "ab\n⟨é\n\n\r\nxyz — w\n";
        let mut lines = super::Lines::new(text);
        let offsets: Vec<usize> = (0..=text.len() + 2).chain([3, 1, 9]).collect();
        for at in offsets {
            assert_eq!(lines.line_col(at), super::line_col(text, at), "offset {at}");
        }
    }
}
