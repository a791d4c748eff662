//! `/metrics`: the served runs in the OpenMetrics text format
//! (<https://github.com/prometheus/OpenMetrics/blob/main/specification/OpenMetrics.md>),
//! for a Prometheus scrape of a run being written.
//!
//! Per run and direction: counters of I/Os, bytes (runs of one block size) and windows, and
//! gauges of the last recorded window: its levels of nines as nines-core computes them (only
//! the levels with support: at least one I/O beyond), its max and its IOPS. Latencies are in
//! seconds, as OpenMetrics prefers base units. Hand-written: the format is a few lines of
//! text, and the client crates bring a registry and types this one-shot rendering has no use
//! for.

use std::fmt::Write;

use nines_core::context::{DiskRates, WindowContext};
use nines_core::meta::Size;
use nines_core::quantile::{self, Support};
use nines_core::run::{Run, Window};
use nines_core::stats;

/// The Content-Type of an OpenMetrics exposition.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// A label value with `\`, `"` and line feeds escaped, as the format requires.
fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => o.push_str("\\\\"),
            '"' => o.push_str("\\\""),
            '\n' => o.push_str("\\n"),
            c => o.push(c),
        }
    }
    o
}

/// A number as the format writes it (Rust's shortest exact decimal, never an exponent).
fn num(v: f64) -> String {
    if v.is_finite() {
        format!("{v}")
    } else if v.is_nan() {
        "NaN".into()
    } else if v > 0.0 {
        "+Inf".into()
    } else {
        "-Inf".into()
    }
}

/// Bytes of every I/O when the run used one block size.
fn block_size(run: &Run) -> Option<u64> {
    let w = run.meta.workload.as_ref()?;
    match (w.bs_bytes.as_slice(), &w.bs) {
        ([(b, _)], _) => Some(*b),
        ([], Some(Size::Bytes(b))) => Some(*b),
        _ => None,
    }
}

/// Directions that move bytes (the `.svc` tags of rate-limited runs count the same I/Os
/// again; sync moves none).
fn moves_bytes(tag: &str) -> bool {
    matches!(tag, "read" | "write" | "trim")
}

/// One direction of one run.
struct Dir<'a> {
    labels: String,
    tag: String,
    ios: u64,
    windows: u64,
    last: &'a Window,
    bs: Option<u64>,
}

