//! Interop with the HdrHistogram implementations people already use: logs written by Java's
//! HistogramLogWriter and Python's hdrh read in nines with the same counts and percentiles
//! those libraries compute, and nines' archives read back in them identically.

use nines_core::archive::{ArchiveWriter, Header};
use nines_core::hist::{Hist, Layout};
use nines_tests::{hdr_jar, java, nines_ok, python, run_ok};
use serde_json::Value;

/// The percentiles of nines' standard levels, as the peers take them.
const PCTS: [&str; 10] = ["50", "90", "99", "99.9", "99.99", "99.999", "99.9999", "99.99999", "99.999999", "99.9999999"];

fn stats_json(path: &std::path::Path) -> Value {
    serde_json::from_str(&nines_ok(&["stats", "--json", path.to_str().unwrap()])).unwrap()
}

/// Compare a peer's per-tag summary with `nines stats --json`. Levels with no I/O beyond
/// them are blank in nines and skipped; every shown level must equal the peer's value.
fn assert_same(ours: &Value, peer: &Value, who: &str) {
    let tags = peer.as_object().unwrap();
    assert!(!tags.is_empty());
    for (tag, p) in tags {
        let o = &ours["tags"][tag];
        assert!(o.is_object(), "{who}: nines has no tag {tag}: {ours}");
        assert_eq!(o["count"], p["count"], "{who} {tag} count");
        assert_eq!(o["min_ns"], p["min"], "{who} {tag} min");
        assert_eq!(o["max_ns"], p["max"], "{who} {tag} max");
        let (om, pm) = (o["mean_ns"].as_f64().unwrap(), p["mean"].as_f64().unwrap());
        assert!((om - pm).abs() <= 1e-6 * pm, "{who} {tag} mean {om} vs {pm}");
        let levels = o["levels"].as_array().unwrap();
        let mut compared = 0;
        for (i, l) in levels.iter().enumerate() {
            if l["value_ns"].is_null() {
                assert_eq!(l["support"], "none");
                continue;
            }
            assert_eq!(l["value_ns"], p["values"][i], "{who} {tag} {}", l["label"]);
            compared += 1;
        }
        assert!(compared >= 5, "{who} {tag}: only {compared} levels compared");
    }
}

/// A nines-written archive with two tags, seeded random latencies with a slow tail.
fn write_nines_archive(path: &std::path::Path, windows: usize, per_window: u64) {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(42);
    let file = std::fs::File::create(path).unwrap();
    let mut w = ArchiveWriter::new(file, &Header { start_time: 1_764_489_600.0, meta: Default::default() }).unwrap();
    for s in 0..windows {
        for (tag, scale) in [("read", 90_000.0), ("write", 20_000.0)] {
            let values: Vec<u64> = (0..per_window)
                .map(|_| {
                    let u: f64 = rng.gen_range(0.0001..1.0);
                    let tail = if rng.gen_range(0..1500) == 0 { 30.0 } else { 1.0 };
                    (scale * (-u.ln()) * tail) as u64 + 1000
                })
                .collect();
            let h = Hist::from_values(Layout::default_ns(), values);
            w.write_hist(s as f64, 1.0, Some(tag), &h).unwrap();
        }
    }
}

#[test]
fn java_written_log_reads_with_javas_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("java.hlog");
    let mut args = vec![log.to_str().unwrap(), "7", "20", "10000"];
    args.extend(PCTS);
    let peer: Value = serde_json::from_str(&java("JavaWrite.java", &args)).unwrap();
    let ours = &stats_json(&log)["runs"][0];
    assert_eq!(ours["duration_s"], 20.0);
    assert_same(ours, &peer, "java writer");
}

#[test]
fn python_written_log_reads_with_hdrhs_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("py.hlog");
    // 10 windows x 10,000: levels land on whole ranks, where hdrh's rounding and nearest rank agree
    let mut args = vec![log.to_str().unwrap(), "3", "10", "10000"];
    args.extend(PCTS);
    let peer: Value = serde_json::from_str(&python("py_write.py", &args)).unwrap();
    let ours = &stats_json(&log)["runs"][0];
    assert_same(ours, &peer, "python writer");
}

