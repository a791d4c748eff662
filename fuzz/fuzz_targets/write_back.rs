//! Any bytes that read as a run are written back as an archive and read again: never a
//! panic, every window kept with its tag and count (a run that reads holds at most 2^63 - 1
//! I/Os, so every window can be written).
#![no_main]
use libfuzzer_sys::fuzz_target;
use nines_core::{archive, import};

fuzz_target!(|data: &[u8]| {
    for name in ["fuzz.hlog", "fuzz.json", "fuzz_clat_hist.1.log", "fuzz_slat.2.log", "fuzz.csv"] {
        let Ok(run) = import::read_any(name, data) else { continue };
        let bytes = archive::write(Vec::new(), &run).unwrap_or_else(|e| panic!("{name}: a run that reads must write: {e}"));
        let back = archive::read("back.hlog", &bytes).unwrap_or_else(|e| panic!("{name}: what was written must read: {e}"));
        let shape = |r: &nines_core::run::Run| r.windows.iter().map(|w| (w.tag.clone(), w.hist.count())).collect::<Vec<_>>();
        assert_eq!(shape(&back), shape(&run), "{name}");
        assert!(back.windows.iter().zip(&run.windows).all(|(a, b)| a.hist == b.hist), "{name}: histograms differ");
    }
});
