//! fio histogram log parser: any bytes give a run or an error, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(run) = nines_core::import::fio_hist::read("fuzz_clat_hist.1.log", data) {
        let _ = nines_core::stats::run_stats(&run, &nines_core::stats::Options::default());
    }
});
