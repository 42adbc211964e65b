//! The real essays: the site passes `check`; every claim, changed in turn, makes the check
//! fail at its own file:line (the mutation test); and the earlier-versions ledger is honest.
//!
//! Census results come through the site's own cache (`.countersign-cache/`), so after the
//! first run these tests recompute nothing.

use std::collections::BTreeMap;
use std::path::PathBuf;

use countersign_core::check::forms::{self, Computed, Form, NumStyle};
use countersign_core::check::rational::Q;
use countersign_core::check::{check_essay, Status};
use countersign_core::content::{self, ClaimKind};
use countersign_site::pipeline::{self, RunOptions};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn real_site() -> pipeline::Run {
    pipeline::run(
        &RunOptions { root: root(), use_cache: true, progress: false, render: false, theme: countersign::THEME, base_url: None },
        None,
    )
}

/// A stated text that must disagree with the computed value, in the same form.
fn mutate(stated: &str, c: &Computed) -> Option<String> {
    let form = forms::parse_stated(stated, matches!(c, Computed::List(_)))?;
    let bump = |n: &forms::Num| -> Option<String> {
        let step = match n.style {
            NumStyle::Decimal(k) => Q::new(1, 10i128.pow(k))?,
            _ => Q::int(1),
        };
        forms::write_num(n, &(&n.value + &step)).ok()
    };
    Some(match &form {
        Form::Number(n) => bump(n)?,
        Form::Percent(n, suffix) => {
            let as_dec = forms::Num {
                value: n.value.clone(),
                style: match n.style {
                    NumStyle::Digits { .. } => NumStyle::Decimal(0),
                    ref s => s.clone(),
                },
            };
            format!("{}{suffix}", bump(&as_dec)?)
        }
        Form::OfTotal(a, b, j) => format!("{}{j}{}", bump(a)?, forms::write_num(b, &b.value).ok()?),
        Form::Range(a, b) => format!("{} to {}", forms::write_num(a, &a.value).ok()?, bump(b)?),
        Form::List(items) => {
            let mut parts: Vec<String> = items.iter().map(|n| forms::write_num(n, &n.value).ok()).collect::<Option<_>>()?;
            let last = parts.len() - 1;
            parts[last] = bump(&items[last])?;
            if parts.len() == 1 {
                parts[0].clone()
            } else {
                format!("{} and {}", parts[..last].join(", "), parts[last])
            }
        }
        Form::RatioWords(f) => {
            let p2 = if f.p < f.q { &f.p + 1 } else { &f.p - 1 };
            format!("{p2} in {}", f.q)
        }
        Form::Truth(t) => (!t).to_string(),
        Form::Fraction(q, _) => format!("{}/{}", q.numer() + q.denom(), q.denom()),
        Form::Text(t) => format!("{t}x"),
    })
}

fn negate_first_operator(text: &str) -> Option<String> {
    for (a, b) in [("==", "!="), ("!=", "=="), ("<=", ">"), (">=", "<"), ("<", ">="), (">", "<=")] {
        if let Some(i) = text.find(a) {
            return Some(format!("{}{b}{}", &text[..i], &text[i + a.len()..]));
        }
    }
    None
}

#[test]
fn the_real_site_passes_and_every_claim_is_load_bearing() {
    let run = real_site();
    assert!(!run.loaded.essays.is_empty(), "no essays in essays/");
    let rendered = run.loaded.sources.render(&run.diags, false);
    assert!(run.ok(), "the real site does not pass `countersign check`:\n{rendered}");
    let checked = run.checked.as_ref().unwrap();
    let mut mutated = 0;
    let mut survivors = Vec::new();
    for (i, essay) in run.loaded.essays.iter().enumerate() {
        for (j, claim) in essay.claims.iter().enumerate() {
            let report = &checked.reports[i][j];
            let (span, replacement) = match &claim.kind {
                ClaimKind::Check { stated, stated_span, .. } => {
                    let c = Computed::from_json(report.value.as_ref().expect("a passing claim has a value"));
                    let m = mutate(stated, &c).unwrap_or_else(|| panic!("{}:{}: cannot mutate `{stated}`", essay.file, report.line));
                    (stated_span.clone(), m)
                }
                ClaimKind::Assert { .. } => {
                    let inner = claim.span.start + 2..claim.span.end - 2;
                    let m = negate_first_operator(&essay.source[inner.clone()]).expect("an assert has an operator");
                    (inner, m)
                }
                _ => continue,
            };
            let mut source = essay.source.to_string();
            source.replace_range(span, &replacement);
            let (e, d) = content::parse_essay(&essay.file, essay.path.clone(), source);
            assert!(d.is_empty(), "{}:{}: the mutation broke the essay's syntax", essay.file, report.line);
            let (reports, diags) = check_essay(&e.unwrap(), &checked.bound[i]);
            mutated += 1;
            // The diagnostic must name the claim's file and a line the claim occupies.
            let last_line = countersign_core::diag::line_col(&essay.source, claim.span.end).0;
            let caught = reports[j].status == Status::Fail
                && diags.iter().any(|d| {
                    let line = countersign_core::diag::line_col(&essay.source, d.span.start).0;
                    d.origin.file() == Some(essay.file.as_str()) && (report.line..=last_line).contains(&line)
                });
            if !caught {
                survivors.push(format!("{}:{}: `{}` → `{replacement}` still passes", essay.file, report.line, report.text));
            }
        }
    }
    assert!(mutated > 0, "no claims to mutate");
    assert!(survivors.is_empty(), "{} of {mutated} mutations survived:\n{}", survivors.len(), survivors.join("\n"));
}

