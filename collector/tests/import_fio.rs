//! Importing real fio output: fio (Debian `fio`) runs small workloads on files in a temporary
//! directory, writing json+, histogram logs and per-I/O latency logs; `nines import` reads
//! them into archives, and the archives are checked against what fio itself reported:
//!
//! - counts equal fio's (`N` of each direction and measure);
//! - levels from json+ and from complete histogram logs lie in the fio bucket that holds fio's
//!   printed percentile (the level is stated as that bucket);
//! - levels from per-I/O logs equal the exact nearest-rank percentile of the logged values;
//! - damaged files give an error naming the file and line, never a panic.

use std::path::{Path, PathBuf};
use std::process::Command;

use nines_core::hist::{Hist, Layout};
use nines_core::import::{read_any, Precision};
use nines_core::quantile::{value_at, Level, Support};
use nines_core::run::Run;
use nines_core::stats::{run_stats, Options};
use nines_tests::{nines, nines_ok};
use serde_json::Value;

/// Run fio in `dir` with `args`; the job writes its files there.
fn fio(dir: &Path, args: &[&str]) {
    let out = Command::new("fio").current_dir(dir).args(args).output().expect("fio is installed (scripts/setup.sh installs it)");
    assert!(
        out.status.success(),
        "fio {args:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn p(dir: &Path, name: &str) -> String {
    dir.join(name).to_str().unwrap().to_string()
}

/// `nines import FILES -o OUT`, then read the archive back with the core.
fn import(dir: &Path, files: &[&str], out: &str, extra: &[&str]) -> Run {
    let mut args: Vec<String> = vec!["import".into()];
    args.extend(files.iter().map(|f| p(dir, f)));
    args.extend(["-o".to_string(), p(dir, out)]);
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    nines_ok(&args);
    let bytes = std::fs::read(dir.join(out)).unwrap();
    read_any(out, &bytes).expect("the written archive reads back")
}

fn merged(run: &Run, tag: &str) -> Hist {
    let ws: Vec<&Hist> = run.windows.iter().filter(|w| w.tag.as_deref() == Some(tag)).map(|w| &w.hist).collect();
    assert!(!ws.is_empty(), "no windows tagged {tag}");
    Hist::merge_all(ws)
}

fn json_doc(dir: &Path, name: &str) -> Value {
    serde_json::from_slice(&std::fs::read(dir.join(name)).unwrap()).unwrap()
}

/// fio's rank for its percentile `pct` (in %) among `n`: the first cumulative count reaching
/// pct/100*n (stat.c `calc_clat_percentiles`). Ours is ceil(q*n) in exact arithmetic; they
/// differ only where floating point pushes pct/100*n past an integer.
fn fio_rank(pct: f64, n: u64) -> u64 {
    ((pct / 100.0) * n as f64).ceil().max(1.0) as u64
}

/// Every fio percentile of `summary` (a `clat_ns`/`lat_ns` object of one fio job or group)
/// lies in the bucket nines states for that level of `run`'s `tag`. Returns how many were
/// checked.
fn check_levels_against_fio(run: &Run, tag: &str, summary: &Value) -> usize {
    let precision = run.meta.precision.clone().expect("fio imports state their precision");
    let h = merged(run, tag);
    let n = summary["N"].as_u64().unwrap();
    assert_eq!(h.count(), n, "{tag}: count");
    let pct = summary["percentile"].as_object().expect("fio printed percentiles");
    let mut checked = 0;
    for (k, v) in pct {
        let pc: f64 = k.parse().unwrap();
        let fio_value = v.as_u64().unwrap();
        let level = Level::from_quantile(pc / 100.0).unwrap();
        if level.rank(n) != fio_rank(pc, n) {
            continue; // the two rank rules pick neighbouring I/Os here; nothing to compare
        }
        let ours = value_at(&h, &level).unwrap();
        let b = precision.bucket(ours);
        assert!(
            b.lo <= fio_value && (fio_value <= b.hi || b.at_least),
            "{tag} p{k}: fio printed {fio_value} ns, nines states [{}, {}]",
            b.lo,
            b.hi
        );
        checked += 1;
    }
    // and the stats (what `nines stats` prints) state the same buckets
    let s = run_stats(run, &Options::default());
    for l in &s.tags[tag].levels {
        if l.support == Support::None {
            continue;
        }
        let (lo, hi) = l.bucket_ns.expect("fio levels carry their bucket");
        assert_eq!(l.value_ns, Some(hi));
        let raw = value_at(&h, &Level::from_quantile(l.quantile).unwrap()).unwrap();
        assert_eq!(precision.bucket(raw).lo, lo);
    }
    checked
}

/// Parse fio latency logs independently of nines: (ddir, value) of every line.
fn lat_values(dir: &Path, files: &[&str]) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    for f in files {
        for line in std::fs::read_to_string(dir.join(f)).unwrap().lines() {
            let cols: Vec<u64> = line.split(',').map(|c| c.trim().parse().unwrap()).collect();
            out.push((cols[2], cols[1]));
        }
    }
    out
}

