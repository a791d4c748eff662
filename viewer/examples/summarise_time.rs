//! Times what a viewer worker does to a raw archive (`summarise`), stage by stage, natively:
//! decoding (`read_any`), the compact form's points (`Builder::new`), its groups (`build`)
//! and writing it (`write_stored`); then `summarise` itself. Medians of REPEATS runs, in CPU
//! time of the thread (so that a shared machine's load does not count).
//!
//! Usage: cargo run --release -p nines-viewer --example summarise_time -- FILE [REPEATS]

/// This thread's CPU time so far (Linux), so that the numbers hold on a loaded machine.
struct Instant(u64);

impl Instant {
    fn now() -> Instant {
        let s = std::fs::read_to_string("/proc/thread-self/schedstat").expect("Linux schedstat");
        Instant(s.split_whitespace().next().and_then(|v| v.parse().ok()).expect("CPU ns"))
    }
    fn ms(&self) -> f64 {
        (Instant::now().0 - self.0) as f64 / 1e6
    }
}

use nines_core::compact::Builder;

/// "median (min)" of some timings.
fn median(mut v: Vec<f64>) -> String {
    v.sort_by(f64::total_cmp);
    format!("{:.1} ({:.1})", v[v.len() / 2], v[0])
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).expect("usage: summarise_time FILE [REPEATS]");
    let repeats: usize = args.get(2).map_or(5, |s| s.parse().expect("REPEATS is a number"));
    let bytes = std::fs::read(path).expect("readable file");
    let (mut read, mut new, mut build, mut write, mut whole) = (vec![], vec![], vec![], vec![], vec![]);
    let (mut out_len, mut out_hash) = (0, 0u64);
    for _ in 0..repeats {
        let t = Instant::now();
        let run = nines_core::import::read_any(path, &bytes).expect("a run");
        read.push(t.ms());
        let t = Instant::now();
        let b = Builder::new(&run);
        new.push(t.ms());
        let t = Instant::now();
        let group =
            if run.windows.len() <= nines_core::summarise::FULL_WINDOWS { 1 } else { b.group_within(nines_core::summarise::GROUP_S) };
        let c = b.build(group);
        build.push(t.ms());
        let t = Instant::now();
        let out = c.write_stored().expect("written");
        write.push(t.ms());
        out_len = out.len();
        // FNV-1a of the form, to check that a change keeps it byte for byte
        out_hash = out.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
        let t = Instant::now();
        let s = nines_core::summarise::summarise(path, &bytes).expect("summarised");
        whole.push(t.ms());
        assert_eq!(s, out);
    }
    println!(
        "{path}: {} bytes -> {out_len} bytes (FNV-1a {out_hash:016x}); median (min) of {repeats}, CPU ms: read_any {}, Builder::new {}, build {}, write_stored {}; summarise {}",
        bytes.len(),
        median(read),
        median(new),
        median(build),
        median(write),
        median(whole)
    );
}
