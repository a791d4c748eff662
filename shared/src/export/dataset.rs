//! The rows of `nines export`: a run as tables a query engine (DuckDB, Spark SQL) can merge
//! and rank exactly as `nines stats` does.
//!
//! - runs: one row per run, its id, name, file, start and the simple metadata fields
//!   ([`RunRow`]);
//! - windows: one row per window and tag, with the tag's parsed scope, direction and measure
//!   ([`crate::tag`]), the window's absolute start and its histogram's layout ([`WindowRow`]);
//! - buckets: one row per non-empty histogram bucket of a window: the bucket's index in its
//!   layout's counts array ([`Layout::index_of`](crate::hist::Layout::index_of)) and its
//!   count ([`BucketRow`]), in window then index order, so that an engine stores the index as
//!   small deltas and the window as runs;
//! - hours: the buckets of every tag summed per hour of the clock (UTC, the hour each window
//!   starts in) and hour of the run ([`HourHist`]): what per-hour, per-day and whole-run
//!   levels read, about 1/500 of the buckets' rows for runs of 1 s windows, exact as every
//!   sum of histograms is;
//! - layouts: the value range of every bucket index a run uses, per layout, as nines-core
//!   defines it (the lowest and highest value the bucket holds:
//!   [`Layout::lowest_equivalent`](crate::hist::Layout::lowest_equivalent) and
//!   [`Layout::highest_equivalent`](crate::hist::Layout::highest_equivalent)) ([`LayoutRow`]).
//!
//! Within a layout the index orders buckets as their values do, so a level of nines is the
//! `upper_ns` of the first bucket, in index order, at which the running count reaches the
//! rank ceil(q*N) (see [`crate::quantile`]); the repository's `sql/` holds that query. The
//! writers (Parquet in the collector, CSV here) only format these rows.

use std::collections::{BTreeMap, BTreeSet};

use crate::hist::{Hist, Layout};
use crate::meta::RunMeta;
use crate::run::Run;
use crate::stats::tag_name;
use crate::tag::Tag;

/// Values above this do not fit the tables' signed 64-bit columns (Parquet INT64, SQL BIGINT).
pub const MAX_VALUE: u64 = i64::MAX as u64;

/// One run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunRow {
    pub run_id: String,
    pub name: String,
    pub file: String,
    /// Start, seconds since the epoch (the log's StartTime).
    pub start_s: Option<f64>,
    /// Start as the metadata states it (RFC 3339).
    pub start: Option<String>,
    pub duration_s: f64,
    pub windows: i64,
    pub workload_rw: Option<String>,
    pub workload_qd: Option<i64>,
    pub workload_jobs: Option<i64>,
    pub workload_size_bytes: Option<i64>,
    pub workload_runtime_s: Option<f64>,
    pub target_path: Option<String>,
    pub target_kind: Option<String>,
    pub host_name: Option<String>,
    pub host_kernel: Option<String>,
    pub host_cpus: Option<i64>,
    pub engine: Option<String>,
    /// The whole metadata object as JSON text (every key, also those in columns).
    pub meta_json: String,
}

/// One window of one tag.
#[derive(Clone, Debug, PartialEq)]
pub struct WindowRow<'a> {
    /// Index of the window in the run (file order), shared with its buckets.
    pub window: i64,
    /// The tag (`untagged` for windows without one).
    pub tag: &'a str,
    pub scope: Option<&'a str>,
    pub direction: &'a str,
    pub measure: Option<&'a str>,
    /// Absolute start, seconds since the epoch; `None` when the run states no start time.
    pub start_s: Option<f64>,
    /// Start from the run's start, seconds.
    pub offset_s: f64,
    pub length_s: f64,
    pub count: u64,
    /// Lowest and highest value recorded, at bucket precision (as `nines stats`' min and max).
    pub min_ns: u64,
    pub max_ns: u64,
    /// The histogram's bucket layout (its key in the layouts table: [`layout_key`]).
    pub layout: Layout,
    /// What the device and the host did in the window (the run's `#[context]` line for it),
    /// giving the `ctx_*` columns ([`crate::context::NUMBERS`]); None: null columns.
    pub context: Option<&'a crate::context::WindowContext>,
}

/// The names of the windows table's context columns: `ctx_` and each number of
/// [`crate::context::NUMBERS`] in lower case (`ctx_util`, `ctx_r_await`, `ctx_rkb_s`, ...).
pub fn context_columns() -> Vec<String> {
    crate::context::NUMBERS.iter().map(|(n, _)| format!("ctx_{}", n.to_lowercase())).collect()
}