/// Levels of per-I/O logs equal the exact nearest-rank value of the logged values (at
/// histogram precision: the upper edge of the value's 3-digit bucket).
fn check_exact_levels(run: &Run, values: &[(u64, u64)], ddir: u64, tag: &str) {
    let mut v: Vec<u64> = values.iter().filter(|x| x.0 == ddir).map(|x| x.1).collect();
    v.sort_unstable();
    let s = run_stats(run, &Options::default());
    let t = &s.tags[tag];
    assert_eq!(t.count, v.len() as u64, "{tag}: count");
    let l = Layout::default_ns();
    let mut checked = 0;
    for st in &t.levels {
        if st.support == Support::None {
            continue;
        }
        let level = Level::from_quantile(st.quantile).unwrap();
        let exact = v[(level.rank(v.len() as u64) - 1) as usize];
        assert_eq!(st.value_ns, Some(l.highest_equivalent(exact)), "{tag} {}", st.label);
        assert!(st.bucket_ns.is_none(), "per-I/O logs are exact");
        checked += 1;
    }
    assert!(checked >= 3, "{tag}: only {checked} levels checked");
    assert_eq!(t.max_ns, l.highest_equivalent(*v.last().unwrap()));
}

/// Sum of the counts in fio histogram logs, per ddir, parsed independently of nines.
fn hist_log_counts(dir: &Path, files: &[&str]) -> [u64; 3] {
    let mut c = [0u64; 3];
    for f in files {
        for line in std::fs::read_to_string(dir.join(f)).unwrap().lines() {
            let cols: Vec<u64> = line.split(',').map(|x| x.trim().parse().unwrap()).collect();
            c[cols[1] as usize] += cols[3..].iter().sum::<u64>();
        }
    }
    c
}

fn tmp() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("nines-import-fio").tempdir().unwrap()
}