/// The exposition of `runs` (their shown names and the runs), ending in `# EOF`.
pub fn render(runs: &[(&str, &Run)]) -> String {
    let mut dirs: Vec<Dir> = Vec::new();
    for (name, run) in runs {
        let bs = block_size(run);
        for tag in run.tags() {
            let t = stats::tag_name(tag.as_deref()).to_string();
            let mine = || run.windows.iter().filter(|w| w.tag == tag);
            let Some(last) = mine().max_by(|a, b| a.start_s.total_cmp(&b.start_s)) else { continue };
            dirs.push(Dir {
                labels: format!("run=\"{}\",dir=\"{}\"", esc(name), esc(&t)),
                ios: mine().map(|w| w.hist.count()).sum(),
                windows: mine().count() as u64,
                last,
                bs,
                tag: t,
            });
        }
    }
    let mut o = String::new();
    let family = |o: &mut String, name: &str, kind: &str, unit: Option<&str>, help: &str| {
        let _ = writeln!(o, "# TYPE {name} {kind}");
        if let Some(u) = unit {
            let _ = writeln!(o, "# UNIT {name} {u}");
        }
        let _ = writeln!(o, "# HELP {name} {help}");
    };
    family(&mut o, "nines_ios", "counter", None, "I/Os completed in the recorded windows, per run and direction.");
    for d in &dirs {
        let _ = writeln!(o, "nines_ios_total{{{}}} {}", d.labels, d.ios);
    }
    family(
        &mut o,
        "nines_bytes",
        "counter",
        None,
        "Bytes moved by the I/Os of the recorded windows (runs of one block size: I/Os times the block size).",
    );
    for d in dirs.iter().filter(|d| moves_bytes(&d.tag)) {
        if let Some(bs) = d.bs {
            let _ = writeln!(o, "nines_bytes_total{{{}}} {}", d.labels, d.ios.saturating_mul(bs));
        }
    }
    family(&mut o, "nines_windows", "counter", None, "Windows recorded, per run and direction.");
    for d in &dirs {
        let _ = writeln!(o, "nines_windows_total{{{}}} {}", d.labels, d.windows);
    }
    family(
        &mut o,
        "nines_last_window_latency_seconds",
        "gauge",
        Some("seconds"),
        "Latency at each level of nines in the last recorded window, in seconds (the upper edge of the histogram bucket of the I/O at the level's rank, as nines stats gives it; only levels with at least one I/O beyond them).",
    );
    for d in &dirs {
        for l in quantile::level_stats(&d.last.hist, &quantile::standard_levels()) {
            if let (Some(v), false) = (l.value_ns, l.support == Support::None) {
                let _ =
                    writeln!(o, "nines_last_window_latency_seconds{{{},level=\"{}\"}} {}", d.labels, esc(&l.label), num(v as f64 / 1e9));
            }
        }
    }
    family(
        &mut o,
        "nines_last_window_max_latency_seconds",
        "gauge",
        Some("seconds"),
        "Largest latency in the last recorded window, in seconds.",
    );
    for d in dirs.iter().filter(|d| d.last.hist.count() > 0) {
        let _ = writeln!(o, "nines_last_window_max_latency_seconds{{{}}} {}", d.labels, num(d.last.hist.max() as f64 / 1e9));
    }
    family(&mut o, "nines_last_window_iops", "gauge", None, "I/Os per second in the last recorded window.");
    for d in dirs.iter().filter(|d| d.last.length_s > 0.0) {
        let _ = writeln!(o, "nines_last_window_iops{{{}}} {}", d.labels, num(d.last.hist.count() as f64 / d.last.length_s));
    }
    family(
        &mut o,
        "nines_last_window_end_seconds",
        "gauge",
        Some("seconds"),
        "End of the last recorded window, in seconds from the run's start.",
    );
    for d in &dirs {
        let _ = writeln!(o, "nines_last_window_end_seconds{{{}}} {}", d.labels, num(d.last.start_s + d.last.length_s));
    }
    context(&mut o, runs, &family);
    o.push_str("# EOF\n");
    o
}

/// Declares a metric family: (output, name, type, unit, help).
type Family<'a> = &'a dyn Fn(&mut String, &str, &str, Option<&str>, &str);