/// One non-empty bucket of one window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BucketRow {
    pub window: i64,
    /// The bucket's counts-array index in the window's layout.
    pub index: u32,
    pub count: u64,
}

/// The value range of one bucket index of one layout.
#[derive(Clone, Debug, PartialEq)]
pub struct LayoutRow {
    pub layout: String,
    pub index: u32,
    pub lower_ns: u64,
    pub upper_ns: u64,
}

/// A layout's key in the tables: its lowest discernible value and significant digits, as
/// `low1_sig3` for nines' own 1 ns, 3-digit layout.
pub fn layout_key(l: &Layout) -> String {
    format!("low{}_sig{}", l.low, l.sigfig)
}

fn opt_i64(v: Option<impl Into<u64>>) -> Option<i64> {
    v.and_then(|v| i64::try_from(v.into()).ok())
}

/// The run's row.
pub fn run_row(run: &Run, run_id: &str) -> RunRow {
    let m: &RunMeta = &run.meta;
    let w = m.workload.as_ref();
    let t = m.target.as_ref();
    let h = m.host.as_ref();
    RunRow {
        run_id: run_id.to_string(),
        name: run.name.clone(),
        file: run.source.clone(),
        start_s: run.start_time,
        start: m.start.clone(),
        duration_s: run.duration_s(),
        windows: run.windows.len() as i64,
        workload_rw: w.and_then(|w| w.rw.clone()),
        workload_qd: opt_i64(w.and_then(|w| w.qd)),
        workload_jobs: opt_i64(w.and_then(|w| w.jobs)),
        workload_size_bytes: opt_i64(w.and_then(|w| w.size_bytes)),
        workload_runtime_s: w.and_then(|w| w.runtime_s),
        target_path: t.and_then(|t| t.path.clone()),
        target_kind: t.and_then(|t| t.kind.clone()),
        host_name: h.and_then(|h| h.hostname.clone()),
        host_kernel: h.and_then(|h| h.kernel.clone()),
        host_cpus: opt_i64(h.and_then(|h| h.cpus)),
        engine: m.engine.as_ref().and_then(|e| e.name.clone()),
        meta_json: serde_json::to_string(m).unwrap_or_else(|_| "{}".into()),
    }
}

/// The windows' rows, in file order.
pub fn window_rows(run: &Run) -> Vec<WindowRow<'_>> {
    run.windows
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let tag = tag_name(w.tag.as_deref());
            let t = Tag::parse(tag);
            WindowRow {
                window: i as i64,
                tag,
                scope: t.scope,
                direction: t.direction,
                measure: t.measure,
                start_s: run.start_time.map(|s| s + w.start_s),
                offset_s: w.start_s,
                length_s: w.length_s,
                count: w.hist.count(),
                min_ns: w.hist.min(),
                max_ns: w.hist.max(),
                layout: w.hist.layout(),
                context: crate::context::record_at(&run.context, w.start_s),
            }
        })
        .collect()
}

/// A bucket whose upper edge does not fit the tables' signed 64-bit columns.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("window {window} (tag {tag}) holds a latency of {upper_ns} ns or more, beyond the 2^63-1 ns the tables' 64-bit columns hold; expected latencies below 292 years")]
pub struct ValueTooLarge {
    /// 1-based window in file order.
    pub window: usize,
    pub tag: String,
    pub upper_ns: u64,
}

/// The non-empty buckets of every window, in window then index order.
pub fn bucket_rows(run: &Run) -> Vec<BucketRow> {
    let mut out = Vec::with_capacity(run.windows.iter().map(|w| w.hist.bucket_count()).sum());
    for (i, w) in run.windows.iter().enumerate() {
        out.extend(w.hist.indexed().map(|(index, count)| BucketRow { window: i as i64, index, count }));
    }
    out
}

/// The value range of every bucket index the run's windows use, by layout key then index; an
/// error for a value beyond [`MAX_VALUE`].
pub fn layout_rows(run: &Run) -> Result<Vec<LayoutRow>, ValueTooLarge> {
    // each layout's indexes (a run has one layout, seldom two)
    let mut used: Vec<(Layout, BTreeSet<u32>)> = Vec::new();
    for (i, w) in run.windows.iter().enumerate() {
        if w.hist.max() > MAX_VALUE {
            return Err(ValueTooLarge { window: i + 1, tag: tag_name(w.tag.as_deref()).into(), upper_ns: w.hist.max() });
        }
        let l = w.hist.layout();
        let at = match used.iter().position(|(k, _)| *k == l) {
            Some(at) => at,
            None => {
                used.push((l, BTreeSet::new()));
                used.len() - 1
            }
        };
        used[at].1.extend(w.hist.indexed().map(|(index, _)| index));
    }
    let mut rows: Vec<LayoutRow> = used
        .into_iter()
        .flat_map(|(l, indexes)| {
            let key = layout_key(&l);
            indexes.into_iter().map(move |index| {
                let lower_ns = l.value_of_index(index as usize).expect("stored indexes are below the layout's limit");
                LayoutRow { layout: key.clone(), index, lower_ns, upper_ns: l.highest_equivalent(lower_ns) }
            })
        })
        .collect();
    rows.sort_by(|a, b| (&a.layout, a.index).cmp(&(&b.layout, b.index)));
    Ok(rows)
}

