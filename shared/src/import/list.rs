//! Plain latency lists: one latency per line, or CSV/TSV with optional time and direction
//! columns. The latency unit is given by the caller (`--unit`) or by the latency column's name;
//! times are seconds unless the time column's name gives a unit.
//!
//! Columns are found by a header line when there is one (`latency`/`lat`/`value`/`clat`...,
//! `time`/`timestamp`/`t`..., `direction`/`dir`/`op`/`rw`/`type`..., in any order; other
//! columns are ignored). A unit in a latency or time column's name sets its unit: a suffix
//! (`latency_us`, `lat_ms`, `clat_ns`, `duration_s`, `time_ms`) or one in brackets
//! (`latency(us)`, `time (ms)`). A caller's unit that contradicts the latency column's is an
//! error naming the column: which one is right cannot be told from the file. Without a header:
//! one column is the latency; two numeric columns are time and latency; a non-numeric column is
//! the direction; three columns are time, latency and direction.
//!
//! Separators: comma, tab or semicolon, told from the first lines (the first one found outside
//! quotes), with fields read as RFC 4180 CSV by the `csv` crate (a quoted field may hold the
//! separator); or, when a line has none of them, runs of blanks.
//!
//! With a time column, windows are by time (the caller's window length); without one, the
//! whole list is one window of unknown length (IOPS are then not known). The last window ends
//! at the last value's time: a partial window, whose I/Os count in every level and in the
//! run's IOPS but which per-window rates and steady state leave out ([`Run::is_partial`]).
//!
//! Windows are kept sparse as the fio latency-log reader keeps them: only the windows near
//! the newest time are open, each as the bucket indexes of its latest values, folded into a
//! sparse histogram every few thousand values; older windows are closed. Memory is the
//! buckets actually used plus a bounded buffer per open window, so a list with one value in
//! each of 50,000 windows takes 400 KB of histograms and 16 MB at the peak of reading, the
//! run's window list included (dense counts arrays, one a window, took 4.5 GB).

use crate::hist::{Hist, HistBuilder, Layout};
use crate::meta::{ListImport, RunMeta, SourceFormat};
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
    /// The latency column's name gives a unit and the caller gave another.
    #[error(
        "the latency column {column:?} is in {} but the unit given is {}; give --unit {} or rename the column",
        .named.name(),
        .given.name(),
        .named.name()
    )]
    UnitConflict { column: String, named: Unit, given: Unit },
    #[error("direction {0:?} is not a tag (no commas, blanks or control characters)")]
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
    /// The unit the latency column's name gives.
    lat_unit: Option<Unit>,
}

/// How the fields of a list are separated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sep {
    /// CSV with this delimiter (comma, tab or semicolon), quotes as RFC 4180 has them.
    Csv(u8),
    /// Runs of blanks, no quoting.
    Blanks,
}

/// A line that holds no row: blank, or a `#` comment.
fn is_skipped(line: &str) -> bool {
    let line = line.trim();
    line.is_empty() || line.starts_with('#')
}

/// The separator of a list: the first comma, tab or semicolon outside quotes in its first two
/// lines that hold rows (comma before tab before semicolon, as one line would have them), or
/// blanks.
fn separator(text: &str) -> Sep {
    for line in text.lines().filter(|l| !is_skipped(l)).take(2) {
        let mut quoted = false;
        let mut found = [false; 3];
        for b in line.bytes() {
            match b {
                b'"' => quoted = !quoted,
                b',' if !quoted => found[0] = true,
                b'\t' if !quoted => found[1] = true,
                b';' if !quoted => found[2] = true,
                _ => {}
            }
        }
        if let Some(i) = found.iter().position(|&f| f) {
            return Sep::Csv([b',', b'\t', b';'][i]);
        }
    }
    Sep::Blanks
}

/// The rows of a list, blank and comment lines skipped, each with the line it starts on.
enum Rows<'a> {
    Csv {
        text: &'a str,
        reader: csv::Reader<&'a [u8]>,
        record: csv::StringRecord,
        /// A byte offset already reached and the line it is on.
        at: (usize, usize),
    },
    Blanks {
        lines: std::iter::Enumerate<std::str::Lines<'a>>,
    },
}

