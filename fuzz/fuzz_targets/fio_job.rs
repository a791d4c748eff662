//! fio job-file parser and option table: any bytes give workloads or an error, never a panic
//! (an include of any name reads the same bytes again, so nesting is exercised too).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut include = |name: &str, _from: &str| Ok((name.to_string(), text.to_string()));
    let env = |v: &str| (v == "X").then(|| "4k".to_string());
    if let Ok(sections) = nines_core::fio_job::parse("fuzz.fio", text, &mut include, &env) {
        if let Ok(jobs) = nines_core::fio_job::interpret(&sections) {
            let plan = nines_core::fio_job::Plan::new(jobs);
            let _ = plan.single(None);
            let _ = plan.concurrent(None);
            if let Some(j) = plan.groups.first().and_then(|g| g.first()) {
                let _ = nines_core::distribution::Sampler::new(&j.settings.distribution, 1000, 7).block(&mut || 0.5);
            }
        }
    }
});
