//! Importing kept files: real fio 3.33 output in tests/data (a 0.5 s rate-limited randrw
//! 70/30 job: json+ with lat_percentiles, a histogram log with coarseness 3, clat and lat
//! logs), and HdrHistogram logs written by other tools without tags or headers.
//!
//! The fixtures were written by:
//! `fio --name=fio-randrw --filename=data --size=4M --rw=randrw --rwmixread=70 --bs=4k
//!  --ioengine=psync --rate_iops=1400,600 --runtime=500ms --time_based --lat_percentiles=1
//!  --output-format=json+ --output=fio-randrw.json --write_hist_log=fio-randrw
//!  --log_hist_msec=100 --log_hist_coarseness=3 --write_lat_log=fio-randrw --log_avg_msec=0`

use std::process::Command;

use nines_core::import::{fio_json, read_any, Precision};
use nines_core::quantile::{value_at, Level};
use nines_core::run::Run;
use nines_core::stats::{run_stats, Options};
use nines_tests::{nines, nines_ok, root};
use serde_json::Value;

fn data(name: &str) -> String {
    root().join("tests/data").join(name).to_str().unwrap().to_string()
}

fn read(name: &str) -> Run {
    read_any(name, &std::fs::read(data(name)).unwrap()).unwrap()
}

fn fio_doc() -> Value {
    serde_json::from_slice(&std::fs::read(data("fio-randrw.json")).unwrap()).unwrap()
}

#[test]
fn json_plus_levels_are_fio_buckets_in_text_and_json() {
    let doc = fio_doc();
    let job = &doc["jobs"][0];
    let run = read("fio-randrw.json");
    let s = run_stats(&run, &Options::default());
    for dir in ["read", "write"] {
        assert_eq!(s.tags[dir].count, job[dir]["clat_ns"]["N"].as_u64().unwrap());
        assert_eq!(s.tags[&*format!("{dir}.lat")].count, job[dir]["lat_ns"]["N"].as_u64().unwrap());
        // p50 and p90 hold fio's printed values
        for (label, key) in [("p50", "50.000000"), ("p90", "90.000000")] {
            let l = s.tags[dir].levels.iter().find(|l| l.label == label).unwrap();
            let (lo, hi) = l.bucket_ns.unwrap();
            let fio_value = job[dir]["clat_ns"]["percentile"][key].as_u64().unwrap();
            assert!(lo <= fio_value && fio_value <= hi, "{dir} {label}: {fio_value} not in [{lo}, {hi}]");
        }
    }
    assert_eq!(s.tags["all"].count, 1000, "all merges read and write, not .lat");

    let text = nines_ok(&["stats", &data("fio-randrw.json")]);
    assert!(text.contains("ranges: the source's bucket (fio's, or a spectrum's step) holding the level"), "{text}");
    let json: Value = serde_json::from_str(&nines_ok(&["stats", "--json", &data("fio-randrw.json")])).unwrap();
    let p50 = &json["runs"][0]["tags"]["read"]["levels"][0];
    assert_eq!(p50["label"], "p50");
    assert!(p50["bucket_ns"].is_array(), "{p50}");
    assert_eq!(p50["value_ns"], p50["bucket_ns"][1]);
    assert!(p50.get("at_least").is_none(), "at_least is left out when false");
}

#[test]
fn json_plus_documents_appended_in_one_file() {
    let one = std::fs::read(data("fio-randrw.json")).unwrap();
    let two = [one.as_slice(), b"\n", one.as_slice()].concat();
    let run = read_any("two.json", &two).unwrap();
    assert_eq!(run_stats(&run, &Options::default()).tags["all"].count, 2000);
    assert_eq!(meta_json(&run.meta)["fio"].as_array().unwrap().len(), 2);
    let runs = fio_json::read_each("two.json", &two).unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[1].name, "two #2");
}

#[test]
fn histogram_log_with_coarseness_states_the_coarser_bucket() {
    let run = read("fio-randrw_clat_hist.1.log");
    assert_eq!(run.meta.precision.clone(), Some(Precision::Fio { coarseness: 3 }));
    let s = run_stats(&run, &Options::default());
    let logged: u64 = std::fs::read_to_string(data("fio-randrw_clat_hist.1.log"))
        .unwrap()
        .lines()
        .map(|l| l.split(',').skip(3).map(|c| c.trim().parse::<u64>().unwrap()).sum::<u64>())
        .sum();
    assert_eq!(s.tags["all"].count, logged);
    // a coarseness-3 bucket spans 8 of fio's buckets: a level's range is at least 8x as wide
    // as fio's own bucket at that value
    let l = &s.tags["read"].levels[0];
    let (lo, hi) = l.bucket_ns.unwrap();
    let fine = Precision::Fio { coarseness: 0 }.bucket(lo);
    assert_eq!(hi - lo + 1, 8 * (fine.hi - fine.lo + 1));
}

