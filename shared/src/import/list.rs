//! Plain latency lists: one latency per line, or CSV/TSV with optional time and direction
//! columns. The latency unit is given by the caller (`--unit`); times are seconds.
//!
//! Columns are found by a header line when there is one (`latency`/`lat`/`value`/`clat`...,
//! `time`/`timestamp`/`t`..., `direction`/`dir`/`op`/`rw`/`type`...; a `_ms`, `_us` or `_ns`
//! suffix on the time column sets its unit). Without a header: one column is the latency; two
//! numeric columns are time and latency; a non-numeric column is the direction; three columns
//! are time, latency and direction. Separators: comma, tab, semicolon or blanks.
//!
//! With a time column, windows are by time (the caller's window length); without one, the
//! whole list is one window of unknown length (IOPS are then not known).
//!
//! Windows are kept sparse as the fio latency-log reader keeps them: only the windows near
//! the newest time are open, each as the bucket indexes of its latest values, folded into a
//! sparse histogram every few thousand values; older windows are closed. Memory is the
//! buckets actually used plus a bounded buffer per open window, so a list with one value in
//! each of 50,000 windows takes 400 KB of histograms and 16 MB at the peak of reading, the
//! run's window list included (dense counts arrays, one a window, took 4.5 GB).

use std::collections::BTreeMap;

use serde_json::{json, Map};

use crate::hist::{Hist, HistBuilder, Layout};
use crate::run::{Run, Warning, Window};

/// Unit of the latencies in a list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Ns,
    Us,
    Ms,
    S,
}

impl Unit {
    pub fn ns(self) -> f64 {
        match self {
            Unit::Ns => 1.0,
            Unit::Us => 1e3,
            Unit::Ms => 1e6,
            Unit::S => 1e9,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Unit::Ns => "ns",
            Unit::Us => "us",
            Unit::Ms => "ms",
            Unit::S => "s",
        }
    }
    /// `ns`, `us` (or `µs`), `ms`, `s`.
    pub fn parse(s: &str) -> Option<Unit> {
        match s.trim() {
            "ns" => Some(Unit::Ns),
            "us" | "µs" | "usec" => Some(Unit::Us),
            "ms" | "msec" => Some(Unit::Ms),
            "s" | "sec" => Some(Unit::S),
            _ => None,
        }
    }
}

/// Why a list could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{source_name}: line {line}: {kind}")]
pub struct ListError {
    pub source_name: String,
    pub line: usize,
    pub kind: ListErrorKind,
}

/// What was wrong. Each message says what was expected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ListErrorKind {
    #[error("not UTF-8 text; expected one latency per line or CSV")]
    NotText,
    #[error("{found} columns, expected {expected}")]
    Columns { found: usize, expected: usize },
    #[error("{column} is {text:?}, expected a non-negative number")]
    Number { column: &'static str, text: String },
    #[error("header has no latency column; expected one named latency, lat, value, clat or duration")]
    NoLatencyColumn,
    #[error("direction {0:?} is not a tag (no commas or blanks)")]
    Direction(String),
    #[error("no latencies; expected one latency per line or CSV with a latency column")]
    Empty,
    /// More values than a run may hold.
    #[error("{}", .0.reason())]
    Counts(crate::run::CountError),
}

#[derive(Clone, Copy, Debug, Default)]
struct Cols {
    n: usize,
    lat: usize,
    time: Option<usize>,
    dir: Option<usize>,
    time_scale: f64,
}

fn split(line: &str) -> Vec<&str> {
    let sep: &[char] = if line.contains(',') {
        &[',']
    } else if line.contains('\t') {
        &['\t']
    } else if line.contains(';') {
        &[';']
    } else {
        return line.split_whitespace().collect();
    };
    line.split(sep).map(|s| s.trim().trim_matches('"')).collect()
}

fn is_num(s: &str) -> bool {
    s.parse::<f64>().is_ok_and(f64::is_finite)
}

