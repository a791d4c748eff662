//! JSON documents: the result structs serialised as they are (their fields are the contract).

use serde::Serialize;

use crate::stats::RunStats;

/// The JSON document `nines stats --context --json` prints: each run's object with a
/// `context` key (null for a run without context).
pub fn stats_context(runs: &[RunStats], context: &[Option<crate::context::ContextSummary>]) -> String {
    #[derive(Serialize)]
    struct R<'a> {
        #[serde(flatten)]
        run: &'a RunStats,
        context: &'a Option<crate::context::ContextSummary>,
    }
    #[derive(Serialize)]
    struct Doc<'a> {
        runs: Vec<R<'a>>,
    }
    let runs = runs.iter().zip(context).map(|(run, context)| R { run, context }).collect();
    serde_json::to_string_pretty(&Doc { runs }).expect("stats serialise")
}

/// The JSON document `nines stats --json` prints.
pub fn stats(runs: &[RunStats]) -> String {
    #[derive(Serialize)]
    struct Doc<'a> {
        runs: &'a [RunStats],
    }
    serde_json::to_string_pretty(&Doc { runs }).expect("stats serialise")
}