#[test]
fn randread_json_hist_and_lat_logs() {
    let d = tmp();
    let dir = d.path();
    fio(
        dir,
        &[
            "--name=rread",
            "--filename=data",
            "--size=16M",
            "--rw=randread",
            "--bs=4k",
            "--ioengine=psync",
            "--runtime=1",
            "--time_based",
            "--output-format=json+",
            "--output=rread.json",
            "--write_hist_log=rread",
            "--log_hist_msec=200",
            "--write_lat_log=rread",
            "--log_avg_msec=0",
        ],
    );
    let doc = json_doc(dir, "rread.json");
    let job = &doc["jobs"][0];

    let run = import(dir, &["rread.json"], "json.hlog", &[]);
    assert!(check_levels_against_fio(&run, "read", &job["read"]["clat_ns"]) >= 10);
    assert_eq!(
        meta_json(&run.meta)["fio"][0]["jobs"][0]["directions"]["read"]["clat_ns"]["percentile"],
        job["read"]["clat_ns"]["percentile"],
        "fio's percentiles are kept"
    );
    assert_eq!(merged(&run, "read").count(), job["read"]["total_ios"].as_u64().unwrap());

    let run = import(dir, &["rread_clat.1.log"], "clat.hlog", &["--window", "250ms"]);
    check_exact_levels(&run, &lat_values(dir, &["rread_clat.1.log"]), 0, "read");
    assert_eq!(merged(&run, "read").count(), job["read"]["clat_ns"]["N"].as_u64().unwrap());
    assert!(run.windows.iter().all(|w| w.length_s <= 0.25 + 1e-9));
    let run = import(dir, &["rread_lat.1.log"], "lat.hlog", &[]);
    check_exact_levels(&run, &lat_values(dir, &["rread_lat.1.log"]), 0, "read.lat");
    // all three logs at once: psync has no submission latency, so fio's slat log is empty
    // and skipped with a warning; the others keep their measures apart
    assert_eq!(std::fs::metadata(dir.join("rread_slat.1.log")).unwrap().len(), 0);
    let run = import(dir, &["rread_clat.1.log", "rread_lat.1.log", "rread_slat.1.log"], "all.hlog", &[]);
    assert_eq!(run.name, "rread");
    assert_eq!(merged(&run, "read").count(), merged(&run, "read.lat").count());
    assert_eq!(run_stats(&run, &Options::default()).tags["all"].count, merged(&run, "read").count());

    let run = import(dir, &["rread_clat_hist.1.log"], "hist.hlog", &[]);
    let logged = hist_log_counts(dir, &["rread_clat_hist.1.log"]);
    assert_eq!(merged(&run, "read").count(), logged[0]);
    // fio logs nothing after the last interval, so at most fio's count is in the log
    assert!(logged[0] <= job["read"]["clat_ns"]["N"].as_u64().unwrap());
    assert!(logged[0] > 0);
}

#[test]
fn randrw_70_30_two_jobs_group_reporting() {
    let d = tmp();
    let dir = d.path();
    fio(
        dir,
        &[
            "--name=mix",
            "--filename=data",
            "--size=16M",
            "--rw=randrw",
            "--rwmixread=70",
            "--bs=4k",
            "--ioengine=libaio",
            "--iodepth=4",
            "--numjobs=2",
            "--group_reporting",
            "--runtime=1",
            "--time_based",
            "--lat_percentiles=1",
            "--output-format=json+",
            "--output=mix.json",
            "--write_hist_log=mix",
            "--log_hist_msec=100",
            "--log_hist_coarseness=1",
            "--write_lat_log=mix",
            "--log_avg_msec=0",
        ],
    );
    let doc = json_doc(dir, "mix.json");
    assert_eq!(doc["jobs"].as_array().unwrap().len(), 1, "group_reporting gives one entry");
    let job = &doc["jobs"][0];
    let run = import(dir, &["mix.json"], "json.hlog", &[]);
    for dir_name in ["read", "write"] {
        assert!(check_levels_against_fio(&run, dir_name, &job[dir_name]["clat_ns"]) >= 10);
        assert!(check_levels_against_fio(&run, &format!("{dir_name}.lat"), &job[dir_name]["lat_ns"]) >= 10);
    }
    let s = run_stats(&run, &Options::default());
    let reads = job["read"]["total_ios"].as_u64().unwrap();
    let writes = job["write"]["total_ios"].as_u64().unwrap();
    assert_eq!(s.tags["all"].count, reads + writes, "all merges directions, not .lat");
    let share = reads as f64 / (reads + writes) as f64;
    assert!((0.6..0.8).contains(&share), "a 70/30 mix: {share}");

    // Both jobs' per-I/O logs into one run: counts are fio's, levels exact per direction.
    let clat = ["mix_clat.1.log", "mix_clat.2.log"];
    let run = import(dir, &clat, "clat.hlog", &[]);
    let values = lat_values(dir, &clat);
    check_exact_levels(&run, &values, 0, "read");
    check_exact_levels(&run, &values, 1, "write");
    assert_eq!(merged(&run, "read").count(), reads);
    assert_eq!(merged(&run, "write").count(), writes);

    // Histogram logs with coarseness 1: counts as logged, precision twice fio's bucket.
    let hist = ["mix_clat_hist.1.log", "mix_clat_hist.2.log"];
    let run = import(dir, &hist, "hist.hlog", &[]);
    assert_eq!(run.meta.precision.clone(), Some(Precision::Fio { coarseness: 1 }));
    let logged = hist_log_counts(dir, &hist);
    assert_eq!(merged(&run, "read").count(), logged[0]);
    assert_eq!(merged(&run, "write").count(), logged[1]);
}

