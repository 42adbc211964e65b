//! Named computations that essays call: the Census contract and its registry.
//!
//! A census is a pure function from typed parameters to a serializable result. An essay
//! names one in a ```` ```census ```` block:
//!
//! ```yaml
//! id: small
//! run: welter.census
//! with: { coins: { 1: 12, 2: 11 } }
//! ```
//!
//! Every census implements [`Census`]: a name (`game.thing`), a parameter type deserialized
//! straight from the block (unknown fields are errors), documented limits checked by
//! [`Census::validate`], a cost estimate refused over the site's budget before anything
//! runs, a run function that reports progress and honours cancellation through [`Ctx`],
//! and the list of source modules its result depends on (for the cache fingerprint).
//!
//! Results are JSON values (`serde_json::Value`, object order preserved). Shares and
//! averages are exact fractions, serialized as [`Ratio`] (`{"num": n, "den": d}`), so a
//! stated "17.0 per cent" or "a third" checks one exact value.
//!
//! Adding a census: write `crates/census/src/<game>.rs` with a type implementing [`Census`] and add
//! one line to [`REGISTRY`] (CONTRIBUTING.md, "Adding a built-in census").
//!
//! A site's own censuses (the site crate's `censuses`) are not [`Census`] types: they run as
//! processes, make their [`Prepared`] calls through [`Prepared::new`], and may stop with a
//! [`Failure`] as well as [`Cancelled`] ([`Stop`]). Built-in censuses are unchanged by them.

#![forbid(unsafe_code)]

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

// One module per game; each adds its line here and its entries to REGISTRY.
pub mod fingerprint;
pub mod held_pass;
pub mod moore;
pub mod source_hashes;
pub mod sylver;
pub mod welter;
pub mod welter_matchings;

/// An exact fraction `num / den` (`den > 0`), the form every share or average takes in a
/// census result. Serialized as `{"num": n, "den": d}`; the checker recognises exactly that
/// shape. Not reduced: `Ratio::new(2, 4)` keeps 2/4, and the checker compares by value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ratio {
    /// Numerator.
    pub num: u64,
    /// Denominator, never zero (a share of nothing is reported as 0/1).
    pub den: u64,
}

impl Ratio {
    /// `num / den`; a zero denominator gives 0/1 (the share of an empty set).
    pub fn new(num: u64, den: u64) -> Ratio {
        if den == 0 {
            Ratio { num: 0, den: 1 }
        } else {
            Ratio { num, den }
        }
    }
}

/// The run was cancelled through its [`Ctx`] before it finished; it has no result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cancelled;

impl fmt::Display for Cancelled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the computation was cancelled")
    }
}

/// Progress callback: `(done, total)` in the census's own units.
pub type ProgressFn = dyn Fn(u64, u64) + Send + Sync;

/// What a running census may ask of its caller: report progress, learn it was cancelled.
///
/// Cheap to clone; clones share the cancellation flag. A census should call
/// [`Ctx::checkpoint`] every few milliseconds of work (for instance once per position or
/// per genus) and return `Err(Cancelled)` when told to.
#[derive(Clone)]
pub struct Ctx {
    cancel: Arc<AtomicBool>,
    progress: Option<Arc<ProgressFn>>,
}

impl Default for Ctx {
    fn default() -> Self {
        Ctx::new()
    }
}

impl Ctx {
    /// A context that is never cancelled and discards progress.
    pub fn new() -> Ctx {
        Ctx { cancel: Arc::new(AtomicBool::new(false)), progress: None }
    }

    /// A context sharing `cancel` and reporting progress to `progress`.
    pub fn with(cancel: Arc<AtomicBool>, progress: Option<Arc<ProgressFn>>) -> Ctx {
        Ctx { cancel, progress }
    }

    /// Report that `done` of `total` units of work are finished.
    pub fn progress(&self, done: u64, total: u64) {
        if let Some(p) = &self.progress {
            p(done, total);
        }
    }

    /// True once the caller has asked the run to stop.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// `Err(Cancelled)` once the caller has asked the run to stop; use with `?`.
    pub fn checkpoint(&self) -> Result<(), Cancelled> {
        if self.is_cancelled() {
            Err(Cancelled)
        } else {
            Ok(())
        }
    }

