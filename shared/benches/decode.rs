//! Decoding an archive: `archive::read` over a one-hour run with 1 s windows and read and
//! write tags (7,200 window lines), the work `nines stats` and the viewer do first. The run is
//! synthetic and seeded, so every run of the benchmark decodes the same bytes; whole-program
//! timings against other HdrHistogram readers are `bench/core.sh`'s (BENCHMARKS.md).
//! Then the levels of `nines stats` (p50 to 9 nines, each with its 95% interval) on the
//! whole run's merged read histogram: the viewer's stats table computes them per run and
//! direction. Then `Compact::read_head` of the run's compact form (groups of a minute), its
//! bytes before the groups: what a site's page reads of each run before drawing it.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use nines_core::compact::Compact;
use nines_core::hist::{Accumulator, Layout};
use nines_core::run::{Run, Window};
use nines_core::{archive, quantile, stats};
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, LogNormal};

/// One hour of 1 s windows, reads and writes, log-normal latencies around 100 us with a tail.
fn hour_run() -> Run {
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let lat = LogNormal::new(100_000f64.ln(), 0.6).unwrap();
    let mut windows = Vec::new();
    for s in 0..3600 {
        for tag in ["read", "write"] {
            let mut acc = Accumulator::new(Layout::default_ns());
            for _ in 0..rng.gen_range(2_000..4_000) {
                acc.record_n(lat.sample(&mut rng) as u64, 1);
            }
            windows.push(Window { start_s: s as f64, length_s: 1.0, tag: Some(tag.into()), hist: acc.finish() });
        }
    }
    Run { name: "hour".into(), source: "hour.hlog".into(), windows, ..Run::default() }
}

fn decode(c: &mut Criterion) {
    let run = hour_run();
    let bytes = archive::write(Vec::new(), &run).unwrap();
    let mut g = c.benchmark_group("decode");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.sample_size(10);
    g.bench_function("archive::read one hour, 1 s windows, 2 tags", |b| b.iter(|| archive::read("hour.hlog", &bytes).unwrap()));
    g.finish();
    let read = stats::merge_windows(run.windows.iter().filter(|w| w.tag.as_deref() == Some("read"))).unwrap();
    let levels = quantile::standard_levels();
    let mut g = c.benchmark_group("levels");
    g.bench_function("level_stats, one hour of reads, p50 to 9 nines", |b| b.iter(|| quantile::level_stats(&read, &levels)));
    g.finish();
    let form = Compact::of(&run, 60).write().unwrap();
    let at = Compact::read("hour.compact", &form).unwrap().groups_at().unwrap();
    let mut g = c.benchmark_group("compact");
    g.bench_function("read_head, one hour, 2 tags, the bytes before the groups", |b| {
        b.iter(|| Compact::read_head("hour.compact", &form[..at]).unwrap())
    });
    g.finish();
}

criterion_group!(benches, decode);
criterion_main!(benches);