#[test]
fn nines_archive_reads_identically_in_java() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("nines.hlog");
    write_nines_archive(&log, 30, 4000);
    let mut args = vec![log.to_str().unwrap()];
    args.extend(PCTS);
    let peer: Value = serde_json::from_str(&java("JavaRead.java", &args)).unwrap();
    assert_eq!(peer["windows"], 60);
    assert_same(&stats_json(&log)["runs"][0], &peer["tags"], "java reader");
}

#[test]
fn nines_archive_reads_identically_in_python() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("nines.hlog");
    write_nines_archive(&log, 25, 4000); // 100,000 per tag: whole ranks for every level
    let mut args = vec![log.to_str().unwrap()];
    args.extend(PCTS);
    let peer: Value = serde_json::from_str(&python("py_read.py", &args)).unwrap();
    assert_eq!(peer["windows"], 50);
    assert_same(&stats_json(&log)["runs"][0], &peer["tags"], "python reader");
}

/// Java's own log analyzer agrees on every window's count and on the run's levels.
#[test]
fn histogram_log_processor_agrees() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("nines.hlog");
    write_nines_archive(&log, 12, 5000);
    let ours = stats_json(&log);
    let run = nines_core::archive::read("nines.hlog", &std::fs::read(&log).unwrap()).unwrap();
    for tag in ["read", "write"] {
        let out = dir.path().join(format!("hlp-{tag}"));
        run_ok(std::process::Command::new("java").arg("-cp").arg(hdr_jar()).arg("org.HdrHistogram.HistogramLogProcessor").args([
            "-i",
            log.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "-tag",
            tag,
            "-outputValueUnitRatio",
            "1",
            "-csv",
        ]));
        let csv = std::fs::read_to_string(&out).unwrap();
        let rows: Vec<Vec<f64>> = csv
            .lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with('"') && !l.is_empty())
            .map(|l| l.split(',').map(|f| f.parse().unwrap()).collect())
            .collect();
        let ours_windows: Vec<u64> = run.windows_of(Some(tag)).map(|w| w.hist.count()).collect();
        let theirs: Vec<u64> = rows.iter().map(|r| r[1] as u64).collect();
        assert_eq!(theirs, ours_windows, "{tag}: per-window counts");
        // Total_Count, Total_50%, Total_90%, Total_99%, Total_99.9%, Total_99.99%, Total_Max
        let last = rows.last().unwrap();
        let t = &ours["runs"][0]["tags"][tag];
        assert_eq!(last[5] as u64, t["count"].as_u64().unwrap());
        for (col, lvl) in [(6, 0), (7, 1), (8, 2), (9, 3)] {
            assert_eq!(last[col] as u64, t["levels"][lvl]["value_ns"].as_u64().unwrap(), "{tag} level {lvl}");
        }
        assert_eq!(last[11] as u64, t["max_ns"].as_u64().unwrap());
    }
}

/// An archive of two jobs run together by `nines run` (a QD1 probe beside a QD8 load, on the
/// null engine so it is quick): the scoped tags (`probe/read`, `load/write`) and the merged
/// ones read in Java's and Python's HdrHistogram with nines' own numbers.
#[test]
fn a_two_job_archive_reads_identically_in_java_and_python() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("qos.fio");
    std::fs::write(
        &job,
        "[global]\nfilename=none\nsize=1g\nioengine=null\nnumber_ios=200000\nlog_hist_msec=20\n[probe]\nrw=randread\n[load]\nrw=randwrite\niodepth=8\n",
    )
    .unwrap();
    let log = dir.path().join("qos.hlog");
    nines_ok(&["run", job.to_str().unwrap(), "-o", log.to_str().unwrap(), "--quiet", "--no-summary"]);
    let ours = &stats_json(&log)["runs"][0];
    let windows = nines_core::archive::read("qos.hlog", &std::fs::read(&log).unwrap()).unwrap().windows.len();
    for tag in ["read", "write", "probe/read", "load/write"] {
        assert_eq!(ours["tags"][tag]["count"], 200_000, "{tag}");
    }
    let mut args = vec![log.to_str().unwrap()];
    args.extend(PCTS);
    let peer: Value = serde_json::from_str(&java("JavaRead.java", &args)).unwrap();
    assert_eq!(peer["windows"], windows);
    assert_eq!(peer["tags"].as_object().unwrap().len(), 4);
    assert_same(ours, &peer["tags"], "java reader");
    let peer: Value = serde_json::from_str(&python("py_read.py", &args)).unwrap();
    assert_eq!(peer["windows"], windows);
    assert_same(ours, &peer["tags"], "python reader");
}
