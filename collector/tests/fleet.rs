//! Fleets without a daemon: N `nines run` processes started at once with `--start-at`, each
//! on its own file (as ssh/pdsh, a Kubernetes Indexed Job or Slurm would start them on N
//! hosts), merged by `nines merge`; the merge's stats equal the sum of the parts exactly.

use std::path::Path;
use std::process::Command;

use nines_tests::{nines, nines_bin, nines_ok};
use serde_json::Value;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn stats(files: &[&str]) -> Value {
    let mut args = vec!["stats", "--json"];
    args.extend_from_slice(files);
    serde_json::from_str(&nines_ok(&args)).unwrap()
}

#[test]
fn n_processes_started_at_one_instant_merge_exactly() {
    let d = tempfile::tempdir().unwrap();
    let n = 3;
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs_f64();
    // a whole second, 2-3 s ahead: every process has started and waits
    let at = (now + 2.0).ceil();
    let runs: Vec<_> = (0..n).map(|i| d.path().join(format!("host{i}.hlog"))).collect();
    let children: Vec<_> = (0..n)
        .map(|i| {
            Command::new(nines_bin())
                .args(["run", "--target", s(&d.path().join(format!("dev{i}"))), "--size", "4MiB", "--rw", "randrw", "--qd", "2"])
                .args(["--window", "250ms", "--runtime", "1s", "--quiet", "--no-summary", "--start-at", &format!("{at}")])
                .args(["--name", &format!("host{i}"), "-o", s(&runs[i])])
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let parts: Vec<&str> = runs.iter().map(|p| s(p)).collect();
    let each = stats(&parts);
    // each run's first window begins at the instant asked for; how late its workload began
    // is recorded beside it
    for p in &parts {
        let text = std::fs::read_to_string(p).unwrap();
        let start: f64 = text.lines().find_map(|l| l.strip_prefix("#[StartTime: ")).unwrap().split(' ').next().unwrap().parse().unwrap();
        assert_eq!(start, at, "{p}");
        let meta: Value =
            serde_json::from_str(text.lines().find_map(|l| l.strip_prefix("#[nines ")).unwrap().strip_suffix(']').unwrap()).unwrap();
        let late = meta["workload"]["start_late_s"].as_f64().unwrap();
        assert!((0.0..0.5).contains(&late), "{p}: {late}");
        assert!(meta["workload"]["start_at"].as_str().unwrap().ends_with('Z'));
    }
    let merged = d.path().join("fleet.hlog");
    let labels = ["a", "b", "c"];
    let mut args = vec!["merge"];
    args.extend_from_slice(&parts);
    args.extend(["-o", s(&merged)]);
    for l in &labels {
        args.extend(["--label", l]);
    }
    let said = nines_ok(&args);
    assert!(said.contains("merged 3 runs") && said.contains("a/TAG, b/TAG, c/TAG"), "{said}");
    // the command reads the runs one at a time and reads each run's windows back from a spill
    // file as the archive takes them: it writes the bytes of the merge of the runs held in memory
    let loaded: Vec<_> = parts.iter().map(|p| nines_core::import::read_any(p, &std::fs::read(p).unwrap()).unwrap()).collect();
    let sources: Vec<_> = loaded.iter().zip(labels).map(|(run, l)| nines_core::fleet::Source { run, label: l.to_string() }).collect();
    let whole = nines_core::fleet::merge(&sources, &nines_core::fleet::Options { name: "fleet".into(), ..Default::default() }).unwrap();
    let header = nines_core::archive::Header { start_time: whole.start_time.unwrap(), meta: whole.meta.clone() };
    let mut w = nines_core::archive::ArchiveWriter::new(Vec::new(), &header).unwrap();
    for win in &whole.windows {
        w.write_window(win).unwrap();
    }
    assert!(
        String::from_utf8(w.into_inner()).unwrap() == std::fs::read_to_string(&merged).unwrap(),
        "streamed and in-memory merges differ"
    );
    let m = stats(&[s(&merged)]);
    let tags = &m["runs"][0]["tags"];
    for dir in ["read", "write", "all"] {
        let sum: u64 = each["runs"].as_array().unwrap().iter().map(|r| r["tags"][dir]["count"].as_u64().unwrap()).sum();
        assert_eq!(tags[dir]["count"].as_u64(), Some(sum), "{dir}");
        let max = each["runs"].as_array().unwrap().iter().map(|r| r["tags"][dir]["max_ns"].as_u64().unwrap()).max();
        assert_eq!(tags[dir]["max_ns"].as_u64(), max, "{dir}");
    }
    // each host's own directions are kept, equal to its run
    for (i, l) in labels.iter().enumerate() {
        for dir in ["read", "write"] {
            let mut part = tags[format!("{l}/{dir}")].clone();
            let mut own = each["runs"][i]["tags"][dir].clone();
            // the scoped tag says its scope; IOPS differ: the merge spans every host's windows
            assert_eq!((part["scope"].as_str(), part["direction"].as_str()), (Some(*l), Some(dir)));
            for k in ["iops", "scope"] {
                part[k] = Value::Null;
                own[k] = Value::Null;
            }
            assert_eq!(part, own, "{l}/{dir}");
        }
    }
    // the merged levels are those of all windows of all runs taken together: a merge of
    // histograms (the same as `nines import` of the three, which concatenates windows)
    let cat = d.path().join("cat.hlog");
    let mut args = vec!["import"];
    args.extend_from_slice(&parts);
    args.extend(["-o", s(&cat)]);
    nines_ok(&args);
    assert_eq!(stats(&[s(&cat)])["runs"][0]["tags"]["all"]["levels"], tags["all"]["levels"]);
    // the merged metadata lists every source and the clock's stated error
    let text = std::fs::read_to_string(&merged).unwrap();
    let meta: Value =
        serde_json::from_str(text.lines().find_map(|l| l.strip_prefix("#[nines ")).unwrap().strip_suffix(']').unwrap()).unwrap();
    let srcs = meta["merge"]["sources"].as_array().unwrap();
    assert_eq!(srcs.len(), 3);
    assert!(srcs.iter().all(|s| s["clock_maxerror_s"].is_number()), "{meta}");
    assert!(meta["merge"]["max_offset_s"].as_f64().unwrap() <= meta["merge"]["tolerance_s"].as_f64().unwrap());
    // the merge is an input now: never written over
    let out = nines(&["merge", parts[0], s(&merged), "-o", s(&merged), "--force"]);
    assert!(!out.status.success());
}

#[test]
fn runs_that_do_not_line_up_are_refused_with_the_numbers() {
    let d = tempfile::tempdir().unwrap();
    let a = d.path().join("a.hlog");
    let b = d.path().join("b.hlog");
    for p in [&a, &b] {
        nines_ok(&[
            "run",
            "--target",
            s(&d.path().join("dev")),
            "--size",
            "4MiB",
            "--rw",
            "randread",
            "--window",
            "200ms",
            "--runtime",
            "600ms",
            "--quiet",
            "--no-summary",
            "-o",
            s(p),
            "--force",
        ]);
    }
    let out = nines(&["merge", s(&a), s(&b), "-o", s(&d.path().join("m.hlog")), "--label", "x", "--label", "y"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("off the grid of") && err.contains("--start-at") && err.contains("--regrid"), "{err}");
    // regridded onto 1 s windows: the sums stay exact
    nines_ok(&["merge", s(&a), s(&b), "-o", s(&d.path().join("m.hlog")), "--label", "x", "--label", "y", "--regrid", "1s"]);
    let m = stats(&[s(&d.path().join("m.hlog"))]);
    let each = stats(&[s(&a), s(&b)]);
    let sum: u64 = each["runs"].as_array().unwrap().iter().map(|r| r["tags"]["all"]["count"].as_u64().unwrap()).sum();
    assert_eq!(m["runs"][0]["tags"]["all"]["count"].as_u64(), Some(sum));
    // labels: one per run
    let out = nines(&["merge", s(&a), s(&b), "-o", s(&d.path().join("n.hlog")), "--label", "x"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("one label per run"));
    // an output it may not write is refused before any run is read (a fleet's merge reads
    // for minutes): here the runs named do not even exist, and the error is the output's
    let gone = d.path().join("gone.hlog");
    let out = nines(&["merge", s(&gone), s(&gone), "-o", s(&d.path().join("m.hlog"))]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("m.hlog' already exists; pass --force"), "{err}");
    let out = nines(&["merge", s(&a), s(&b), "-o", s(&a), "--force"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("is one of this command's inputs"));
}

/// Synthetic one-second windows of a run starting at `start`: read and write (and, where
/// `extra`, a tag of its own), each window's latencies spread by the run and the window so
/// that the sums across runs widen as runs are added.
fn synthetic(name: &str, start: f64, windows: usize, seed: u64, extra: bool) -> nines_core::run::Run {
    use nines_core::hist::{Hist, Layout};
    let l = Layout::default_ns();
    let mut ws = Vec::new();
    for i in 0..windows as u64 {
        let tags: &[(&str, u64)] = if extra { &[("read", 300), ("write", 120), ("trim", 7)] } else { &[("read", 300), ("write", 120)] };
        for &(tag, n) in tags {
            let values = (0..n).map(|k| 20_000 + (k * k * 7_919 + i * 104_729 + seed * 1_299_709) % (3_000_000 + seed * 50_000));
            ws.push(nines_core::run::Window {
                start_s: i as f64,
                length_s: 1.0,
                tag: Some(tag.into()),
                hist: Hist::from_values(l, values),
            });
        }
    }
    nines_core::run::Run {
        name: name.into(),
        source: format!("{name}.hlog"),
        start_time: Some(start),
        meta: Default::default(),
        windows: ws,
        warnings: Vec::new(),
        context: Vec::new(),
    }
}

#[test]
fn a_merge_in_bands_of_common_windows_writes_the_same_bytes() {
    let d = tempfile::tempdir().unwrap();
    let t0 = 1_764_489_600.0;
    // runs of different lengths and starts (whole seconds apart, a fraction of a millisecond
    // off), one with a tag of its own; and runs a third of a second apart, to be regridded
    let aligned = [(t0, 40, false), (t0 + 3.0002, 30, true), (t0 - 2.0, 45, false), (t0 + 0.0001, 40, false)];
    let shifted = [(t0, 20, false), (t0 + 0.3, 20, true), (t0 + 5.6, 12, false)];
    for (set, runs, regrid) in [("aligned", &aligned[..], None), ("shifted", &shifted[..], Some("2s"))] {
        let dir = d.path().join(set);
        std::fs::create_dir(&dir).unwrap();
        let mut parts = Vec::new();
        let mut loaded = Vec::new();
        for (i, &(start, windows, extra)) in runs.iter().enumerate() {
            let run = synthetic(&format!("host{i}"), start, windows, i as u64, extra);
            let p = dir.join(format!("host{i}.hlog"));
            std::fs::write(&p, nines_core::archive::write(Vec::new(), &run).unwrap()).unwrap();
            loaded.push(nines_core::import::read_any(s(&p), &std::fs::read(&p).unwrap()).unwrap());
            parts.push(p);
        }
        // the merge held in memory, as the merged archive's bytes
        let labels: Vec<String> = (0..runs.len()).map(|i| format!("h{i}")).collect();
        let sources: Vec<_> = loaded.iter().zip(&labels).map(|(run, l)| nines_core::fleet::Source { run, label: l.clone() }).collect();
        let regrid_s = regrid.map(|r| nines_core::units::parse_duration_s(r).unwrap());
        let opts = nines_core::fleet::Options { name: "fleet".into(), regrid_s, ..Default::default() };
        let whole = nines_core::fleet::merge(&sources, &opts).unwrap();
        let header = nines_core::archive::Header { start_time: whole.start_time.unwrap(), meta: whole.meta.clone() };
        let mut w = nines_core::archive::ArchiveWriter::new(Vec::new(), &header).unwrap();
        for win in &whole.windows {
            w.write_window(win).unwrap();
        }
        let want = String::from_utf8(w.into_inner()).unwrap();
        // the default budget (one band), one common window a band, and a few a band
        for (budget, banded) in [(None, false), (Some("0"), true), (Some("0.01"), true)] {
            let out = dir.join(format!("m-{}", budget.unwrap_or("default"))).join("fleet.hlog");
            std::fs::create_dir(out.parent().unwrap()).unwrap();
            let mut args = vec!["merge"];
            args.extend(parts.iter().map(|p| s(p)));
            args.extend(["-o", s(&out)]);
            for l in &labels {
                args.extend(["--label", l]);
            }
            if let Some(r) = regrid {
                args.extend(["--regrid", r]);
            }
            if let Some(b) = budget {
                args.extend(["--memory-mb", b]);
            }
            let said = nines_ok(&args);
            assert_eq!(said.contains("bands of common windows"), banded, "{set} {budget:?}: {said}");
            assert!(
                std::fs::read_to_string(&out).unwrap() == want,
                "{set}, --memory-mb {budget:?}: the merged archive differs from the merge in memory"
            );
        }
    }
    let out =
        nines(&["merge", s(&d.path().join("aligned/host0.hlog")), s(&d.path().join("aligned/host1.hlog")), "-o", "-", "--memory-mb=-1"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--memory-mb -1"));
}
