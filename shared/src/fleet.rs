//! Runs of many hosts merged into one (`nines merge`): windows matched by absolute time and
//! summed exactly per tag, each source's tags kept in its scope, `LABEL/TAG` ([`crate::tag`]).
//!
//! HdrHistograms merge by adding counts, so a fleet needs no coordinator of its own: each
//! host runs `nines run` (started by ssh, pdsh, a Kubernetes Indexed Job or Slurm, ideally
//! with `--start-at` so that windows begin at the same wall-clock instants), and the archives
//! are merged afterwards. A window's absolute start is the run's `StartTime` plus the window's
//! own start. Windows of different runs are the same window when their absolute starts lie
//! within the tolerance of each other (by default the worst maximum clock error the runs
//! state, at least 1 ms); runs whose windows do not line up are refused with the numbers,
//! unless `regrid` puts every window whole into the merged window holding its midpoint (the
//! sums stay exact; the time a window is shown at moves by up to half its length).

use std::collections::BTreeMap;

use crate::hist::{add_counts, Accumulator, Hist};
use serde_json::{json, Map, Value};

use crate::meta::{RunMeta, Tool};
use crate::run::{Run, Window};
use crate::stats::tag_name;
use crate::tag::{scope_name, scoped};
use crate::units::iso_date;

/// The smallest default tolerance, in seconds: what two NTP-synchronised hosts on one network
/// typically agree to (and well below any window a QoS run records).
pub const MIN_TOLERANCE_S: f64 = 0.001;

/// One run to merge and the label its own tags are kept under.
pub struct Source<'a> {
    pub run: &'a Run,
    pub label: String,
}

/// How to merge.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The merged run's name.
    pub name: String,
    /// The largest offset between windows taken as the same window, in seconds; `None`: the
    /// worst stated maximum clock error, at least [`MIN_TOLERANCE_S`].
    pub tolerance_s: Option<f64>,
    /// Put windows on a common grid of this many seconds (at least the longest window) rather
    /// than refuse runs whose windows do not line up.
    pub regrid_s: Option<f64>,
}

/// Why runs could not be merged, in words with the numbers.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct MergeError(pub String);

/// A label from a run: its host name, else its name, as a scope name ([`clean_label`]).
pub fn label_of(run: &Run) -> String {
    let host = run.meta.host.as_ref().and_then(|h| h.hostname.clone());
    clean_label(host.as_deref().unwrap_or(&run.name))
}

/// `s` as a scope name: every character outside `[A-Za-z0-9_.:-]` becomes `_`
/// ([`scope_name`]); an empty label is `run`.
pub fn clean_label(s: &str) -> String {
    if s.is_empty() {
        "run".into()
    } else {
        scope_name(s)
    }
}

/// The length of a run's windows: that of each tag's windows but its last (a run may end
/// within a window); an error naming the run when they differ.
fn window_length(run: &Run) -> Result<f64, String> {
    let mut len: Option<f64> = None;
    for tag in run.tags() {
        let ws: Vec<&Window> = run.windows_of(tag.as_deref()).collect();
        let full = if ws.len() > 1 { &ws[..ws.len() - 1] } else { &ws[..] };
        for w in full {
            match len {
                None => len = Some(w.length_s),
                Some(l) if (w.length_s - l).abs() > 1e-6 * l.max(1e-9) => {
                    return Err(format!(
                        "{}: its windows differ in length ({} s and {} s at {:.3} s, tag {}): windows cut by I/O count do not line up in time",
                        run.source,
                        l,
                        w.length_s,
                        w.start_s,
                        tag_name(tag.as_deref())
                    ));
                }
                Some(_) => {}
            }
        }
    }
    len.filter(|l| *l > 0.0).ok_or_else(|| format!("{}: no window with a length", run.source))
}

