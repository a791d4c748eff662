//! The rows of `nines export`: a run as three tables a query engine (DuckDB, Spark SQL) can
//! merge and rank exactly as `nines stats` does.
//!
//! - runs: one row per run, its id, name, file, start and the simple metadata fields
//!   ([`RunRow`]);
//! - windows: one row per window and tag, with the tag's parsed scope, direction and measure
//!   ([`crate::tag`]) and the window's absolute start ([`WindowRow`]);
//! - buckets: one row per non-empty histogram bucket of a window, its value range as
//!   nines-core defines it (the lowest and highest value the bucket holds:
//!   [`Layout::lowest_equivalent`](crate::hist::Layout::lowest_equivalent) and
//!   [`Layout::highest_equivalent`](crate::hist::Layout::highest_equivalent)) and its count
//!   ([`BucketRow`]).
//!
//! A level of nines is then the `upper_ns` of the first bucket, in value order, at which the
//! running count reaches the rank ceil(q*N) (see [`crate::quantile`]); the SQL is in the
//! README. The writers (Parquet in the collector, CSV here) only format these rows.

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
}

/// One non-empty bucket of one window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BucketRow {
    pub window: i64,
    pub lower_ns: u64,
    pub upper_ns: u64,
    pub count: u64,
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

/// The non-empty buckets of every window, in window then value order; an error for a value
/// beyond [`MAX_VALUE`].
pub fn bucket_rows(run: &Run) -> Result<Vec<BucketRow>, ValueTooLarge> {
    let mut out = Vec::with_capacity(run.windows.iter().map(|w| w.hist.bucket_count()).sum());
    for (i, w) in run.windows.iter().enumerate() {
        let l = w.hist.layout();
        for (lo, count) in w.hist.buckets() {
            let upper_ns = l.highest_equivalent(lo);
            if upper_ns > MAX_VALUE {
                return Err(ValueTooLarge { window: i + 1, tag: tag_name(w.tag.as_deref()).into(), upper_ns });
            }
            out.push(BucketRow { window: i as i64, lower_ns: lo, upper_ns, count });
        }
    }
    Ok(out)
}

/// The windows table's CSV header line.
pub const WINDOWS_CSV_HEADER: &str = "run_id,window_index,tag,scope,direction,measure,start_s,offset_s,length_s,count,min_ns,max_ns\n";

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
        let bs = bucket_rows(&run).unwrap();
        // every bucket's count, at its nines-core edges; 2047 and 2048 are buckets of widths 1 and 2
        assert_eq!(
            bs.iter().map(|b| (b.window, b.lower_ns, b.upper_ns, b.count)).collect::<Vec<_>>(),
            [(0, 1000, 1000, 2), (0, 5000, 5003, 1), (1, 2047, 2047, 1), (1, 2048, 2049, 1), (2, 3, 3, 1)]
        );
        let csv = windows_csv([("id1", &ws[..])]);
        assert_eq!(csv.lines().nth(2).unwrap(), "id1,1,h1/read.svc,h1,read,svc,1000.000000,0,1,2,2047,2049");
        // a latency beyond 2^63-1 ns is refused, naming the window
        let big = Run { windows: vec![w(0.0, "read", &[u64::MAX / 2 + 10])], ..Run::default() };
        assert!(bucket_rows(&big).unwrap_err().to_string().starts_with("window 1 (tag read) holds a latency of"));
        let row = run_row(&run, "id1");
        assert_eq!((row.windows, row.start_s, row.duration_s), (3, Some(1000.0), 2.0));
    }
}
