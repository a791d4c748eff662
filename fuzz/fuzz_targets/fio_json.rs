//! fio json+ parser: any bytes give a run or an error, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(run) = nines_core::import::fio_json::read("fuzz.json", data) {
        // what a reader does next must not panic either
        let _ = nines_core::stats::run_stats(&run, &nines_core::stats::Options::default());
    }
});
