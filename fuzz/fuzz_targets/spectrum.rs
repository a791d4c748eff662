//! Percentile spectrum (.hgrm, wrk2) parser: any bytes give a run or an error, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use nines_core::import::{list::Unit, spectrum::read};

fuzz_target!(|data: &[u8]| {
    if let Ok(run) = read("fuzz.hgrm", data, Some(Unit::Ms)) {
        let _ = nines_core::stats::run_stats(&run, &nines_core::stats::Options::default());
    }
});