#[test]
fn latency_logs_are_exact_and_complete() {
    let doc = fio_doc();
    let job = &doc["jobs"][0];
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("logs.hlog");
    nines_ok(&["import", &data("fio-randrw_clat.1.log"), &data("fio-randrw_lat.1.log"), "-o", out.to_str().unwrap(), "--window", "100ms"]);
    let run = read_any("logs.hlog", &std::fs::read(&out).unwrap()).unwrap();
    assert!(run.meta.precision.clone().is_none(), "per-I/O logs are exact");
    let s = run_stats(&run, &Options::default());
    assert_eq!(s.tags["read"].count, job["read"]["clat_ns"]["N"].as_u64().unwrap());
    assert_eq!(s.tags["write.lat"].count, job["write"]["lat_ns"]["N"].as_u64().unwrap());
    assert_eq!(s.tags["all"].count, 1000);
    assert!(run.windows.iter().all(|w| w.length_s <= 0.1 + 1e-9));
    // exact max: fio's own max lies in the 3-digit bucket of ours
    let max = job["read"]["clat_ns"]["max"].as_u64().unwrap();
    assert!(s.tags["read"].max_ns >= max && s.tags["read"].max_ns <= max + max / 1000);
    // and the histogram-precision level sits inside fio's bucket for it
    let h = nines_core::stats::merge_windows(run.windows_of(Some("read"))).unwrap();
    let ours = value_at(&h, &Level::from_quantile(0.5).unwrap()).unwrap();
    let fio_p50 = job["read"]["clat_ns"]["percentile"]["50.000000"].as_u64().unwrap();
    let b = Precision::Fio { coarseness: 0 }.bucket(fio_p50);
    assert!(b.lo <= ours && ours <= b.hi + b.hi / 1000, "{ours} vs fio's bucket [{}, {}]", b.lo, b.hi);
}

