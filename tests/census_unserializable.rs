//! A census whose result cannot be written as JSON is a bug reported as a diagnostic:
//! never a `null` result, never cached (issue 14, "Defects").

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use countersign_census::{Cancelled, Census, Ctx, DynCensus, Entry, ParamDoc, ParamError};
use countersign_site::cache::Cache;
use countersign_site::pipeline::{self, Call, Callable, ComputeOptions, Plan};

/// A census whose result is a map with tuple keys, which JSON cannot hold.
struct TupleKeys;

#[derive(serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
struct NoParams {}

impl Census for TupleKeys {
    type Params = NoParams;
    type Output = BTreeMap<(u8, u8), u8>;
    const NAME: &'static str = "test.tuple_keys";
    const SUMMARY: &'static str = "a result JSON cannot hold";
    const PARAMS: &'static [ParamDoc] = &[];
    const COST_MODEL: &'static str = "1";
    const SOURCES: &'static [&'static str] = &[];
    fn validate(_: &NoParams) -> Result<(), ParamError> {
        Ok(())
    }
    fn cost(_: &NoParams) -> u64 {
        1
    }
    fn run(_: &NoParams, _: &Ctx) -> Result<Self::Output, Cancelled> {
        Ok(BTreeMap::from([((1, 2), 3)]))
    }
}

static TUPLE_KEYS: Entry<TupleKeys> = Entry::new();

#[test]
fn a_result_that_does_not_serialize_is_a_bug_diagnostic_and_is_not_cached() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::at(dir.path().join("cache"));
    let prepared = TUPLE_KEYS.prepare("id: t\nrun: test.tuple_keys\n").unwrap();
    let plan = Plan {
        calls: vec![Call {
            key: "k".repeat(64),
            census: Callable::Builtin(&TUPLE_KEYS),
            prepared: std::sync::Arc::new(prepared),
            fingerprint: "f".into(),
            at: ("essays/t.md".into(), 0..0),
        }],
        bindings: vec![BTreeMap::from([("t".to_string(), 0)])],
        diags: Vec::new(),
    };
    for _ in 0..2 {
        let opts = ComputeOptions { cache: &cache, memory: None, progress: false, cancel: Arc::new(AtomicBool::new(false)), flags: None };
        let results = pipeline::compute(&plan, &opts);
        assert!(results.values[0].is_none(), "a result that does not serialize must not become a value (null)");
        assert_eq!(results.stats.cached, 0, "nothing may come from the cache");
        assert!(results.diags.iter().any(|d| d.code == countersign_core::diag::Code::CensusPanicked), "{:?}", results.diags);
        let messages: Vec<&str> = results.diags.iter().map(|d| d.message.as_str()).collect();
        assert!(
            messages.iter().any(|m| m.contains("bug in census `test.tuple_keys`") && m.contains("cannot be written as JSON")),
            "{messages:?}"
        );
    }
    let stored = std::fs::read_dir(dir.path().join("cache")).map(|d| d.count()).unwrap_or(0);
    assert_eq!(stored, 0, "the cache must hold nothing");
}