/// The gauges of each run's last `#[context]` record: what the device and the host did in
/// its last recorded window (iostat -x's device numbers, /proc/stat's CPU shares, PSI's stall
/// shares, nines' own CPU), as ratios (0 to 1) and seconds, OpenMetrics' base units.
fn context(o: &mut String, runs: &[(&str, &Run)], family: Family) {
    let last: Vec<(String, &WindowContext)> =
        runs.iter().filter_map(|(name, run)| run.context.last().map(|c| (format!("run=\"{}\"", esc(name)), c))).collect();
    let dev = |c: &WindowContext| format!(",device=\"{}\"", esc(&c.devices.join("+")));
    type Disk = fn(&DiskRates) -> f64;
    let disk: [(&str, Option<&str>, &str, Disk); 9] = [
        ("nines_context_device_utilization_ratio", None, "Share of the last window the target's disks were busy (iostat -x %util / 100; io_ticks of /proc/diskstats; with several disks the busiest).", |d| d.util / 100.0),
        ("nines_context_device_queue_size", None, "Average number of requests queued or in service at the target's disks in the last window (iostat -x aqu-sz; time_in_queue of /proc/diskstats).", |d| d.aqu_sz),
        ("nines_context_device_read_await_seconds", Some("seconds"), "Average time of the disks' reads in the last window, queue and service, in seconds (iostat -x r_await).", |d| d.r_await / 1e3),
        ("nines_context_device_write_await_seconds", Some("seconds"), "Average time of the disks' writes in the last window, queue and service, in seconds (iostat -x w_await).", |d| d.w_await / 1e3),
        ("nines_context_device_reads_per_second", None, "Reads completed by the target's disks per second in the last window, whoever issued them (iostat -x r/s).", |d| d.r_s),
        ("nines_context_device_writes_per_second", None, "Writes completed by the target's disks per second in the last window, whoever issued them (iostat -x w/s).", |d| d.w_s),
        ("nines_context_device_read_bytes_per_second", None, "Bytes read from the target's disks per second in the last window (iostat -x rkB/s x 1024).", |d| d.rkb_s * 1024.0),
        ("nines_context_device_write_bytes_per_second", None, "Bytes written to the target's disks per second in the last window (iostat -x wkB/s x 1024).", |d| d.wkb_s * 1024.0),
        ("nines_context_device_ios_per_second", None, "Reads and writes completed by the target's disks per second in the last window (r/s + w/s).", |d| d.r_s + d.w_s),
    ];
    for (name, unit, help, get) in disk {
        family(o, name, "gauge", unit, help);
        for (l, c) in &last {
            if let Some(d) = &c.disk {
                let _ = writeln!(o, "{name}{{{l}{}}} {}", dev(c), num(get(d)));
            }
        }
    }
    family(
        o,
        "nines_context_cpu_ratio",
        "gauge",
        None,
        "Share of all CPUs' time in each mode in the last window (/proc/stat's cpu line, as vmstat's us, sy, wa, st; user includes nice).",
    );
    for (l, c) in &last {
        if let Some(x) = &c.cpu {
            for (mode, v) in [
                ("user", x.user + x.nice),
                ("system", x.system),
                ("iowait", x.iowait),
                ("irq", x.irq),
                ("softirq", x.softirq),
                ("steal", x.steal),
                ("idle", x.idle),
            ] {
                let _ = writeln!(o, "nines_context_cpu_ratio{{{l},mode=\"{mode}\"}} {}", num(v / 100.0));
            }
        }
    }
    family(o, "nines_context_pressure_stall_ratio", "gauge", None, "Share of the last window some (or all non-idle) tasks were stalled on the resource (/proc/pressure/io and cpu, the total= counters; the kernel's accounting/psi.rst).");
    for (l, c) in &last {
        for (res, p) in [("io", &c.io_pressure), ("cpu", &c.cpu_pressure)] {
            let Some(p) = p else { continue };
            let _ = writeln!(o, "nines_context_pressure_stall_ratio{{{l},resource=\"{res}\",kind=\"some\"}} {}", num(p.some / 100.0));
            if let Some(f) = p.full {
                let _ = writeln!(o, "nines_context_pressure_stall_ratio{{{l},resource=\"{res}\",kind=\"full\"}} {}", num(f / 100.0));
            }
        }
    }
    family(o, "nines_context_self_cpu_cores", "gauge", None, "CPU time of the recording nines process (all threads, user + system) in the last window, in cores (1 = one core busy all the window).");
    for (l, c) in &last {
        if let Some(n) = c.nines_cpu {
            let _ = writeln!(o, "nines_context_self_cpu_cores{{{l}}} {}", num(n / 100.0));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nines_core::hist::{Hist, Layout};
    use nines_core::meta::{RunMeta, Workload};

    fn run() -> Run {
        let l = Layout::default_ns();
        let windows = (0..3)
            .flat_map(|s| {
                [
                    Window {
                        start_s: s as f64,
                        length_s: 1.0,
                        tag: Some("read".into()),
                        hist: Hist::from_values(l, (1..=1000).map(|i| 10_000 + i)),
                    },
                    Window { start_s: s as f64, length_s: 1.0, tag: Some("write".into()), hist: Hist::from_values(l, [50_000, 60_000]) },
                ]
            })
            .collect();
        let meta = RunMeta { workload: Some(Workload { bs_bytes: vec![(4096, 100)], ..Workload::default() }), ..RunMeta::default() };
        Run { name: "a \"b\"\n".into(), meta, windows, ..Run::default() }
    }

    #[test]
    fn exposition() {
        let r = run();
        let t = render(&[("a \"b\"\n", &r)]);
        assert!(t.ends_with("# EOF\n"));
        let labels = r#"run="a \"b\"\n",dir="read""#;
        assert!(t.contains(&format!("nines_ios_total{{{labels}}} 3000\n")), "{t}");
        assert!(t.contains(&format!("nines_bytes_total{{{labels}}} {}\n", 3000 * 4096)), "{t}");
        assert!(t.contains(&format!("nines_windows_total{{{labels}}} 3\n")), "{t}");
        // the last window's p50 of 10001..=11000 ns, as nines-core computes it
        let last = &r.windows[4].hist;
        let p50 = quantile::value_at(last, &quantile::standard_levels()[0]).unwrap();
        assert!(t.contains(&format!("nines_last_window_latency_seconds{{{labels},level=\"p50\"}} {}\n", p50 as f64 / 1e9)), "{t}");
        // 1000 I/Os: p99.9 has one beyond it, p99.99 none (not given)
        assert!(t.contains(&format!("{{{labels},level=\"p99.9\"}}")), "{t}");
        assert!(!t.contains(&format!("{{{labels},level=\"p99.99\"}}")), "{t}");
        // two writes a window: only the median has support
        let w = r#"run="a \"b\"\n",dir="write""#;
        assert!(t.contains(&format!("{{{w},level=\"p50\"}}")) && !t.contains(&format!("{{{w},level=\"p90\"}}")), "{t}");
        assert!(t.contains(&format!("nines_last_window_iops{{{labels}}} 1000\n")), "{t}");
        // every family once, TYPE first
        for f in ["nines_ios", "nines_bytes", "nines_last_window_latency_seconds"] {
            assert_eq!(t.matches(&format!("# TYPE {f} ")).count(), 1);
        }
    }

    #[test]
    fn no_bytes_without_one_block_size() {
        let mut r = run();
        r.meta.workload = None;
        assert!(!render(&[("x", &r)]).contains("nines_bytes_total{"));
    }

    #[test]
    fn the_last_context_record_as_gauges() {
        use nines_core::context::{CpuShares, PressureShares};
        let mut r = run();
        // without context: the families are declared, no samples
        let t = render(&[("x", &r)]);
        assert!(
            t.contains("# TYPE nines_context_device_utilization_ratio gauge") && !t.contains("nines_context_device_utilization_ratio{")
        );
        let rec = |i: u64, util: f64| WindowContext {
            start_ns: i * 1_000_000_000,
            end_ns: (i + 1) * 1_000_000_000,
            devices: vec!["vda".into()],
            disk: Some(DiskRates { util, r_s: 100.0, w_s: 50.0, r_await: 2.5, rkb_s: 400.0, ..DiskRates::default() }),
            cpu: Some(CpuShares { user: 20.0, nice: 5.0, idle: 75.0, ..CpuShares::default() }),
            io_pressure: Some(PressureShares { some: 12.5, full: Some(2.5) }),
            cpu_pressure: Some(PressureShares { some: 1.0, full: None }),
            nines_cpu: Some(37.5),
            span_ns: None,
        };
        r.context = vec![rec(0, 10.0), rec(1, 40.0)];
        let t = render(&[("x", &r)]);
        let l = r#"run="x",device="vda""#;
        // the last record's values, in base units
        for line in [
            format!("nines_context_device_utilization_ratio{{{l}}} 0.4\n"),
            format!("nines_context_device_read_await_seconds{{{l}}} 0.0025\n"),
            format!("nines_context_device_read_bytes_per_second{{{l}}} 409600\n"),
            format!("nines_context_device_ios_per_second{{{l}}} 150\n"),
            "nines_context_cpu_ratio{run=\"x\",mode=\"user\"} 0.25\n".into(),
            "nines_context_pressure_stall_ratio{run=\"x\",resource=\"io\",kind=\"full\"} 0.025\n".into(),
            "nines_context_self_cpu_cores{run=\"x\"} 0.375\n".into(),
        ] {
            assert!(t.contains(&line), "{line} not in\n{t}");
        }
        assert!(!t.contains("resource=\"cpu\",kind=\"full\""), "{t}");
        assert!(t.contains("# HELP nines_context_device_queue_size ") && t.ends_with("# EOF\n"));
    }
}