#[test]
fn import_refuses_to_overwrite_and_lists_what_it_tried() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.hlog");
    std::fs::write(&out, b"precious").unwrap();
    let o = nines(&["import", &data("fio-randrw.json"), "-o", out.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--force"));
    assert_eq!(std::fs::read(&out).unwrap(), b"precious");
    let junk = dir.path().join("junk.dat");
    std::fs::write(&junk, [0u8, 159, 146, 150]).unwrap();
    let o = nines(&["stats", junk.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    for tried in nines_core::import::FORMATS {
        assert!(err.contains(tried), "{err}");
    }
}

#[test]
fn lists_with_unit_and_directions() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("lat.csv");
    std::fs::write(&csv, "time,dir,latency_us\n0.1,read,120\n0.2,write,45\n1.3,read,150\n1.4,read,900\n").unwrap();
    let out = dir.path().join("lat.hlog");
    nines_ok(&["import", csv.to_str().unwrap(), "--unit", "us", "-o", out.to_str().unwrap()]);
    let run = read_any("lat.hlog", &std::fs::read(&out).unwrap()).unwrap();
    let s = run_stats(&run, &Options::default());
    assert_eq!(s.tags["read"].count, 3);
    assert_eq!(s.tags["write"].count, 1);
    assert_eq!(s.tags["read"].min_ns, 120_000);
    assert_eq!(run.windows.len(), 3);
    let o = nines(&["import", csv.to_str().unwrap(), "--unit", "parsecs", "-o", out.to_str().unwrap()]);
    assert!(!o.status.success());
}

/// Python hdrh's writer as a tool would use it: no tags, no StartTime or BaseTime, just the
/// interval lines. Every window and count must come through, timestamps as written.
#[test]
fn untagged_headerless_log_from_python() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("py.hlog");
    let script = r#"
import sys, random
from hdrh.histogram import HdrHistogram
from hdrh.log import HistogramLogWriter
rnd = random.Random(3)
total = 0
with open(sys.argv[1], "w") as f:
    w = HistogramLogWriter(f)
    for s in range(5):
        h = HdrHistogram(1, 10**10, 3)
        for _ in range(1000):
            h.record_value(int(50_000 * rnd.lognormvariate(0, 0.4)))
        w.output_interval_histogram(h, start_time_stamp_sec=10.0 + s, end_time_stamp_sec=11.0 + s)
        total += h.get_total_count()
print(total)
"#;
    let out = Command::new("python3").arg("-c").arg(script).arg(&path).output().expect("python3 runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let total: u64 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains("StartTime") && !text.contains("Tag="), "the peer wrote a bare log");
    let run = read_any("py.hlog", text.as_bytes()).unwrap();
    assert_eq!(run.windows.len(), 5);
    assert!(run.windows.iter().all(|w| w.tag.is_none()));
    let s = run_stats(&run, &Options::default());
    assert_eq!(s.tags.0.len(), 1);
    assert_eq!(s.tags["all"].count, total);
    assert!((s.duration_s - 5.0).abs() < 1e-6);
}

/// A percentile spectrum (`.hgrm`) written by Python hdrh from known values: every level
/// nines states is a step that holds the exact nearest-rank value of those values.
#[test]
fn percentile_spectrum_from_python_holds_exact_levels() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lat.hgrm");
    let script = r#"
import sys, random, json
from hdrh.histogram import HdrHistogram
rnd = random.Random(5)
h = HdrHistogram(1, 10**10, 3)
values = [int(200_000 * rnd.lognormvariate(0, 0.6)) for _ in range(20000)]
for v in values:
    h.record_value(v)
with open(sys.argv[1], "wb") as f:
    h.output_percentile_distribution(f, 1e6)
print(json.dumps(values))
"#;
    let out = Command::new("python3").arg("-c").arg(script).arg(&path).output().expect("python3 runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut values: Vec<u64> = serde_json::from_slice(&out.stdout).unwrap();
    values.sort_unstable();
    let hlog = dir.path().join("lat.hlog");
    nines_ok(&["import", path.to_str().unwrap(), "--unit", "ms", "-o", hlog.to_str().unwrap()]);
    let run = read_any("lat.hlog", &std::fs::read(&hlog).unwrap()).unwrap();
    assert!(matches!(run.meta.precision.clone(), Some(Precision::Steps { .. })));
    let s = run_stats(&run, &Options::default());
    let all = &s.tags["all"];
    assert_eq!(all.count, values.len() as u64);
    let mut checked = 0;
    for l in &all.levels {
        let Some((lo, hi)) = l.bucket_ns else { continue };
        let exact = values[(Level::from_quantile(l.quantile).unwrap().rank(values.len() as u64) - 1) as usize];
        // hdrh prints each row at its 3-digit bucket's top; the exact value lies in that bucket
        let l3 = nines_core::hist::Layout::default_ns();
        assert!(lo <= l3.highest_equivalent(exact) && l3.lowest_equivalent(exact) <= hi, "{}: {exact} not in [{lo}, {hi}]", l.label);
        checked += 1;
    }
    assert!(checked >= 4, "{checked}");
}

/// A log written by hdr-histogram-js 3.0.1's HistogramLogWriter (tests/data/js-written.hlog:
/// StartTime but no BaseTime, an untagged window, a `read` window, another untagged one, each
/// of 1,000 values 50,000 + 37 i + s ns for window s). The JS encoder puts the integers 1 and 1
/// in the header fields for the normalizing offset and the double ratio; they mean nothing.
#[test]
fn js_written_log_reads_with_its_values() {
    let run = read("js-written.hlog");
    assert_eq!(run.windows.len(), 3);
    assert_eq!(run.windows[1].tag.as_deref(), Some("read"));
    let s = run_stats(&run, &Options::default());
    let l = nines_core::hist::Layout::default_ns();
    assert_eq!(s.tags["all"].count, 3000);
    assert_eq!(s.tags["read"].count, 1000);
    assert_eq!(s.tags["all"].min_ns, l.lowest_equivalent(50_000));
    assert_eq!(s.tags["all"].max_ns, l.highest_equivalent(50_000 + 37 * 999 + 2));
    assert_eq!(s.tags["read"].max_ns, l.highest_equivalent(50_000 + 37 * 999 + 1));
    assert_eq!(run.start_time, Some(1_764_489_600.0));
}

#[test]
fn import_meta_keys_go_under_user_and_win_over_the_files_own() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("built.hlog");
    let out_s = out.to_str().unwrap();
    nines_ok(&["import", &data("fio-randrw.json"), "-o", out_s, "--meta", "build=42", "--meta", "kernel=6.8"]);
    let run = read_any("built.hlog", &std::fs::read(&out).unwrap()).unwrap();
    let meta = meta_json(&run.meta);
    assert_eq!(meta["user"], serde_json::json!({"build": "42", "kernel": "6.8"}), "{meta}");
    // the fio document is kept as without --meta
    assert_eq!(meta["fio"].as_array().map(Vec::len), Some(1));
    // importing the archive again: a key given replaces the file's, the others stay
    let again = dir.path().join("again.hlog");
    nines_ok(&["import", out_s, "-o", again.to_str().unwrap(), "--meta", "build=43", "--meta", "os=debian"]);
    let run = read_any("again.hlog", &std::fs::read(&again).unwrap()).unwrap();
    assert_eq!(meta_json(&run.meta)["user"], serde_json::json!({"build": "43", "kernel": "6.8", "os": "debian"}));
    // without --meta the file's keys are kept as they are
    let plain = dir.path().join("plain.hlog");
    nines_ok(&["import", out_s, "-o", plain.to_str().unwrap()]);
    let run = read_any("plain.hlog", &std::fs::read(&plain).unwrap()).unwrap();
    assert_eq!(meta_json(&run.meta)["user"], serde_json::json!({"build": "42", "kernel": "6.8"}));
}

#[test]
fn import_refuses_a_meta_that_is_not_key_value() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.hlog");
    for bad in ["build", "=42", " =42"] {
        let o = nines(&["import", &data("fio-randrw.json"), "-o", out.to_str().unwrap(), "--meta", bad]);
        assert!(!o.status.success(), "--meta {bad:?} was taken");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("--meta") && err.contains(&format!("'{bad}' is not KEY=VALUE")), "{err}");
        assert!(!out.exists(), "--meta {bad:?} wrote an archive");
    }
}

/// A run's metadata as the archive's JSON holds it.
fn meta_json(m: &nines_core::meta::RunMeta) -> serde_json::Value {
    serde_json::Value::Object(m.to_map())
}
