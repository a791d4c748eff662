//! Format detection and every reader behind it (interval logs included), under each file
//! name that changes detection: never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for name in ["fuzz.hlog", "fuzz.json", "fuzz_clat_hist.1.log", "fuzz_slat.2.log", "fuzz.csv"] {
        if let Ok(run) = nines_core::import::read_any(name, data) {
            let _ = nines_core::stats::run_stats(&run, &nines_core::stats::Options::default());
        }
    }
});