fn header_cols(fields: &[&str]) -> Option<Cols> {
    if fields.iter().any(|f| is_num(f)) {
        return None;
    }
    let lower: Vec<String> = fields.iter().map(|f| f.to_ascii_lowercase()).collect();
    let find = |names: &[&str]| {
        lower.iter().position(|f| {
            names
                .iter()
                .any(|n| f == n || f.starts_with(&format!("{n}_")) || f.starts_with(&format!("{n}(")) || f.starts_with(&format!("{n} ")))
        })
    };
    let lat = find(&["latency", "lat", "value", "clat", "duration", "elapsed", "response_time", "rt"]);
    let time = find(&["time", "timestamp", "t", "ts", "start", "time_s"]);
    let dir = find(&["direction", "dir", "op", "rw", "type", "ddir", "tag"]);
    let time_scale = time.map_or(1.0, |t| {
        let name = &lower[t];
        if name.ends_with("_ms") || name.contains("(ms)") {
            1e-3
        } else if name.ends_with("_us") || name.contains("(us)") {
            1e-6
        } else if name.ends_with("_ns") || name.contains("(ns)") {
            1e-9
        } else {
            1.0
        }
    });
    Some(Cols { n: fields.len(), lat: lat.unwrap_or(usize::MAX), time, dir, time_scale })
}

fn guess_cols(fields: &[&str]) -> Cols {
    let numeric: Vec<bool> = fields.iter().map(|f| is_num(f)).collect();
    let n = fields.len();
    let base = Cols { n, time_scale: 1.0, ..Cols::default() };
    match n {
        1 => Cols { lat: 0, ..base },
        2 if numeric[0] && numeric[1] => Cols { time: Some(0), lat: 1, ..base },
        2 if numeric[0] => Cols { lat: 0, dir: Some(1), ..base },
        2 => Cols { lat: 1, dir: Some(0), ..base },
        _ => Cols { time: Some(0), lat: 1, dir: Some(2), ..base },
    }
}

/// Does this look like a list of numbers (or a CSV with a header and numbers)?
pub fn sniff(bytes: &[u8]) -> bool {
    let bytes = super::without_bom(bytes);
    let head = &bytes[..bytes.len().min(4096)];
    let Ok(text) = std::str::from_utf8(head).or_else(|e| std::str::from_utf8(&head[..e.valid_up_to()])) else { return false };
    let mut lines = text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#'));
    let Some(first) = lines.next() else { return false };
    let f = split(first);
    let first_ok = if let Some(c) = header_cols(&f) { c.lat != usize::MAX } else { f.len() <= 3 && f.iter().any(|x| is_num(x)) };
    first_ok
        && lines.take(3).all(|l| {
            let g = split(l);
            g.len() == f.len() && g.len() <= 8 && g.iter().any(|x| is_num(x))
        })
}

fn direction(s: &str) -> Result<String, ListErrorKind> {
    let t = s.trim().to_ascii_lowercase();
    Ok(match t.as_str() {
        "r" | "read" | "reads" | "0" => "read".into(),
        "w" | "write" | "writes" | "1" => "write".into(),
        "t" | "trim" | "discard" | "2" => "trim".into(),
        _ if crate::archive::valid_tag(&t) => t,
        _ => return Err(ListErrorKind::Direction(s.to_string())),
    })
}

/// Values an open window buffers before they are folded into its histogram (16 KiB).
const FOLD: usize = 4096;

/// One window and direction being filled.
struct Open {
    key: (i64, Option<String>),
    /// Bucket indexes of the values since the last fold.
    pending: Vec<u32>,
    hist: Option<Hist>,
}

impl Open {
    fn fold(&mut self, layout: Layout) {
        if self.pending.is_empty() {
            return;
        }
        self.pending.sort_unstable();
        let mut b = HistBuilder::with_capacity(layout, 0);
        for run in self.pending.chunk_by(|a, b| a == b) {
            b.push(run[0], run.len() as u64);
        }
        self.pending.clear();
        let h = b.finish();
        // a list holds one value a line: these counts cannot approach 2^63
        self.hist = Some(match self.hist.take() {
            Some(old) => old.merge(&h),
            None => h,
        });
    }
}

/// The windows of a list: a few open, the others closed into sparse histograms.
struct Windows {
    layout: Layout,
    open: Vec<Open>,
    newest: i64,
    done: BTreeMap<(i64, Option<String>), Hist>,
}

impl Windows {
    fn record(&mut self, win: i64, tag: Option<String>, ns: u64) {
        let index = self.layout.index_of(ns) as u32;
        if let Some(o) = self.open.iter_mut().rev().find(|o| o.key.0 == win && o.key.1 == tag) {
            o.pending.push(index);
            if o.pending.len() >= FOLD {
                o.fold(self.layout);
            }
            return;
        }
        if win > self.newest {
            self.newest = win;
            self.close_before(Some(win.saturating_sub(1)));
        }
        self.open.push(Open { key: (win, tag), pending: vec![index], hist: None });
    }

