//! Makes runs for the viewer's browser tests and benchmark.
//!
//! ```text
//! cargo run -p nines-viewer --example runs -- synth DIR RUNS WINDOWS IOS_PER_WINDOW
//!     seeded synthetic runs: reads with three TLC-like modes and rare retries, writes
//!     mostly cached with slow flushes; 1 s windows, read and write tags
//! cargo run -p nines-viewer --example runs -- fio CLAT_LOG OUT.hlog NAME BS [WINDOW_S]
//!     a real fio run: its per-I/O completion-latency log (`--write_lat_log=X
//!     --log_avg_msec=0`, file X_clat.N.log: msec, nsec, direction, bs, offset) binned into
//!     windows of WINDOW_S seconds (default 1) per direction
//! ```
//! Both write nines archives through `nines_core::archive`.

use std::collections::BTreeMap;

use nines_core::archive;
use nines_core::hist::{Accumulator, Layout};
use nines_core::meta::RunMeta;
use nines_core::run::{Run, Window};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("synth") if args.len() == 5 => synth(&args[1], args[2].parse().unwrap(), args[3].parse().unwrap(), args[4].parse().unwrap()),
        Some("profile") if args.len() == 2 => profile(&args[1]),
        Some("summarise") if args.len() == 2 => summarise(&args[1]),
        Some("fio") if args.len() >= 5 => {
            fio(&args[1], &args[2], &args[3], args[4].parse().unwrap(), args.get(5).map_or(1.0, |w| w.parse().unwrap()))
        }
        _ => {
            eprintln!("usage: runs synth DIR RUNS WINDOWS IOS_PER_WINDOW | runs fio CLAT_LOG OUT.hlog NAME BS [WINDOW_S]");
            std::process::exit(2);
        }
    }
}

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Log-normal around `median` with shape `s`.
    fn lognormal(&mut self, median: f64, s: f64) -> f64 {
        let (u1, u2) = (self.next().max(1e-12), self.next());
        let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
        median * (s * z).exp()
    }
}

fn synth(dir: &str, runs: usize, windows: usize, ios: u64) {
    std::fs::create_dir_all(dir).unwrap();
    let layout = Layout::default_ns();
    for r in 0..runs {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ ((r as u64 + 1) * 0x1000_0001));
        let drift = 1.0 + 0.04 * r as f64;
        let mut ws = Vec::with_capacity(windows * 2);
        for w in 0..windows {
            // a slow period in the middle of each run (e.g. background garbage collection)
            let gc = (windows / 3..windows / 3 + windows / 20 + 1).contains(&w);
            for (tag, n) in [("read", ios * 7 / 10), ("write", ios * 3 / 10)] {
                let mut acc = Accumulator::new(layout);
                for _ in 0..n {
                    let u = rng.next();
                    let v = if tag == "read" {
                        // TLC: lower, middle and upper page reads, then rare read retries
                        let base = if u < 0.5 {
                            78e3
                        } else if u < 0.85 {
                            118e3
                        } else if u < 0.9995 {
                            186e3
                        } else {
                            900e3
                        };
                        rng.lognormal(base * drift * if gc { 1.6 } else { 1.0 }, 0.06)
                    } else if u < 0.997 {
                        rng.lognormal(22e3 * drift, 0.15)
                    } else {
                        rng.lognormal(if gc { 4e6 } else { 1.4e6 }, 0.3)
                    };
                    acc.record_n(v as u64, 1);
                }
                ws.push(Window { start_s: w as f64, length_s: 1.0, tag: Some(tag.into()), hist: acc.finish() });
            }
        }
        let meta = RunMeta::from_map(json_object(serde_json::json!({
            "version": 1,
            "name": format!("synthetic drive {:02}", r + 1),
            "workload": {"rw": "randrw", "rwmixread": 70, "bs": 4096, "iodepth": 32},
        })))
        .unwrap();
        let run = Run {
            name: format!("synthetic drive {:02}", r + 1),
            start_time: Some(1_764_489_600.0 + r as f64 * 7200.0),
            meta,
            windows: ws,
            ..Run::default()
        };
        let path = format!("{dir}/synth-{:02}.hlog", r + 1);
        std::fs::write(&path, archive::write(Vec::new(), &run).unwrap()).unwrap();
        eprintln!("wrote {path}");
    }
}