/// Merge the sources into one run (see the module documentation).
pub fn merge(sources: &[Source], opts: &Options) -> Result<Run, MergeError> {
    let err = |s: String| MergeError(s);
    if sources.len() < 2 {
        return Err(err("a merge needs at least two runs".into()));
    }
    let mut labels: Vec<&str> = Vec::new();
    for s in sources {
        if s.run.start_time.is_none() {
            return Err(err(format!("{}: the run states no start time (StartTime): its windows cannot be placed in time", s.run.source)));
        }
        if s.run.windows.is_empty() {
            return Err(err(format!("{}: the run has no windows", s.run.source)));
        }
        if labels.contains(&s.label.as_str()) {
            return Err(err(format!("two runs are labelled {:?}: give each its own --label", s.label)));
        }
        labels.push(&s.label);
    }
    let clock = |r: &Run| r.meta.host.as_ref().and_then(|h| h.clock_maxerror_s);
    let worst_clock = sources.iter().filter_map(|s| clock(s.run)).reduce(f64::max);
    // Runs of one host share its clock: their windows can only be apart by how they were
    // started. Two hosts' clocks may disagree by the sum of their stated maximum errors.
    let host = |r: &Run| r.meta.host.as_ref().and_then(|h| h.hostname.clone());
    let one_clock = host(sources[0].run).is_some() && sources.iter().all(|s| host(s.run) == host(sources[0].run));
    let mut stated: Vec<f64> = sources.iter().filter_map(|s| clock(s.run)).collect();
    crate::sort::sort_by_f64(&mut stated, |&x| -x);
    let clocks_apart = if one_clock { 0.0 } else { stated.iter().take(2).sum::<f64>() };
    let tolerance = opts.tolerance_s.unwrap_or_else(|| clocks_apart.max(MIN_TOLERANCE_S));
    let lengths: Vec<Result<f64, String>> = sources.iter().map(|s| window_length(s.run)).collect();
    let abs = |s: &Source, w: &Window| s.run.start_time.unwrap_or(0.0) + w.start_s;
    // the grid starts at the earliest window of any source
    let origin = sources.iter().flat_map(|s| s.run.windows.iter().map(move |w| abs(s, w))).fold(f64::INFINITY, f64::min);
    let grid = match opts.regrid_s {
        Some(g) => {
            let longest = sources.iter().flat_map(|s| s.run.windows.iter().map(|w| w.length_s)).fold(0.0, f64::max);
            if !(g.is_finite() && g > 0.0 && g >= longest * (1.0 - 1e-9)) {
                return Err(err(format!("--regrid {g} s: the common windows must be at least the longest window ({longest} s)")));
            }
            g
        }
        None => {
            let mut len: Option<(f64, &str)> = None;
            for (s, l) in sources.iter().zip(&lengths) {
                let l = l.clone().map_err(|e| err(format!("{e}; --regrid merges them onto common windows")))?;
                match len {
                    None => len = Some((l, &s.run.source)),
                    Some((first, name)) if (l - first).abs() > 1e-6 * first => {
                        return Err(err(format!(
                            "{} has windows of {l} s, {name} of {first} s: windows of different lengths do not line up; --regrid DURATION merges them onto common windows",
                            s.run.source
                        )));
                    }
                    Some(_) => {}
                }
            }
            len.expect("two sources").0
        }
    };
    if opts.regrid_s.is_none() && tolerance >= grid / 2.0 {
        return Err(err(format!(
            "the runs' clocks may be {tolerance} s apart ({}), more than half a window ({grid} s): their windows cannot be matched; \
             synchronise the clocks (NTP, PTP), give --tolerance, or --regrid to windows longer than twice that",
            if opts.tolerance_s.is_some() {
                "--tolerance".to_string()
            } else {
                "the sum of the two largest maximum clock errors the runs state".to_string()
            }
        )));
    }
    // every window's merged slot and its offset from it
    let mut slots: BTreeMap<i64, BTreeMap<String, (Accumulator, f64)>> = BTreeMap::new();
    let mut total = 0u64;
    let mut max_offset: f64 = 0.0;
    let mut offsets = vec![0.0f64; sources.len()];
    for (si, s) in sources.iter().enumerate() {
        for (wi, w) in s.run.windows.iter().enumerate() {
            let a = abs(s, w) - origin;
            let k = if opts.regrid_s.is_some() { ((a + w.length_s / 2.0) / grid).floor() } else { (a / grid).round() };
            let offset = a - k * grid;
            if opts.regrid_s.is_none() && offset.abs() > tolerance {
                let first = &sources[0];
                return Err(err(format!(
                    "{}: its windows start {:+.6} s off the grid of {} ({} s windows from {}), beyond the tolerance of {} s ({}): start the runs with --start-at, give --tolerance, or --regrid DURATION",
                    s.run.source,
                    offset,
                    first.run.source,
                    grid,
                    iso_date(origin),
                    tolerance,
                    match (opts.tolerance_s, one_clock, stated.is_empty()) {
                        (Some(_), _, _) => "given".to_string(),
                        (None, true, _) => format!("runs of one host share its clock: {MIN_TOLERANCE_S} s"),
                        (None, false, true) => format!("no run states its clock error: {MIN_TOLERANCE_S} s"),
                        (None, false, false) => format!("the two largest maximum clock errors the runs state, at least {MIN_TOLERANCE_S} s"),
                    }
                )));
            }
            if wi == 0 {
                offsets[si] = offset;
            }
            max_offset = max_offset.max(offset.abs());
            total = add_counts(total, w.hist.count()).map_err(|_| {
                err(format!("{}: window at {:.3} s: the merged run would hold more I/Os than a log can count", s.run.source, w.start_s))
            })?;
            let tag = tag_name(w.tag.as_deref()).to_string();
            let slot = slots.entry(k as i64).or_default();
            for t in [tag.clone(), scoped(&s.label, &tag)] {
                let e = slot.entry(t).or_insert_with(|| (Accumulator::new(w.hist.layout()), 0.0));
                e.0.add(&w.hist);
                e.1 = e.1.max(w.length_s);
            }
        }
    }
    // tags in a stable order: the merged tags as the first source lists them, then each
    // source's parts
    let mut order: Vec<String> = Vec::new();
    for s in sources {
        for t in s.run.tags() {
            let t = tag_name(t.as_deref()).to_string();
            if !order.contains(&t) {
                order.push(t);
            }
        }
    }
    let parts: Vec<String> =
        sources.iter().flat_map(|s| s.run.tags().into_iter().map(|t| scoped(&s.label, tag_name(t.as_deref())))).collect();
    order.extend(parts);
    let first_layout = sources[0].run.windows[0].hist.layout();
    let mut windows = Vec::new();
    for (k, mut tags) in slots {
        for t in &order {
            // every tag in every window, empty or not, as the collector writes them
            let (hist, len) = match tags.remove(t) {
                Some((a, l)) => (a.finish(), if opts.regrid_s.is_some() { grid } else { l }),
                None => (Hist::empty(first_layout), grid),
            };
            windows.push(Window { start_s: k as f64 * grid, length_s: len, tag: Some(t.clone()), hist });
        }
    }
    let meta = merged_meta(sources, opts, grid, tolerance, max_offset, worst_clock, &offsets, origin);
    Ok(Run { name: opts.name.clone(), source: opts.name.clone(), start_time: Some(origin), meta, windows, warnings: Vec::new() })
}

