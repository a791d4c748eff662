//! Latency list parser: any bytes give a run or an error, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use nines_core::import::list::{read, Unit};

fuzz_target!(|data: &[u8]| {
    if let Ok(run) = read("fuzz.csv", data, Some(Unit::Us), 0.5) {
        let _ = nines_core::stats::run_stats(&run, &nines_core::stats::Options::default());
    }
});