    /// Ask the run to stop at its next checkpoint.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

/// Documentation of one parameter, shown by `countersign list`.
#[derive(Clone, Copy, Debug)]
pub struct ParamDoc {
    /// Name as written under `with:`.
    pub name: &'static str,
    /// Its YAML shape, e.g. "map of integer → integer" or "integer or list of integers".
    pub shape: &'static str,
    /// What it means and its limits, e.g. "number of squares, 1..=64".
    pub doc: &'static str,
}

/// A parameter outside its documented limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamError {
    /// Path of the offending parameter below `with`, e.g. `["coins", "7"]`; empty for the
    /// parameters as a whole. The loader uses it to point at the parameter's own line.
    pub path: Vec<String>,
    /// What is wrong, e.g. "8 coins need at least 8 squares, got 5".
    pub message: String,
    /// What to do about it, e.g. "the limit is 64 squares".
    pub hint: Option<String>,
}

impl ParamError {
    /// An error at `path` (segments below `with`) with a message and no hint.
    pub fn at<S: Into<String>>(path: &[&str], message: S) -> ParamError {
        ParamError { path: path.iter().map(|s| s.to_string()).collect(), message: message.into(), hint: None }
    }

    /// The same error with a hint.
    pub fn hint<S: Into<String>>(mut self, hint: S) -> ParamError {
        self.hint = Some(hint.into());
        self
    }
}

/// A named computation an essay can call. See the module docs for the contract.
pub trait Census: Send + Sync + 'static {
    /// Parameters, deserialized from the block's `with:` mapping. Use
    /// `#[serde(deny_unknown_fields)]` so a misspelt parameter is an error at its line.
    /// Serialized back to JSON in canonical form (the cache key and `id.with.…` paths):
    /// use `BTreeMap` for maps, never `HashMap`.
    type Params: DeserializeOwned + Serialize + Send + Sync + 'static;
    /// The result. Serialized to JSON; struct fields keep their order, so put the summary
    /// counts first. Shares and averages are [`Ratio`]s, never floats.
    type Output: Serialize + 'static;

    /// `game.thing`, e.g. `welter.census`.
    const NAME: &'static str;
    /// One line for `countersign list`.
    const SUMMARY: &'static str;
    /// Every parameter, for `countersign list`.
    const PARAMS: &'static [ParamDoc];
    /// How [`Census::cost`] is computed, in words, for `countersign list`.
    const COST_MODEL: &'static str;
    /// Source files under `src/` the result depends on, e.g.
    /// `&["games/welter.rs", "games/impartial.rs", "census/welter.rs"]`. A change to any of
    /// them (and only them) invalidates this census's cached results.
    const SOURCES: &'static [&'static str];

    /// Check the documented limits. Runs before [`Census::cost`], so `cost` may assume
    /// valid parameters.
    fn validate(params: &Self::Params) -> Result<(), ParamError>;

    /// Estimated work in elementary steps (about a nanosecond each on one core).
    /// Must be cheap, must not overflow (saturate), and must grow with every parameter
    /// that grows the work, so that a call far over budget is refused at once.
    fn cost(params: &Self::Params) -> u64;

    /// Run the computation. Pure: no files, no clock, no randomness, no hash-map order in
    /// the output. Call `ctx.checkpoint()?` often.
    fn run(params: &Self::Params, ctx: &Ctx) -> Result<Self::Output, Cancelled>;
}

/// Why a run ended without a result: it was cancelled, or (a site census) it failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Cancelled through its [`Ctx`]; nothing to report.
    Cancelled,
    /// A site census's process failed; reported as a diagnostic at the census block.
    Failed(Failure),
}

impl From<Cancelled> for Stop {
    fn from(_: Cancelled) -> Stop {
        Stop::Cancelled
    }
}

/// How a site census's process failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// It could not be started, or it exited with a non-zero status.
    Exit,
    /// Its standard output is not one JSON value.
    Output,
    /// It ran longer than its declared time limit and was ended.
    Timeout,
}

impl FailureKind {
    /// The diagnostic code that reports it.
    pub fn code(self) -> countersign_core::diag::Code {
        match self {
            FailureKind::Exit => countersign_core::diag::Code::CensusExit,
            FailureKind::Output => countersign_core::diag::Code::CensusBadOutput,
            FailureKind::Timeout => countersign_core::diag::Code::CensusTimeout,
        }
    }
}

