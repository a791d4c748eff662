//! JSON documents: the result structs serialised as they are (their fields are the contract).

use serde::Serialize;

use crate::stats::RunStats;

/// The JSON document `nines stats --json` prints.
pub fn stats(runs: &[RunStats]) -> String {
    #[derive(Serialize)]
    struct Doc<'a> {
        runs: &'a [RunStats],
    }
    serde_json::to_string_pretty(&Doc { runs }).expect("stats serialise")
}