fn fio(log: &str, out: &str, name: &str, bs: u64, window_s: f64) {
    let text = std::fs::read_to_string(log).unwrap_or_else(|e| panic!("{log}: {e}"));
    let layout = Layout::default_ns();
    let mut accs: BTreeMap<(u64, u8), Accumulator> = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        if f.len() < 3 {
            continue;
        }
        let ms: f64 = f[0].parse().unwrap_or_else(|_| panic!("{log}:{}: bad time", i + 1));
        let ns: u64 = f[1].parse().unwrap_or_else(|_| panic!("{log}:{}: bad latency", i + 1));
        let dir: u8 = f[2].parse().unwrap_or(0);
        let w = (ms / 1000.0 / window_s).floor() as u64;
        accs.entry((w, dir)).or_insert_with(|| Accumulator::new(layout)).record_n(ns, 1);
    }
    let windows: Vec<Window> = accs
        .into_iter()
        .map(|((w, d), acc)| Window {
            start_s: w as f64 * window_s,
            length_s: window_s,
            tag: Some(
                match d {
                    0 => "read",
                    1 => "write",
                    2 => "trim",
                    _ => "other",
                }
                .into(),
            ),
            hist: acc.finish(),
        })
        .collect();
    let meta = RunMeta::from_map(json_object(
        serde_json::json!({"version": 1, "name": name, "workload": {"tool": "fio 3.33", "bs": bs, "source": log}}),
    ))
    .unwrap();
    let run = Run { name: name.into(), start_time: Some(1_764_489_600.0), meta, windows, ..Run::default() };
    std::fs::write(out, archive::write(Vec::new(), &run).unwrap()).unwrap();
    eprintln!("wrote {out}");
}

/// Time the steps the viewer takes for one run (natively), to find what to make faster.
fn profile(path: &str) {
    use nines_core::series::Direction;
    use nines_core::{density, pyramid};
    let t = std::time::Instant::now();
    let bytes = std::fs::read(path).unwrap();
    let run = nines_core::import::read_any(path, &bytes).unwrap();
    eprintln!(
        "read_any {:?} ({} windows, {} buckets)",
        t.elapsed(),
        run.windows.len(),
        run.windows.iter().map(|w| w.hist.buckets().len()).sum::<usize>()
    );
    let t = std::time::Instant::now();
    let p = pyramid::Pyramid::new(&run, &Direction::All);
    eprintln!("pyramid {:?}", t.elapsed());
    let t = std::time::Instant::now();
    let whole = p.merged(&run, None, None).unwrap();
    eprintln!("merged {:?} ({} buckets)", t.elapsed(), whole.buckets().len());
    let t = std::time::Instant::now();
    let c = nines_core::ccdf::ccdf(&whole);
    let d = density::log_density(&whole, 40);
    eprintln!("ccdf+density {:?} {} {}", t.elapsed(), c.len(), d.len());
    let t = std::time::Instant::now();
    let s = nines_core::stats::run_stats(&run, &nines_core::stats::Options::default());
    eprintln!("run_stats {:?} {}", t.elapsed(), s.tags.0.len());
    let t = std::time::Instant::now();
    let v = p.view(&run, pyramid::Axis::Time, 0.0, 3600.0, 700);
    let pts = pyramid::series_points(v.iter(), &[nines_core::quantile::Level::nines(3), nines_core::quantile::Level::nines(4)]);
    eprintln!("series {:?} {}", t.elapsed(), pts.len());
}

fn json_object(v: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
    match v {
        serde_json::Value::Object(m) => m,
        _ => unreachable!("an object literal"),
    }
}

/// Times the steps of a viewer worker's summary of one file (see `nines_core::summarise`).
fn summarise(path: &str) {
    use nines_core::compact::Builder;
    let t = std::time::Instant::now();
    let bytes = std::fs::read(path).unwrap();
    let run = nines_core::import::read_any(path, &bytes).unwrap();
    eprintln!("read_any {:?}", t.elapsed());
    let t = std::time::Instant::now();
    let b = Builder::new(&run);
    eprintln!("builder {:?}", t.elapsed());
    let t = std::time::Instant::now();
    let c = b.build(b.group_within(nines_core::summarise::GROUP_S));
    eprintln!("build {:?} ({})", t.elapsed(), c.group_text());
    let t = std::time::Instant::now();
    let w = c.write_stored().unwrap();
    eprintln!("write_stored {:?} ({} bytes)", t.elapsed(), w.len());
    let t = std::time::Instant::now();
    let all = nines_core::summarise::summarise(path, &bytes).unwrap();
    eprintln!("summarise {:?} ({} bytes)", t.elapsed(), all.len());
}