/// A site census's failure: what happened and the last lines of its standard error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// Which failure.
    pub kind: FailureKind,
    /// One sentence, e.g. "`python3 censuses/grundy.py` exited with status 1".
    pub message: String,
    /// The last lines it wrote to standard error (progress lines left out), oldest first.
    pub stderr_tail: Vec<String>,
}

/// A census call whose parameters parsed and passed their limits, ready to run.
pub struct Prepared {
    /// The census's name.
    pub name: String,
    /// The parameters in canonical JSON form.
    pub params: serde_json::Value,
    /// The estimated cost in elementary steps.
    pub cost: u64,
    runner: Runner,
}

/// A prepared call's computation: run under a [`Ctx`], the result as JSON.
pub type Runner = Box<dyn Fn(&Ctx) -> Result<serde_json::Value, Stop> + Send + Sync>;

impl Prepared {
    /// A prepared call of census `name` with canonical `params`, estimated `cost` and the
    /// computation `runner` (how a site census, which is not a [`Census`], is prepared).
    pub fn new(name: String, params: serde_json::Value, cost: u64, runner: Runner) -> Prepared {
        Prepared { name, params, cost, runner }
    }

    /// Run the census; the result as JSON.
    ///
    /// A result that cannot be written as JSON (a map with non-string keys, a float that
    /// is not finite) is a bug in the census, never a `null` result: the run unwinds with a
    /// `String` payload starting "bug in census", as a panicking solver does, so the
    /// caller that catches it (the pipeline, `countersign run`) reports it and caches
    /// nothing. A built-in census stops only when cancelled; a site census may also stop
    /// with a [`Failure`].
    pub fn run(&self, ctx: &Ctx) -> Result<serde_json::Value, Stop> {
        (self.runner)(ctx)
    }
}

/// Unwind with the message for a census whose result does not serialize. Uses
/// `resume_unwind`, so no panic hook prints a backtrace for what is reported as a
/// diagnostic.
fn unserializable(name: &str, e: &serde_json::Error) -> ! {
    std::panic::resume_unwind(Box::new(format!("bug in census `{name}`: its result cannot be written as JSON ({e}); nothing was cached")))
}

/// The message of a caught panic or unwind payload (a `String` or `&str`; empty otherwise).
pub fn unwind_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload.downcast_ref::<String>().cloned().or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default()
}

impl fmt::Debug for Prepared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Prepared").field("name", &self.name).field("params", &self.params).field("cost", &self.cost).finish()
    }
}

/// Why a `with:` mapping could not be prepared.
#[derive(Clone, Debug)]
pub enum PrepareError {
    /// The YAML did not deserialize into the parameter type (unknown or missing field,
    /// wrong type). `line`/`column` are 1-based within the YAML text given, when known.
    Shape {
        /// What serde said.
        message: String,
        /// 1-based line within the given text.
        line: Option<usize>,
        /// 1-based column within the given text.
        column: Option<usize>,
    },
    /// A parameter outside its limits.
    Limit(ParamError),
}

/// The object-safe face of a [`Census`], used by the registry.
pub trait DynCensus: Send + Sync {
    /// See [`Census::NAME`].
    fn name(&self) -> &'static str;
    /// See [`Census::SUMMARY`].
    fn summary(&self) -> &'static str;
    /// See [`Census::PARAMS`].
    fn params(&self) -> &'static [ParamDoc];
    /// See [`Census::COST_MODEL`].
    fn cost_model(&self) -> &'static str;
    /// See [`Census::SOURCES`].
    fn sources(&self) -> &'static [&'static str];
    /// Deserialize `block_yaml` (a whole census block: `id`, `run`, `with`) into the
    /// parameter type, validate it and estimate its cost. Positions in errors are relative
    /// to `block_yaml`. A block without `with` gets the parameters of an empty mapping.
    fn prepare(&self, block_yaml: &str) -> Result<Prepared, PrepareError>;
}

/// A census block as the census sees it: the loader has already checked `id` and `run`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a mapping of keys to values")]
struct CallBlock<P> {
    #[allow(dead_code)]
    id: serde::de::IgnoredAny,
    #[allow(dead_code)]
    run: serde::de::IgnoredAny,
    with: Option<P>,
}