impl<'a> Rows<'a> {
    fn new(text: &'a str) -> Rows<'a> {
        match separator(text) {
            Sep::Csv(delimiter) => Rows::Csv {
                reader: csv::ReaderBuilder::new()
                    .delimiter(delimiter)
                    .has_headers(false)
                    // rows of another width are reported with their line, not by the parser
                    .flexible(true)
                    .comment(Some(b'#'))
                    .from_reader(text.as_bytes()),
                record: csv::StringRecord::new(),
                text,
                at: (0, 1),
            },
            Sep::Blanks => Rows::Blanks { lines: text.lines().enumerate() },
        }
    }

    /// The next row: its line number and its fields, trimmed and unquoted. Text that is valid
    /// UTF-8 always parses as CSV (an unclosed quote runs to the end of the file).
    fn next_row(&mut self) -> Option<(usize, Vec<&str>)> {
        match self {
            Rows::Csv { text, reader, record, at } => loop {
                // The record starts after the blank and comment lines the parser skips from
                // where the last one ended (its own line count leaves them out).
                let mut start = (reader.position().byte() as usize).clamp(at.0, text.len());
                loop {
                    let rest = &text[start..];
                    start += if rest.starts_with("\r\n") {
                        2
                    } else if rest.starts_with(['\n', '\r']) {
                        1
                    } else if rest.starts_with('#') {
                        rest.find('\n').map_or(rest.len(), |i| i + 1)
                    } else {
                        break;
                    };
                }
                match reader.read_record(record) {
                    Ok(true) => {}
                    Ok(false) | Err(_) => return None,
                }
                *at = (start, at.1 + text.as_bytes()[at.0..start].iter().filter(|&&b| b == b'\n').count());
                let line = at.1;
                // a blank line, or a comment after leading blanks (the parser skips only
                // comments at the start of a line)
                if record.len() == 1 && record[0].trim().is_empty() || record.get(0).is_some_and(|f| f.trim_start().starts_with('#')) {
                    continue;
                }
                // quotes inside a field's blanks (`a, "b"`) are taken off as well
                return Some((line, record.iter().map(|f| f.trim().trim_matches('"')).collect()));
            },
            Rows::Blanks { lines } => lines.by_ref().find(|(_, l)| !is_skipped(l)).map(|(i, l)| (i + 1, l.split_whitespace().collect())),
        }
    }
}

fn is_num(s: &str) -> bool {
    s.parse::<f64>().is_ok_and(f64::is_finite)
}

/// The unit a column's name gives: a suffix after `_` or a blank (`latency_us`, `time ms`), or
/// a unit in brackets (`latency(us)`, `time [ms]`).
fn unit_in_name(name: &str) -> Option<Unit> {
    let bracketed = |open: char, close: char| {
        let inner = &name[name.find(open)? + open.len_utf8()..];
        Unit::parse(&inner[..inner.find(close)?])
    };
    bracketed('(', ')').or_else(|| bracketed('[', ']')).or_else(|| Unit::parse(name.rsplit(['_', ' ']).next()?))
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
    let time_scale = time.and_then(|t| unit_in_name(&lower[t])).map_or(1.0, |u| u.ns() / 1e9);
    let lat_unit = lat.and_then(|l| unit_in_name(&lower[l]));
    Some(Cols { n: fields.len(), lat: lat.unwrap_or(usize::MAX), time, dir, time_scale, lat_unit })
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
    let bytes = crate::bom::without_bom(bytes);
    let head = &bytes[..bytes.len().min(4096)];
    // the head may cut a character in two at its end; a byte that is not UTF-8 anywhere else
    // makes it no list (random bytes that begin with a digit were taken for one, and read
    // without end from /dev/urandom)
    let Ok(text) = std::str::from_utf8(head).or_else(|e| match e.error_len() {
        None => std::str::from_utf8(&head[..e.valid_up_to()]),
        Some(_) => Err(e),
    }) else {
        return false;
    };
    let mut rows = Rows::new(text);
    let Some((_, f)) = rows.next_row() else { return false };
    let first_ok = if let Some(c) = header_cols(&f) { c.lat != usize::MAX } else { f.len() <= 3 && f.iter().any(|x| is_num(x)) };
    let n = f.len();
    if !first_ok {
        return false;
    }
    for _ in 0..3 {
        match rows.next_row() {
            Some((_, g)) if !(g.len() == n && g.len() <= 8 && g.iter().any(|x| is_num(x))) => return false,
            Some(_) => {}
            None => break,
        }
    }
    true
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
    /// Closed windows, in the order they closed ([`super::order::in_key_order`] sorts them).
    done: Vec<((i64, Option<String>), Hist)>,
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
    fn finish(mut self) -> Vec<((i64, Option<String>), Hist)> {
        self.close_before(None);
        super::order::in_key_order(self.done)
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
                    // a late value may reopen a closed window: merged exactly at the end
                    self.done.push((o.key, h));
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
    let bytes = crate::bom::without_bom(bytes);
    let text = std::str::from_utf8(bytes).map_err(|err| {
        let line = bytes[..err.valid_up_to()].iter().filter(|&&b| b == b'\n').count() + 1;
        e(line, ListErrorKind::NotText)
    })?;
    let window_s = if window_s.is_finite() && window_s > 0.0 { window_s } else { 1.0 };
    let layout = Layout::default_ns();
    let mut cols: Option<Cols> = None;
    // the caller's unit, else the latency column's (once the header is read)
    let mut unit = unit;
    let mut windows = Windows { layout, open: Vec::new(), newest: i64::MIN, done: Vec::new() };
    let mut t_min = f64::INFINITY;
    let mut t_max = f64::NEG_INFINITY;
    let mut count = 0_u64;
    let mut warnings = Vec::new();
    let nlines = text.lines().count();
    let cut = !text.is_empty() && !text.ends_with('\n');
    let mut rows = Rows::new(text);
    while let Some((lineno, fields)) = rows.next_row() {
        let c = match cols {
            Some(c) => c,
            None => {
                let c = match header_cols(&fields) {
                    Some(c) if c.lat == usize::MAX => return Err(e(lineno, ListErrorKind::NoLatencyColumn)),
                    Some(c) => {
                        match (unit, c.lat_unit) {
                            (Some(given), Some(named)) if given != named => {
                                let column = fields[c.lat].chars().take(40).collect();
                                return Err(e(lineno, ListErrorKind::UnitConflict { column, named, given }));
                            }
                            (given, named) => unit = given.or(named),
                        }
                        cols = Some(c);
                        continue;
                    }
                    None => guess_cols(&fields),
                };
                cols = Some(c);
                c
            }
        };
        let (ns, t, tag) = match parse_row(&fields, &c, unit.unwrap_or(Unit::Ns).ns()) {
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
    let meta = RunMeta {
        source_format: Some(SourceFormat::One("latency list".into())),
        list: Some(ListImport {
            unit: unit.unwrap_or(Unit::Ns).name().into(),
            values: count,
            window_s: Some(window_s),
            ..ListImport::default()
        }),
        ..RunMeta::default()
    };
    let run = Run {
        name: crate::archive::stem(source_name),
        source: source_name.to_string(),
        start_time: if epoch { Some(origin) } else { None },
        meta,
        windows,
        warnings,
        context: Vec::new(),
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

    /// Five whole seconds of 200 I/Os, then 102 I/Os in [5.0 s, 5.5 s): a run with 1 s windows.
    fn ends_mid_window() -> Vec<u8> {
        let mut text = String::from("time,latency_us\n");
        for w in 0..5 {
            for i in 0..200 {
                text.push_str(&format!("{:.4},{}\n", w as f64 + i as f64 / 200.0, 100 + i % 7));
            }
        }
        for i in 0..102 {
            text.push_str(&format!("{:.4},{}\n", 5.0 + i as f64 / 204.0, 100 + i % 7));
        }
        text.into_bytes()
    }

    #[test]
    fn a_partial_last_window_is_left_out_of_rates_and_steady_state() {
        let run = read("l.csv", &ends_mid_window(), Some(Unit::Us), 1.0).unwrap();
        assert_eq!(run.windows.len(), 6);
        let last = &run.windows[5];
        assert_eq!((last.start_s, last.hist.count()), (5.0, 102));
        assert!(run.is_partial(last) && run.windows[..5].iter().all(|w| !run.is_partial(w)));
        // steady state is judged on the five whole rounds, not on 102 / 0.495 s = 206 IOPS
        let report = crate::convergence::steady_report(
            &run,
            &crate::series::Direction::All,
            &crate::convergence::Track::Iops,
            5,
            crate::series::Grouping::Native,
            &[],
        )
        .unwrap();
        assert_eq!(report.rounds.len(), 5);
        assert!(report.rounds.iter().all(|r| r.value == Some(200.0)), "{:?}", report.rounds);
        // a spec's IOPS interval: the five whole windows' rates are equal, so it is a point
        let spec = crate::spec::Spec::from_limits(&["all iops >= 150".into()]).unwrap();
        let c = crate::spec::check_run(&run, &spec, None, None);
        let [lo, hi] = c.checks[0].interval.unwrap();
        assert!((hi.unwrap() - lo.unwrap()).abs() < 1e-6, "{c:?}");
        // every I/O is in the levels and the run's IOPS (1,102 over the 5.495 s to the last)
        let s = run_stats(&run, &Options::default());
        let all = s.tags.0.iter().find(|(t, _)| t == "all").unwrap();
        assert_eq!(all.1.count, 1102);
        assert!((all.1.iops - 1102.0 / 5.495).abs() < 0.01, "{}", all.1.iops);
    }

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
        // The run's window list (about 120 bytes a window) and its histograms, and a list
        // of as much while reading stay under 32 MB. A dense counts array a window (the
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
    fn only_text_is_sniffed_as_a_list_though_its_head_may_cut_a_character() {
        assert!(!sniff(b"2\xf9+D\x9f|B"));
        assert!(!sniff(b"120\n340\n\xff\n"));
        // a head of 4096 bytes that ends inside a two-byte character
        let mut text = "120\n".repeat(1023).into_bytes();
        text.extend_from_slice("123µ".as_bytes());
        assert_eq!(text.len(), 4097);
        assert!(sniff(&text));
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
    fn quoted_fields_and_a_unit_in_the_latency_column_name() {
        // a quoted note holding the separator, columns in another order, the unit in the name
        let text = "latency_us,note,op,time_ms\n120,\"warm, qd 4\",read,0\n45.5,\"a \"\"quoted\"\" note\",write,500\n900,,\"read\",1500\n";
        assert!(sniff(text.as_bytes()));
        assert_eq!(crate::import::detect("l.csv", text.as_bytes()), Some(crate::import::Format::List));
        let run = read("l.csv", text.as_bytes(), None, 1.0).unwrap();
        assert!(run.warnings.is_empty(), "{:?}", run.warnings);
        assert_eq!(run.meta.list.as_ref().unwrap().unit, "us");
        let values = |tag: &str| run.windows.iter().filter(|w| w.tag.as_deref() == Some(tag)).map(|w| w.hist.clone()).collect::<Vec<_>>();
        let l = Layout::default_ns();
        assert_eq!(values("read"), [Hist::from_values(l, [120_000]), Hist::from_values(l, [900_000])]);
        assert_eq!(values("write"), [Hist::from_values(l, [45_500])]);
        assert_eq!(run.windows.iter().map(|w| w.start_s).collect::<Vec<_>>(), [0.0, 0.0, 1.0]);
        // the same unit given again is no conflict
        assert_eq!(read("l.csv", text.as_bytes(), Some(Unit::Us), 1.0).unwrap(), run);
        // through read_any, as `nines import` reads it
        assert_eq!(crate::import::read_any("l.csv", text.as_bytes()).unwrap().windows.len(), 3);
        // semicolons and tabs, quoted headers
        let semi = "\"lat_ms\";\"dir\"\n1,5;r\n";
        assert_eq!(read("l.csv", semi.as_bytes(), None, 1.0).unwrap_err().line, 2);
        let semi = "\"lat (ms)\";\"dir\"\n1.5;r\n\n2;\"w, x\"\n";
        let e = read("l.csv", semi.as_bytes(), None, 1.0).unwrap_err();
        assert_eq!((e.line, e.kind), (4, ListErrorKind::Direction("w, x".into())));
        // the first latency-named column is the latency
        let run = read("l.tsv", b"duration_s\tclat(ns)\n0.5\t7\n", None, 1.0).unwrap();
        assert_eq!(run.windows[0].hist, Hist::from_values(l, [500_000_000]));
        for (name, unit) in
            [("latency_us", Unit::Us), ("lat_ms", Unit::Ms), ("clat_ns", Unit::Ns), ("duration_s", Unit::S), ("latency(us)", Unit::Us)]
        {
            let run = read("l.csv", format!("{name}\n3\n").as_bytes(), None, 1.0).unwrap();
            assert_eq!(run.windows[0].hist, Hist::from_values(l, [(3.0 * unit.ns()) as u64]), "{name}");
            assert!(run.warnings.is_empty(), "{name}");
        }
    }

    #[test]
    fn a_unit_given_against_the_column_name_is_an_error() {
        let e = read("l.csv", b"# made by hand\ntime,latency_us\n0,1\n", Some(Unit::Ms), 1.0).unwrap_err();
        assert_eq!(e.line, 2);
        assert_eq!(e.kind, ListErrorKind::UnitConflict { column: "latency_us".into(), named: Unit::Us, given: Unit::Ms });
        assert_eq!(
            e.to_string(),
            "l.csv: line 2: the latency column \"latency_us\" is in us but the unit given is ms; give --unit us or rename the column"
        );
        // a unit in the time column's name is the time's, not the latency's
        assert!(read("l.csv", b"time_ms,latency\n0,1\n", Some(Unit::Us), 1.0).is_ok());
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