/// The windows of one tag that start in one hour of the clock and one hour of the run,
/// summed (histograms add exactly); windows of another layout make another sum.
#[derive(Clone, Debug, PartialEq)]
pub struct HourHist {
    pub tag: String,
    /// Start of the clock hour (UTC), seconds since the epoch: a multiple of 3,600; `None`
    /// when the run states no start time.
    pub hour_start_s: Option<f64>,
    /// The hour of the run the windows start in: 0 for the first 3,600 s.
    pub run_hour: i64,
    pub hist: Hist,
}

/// The run's windows summed per tag, clock hour and run hour (a window counts in the hour it
/// starts in), by tag then hour; two kinds of hour so that a query can group by either, a
/// run that does not start on the hour giving two sums an hour.
pub fn hour_hists(run: &Run) -> Vec<HourHist> {
    type Key<'a> = (&'a str, Option<i64>, i64, String);
    let mut groups: BTreeMap<Key<'_>, Vec<&Hist>> = BTreeMap::new();
    for w in &run.windows {
        let clock = run.start_time.map(|s| ((s + w.start_s) / 3600.0).floor() as i64);
        let run_hour = (w.start_s / 3600.0).floor() as i64;
        groups.entry((tag_name(w.tag.as_deref()), clock, run_hour, layout_key(&w.hist.layout()))).or_default().push(&w.hist);
    }
    groups
        .into_iter()
        .map(|((tag, clock, run_hour, _), hists)| HourHist {
            tag: tag.to_string(),
            hour_start_s: clock.map(|h| h as f64 * 3600.0),
            run_hour,
            // one layout, and the windows of one run: the sum is exact
            hist: Hist::merge_all(hists),
        })
        .collect()
}

/// The windows table's CSV header line.
pub const WINDOWS_CSV_HEADER: &str = "run_id,window_index,tag,scope,direction,measure,start_s,offset_s,length_s,count,min_ns,max_ns,\
ctx_util,ctx_aqu_sz,ctx_r_await,ctx_w_await,ctx_r_s,ctx_w_s,ctx_rkb_s,ctx_wkb_s,ctx_user,ctx_sys,ctx_iowait,ctx_irq,ctx_softirq,ctx_steal,\
ctx_io_some,ctx_io_full,ctx_cpu_some,ctx_cpu_full,ctx_nines_cpu\n";

/// The windows table as CSV, one header line then one line per window of every run given as
/// `(run id, rows)`; text fields quoted and defused as [`super::csv::field`] does.
pub fn windows_csv<'a>(runs: impl IntoIterator<Item = (&'a str, &'a [WindowRow<'a>])>) -> String {
    let mut out = String::from(WINDOWS_CSV_HEADER);
    for (id, rows) in runs {
        out.push_str(&windows_csv_rows(id, rows));
    }
    out
}