// ---- The earlier-versions ledger ----

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Ledger {
    /// Earlier texts whose every count must be in the ledger.
    #[serde(default)]
    complete: Vec<String>,
    /// Entries per earlier text (a file name in the texts' folder).
    versions: BTreeMap<String, Vec<Entry>>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    /// The number as the earlier text writes it.
    stated: String,
    quote: String,
    #[serde(default)]
    claim: Option<String>,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    note: Option<String>,
}

/// The folder of earlier texts: $COUNTERSIGN_SEEDS, else ../shared/seeds.
fn versions_dir() -> Option<PathBuf> {
    let candidates = [std::env::var_os("COUNTERSIGN_SEEDS").map(PathBuf::from), Some(root().join("../shared/seeds"))];
    candidates.into_iter().flatten().find(|p| p.is_dir())
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Numbers an earlier text states outside math: digit runs (with separators) and number words
/// from "three" up, with their byte offsets.
fn stated_numbers(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut in_math = false;
    let cs: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    while i < cs.len() {
        let (at, c) = cs[i];
        if c == '$' {
            in_math = !in_math;
            i += 1;
            continue;
        }
        if in_math {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() {
            let mut j = i;
            while j < cs.len()
                && (cs[j].1.is_ascii_digit() || (matches!(cs[j].1, ',' | '.') && cs.get(j + 1).is_some_and(|x| x.1.is_ascii_digit())))
            {
                j += 1;
            }
            let end = cs.get(j).map(|x| x.0).unwrap_or(text.len());
            out.push((at, text[at..end].to_string()));
            i = j;
        } else if c.is_alphabetic() {
            let mut j = i;
            while j < cs.len() && (cs[j].1.is_alphabetic() || cs[j].1 == '-') {
                j += 1;
            }
            let end = cs.get(j).map(|x| x.0).unwrap_or(text.len());
            let w = text[at..end].trim_end_matches('-').to_lowercase();
            if countersign_core::strict::is_number_word(&w) {
                // Extend over the rest of a phrase ("six hundred and sixty") while it reads
                // as one number: one more word, or "and" and one more word.
                let next_word_end = |from: usize| -> Option<usize> {
                    let rest = text[from..].strip_prefix(' ')?;
                    let len = rest.find(|c: char| !(c.is_alphabetic() || c == '-')).unwrap_or(rest.len());
                    (len > 0).then_some(from + 1 + len)
                };
                let mut phrase_end = at + w.len();
                while let Some(one) = next_word_end(phrase_end) {
                    let two = next_word_end(one);
                    if countersign_core::check::words::parse(&text[at..one]).is_some() {
                        phrase_end = one;
                    } else if let Some(two) = two
                        .filter(|&t| text[phrase_end..one].trim() == "and" && countersign_core::check::words::parse(&text[at..t]).is_some())
                    {
                        phrase_end = two;
                    } else {
                        break;
                    }
                }
                out.push((at, text[at..phrase_end].to_string()));
                while j < cs.len() && cs[j].0 < phrase_end {
                    j += 1;
                }
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

#[test]
fn the_earlier_versions_ledger_is_honest() {
    let text = std::fs::read_to_string(root().join("tests/earlier_versions_ledger.yaml")).unwrap();
    let ledger: Ledger = countersign_core::yaml::from_str(&text).unwrap_or_else(|e| panic!("tests/earlier_versions_ledger.yaml: {e:?}"));
    let run = real_site();
    let texts = versions_dir();
    if texts.is_none() {
        eprintln!("the earlier texts (../shared/seeds or $COUNTERSIGN_SEEDS) are absent: quotes are not checked against them");
    }
    let mut problems = Vec::new();
    for (version, entries) in &ledger.versions {
        let version_text = texts.as_ref().map(|d| std::fs::read_to_string(d.join(version)).unwrap_or_else(|e| panic!("{version}: {e}")));
        let squashed = version_text.as_deref().map(squash);
        for (k, e) in entries.iter().enumerate() {
            let at = format!("{version} entry {} (`{}`)", k + 1, e.stated);
            if e.claim.is_some() == e.reason.is_some() {
                problems.push(format!("{at}: give exactly one of claim and reason"));
            }
            if !e.quote.replace('$', "").contains(&e.stated) {
                problems.push(format!("{at}: the quote does not contain the number"));
            }
            if let Some(s) = &squashed {
                if !s.contains(&squash(&e.quote)) {
                    problems.push(format!("{at}: the quote is not in the text"));
                }
            }
            if let Some(claim) = &e.claim {
                let Some((file, path)) = claim.split_once(':') else {
                    problems.push(format!("{at}: claim must be `essay.md:path`"));
                    continue;
                };
                let Some(i) = run.loaded.essays.iter().position(|x| x.file == format!("essays/{file}")) else {
                    problems.push(format!("{at}: no essay essays/{file}"));
                    continue;
                };
                let reports = &run.checked.as_ref().unwrap().reports[i];
                match reports.iter().find(|r| r.kind == countersign_core::check::ReportKind::Check && r.path == path) {
                    None => problems.push(format!("{at}: essays/{file} has no claim on `{path}`")),
                    Some(r) => {
                        if r.status != Status::Pass {
                            problems.push(format!("{at}: the claim on `{path}` does not pass"));
                        }
                        // The stated number agrees with the claim when it is the value (at the
                        // precision it was written with), either part of a share, an end of a range,
                        // or an element or the length of a list.
                        let stated_num = forms::parse_num(&e.stated);
                        let computed = r.value.as_ref().map(Computed::from_json);
                        let same = |n: &forms::Num, q: Q| {
                            forms::check(&Form::Number(n.clone()), &Computed::Number(q, None)) == forms::Verdict::Pass
                        };
                        let agrees = match (&stated_num, computed) {
                            (Some(n), Some(Computed::Number(q, raw))) => {
                                same(n, q) || raw.is_some_and(|(a, b)| same(n, Q::int(a)) || same(n, Q::int(b)))
                            }
                            (Some(n), Some(Computed::Range(a, b))) => same(n, a) || same(n, b),
                            (Some(n), Some(Computed::List(l))) => {
                                same(n, Q::int(l.len() as i128))
                                    || l.iter().any(|x| matches!(x, Computed::Number(q, _) if same(n, q.clone())))
                            }
                            _ => true,
                        };
                        if !agrees && e.note.is_none() {
                            problems.push(format!(
                                "{at}: the earlier text says {} but the claim's value is {}; add a note saying which is right and why",
                                e.stated,
                                r.computed.clone().unwrap_or_default()
                            ));
                        }
                    }
                }
            }
        }
        if ledger.complete.contains(version) {
            if let Some(t) = &squashed {
                // Every number the text states must fall inside the quote of an entry for it.
                let spans: Vec<(&str, usize, usize)> = entries
                    .iter()
                    .flat_map(|e| {
                        let q = squash(&e.quote);
                        let len = q.len();
                        t.match_indices(q.as_str()).map(|(p, _)| (e.stated.as_str(), p, p + len)).collect::<Vec<_>>()
                    })
                    .collect();
                for (at, n) in stated_numbers(t) {
                    if !spans.iter().any(|&(num, lo, hi)| num == n && lo <= at && at < hi) {
                        let lo = t[..at].char_indices().rev().nth(40).map(|x| x.0).unwrap_or(0);
                        let hi = t[at..].char_indices().nth(40).map(|x| at + x.0).unwrap_or(t.len());
                        problems.push(format!("{version}: `{n}` in \"…{}…\" is not in the ledger", &t[lo..hi]));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "{} problems in the earlier-versions ledger:\n{}", problems.len(), problems.join("\n"));
}