#[allow(clippy::too_many_arguments)]
fn merged_meta(
    sources: &[Source],
    opts: &Options,
    grid: f64,
    tolerance: f64,
    max_offset: f64,
    worst_clock: Option<f64>,
    offsets: &[f64],
    origin: f64,
) -> RunMeta {
    let first = &sources[0].run.meta;
    // the workload when every source ran the same one (so selectors and sweeps still apply)
    let same_workload = sources.iter().all(|s| s.run.meta.workload == first.workload);
    RunMeta {
        version: Some(1),
        name: Some(opts.name.clone()),
        tool: Some(Tool { name: "nines merge".into(), version: env!("CARGO_PKG_VERSION").into(), ..Default::default() }),
        start: Some(iso_date(origin)),
        workload: if same_workload { first.workload.clone() } else { None },
        units: first.units.clone(),
        sources: sources.iter().map(|s| s.run.source.clone()).collect(),
        merge: merge_json(sources, opts, grid, tolerance, max_offset, worst_clock, offsets),
        ..Default::default()
    }
}

/// The merge's metadata object (see [`RunMeta::merge`]).
fn merge_json(
    sources: &[Source],
    opts: &Options,
    grid: f64,
    tolerance: f64,
    max_offset: f64,
    worst_clock: Option<f64>,
    offsets: &[f64],
) -> Map<String, Value> {
    let srcs: Vec<Value> = sources
        .iter()
        .zip(offsets)
        .map(|(s, &offset)| {
            let host = s.run.meta.host.as_ref();
            json!({
                "label": s.label,
                "file": s.run.source,
                "name": s.run.name,
                "host": host.and_then(|h| h.hostname.clone()),
                "start": s.run.start_time.map(iso_date),
                "clock_esterror_s": host.and_then(|h| h.clock_esterror_s),
                "clock_maxerror_s": host.and_then(|h| h.clock_maxerror_s),
                "offset_s": offset,
            })
        })
        .collect();
    let mut m = Map::new();
    m.insert("window_s".into(), json!(grid));
    if opts.regrid_s.is_some() {
        m.insert("regrid".into(), json!(true));
    }
    m.insert("tolerance_s".into(), json!(tolerance));
    m.insert("max_offset_s".into(), json!(max_offset));
    if let Some(c) = worst_clock {
        m.insert("clock_maxerror_s".into(), json!(c));
    }
    m.insert("sources".into(), Value::Array(srcs));
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hist::Layout;
    use crate::meta::Host;
    use crate::stats::{run_stats, Options as StatsOptions};

    fn run(name: &str, start: f64, windows: usize, len: f64, base: u64) -> Run {
        let l = Layout::default_ns();
        let mut ws = Vec::new();
        for i in 0..windows {
            for (tag, n) in [("read", 700u64), ("write", 300)] {
                ws.push(Window {
                    start_s: i as f64 * len,
                    length_s: len,
                    tag: Some(tag.into()),
                    hist: Hist::from_values(l, (0..n).map(|k| base + k * 31 + i as u64 * 7)),
                });
            }
        }
        let meta = RunMeta { host: Some(Host { hostname: Some(format!("{name}-host")), ..Default::default() }), ..Default::default() };
        Run { name: name.into(), source: format!("{name}.hlog"), start_time: Some(start), meta, windows: ws, warnings: Vec::new() }
    }

    fn merge_of(runs: &[Run], opts: &Options) -> Result<Run, MergeError> {
        let sources: Vec<Source> = runs.iter().map(|r| Source { run: r, label: label_of(r) }).collect();
        merge(&sources, opts)
    }

    #[test]
    fn aligned_runs_sum_exactly_and_keep_each_source() {
        let (a, b) = (run("a", 1000.0, 5, 1.0, 10_000), run("b", 1000.0004, 5, 1.0, 50_000));
        let m = merge_of(&[a.clone(), b.clone()], &Options { name: "fleet".into(), ..Default::default() }).unwrap();
        let s = run_stats(&m, &StatsOptions::default());
        let (sa, sb) = (run_stats(&a, &StatsOptions::default()), run_stats(&b, &StatsOptions::default()));
        for tag in ["read", "write", "all"] {
            assert_eq!(s.tags[tag].count, sa.tags[tag].count + sb.tags[tag].count, "{tag}");
        }
        // per-source parts are there, equal to their source, and not merged into all
        assert_eq!(s.tags["a-host/read"], sa.tags["read"]);
        assert_eq!(s.tags["b-host/write"], sb.tags["write"]);
        assert_eq!(s.tags["all"].count, 10_000);
        // the merged all equals the merge of both runs' windows
        let both = Run::merged("x", &[a, b]).unwrap();
        assert_eq!(s.tags["all"].levels, run_stats(&both, &StatsOptions::default()).tags["all"].levels);
        assert_eq!(m.windows.len(), 5 * 6);
        assert_eq!(m.start_time, Some(1000.0));
        let mm = &m.meta.merge;
        assert_eq!(mm["sources"].as_array().unwrap().len(), 2);
        assert!((mm["sources"][1]["offset_s"].as_f64().unwrap() - 0.0004).abs() < 1e-9, "{mm:?}");
        assert!((mm["max_offset_s"].as_f64().unwrap() - 0.0004).abs() < 1e-9);
        // the archive keeps it all
        let back = crate::archive::read("m.hlog", &crate::archive::write(Vec::new(), &m).unwrap()).unwrap();
        assert_eq!(run_stats(&back, &StatsOptions::default()).tags, s.tags);
        assert_eq!(back.meta.merge, m.meta.merge);
    }

    #[test]
    fn misaligned_runs_are_refused_with_the_numbers_unless_regridded() {
        let (a, b) = (run("a", 1000.0, 6, 1.0, 10_000), run("b", 1000.25, 6, 1.0, 50_000));
        let e = merge_of(&[a.clone(), b.clone()], &Options::default()).unwrap_err().to_string();
        assert!(e.contains("b.hlog: its windows start +0.250000 s off the grid of a.hlog (1 s windows"), "{e}");
        assert!(e.contains("tolerance of 0.001 s (no run states its clock error"), "{e}");
        // stated clock errors of two hosts widen the tolerance...
        let mut b2 = b.clone();
        b2.meta.host.as_mut().unwrap().clock_maxerror_s = Some(0.2);
        let mut a2 = a.clone();
        a2.meta.host.as_mut().unwrap().clock_maxerror_s = Some(0.1);
        let m = merge_of(&[a2.clone(), b2.clone()], &Options::default()).unwrap();
        assert_eq!(m.meta.merge["clock_maxerror_s"], 0.2);
        // ...not when the runs share one host's clock
        let mut b3 = b2.clone();
        b3.meta.host.as_mut().unwrap().hostname = Some("a-host".into());
        let one = [Source { run: &a2, label: "x".into() }, Source { run: &b3, label: "y".into() }];
        let e = merge(&one, &Options::default()).unwrap_err().to_string();
        assert!(e.contains("runs of one host share its clock"), "{e}");
        // an unsynchronised clock (16 s) cannot match 1 s windows
        b2.meta.host.as_mut().unwrap().clock_maxerror_s = Some(16.0);
        let e = merge_of(&[a2, b2], &Options::default()).unwrap_err().to_string();
        assert!(e.contains("may be 16.1 s apart") && e.contains("more than half a window (1 s)"), "{e}");
        // regridded: sums exact, windows of 2 s, said in the metadata
        let m = merge_of(&[a.clone(), b.clone()], &Options { regrid_s: Some(2.0), ..Default::default() }).unwrap();
        let s = run_stats(&m, &StatsOptions::default());
        assert_eq!(s.tags["all"].count, 12_000);
        assert!(m.windows.iter().all(|w| w.length_s == 2.0 && w.start_s % 2.0 == 0.0));
        assert_eq!(m.meta.merge["regrid"], true);
        let e = merge_of(&[a.clone(), b.clone()], &Options { regrid_s: Some(0.5), ..Default::default() }).unwrap_err().to_string();
        assert!(e.contains("at least the longest window (1 s)"), "{e}");
        // different lengths
        let c = run("c", 1000.0, 3, 2.0, 10_000);
        let e = merge_of(&[a.clone(), c], &Options::default()).unwrap_err().to_string();
        assert!(e.contains("c.hlog has windows of 2 s, a.hlog of 1 s"), "{e}");
        // no start time, one run, equal labels
        let mut n = a.clone();
        n.start_time = None;
        assert!(merge_of(&[a.clone(), n], &Options::default()).unwrap_err().to_string().contains("no start time"));
        assert!(merge_of(std::slice::from_ref(&a), &Options::default()).is_err());
        assert!(merge_of(&[a.clone(), a], &Options::default()).unwrap_err().to_string().contains("labelled \"a-host\""));
    }

    #[test]
    fn labels_are_tag_safe() {
        assert_eq!(clean_label("node 1,rack@2/x"), "node_1_rack_2_x");
        assert_eq!(clean_label("h1.example.org"), "h1.example.org");
        assert_eq!(clean_label(""), "run");
    }
}