/// One run's lines of the windows CSV (no header).
pub fn windows_csv_rows(id: &str, rows: &[WindowRow<'_>]) -> String {
    use super::csv::field;
    let mut out = String::new();
    let opt = |v: Option<&str>| v.map(field).unwrap_or_default();
    for r in rows {
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{}\n",
            field(id),
            r.window,
            field(r.tag),
            opt(r.scope),
            field(r.direction),
            opt(r.measure),
            r.start_s.map(|s| format!("{s:.6}")).unwrap_or_default(),
            r.offset_s,
            r.length_s,
            r.count,
            r.min_ns,
            r.max_ns
        ));
        out.pop();
        for (_, get) in crate::context::NUMBERS {
            out.push(',');
            if let Some(v) = r.context.and_then(get) {
                out.push_str(&format!("{v}"));
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hist::{Hist, Layout};
    use crate::run::Window;

    #[test]
    fn rows_carry_the_tags_parts_and_the_buckets_edges() {
        let l = Layout::default_ns();
        let w = |start: f64, tag: &str, vals: &[u64]| Window {
            start_s: start,
            length_s: 1.0,
            tag: Some(tag.into()),
            hist: Hist::from_values(l, vals.iter().copied()),
        };
        let run = Run {
            name: "r".into(),
            source: "r.hlog".into(),
            start_time: Some(1000.0),
            windows: vec![w(0.0, "read", &[1000, 1000, 5000]), w(0.0, "h1/read.svc", &[2047, 2048]), w(1.0, "read", &[3])],
            ..Run::default()
        };
        let ws = window_rows(&run);
        assert_eq!((ws[1].scope, ws[1].direction, ws[1].measure), (Some("h1"), "read", Some("svc")));
        assert_eq!((ws[2].window, ws[2].start_s, ws[2].offset_s), (2, Some(1001.0), 1.0));
        assert_eq!((ws[0].count, ws[0].min_ns, ws[0].max_ns), (3, 1000, 5003));
        let bs = bucket_rows(&run);
        // every bucket's count at its index; 2047 and 2048 are buckets of widths 1 and 2
        let (i2047, i2048) = (l.index_of(2047) as u32, l.index_of(2048) as u32);
        assert_eq!(
            bs.iter().map(|b| (b.window, b.index, b.count)).collect::<Vec<_>>(),
            [(0, l.index_of(1000) as u32, 2), (0, l.index_of(5000) as u32, 1), (1, i2047, 1), (1, i2048, 1), (2, 3, 1)]
        );
        assert_eq!(i2048, i2047 + 1);
        // the index's value range, at nines-core's edges
        let ls = layout_rows(&run).unwrap();
        assert_eq!(
            ls.iter().map(|r| (r.layout.as_str(), r.lower_ns, r.upper_ns)).collect::<Vec<_>>(),
            [
                ("low1_sig3", 3, 3),
                ("low1_sig3", 1000, 1000),
                ("low1_sig3", 2047, 2047),
                ("low1_sig3", 2048, 2049),
                ("low1_sig3", 5000, 5003)
            ]
        );
        assert_eq!(ws[0].layout, l);
        // per tag and hour: `read` has two windows in the hour that starts at 0 s (clock) and
        // in hour 0 of the run
        let hs = hour_hists(&run);
        assert_eq!(
            hs.iter().map(|h| (h.tag.as_str(), h.hour_start_s, h.run_hour, h.hist.count())).collect::<Vec<_>>(),
            [("h1/read.svc", Some(0.0), 0, 2), ("read", Some(0.0), 0, 4)]
        );
        // a run crossing a clock hour: the windows split by the hour they start in
        let late = Run { start_time: Some(3599.5), ..run.clone() };
        let hs = hour_hists(&late);
        assert_eq!(
            hs.iter().map(|h| (h.hour_start_s, h.hist.count())).collect::<Vec<_>>(),
            [(Some(0.0), 2), (Some(0.0), 3), (Some(3600.0), 1)]
        );
        let csv = windows_csv([("id1", &ws[..])]);
        // no context records: the 19 context columns are empty (null)
        assert_eq!(csv.lines().nth(2).unwrap(), format!("id1,1,h1/read.svc,h1,read,svc,1000.000000,0,1,2,2047,2049{}", ",".repeat(19)));
        assert_eq!(WINDOWS_CSV_HEADER.trim_end().split(',').count(), 12 + context_columns().len());
        // a context record for the first second: its windows carry it, the window at 1 s none
        let cpu = crate::context::CpuShares { user: 12.5, ..Default::default() };
        let ctx = crate::context::WindowContext {
            start_ns: 0,
            end_ns: 1_000_000_000,
            cpu: Some(cpu),
            nines_cpu: Some(2.0),
            ..Default::default()
        };
        let with = Run { context: vec![ctx], ..run.clone() };
        let wr = window_rows(&with);
        assert_eq!(wr.iter().map(|r| r.context.is_some()).collect::<Vec<_>>(), [true, true, false]);
        let line = windows_csv([("id1", &wr[..])]).lines().nth(1).unwrap().to_string();
        // ctx_user is the 9th context column, ctx_nines_cpu the last
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!((cells[12 + 8], cells[12 + 18], cells[12]), ("12.5", "2", ""));
        // a latency beyond 2^63-1 ns is refused, naming the window
        let big = Run { windows: vec![w(0.0, "read", &[u64::MAX / 2 + 10])], ..Run::default() };
        assert!(layout_rows(&big).unwrap_err().to_string().starts_with("window 1 (tag read) holds a latency of"));
        let row = run_row(&run, "id1");
        assert_eq!((row.windows, row.start_s, row.duration_s), (3, Some(1000.0), 2.0));
    }
}