    /// Every window, in order of time and direction.
    fn finish(mut self) -> BTreeMap<(i64, Option<String>), Hist> {
        self.close_before(None);
        self.done
    }

    /// Close the open windows before `win` (all of them for `None`).
    fn close_before(&mut self, win: Option<i64>) {
        let layout = self.layout;
        let mut k = 0;
        while k < self.open.len() {
            if win.is_none_or(|w| self.open[k].key.0 < w) {
                let mut o = self.open.swap_remove(k);
                o.fold(layout);
                if let Some(h) = o.hist {
                    // a late value reopened a closed window: merged exactly
                    self.done.entry(o.key).and_modify(|x| *x = x.merge(&h)).or_insert(h);
                }
            } else {
                k += 1;
            }
        }
    }
}

/// Read a list; latencies in `unit`, windows of `window_s` seconds when there are times.
///
/// A last line without a newline that does not parse is taken as cut by a writer that was
/// killed (as a cut archive line is): it is dropped with a warning and every complete line
/// before it is kept. A leading UTF-8 byte-order mark is skipped.
pub fn read(source_name: &str, bytes: &[u8], unit: Option<Unit>, window_s: f64) -> Result<Run, ListError> {
    let e = |line, kind| ListError { source_name: source_name.to_string(), line, kind };
    let bytes = super::without_bom(bytes);
    let text = std::str::from_utf8(bytes).map_err(|err| {
        let line = bytes[..err.valid_up_to()].iter().filter(|&&b| b == b'\n').count() + 1;
        e(line, ListErrorKind::NotText)
    })?;
    let scale = unit.unwrap_or(Unit::Ns).ns();
    let window_s = if window_s.is_finite() && window_s > 0.0 { window_s } else { 1.0 };
    let layout = Layout::default_ns();
    let mut cols: Option<Cols> = None;
    let mut windows = Windows { layout, open: Vec::new(), newest: i64::MIN, done: BTreeMap::new() };
    let mut t_min = f64::INFINITY;
    let mut t_max = f64::NEG_INFINITY;
    let mut count = 0_u64;
    let mut warnings = Vec::new();
    let nlines = text.lines().count();
    let cut = !text.is_empty() && !text.ends_with('\n');
    for (i, line) in text.lines().enumerate() {
        let lineno = i + 1;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields = split(line);
        let c = match cols {
            Some(c) => c,
            None => {
                let c = match header_cols(&fields) {
                    Some(c) if c.lat == usize::MAX => return Err(e(lineno, ListErrorKind::NoLatencyColumn)),
                    Some(c) => {
                        cols = Some(c);
                        continue;
                    }
                    None => guess_cols(&fields),
                };
                cols = Some(c);
                c
            }
        };
        let (ns, t, tag) = match parse_row(&fields, &c, scale) {
            Ok(row) => row,
            // The last line of a file that does not end with a newline may be cut by a killed
            // writer: dropped with a warning when complete lines came before it.
            Err(kind) if cut && lineno == nlines && count > 0 => {
                warnings.push(Warning {
                    line: Some(lineno),
                    message: format!(
                        "the file ends in the middle of this line ({kind}); it was dropped and the {count} \
                         complete values before it were kept (was the writer killed?)"
                    ),
                });
                break;
            }
            Err(kind) => return Err(e(lineno, kind)),
        };
        if let Some(t) = t {
            t_min = t_min.min(t);
            t_max = t_max.max(t);
        }
        // windows are placed once the first time is known: keep absolute window indexes
        let win = t.map_or(0, |t| (t / window_s).floor() as i64);
        windows.record(win, tag, ns);
        count += 1;
    }
    if count == 0 {
        return Err(e(text.lines().count().max(1), ListErrorKind::Empty));
    }
    let c = cols.unwrap_or_default();
    if unit.is_none() {
        warnings.push(Warning {
            line: None,
            message: "no unit given for the list: read as nanoseconds; give the unit (nines import --unit us)".into(),
        });
    }
    // Times that look like seconds since the epoch become the run's start time.
    let epoch = c.time.is_some() && t_min > 1e9;
    let first_win = if c.time.is_some() { (t_min / window_s).floor() as i64 } else { 0 };
    let origin = first_win as f64 * window_s;
    let windows = windows
        .finish()
        .into_iter()
        .map(|((win, tag), hist)| {
            let start = win as f64 * window_s;
            let length = if c.time.is_some() { window_s.min((t_max - start).max(1e-3)) } else { 0.0 };
            Window { start_s: if epoch { start - origin } else { start }, length_s: length, tag, hist }
        })
        .collect();
    let mut meta = Map::new();
    meta.insert("source_format".into(), json!("latency list"));
    meta.insert("list".into(), json!({ "unit": unit.unwrap_or(Unit::Ns).name(), "values": count, "window_s": window_s }));
    let run = Run {
        name: crate::archive::stem(source_name),
        source: source_name.to_string(),
        start_time: if epoch { Some(origin) } else { None },
        meta,
        windows,
        warnings,
    };
    // one value a line: a list cannot hold 2^63 values, but the promise is every reader's
    run.checked().map_err(|c| e(nlines.max(1), ListErrorKind::Counts(c)))
}