#[test]
fn poisson_rate_limited_osync_writes_two_jobs() {
    // The workload of a notebook sweeping fio threads with Poisson rate-limited O_SYNC writes
    // (baseline vs patched), small: 8 KiB O_SYNC sequential writes, Poisson arrivals at a fixed
    // rate per job, queue depth 1, two jobs, each job's results reported apart.
    let d = tmp();
    let dir = d.path();
    fio(
        dir,
        &[
            "--name=osync",
            "--size=8M",
            "--rw=write",
            "--bs=8k",
            "--ioengine=psync",
            "--sync=1",
            "--rate_iops=100",
            "--rate_process=poisson",
            "--numjobs=2",
            "--runtime=2",
            "--time_based",
            "--output-format=json+",
            "--output=osync.json",
            "--write_lat_log=osync",
            "--log_avg_msec=0",
        ],
    );
    let doc = json_doc(dir, "osync.json");
    let jobs = doc["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2, "no group_reporting: one entry per job");
    let run = import(dir, &["osync.json"], "json.hlog", &[]);
    let n: u64 = jobs.iter().map(|j| j["write"]["clat_ns"]["N"].as_u64().unwrap()).sum();
    assert_eq!(merged(&run, "write").count(), n);
    // every job's printed percentiles are kept
    assert_eq!(meta_json(&run.meta)["fio"][0]["jobs"].as_array().unwrap().len(), 2);
    // the rate limit held: at most about 100 IOPS per job
    let iops = run_stats(&run, &Options::default()).tags["write"].iops;
    assert!(iops > 0.0 && iops < 2.0 * 100.0 * 1.5, "{iops}");

    let files = ["osync_clat.1.log", "osync_clat.2.log"];
    let run = import(dir, &files, "clat.hlog", &[]);
    check_exact_levels(&run, &lat_values(dir, &files), 1, "write");
    assert_eq!(merged(&run, "write").count(), n);
    let run = import(dir, &["osync_lat.1.log", "osync_lat.2.log"], "lat.hlog", &[]);
    check_exact_levels(&run, &lat_values(dir, &["osync_lat.1.log", "osync_lat.2.log"]), 1, "write.lat");
}

#[test]
fn complete_histogram_log_matches_fio_percentiles() {
    // fio writes a histogram line when an I/O completes at least log_hist_msec after the last
    // line. With I/Os 10 ms apart and 1 ms intervals every I/O closes a line, so the log holds
    // every I/O and its levels can be held against fio's printed percentiles.
    let d = tmp();
    let dir = d.path();
    fio(
        dir,
        &[
            "--name=paced",
            "--filename=data",
            "--size=4M",
            "--rw=randwrite",
            "--bs=4k",
            "--ioengine=psync",
            "--rate_iops=100",
            "--runtime=2",
            "--time_based",
            "--output-format=json+",
            "--output=paced.json",
            "--write_hist_log=paced",
            "--log_hist_msec=1",
            "--log_hist_coarseness=2",
        ],
    );
    let doc = json_doc(dir, "paced.json");
    let summary = &doc["jobs"][0]["write"]["clat_ns"];
    let run = import(dir, &["paced_clat_hist.1.log"], "hist.hlog", &[]);
    assert_eq!(run.meta.precision.clone(), Some(Precision::Fio { coarseness: 2 }));
    assert_eq!(merged(&run, "write").count(), summary["N"].as_u64().unwrap(), "the log holds every I/O");
    assert!(check_levels_against_fio(&run, "write", summary) >= 10);
}

#[test]
fn sweep_is_labelled_by_numjobs() {
    let d = tmp();
    let dir = d.path();
    let mut files = Vec::new();
    for numjobs in [4, 1, 2] {
        let sub = format!("fio-{numjobs}-jobs");
        std::fs::create_dir(dir.join(&sub)).unwrap();
        let nj = format!("--numjobs={numjobs}");
        fio(
            &dir.join(&sub),
            &[
                "--name=sw",
                "--size=1M",
                "--rw=write",
                "--bs=8k",
                "--ioengine=psync",
                "--rate_iops=200",
                "--runtime=300ms",
                "--time_based",
                "--group_reporting",
                &nj,
                "--output-format=json+",
                "--output=fio.json",
            ],
        );
        files.push(format!("{sub}/fio.json"));
    }
    let out = dir.join("runs");
    let mut args: Vec<String> = vec!["import".into(), "--sweep".into()];
    args.extend(files.iter().map(|f| p(dir, f)));
    args.extend(["-o".into(), out.to_str().unwrap().into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    nines_ok(&args);
    let mut labels = Vec::new();
    for nj in [1, 2, 4] {
        let path: PathBuf = out.join(format!("numjobs={nj}.hlog"));
        let run = read_any("x", &std::fs::read(&path).unwrap_or_else(|_| panic!("{} written", path.display()))).unwrap();
        assert_eq!(meta_json(&run.meta)["param"], serde_json::json!({ "numjobs": nj }));
        assert_eq!(run.name, format!("numjobs={nj}"));
        labels.push(run.name);
    }
    assert_eq!(labels.len(), 3);
}

#[test]
fn damaged_files_name_file_and_line() {
    let d = tmp();
    let dir = d.path();
    fio(
        dir,
        &[
            "--name=small",
            "--filename=data",
            "--size=1M",
            "--rw=randread",
            "--bs=4k",
            "--ioengine=psync",
            "--runtime=200ms",
            "--time_based",
            "--output-format=json+",
            "--output=small.json",
            "--write_lat_log=small",
            "--log_avg_msec=0",
        ],
    );
    let json = std::fs::read(dir.join("small.json")).unwrap();
    let log = std::fs::read_to_string(dir.join("small_clat.1.log")).unwrap();
    let third_line = log.lines().nth(2).unwrap();
    let cut_line: String = third_line.rsplitn(3, ',').last().unwrap().to_string();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("cut.json", json[..json.len() / 2].to_vec(), "line "),
        ("cols_clat.1.log", log.replacen(third_line, &cut_line, 1).into_bytes(), "line 3: 3 columns, expected 5"),
        ("junk.bin", vec![0x00, 0x9f, 0x92, 0x96, 0xff, 0x01, 0x02], "line 1: format not recognised"),
        ("empty.log", Vec::new(), "line 1: the file is empty"),
        ("junk_clat.1.log", [log.as_bytes(), b"\x00\xff\xfe garbage\n"].concat(), "column 1"),
    ];
    for (name, bytes, expect) in cases {
        let path = dir.join(name);
        std::fs::write(&path, &bytes).unwrap();
        for cmd in [&["import", path.to_str().unwrap(), "-o", &p(dir, "x.hlog")][..], &["stats", path.to_str().unwrap()][..]] {
            let out = nines(cmd);
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success(), "{name}: {cmd:?} succeeded");
            assert!(!err.contains("panicked"), "{name}: {err}");
            assert!(err.contains(path.to_str().unwrap()), "{name}: error does not name the file: {err}");
            assert!(err.contains(expect), "{name}: expected {expect:?} in: {err}");
        }
    }
}

/// A run's metadata as the archive's JSON holds it.
fn meta_json(m: &nines_core::meta::RunMeta) -> serde_json::Value {
    serde_json::Value::Object(m.to_map())
}