/// Adapter from a [`Census`] to a [`DynCensus`].
pub struct Entry<C>(std::marker::PhantomData<fn() -> C>);

impl<C> Entry<C> {
    /// The registry entry for census `C`.
    pub const fn new() -> Self {
        Entry(std::marker::PhantomData)
    }
}

impl<C> Default for Entry<C> {
    fn default() -> Self {
        Self::new()
    }
}

impl<C: Census> DynCensus for Entry<C> {
    fn name(&self) -> &'static str {
        C::NAME
    }
    fn summary(&self) -> &'static str {
        C::SUMMARY
    }
    fn params(&self) -> &'static [ParamDoc] {
        C::PARAMS
    }
    fn cost_model(&self) -> &'static str {
        C::COST_MODEL
    }
    fn sources(&self) -> &'static [&'static str] {
        C::SOURCES
    }
    fn prepare(&self, block_yaml: &str) -> Result<Prepared, PrepareError> {
        let shape = |e: countersign_core::yaml::YamlError| PrepareError::Shape { message: e.message, line: e.line, column: e.column };
        let block: CallBlock<C::Params> = countersign_core::yaml::from_str(block_yaml).map_err(shape)?;
        let params = match block.with {
            Some(p) => p,
            None => countersign_core::yaml::from_str("{}").map_err(shape)?,
        };
        C::validate(&params).map_err(PrepareError::Limit)?;
        let cost = C::cost(&params);
        let canonical = serde_json::to_value(&params).map_err(|e| PrepareError::Shape {
            message: format!("bug in census `{}`: its parameters cannot be written as JSON ({e})", C::NAME),
            line: None,
            column: None,
        })?;
        let params = Arc::new(params);
        Ok(Prepared {
            name: C::NAME.to_string(),
            params: canonical,
            cost,
            runner: Box::new(move |ctx| {
                let out = C::run(&params, ctx)?;
                Ok(serde_json::to_value(&out).unwrap_or_else(|e| unserializable(C::NAME, &e)))
            }),
        })
    }
}

/// Every census an essay can call, in the order `countersign list` shows them.
pub static REGISTRY: &[&dyn DynCensus] = &[
    &Entry::<welter::WelterCensus>::new(),
    &Entry::<welter_matchings::WelterMatchings>::new(),
    &Entry::<welter_matchings::WelterPosition>::new(),
    &Entry::<moore::MooreOutcomes>::new(),
    &Entry::<moore::MooreCapped>::new(),
    &Entry::<sylver::SylverCensus>::new(),
    &Entry::<sylver::SylverPosition>::new(),
    &Entry::<held_pass::HeldPassHeaps>::new(),
    &Entry::<held_pass::HeldPassLosses>::new(),
    &Entry::<held_pass::HeldPassTable>::new(),
    &Entry::<held_pass::HeldPassSlices>::new(),
];

/// The census named `name`, if registered.
pub fn lookup(name: &str) -> Option<&'static dyn DynCensus> {
    REGISTRY.iter().copied().find(|c| c.name() == name)
}

/// Names of every registered census, for "did you mean" hints.
pub fn names() -> Vec<&'static str> {
    REGISTRY.iter().map(|c| c.name()).collect()
}

/// Shorthand for a share `num / den` as a [`Ratio`] (counts as `usize` or `u64`).
pub fn share<A: TryInto<u64>, B: TryInto<u64>>(num: A, den: B) -> Ratio {
    Ratio::new(num.try_into().unwrap_or(u64::MAX), den.try_into().unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_unwind_message_is_read_from_a_string_or_a_str_payload() {
        let formatted = std::panic::catch_unwind(|| panic!("census {} failed", 7)).unwrap_err();
        assert_eq!(super::unwind_message(formatted.as_ref()), "census 7 failed");
        let literal = std::panic::catch_unwind(|| std::panic::panic_any("a literal")).unwrap_err();
        assert_eq!(super::unwind_message(literal.as_ref()), "a literal");
        let other = std::panic::catch_unwind(|| std::panic::panic_any(42_u8)).unwrap_err();
        assert_eq!(super::unwind_message(other.as_ref()), "");
    }
}