/// The latency (ns), time (s) and direction of a row.
fn parse_row(fields: &[&str], c: &Cols, scale: f64) -> Result<(u64, Option<f64>, Option<String>), ListErrorKind> {
    if fields.len() != c.n {
        return Err(ListErrorKind::Columns { found: fields.len(), expected: c.n });
    }
    let bad = |column, text: &str| ListErrorKind::Number { column, text: text.chars().take(40).collect() };
    let lat: f64 = fields[c.lat].parse().ok().filter(|v: &f64| v.is_finite() && *v >= 0.0).ok_or_else(|| bad("latency", fields[c.lat]))?;
    let ns = (lat * scale).round();
    if ns > u64::MAX as f64 / 2.0 {
        return Err(bad("latency", fields[c.lat]));
    }
    let t = match c.time {
        Some(ti) => {
            let t: f64 = fields[ti].parse().ok().filter(|v: &f64| v.is_finite() && *v >= 0.0).ok_or_else(|| bad("time", fields[ti]))?;
            Some(t * c.time_scale)
        }
        None => None,
    };
    let tag = match c.dir {
        Some(di) => Some(direction(fields[di])?),
        None => None,
    };
    Ok((ns as u64, t, tag))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{run_stats, Options};

    #[test]
    fn one_per_line_with_unit() {
        let run = read("l.txt", b"1.5\n2\n\n3.25\n", Some(Unit::Us), 1.0).unwrap();
        assert_eq!(run.windows.len(), 1);
        assert_eq!(run.windows[0].hist.count(), 3);
        assert_eq!(run.windows[0].hist.min(), 1500);
        assert!(run.warnings.is_empty());
        assert_eq!(read("l.txt", b"7\n", None, 1.0).unwrap().warnings.len(), 1);
    }

    #[test]
    fn csv_with_header_time_and_direction() {
        let text = "time_ms,op,latency\n0,read,100\n500,write,200\n1500,R,300\n";
        let run = read("l.csv", text.as_bytes(), Some(Unit::Ms), 1.0).unwrap();
        let s = run_stats(&run, &Options::default());
        assert_eq!(s.tags["read"].count, 2);
        assert_eq!(s.tags["write"].count, 1);
        assert_eq!(run.windows.len(), 3);
        assert_eq!(run.windows.last().unwrap().start_s, 1.0);
        assert_eq!(s.tags["write"].max_ns, Layout::default_ns().highest_equivalent(200_000_000));
    }

    #[test]
    fn headerless_guesses() {
        let run = read("l.tsv", b"10.0\t5\n10.5\t6\n12.1\t7\n", Some(Unit::Ns), 1.0).unwrap();
        assert_eq!(run.windows.len(), 2);
        assert_eq!(run.windows[0].start_s, 10.0);
        let run = read("l.txt", b"5 w\n6 r\n", Some(Unit::Ns), 1.0).unwrap();
        assert_eq!(run.tags().len(), 2);
    }

    #[test]
    fn one_value_windows_stay_small() {
        // 50,000 windows of one value each (times 0.5 s apart, 0.5 s windows)
        let text: String = (0..50_000u64).map(|i| format!("{}.{},{}\n", i / 2, 5 * (i % 2), 1000 + i % 7)).collect();
        let (run, peak) = crate::test_alloc::peak_during(|| read("sparse.csv", text.as_bytes(), Some(Unit::Us), 0.5).unwrap());
        assert_eq!(run.windows.len(), 50_000);
        // The run's window list (about 120 bytes a window) and its histograms, and a sorted
        // map of as much while reading: 16 MB measured. A dense counts array a window (the
        // reader before sparse windows) took 4.5 GB at its peak.
        assert!(peak < 32 << 20, "{peak} bytes");
        let heap: usize = run.windows.iter().map(|w| w.hist.heap_bytes()).sum();
        // one 8-byte bucket each; a dense counts array would take ~26 KB a window (1.3 GB)
        assert_eq!(heap, 8 * 50_000);
        assert!(heap < 1 << 20, "{heap} bytes");
        assert!(run.windows.iter().all(|w| w.hist.count() == 1));
        // out of order and late values still land in their window, exactly
        let text = "0,1\n5,2\n0.5,3\n9,4\n0.2,5\n";
        let run = read("late.csv", text.as_bytes(), Some(Unit::Us), 1.0).unwrap();
        let counts: Vec<(f64, u64)> = run.windows.iter().map(|w| (w.start_s, w.hist.count())).collect();
        assert_eq!(counts, [(0.0, 3), (5.0, 1), (9.0, 1)]);
        assert_eq!(run.windows[0].hist, Hist::from_values(Layout::default_ns(), [1000, 3000, 5000]));
        // many values in one window fold exactly
        let values: Vec<u64> = (0..20_000u64).map(|i| 100 + (i * 7919) % 100_000).collect();
        let text: String = values.iter().map(|v| format!("{v}\n")).collect();
        let run = read("one.txt", text.as_bytes(), Some(Unit::Ns), 1.0).unwrap();
        assert_eq!(run.windows[0].hist, Hist::from_values(Layout::default_ns(), values));
    }

    #[test]
    fn a_cut_last_line_is_a_warning() {
        let run = read("cut.csv", b"time,lat\n0,1\n1,2\n2,", Some(Unit::Us), 1.0).unwrap();
        assert_eq!(run.windows.iter().map(|w| w.hist.count()).sum::<u64>(), 2);
        assert_eq!(run.warnings.len(), 1);
        assert_eq!(run.warnings[0].line, Some(4));
        assert!(run.warnings[0].message.starts_with("the file ends in the middle of this line"), "{}", run.warnings[0]);
        // with a newline it is an error; alone it is an error
        assert_eq!(read("bad.csv", b"time,lat\n0,1\n1,2\n2,\n", Some(Unit::Us), 1.0).unwrap_err().line, 4);
        assert_eq!(read("bad.csv", b"1,", Some(Unit::Us), 1.0).unwrap_err().line, 1);
    }

    #[test]
    fn a_byte_order_mark_is_skipped() {
        let with = [crate::import::BOM, b"time,latency\n0,100\n1,200\n"].concat();
        assert!(sniff(&with));
        let run = read("bom.csv", &with, Some(Unit::Us), 1.0).unwrap();
        assert_eq!(run, read("bom.csv", b"time,latency\n0,100\n1,200\n", Some(Unit::Us), 1.0).unwrap());
        assert_eq!(crate::import::read_any("bom.txt", &[crate::import::BOM, b"120\n340\n"].concat()).unwrap().windows[0].hist.count(), 2);
    }

    #[test]
    fn a_direction_named_all_gets_its_own_row() {
        let run = read("all.csv", b"time,dir,lat\n0,read,1\n0,all,2\n", Some(Unit::Us), 1.0).unwrap();
        assert_eq!(run.tags(), [Some("all.log".to_string()), Some("read".into())]);
        let s = run_stats(&run, &Options::default());
        let names: Vec<&str> = s.tags.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(names, ["all.log", "read", "all"]);
        assert_eq!(s.tags["all"].count, 1);
    }

    #[test]
    fn errors() {
        let e = read("l.csv", b"1,2\n3\n", None, 1.0).unwrap_err();
        assert_eq!((e.line, e.kind.clone()), (2, ListErrorKind::Columns { found: 1, expected: 2 }));
        let e = read("l.csv", b"1\nabc\n", None, 1.0).unwrap_err();
        assert_eq!(e.line, 2);
        assert_eq!(read("l.csv", b"", None, 1.0).unwrap_err().kind, ListErrorKind::Empty);
        assert_eq!(read("l.csv", b"foo,bar\n1,2\n", None, 1.0).unwrap_err().kind, ListErrorKind::NoLatencyColumn);
        assert_eq!(read("l.csv", b"\xff\n", None, 1.0).unwrap_err().kind, ListErrorKind::NotText);
        assert!(read("l.csv", b"-5\n", None, 1.0).is_err());
    }
}
