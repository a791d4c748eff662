//! Skewed random access against fio itself: for the same `random_distribution` parameters,
//! the hottest 1% and 10% of the blocks get the same share of the I/Os from nines' offset
//! generator as from fio (fio's offsets from its `write_iolog`, with the null engine so
//! nothing is read or written).

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

use clap::Parser;
use nines::cli::run::Given;
use nines::cli::{Cli, Cmd};
use nines::run::workload::{OpGen, Workload};

const REGION: u64 = 64 << 20;
const BS: u64 = 4096;
const BLOCKS: u64 = REGION / BS;
/// I/Os drawn by each side: fio's io_size of 800MiB in 4KiB blocks.
const IOS: u64 = 800 << 20 >> 12;

/// The shares of the hottest 1% and 10% of the blocks, from per-block counts.
fn hot_shares(counts: impl IntoIterator<Item = u64>) -> (f64, f64) {
    let mut c: Vec<u64> = counts.into_iter().collect();
    c.sort_unstable_by(|a, b| b.cmp(a));
    let total: u64 = c.iter().sum();
    let top = |f: f64| c.iter().take((BLOCKS as f64 * f).round() as usize).sum::<u64>() as f64 / total as f64;
    (top(0.01), top(0.10))
}

fn fio_shares(dir: &Path, dist: &str) -> (f64, f64) {
    let log = dir.join(format!("{}.iolog", dist.replace([':', '/'], "_")));
    let out = Command::new("fio")
        .current_dir(dir)
        .args([
            "--name=dist",
            "--ioengine=null",
            "--rw=randread",
            "--bs=4k",
            "--size=64m",
            "--io_size=800m",
            "--norandommap",
            "--randseed=7",
        ])
        .arg(format!("--random_distribution={dist}"))
        .arg(format!("--write_iolog={}", log.display()))
        .arg("--output=/dev/null")
        .output()
        .expect("fio is installed (scripts/setup.sh)");
    assert!(out.status.success(), "fio failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&log).expect("fio wrote its iolog");
    let mut counts: HashMap<u64, u64> = HashMap::new();
    let mut n = 0;
    for l in text.lines() {
        // version 3 lines: time, file, action, offset, length (fio HOWTO, "Trace file format")
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() == 5 && f[2] == "read" {
            *counts.entry(f[3].parse::<u64>().expect("an offset") / BS).or_default() += 1;
            n += 1;
        }
    }
    assert!(n >= IOS, "fio logged {n} reads");
    hot_shares(counts.into_values())
}

fn nines_shares(dist: &str) -> (f64, f64) {
    let args = ["nines", "run", "--target", "t", "-o", "o.hlog", "--bs", "4k", "--seed", "7", "--random-distribution", dist];
    let Cmd::Run(a) = Cli::try_parse_from(args).expect("flags parse").cmd else { unreachable!() };
    let w = Workload::from_config(&a.config(&Given::default())).expect("a valid workload");
    let mut g = OpGen::new(&w, 0, REGION, 0);
    let mut counts = vec![0u64; BLOCKS as usize];
    for _ in 0..IOS {
        let io = g.next_io();
        assert!(io.offset.is_multiple_of(BS) && io.offset + u64::from(io.len) <= REGION);
        counts[(io.offset / BS) as usize] += 1;
    }
    hot_shares(counts)
}

#[test]
fn hot_set_shares_match_fio() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut report = String::new();
    for dist in ["zipf:1.2", "zipf:0.8", "pareto:0.9", "pareto:0.7", "normal:0", "normal:10", "zoned:60/10:30/20:8/30:2/40"] {
        let (f1, f10) = fio_shares(dir.path(), dist);
        let (n1, n10) = nines_shares(dist);
        report.push_str(&format!("{dist:>28}: hottest 1% fio {f1:.4} nines {n1:.4}; hottest 10% fio {f10:.4} nines {n10:.4}\n"));
        // within 1.5 percentage points, and within 5% of fio's share (measured: 0.3 points)
        for (f, n) in [(f1, n1), (f10, n10)] {
            assert!((f - n).abs() <= 0.015 && (f - n).abs() <= 0.05 * f, "{dist}: fio {f:.4} nines {n:.4}\n{report}");
        }
    }
    eprintln!("{report}");
}
