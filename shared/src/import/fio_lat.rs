//! fio per-I/O latency logs (`--write_lat_log=NAME --log_avg_msec=0`, files `NAME_clat.N.log`,
//! `NAME_lat.N.log`, `NAME_slat.N.log`), read as a stream.
//!
//! Each line is `time_ms, value_ns, ddir, bs[, offset][, prio][, issue_time]` (fio 3.x
//! iolog.c, `flush_samples`; fio 3.33 writes `time, value, ddir, bs, prio`, and `offset` before
//! `prio` with `log_offset=1`). Values are exact nanoseconds, so levels from these logs are
//! exact at histogram precision. The file's name says the measure: `_clat.` is completion
//! latency (the direction itself, `read`), `_lat.` total latency (`read.lat`), `_slat.`
//! submission latency (`read.slat`).
//!
//! [`LatLogReader`] takes the file in chunks of any size and keeps only the windows still
//! open, so a log of any length is read in bounded memory: windows more than one window
//! behind the newest sample are turned into sparse histograms. A late sample for a closed
//! window is still counted (its window is reopened and merged at the end).

use super::fio_log::{ddir_tag, log_run_name};
use crate::hist::{Accumulator, Hist, Layout};
use crate::meta::{FioLatLog, RunMeta, SourceFormat};
use crate::run::{Run, Warning, Window};

/// Why a fio latency log could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{source_name}: line {line}: {kind}")]
pub struct LatLogError {
    pub source_name: String,
    /// 1-based line.
    pub line: u64,
    pub kind: LatLogErrorKind,
}

/// What was wrong. Each message says what was expected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LatLogErrorKind {
    /// A line with fewer than 4 or more than 7 columns, or a different count from the first.
    #[error("{found} columns, expected {expected}")]
    Columns { found: usize, expected: String },
    /// A column is not a non-negative integer (or the line holds binary junk).
    #[error("column {column} is {text:?}, expected a non-negative integer")]
    Number { column: usize, text: String },
    /// A line longer than any fio writes: not a latency log.
    #[error("a line longer than {0} bytes; expected short lines `time_ms, value_ns, ddir, bs, ...`")]
    LongLine(usize),
    /// No sample at all.
    #[error("no samples; expected lines `time_ms, value_ns, ddir, bs, ...` written by fio --write_lat_log")]
    Empty,
    /// More samples than a run may hold (2^63 - 1).
    #[error("{}", .0.reason())]
    Counts(crate::run::CountError),
}

/// Which latency a log holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// Completion latency: the direction itself.
    Clat,
    /// Total latency, submission to completion: `.lat`.
    Lat,
    /// Submission latency: `.slat`.
    Slat,
}

impl Measure {
    /// The measure a fio log's file name says (`x_clat.1.log`), if it says.
    pub fn of_name(source_name: &str) -> Option<Measure> {
        let base = source_name.rsplit(['/', '\\']).next().unwrap_or(source_name);
        if base.contains("_clat.") || base.starts_with("clat.") {
            Some(Measure::Clat)
        } else if base.contains("_slat.") || base.starts_with("slat.") {
            Some(Measure::Slat)
        } else if base.contains("_lat.") || base.starts_with("lat.") {
            Some(Measure::Lat)
        } else {
            None
        }
    }
    fn suffix(self) -> &'static str {
        match self {
            Measure::Clat => "",
            Measure::Lat => ".lat",
            Measure::Slat => ".slat",
        }
    }
}

const MAX_LINE: usize = 256;
/// Times above this many ms are taken as since the epoch (fio `log_unix_epoch=1`).
const EPOCH_MS: u64 = 100_000_000_000;

struct Open {
    win: u64,
    ddir: u64,
    acc: Accumulator,
}

/// Streaming reader of one fio latency log: [`feed`](Self::feed) chunks, then
/// [`finish`](Self::finish).
pub struct LatLogReader {
    source_name: String,
    measure: Measure,
    measure_known: bool,
    window_ms: u64,
    layout: Layout,
    carry: Vec<u8>,
    line: u64,
    columns: usize,
    fields: [u64; 8],
    open: Vec<Open>,
    last: usize,
    newest_win: u64,
    /// Closed windows by (window, data direction), in the order they closed.
    done: Vec<((u64, u64), Hist)>,
    count: u64,
    zero_bs: u64,
    base_ms: Option<u64>,
    max_ms: u64,
    win_lo: u64,
    win_cached: u64,
    /// The first bytes of the file, while too few to tell whether they are a byte-order mark;
    /// `None` once told.
    head: Option<Vec<u8>>,
}

impl LatLogReader {
    /// A reader for the log named `source_name` (its name tells the measure), windowed by
    /// `window_s` seconds (at least 1 ms, fio's time resolution).
    pub fn new(source_name: &str, window_s: f64) -> LatLogReader {
        let window_ms = if window_s.is_finite() { (window_s * 1e3).round().max(1.0) as u64 } else { 1000 };
        let measure = Measure::of_name(source_name);
        LatLogReader {
            source_name: source_name.to_string(),
            measure: measure.unwrap_or(Measure::Clat),
            measure_known: measure.is_some(),
            window_ms,
            layout: Layout::default_ns(),
            carry: Vec::new(),
            line: 0,
            columns: 0,
            fields: [0; 8],
            open: Vec::new(),
            last: 0,
            newest_win: 0,
            done: Vec::new(),
            count: 0,
            zero_bs: 0,
            base_ms: None,
            max_ms: 0,
            win_lo: 0,
            win_cached: 0,
            head: Some(Vec::new()),
        }
    }

    /// Samples read so far.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// A reader for a later part of the same file, for reading parts side by side (the
    /// caller's threads; the core has none). It takes this reader's settings and what the
    /// file's first line fixed (column count, time base), so feed this reader the start of
    /// the file first. Parts must start at a line start; join them with
    /// [`absorb`](Self::absorb) in file order. Error lines in a part count from its start.
    /// A line cut by the end of the last part is judged by [`finish`](Self::finish) of the
    /// reader that absorbed it, as if one reader had read the whole file.
    pub fn continuation(&self) -> LatLogReader {
        let mut r = LatLogReader::new(&self.source_name, self.window_ms as f64 / 1e3);
        r.window_ms = self.window_ms;
        r.columns = self.columns;
        r.base_ms = self.base_ms;
        // a later part starts at a line start, not at a byte-order mark
        r.head = None;
        r
    }

    /// Add the samples of a reader of the next part of the file (see
    /// [`continuation`](Self::continuation)). Exact: windows are added bucket by bucket (one
    /// sample a line, so no count comes near 2^63).
    pub fn absorb(&mut self, mut other: LatLogReader) -> Result<(), LatLogError> {
        if !self.carry.is_empty() {
            // this part did not end at a line start: its last line is whole
            let mut line = std::mem::take(&mut self.carry);
            line.push(b'\n');
            self.parse_at(&line, 0)?;
        }
        if let Some(head) = other.head.take() {
            if !head.is_empty() {
                other.feed_lines(&head)?;
            }
        }
        other.close_before(u64::MAX);
        self.close_before(u64::MAX);
        self.done.append(&mut other.done);
        self.count += other.count;
        self.zero_bs += other.zero_bs;
        self.max_ms = self.max_ms.max(other.max_ms);
        self.line += other.line;
        // the other part's unfinished last line is the file's, if it is the last part
        self.carry = std::mem::take(&mut other.carry);
        self.newest_win = self.newest_win.max(other.newest_win);
        if self.columns == 0 {
            self.columns = other.columns;
        }
        if self.base_ms.is_none() {
            self.base_ms = other.base_ms;
        }
        Ok(())
    }

    fn err(&self, kind: LatLogErrorKind) -> LatLogError {
        LatLogError { source_name: self.source_name.clone(), line: self.line, kind }
    }

    /// Feed the next bytes of the file (chunks may split lines anywhere). A UTF-8
    /// byte-order mark at the start of the file is skipped.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), LatLogError> {
        let Some(mut head) = self.head.take() else { return self.feed_lines(chunk) };
        // Tell a byte-order mark from the first three bytes, however the chunks cut them.
        let take = (3 - head.len()).min(chunk.len());
        head.extend_from_slice(&chunk[..take]);
        let rest = &chunk[take..];
        if head.len() < 3 && crate::bom::BOM.starts_with(&head) {
            self.head = Some(head);
            return Ok(());
        }
        if head != crate::bom::BOM {
            self.feed_lines(&head)?;
        }
        self.feed_lines(rest)
    }

    fn feed_lines(&mut self, mut chunk: &[u8]) -> Result<(), LatLogError> {
        if !self.carry.is_empty() {
            // finish the line cut at the end of the previous chunk
            match chunk.iter().position(|&b| b == b'\n') {
                None => {
                    self.carry.extend_from_slice(chunk);
                    if self.carry.len() > MAX_LINE {
                        self.line += 1;
                        return Err(self.err(LatLogErrorKind::LongLine(MAX_LINE)));
                    }
                    return Ok(());
                }
                Some(p) => {
                    let mut line = std::mem::take(&mut self.carry);
                    line.extend_from_slice(&chunk[..=p]);
                    self.parse_at(&line, 0)?;
                    chunk = &chunk[p + 1..];
                }
            }
        }
        // One pass over the bytes: numbers are parsed as the scan meets them, and a line
        // without its newline is kept for the next chunk.
        let mut i = 0;
        while i < chunk.len() {
            match self.parse_at(chunk, i)? {
                Some(next) => i = next,
                None => {
                    let rest = &chunk[i..];
                    if rest.len() > MAX_LINE {
                        self.line += 1;
                        return Err(self.err(LatLogErrorKind::LongLine(MAX_LINE)));
                    }
                    self.carry.extend_from_slice(rest);
                    break;
                }
            }
        }
        Ok(())
    }

    /// Parse the line starting at `buf[i]`: `Some(index after its newline)`, or `None` when
    /// the buffer ends before the newline (nothing is recorded then).
    #[inline]
    fn parse_at(&mut self, buf: &[u8], i: usize) -> Result<Option<usize>, LatLogError> {
        // Fast path for lines as fio writes them (`1, 234, 0, 4096, 0`); anything else,
        // including a line cut by the end of the buffer, takes the general path below.
        let mut f = [0_u64; 8];
        if let Some((n, next)) = fast_fields(buf, i, &mut f) {
            if n == self.columns {
                self.line += 1;
                self.record(f[0], f[1], f[2], f[3]);
                return Ok(Some(next));
            }
        }
        // General path: the whole line must be in the buffer (or it waits for the next
        // chunk), so errors do not depend on how the file was cut into chunks.
        let len = buf.len();
        let lim = (i + MAX_LINE + 1).min(len);
        match buf[i..lim].iter().position(|&b| b == b'\n') {
            Some(p) => {
                self.parse_line(&buf[i..i + p])?;
                Ok(Some(i + p + 1))
            }
            None if lim == len => Ok(None),
            None => {
                self.line += 1;
                Err(self.err(LatLogErrorKind::LongLine(MAX_LINE)))
            }
        }
    }

    fn parse_line(&mut self, line: &[u8]) -> Result<(), LatLogError> {
        // fields separated by commas, each a decimal integer with optional blanks around
        let blank = |b: u8| b == b' ' || b == b'\t' || b == b'\r';
        let len = line.len();
        let mut n = 0_usize;
        let mut i = 0_usize;
        loop {
            while i < len && blank(line[i]) {
                i += 1;
            }
            if n == 0 && i == len {
                self.line += 1;
                return Ok(()); // blank line
            }
            let start = i;
            let mut v: u64 = 0;
            while i < len && line[i].is_ascii_digit() {
                v = v.wrapping_mul(10).wrapping_add(u64::from(line[i] - b'0'));
                i += 1;
            }
            let digits = i - start;
            if digits == 0 || (digits >= 20 && !fits_u64(&line[start..i])) {
                return Err(self.bad_number(line, 0, n));
            }
            while i < len && blank(line[i]) {
                i += 1;
            }
            if n < self.fields.len() {
                self.fields[n] = v;
            }
            n += 1;
            if i == len {
                break;
            }
            if line[i] != b',' {
                return Err(self.bad_number(line, 0, n - 1));
            }
            i += 1;
        }
        self.line += 1;
        if self.columns == 0 {
            if !(4..=7).contains(&n) {
                return Err(self.err(LatLogErrorKind::Columns {
                    found: n,
                    expected: "4 to 7 (time, value, ddir, bs, then offset, prio, issue time as configured)".into(),
                }));
            }
            self.columns = n;
        } else if n != self.columns {
            return Err(self.err(LatLogErrorKind::Columns { found: n, expected: format!("{} as on the first line", self.columns) }));
        }
        let [t, value, ddir, bs, ..] = self.fields;
        self.record(t, value, ddir, bs);
        Ok(())
    }

    fn bad_number(&self, buf: &[u8], line_start: usize, column: usize) -> LatLogError {
        let end = buf[line_start..].iter().position(|&b| b == b'\n').map_or(buf.len(), |p| line_start + p);
        let text = String::from_utf8_lossy(&buf[line_start..end.min(line_start + MAX_LINE)]);
        let field = text.split(',').nth(column).unwrap_or("").trim().chars().take(40).collect();
        LatLogError {
            source_name: self.source_name.clone(),
            line: self.line + 1,
            kind: LatLogErrorKind::Number { column: column + 1, text: field },
        }
    }

    #[inline]
    fn record(&mut self, t_ms: u64, value: u64, ddir: u64, bs: u64) {
        let base = *self.base_ms.get_or_insert(if t_ms >= EPOCH_MS { t_ms - t_ms % 1000 } else { 0 });
        let t = t_ms.saturating_sub(base);
        self.max_ms = self.max_ms.max(t);
        self.count += 1;
        if bs == 0 {
            self.zero_bs += 1;
        }
        // a division per sample is measurable at millions of lines: reuse the last window
        let win = if t >= self.win_lo && t < self.win_lo.saturating_add(self.window_ms) {
            self.win_cached
        } else {
            let w = t / self.window_ms;
            self.win_cached = w;
            self.win_lo = w * self.window_ms;
            w
        };
        if let Some(o) = self.open.get_mut(self.last) {
            if o.win == win && o.ddir == ddir {
                o.acc.record_n(value, 1);
                return;
            }
        }
        if let Some(p) = self.open.iter().position(|o| o.win == win && o.ddir == ddir) {
            self.last = p;
            self.open[p].acc.record_n(value, 1);
            return;
        }
        if win > self.newest_win {
            self.newest_win = win;
            self.close_before(win.saturating_sub(1));
        }
        let mut acc = Accumulator::new(self.layout);
        acc.record_n(value, 1);
        self.open.push(Open { win, ddir, acc });
        self.last = self.open.len() - 1;
    }

    /// Turn open windows older than `win` into sparse histograms.
    fn close_before(&mut self, win: u64) {
        let mut k = 0;
        while k < self.open.len() {
            if self.open[k].win < win {
                let o = self.open.swap_remove(k);
                let h = o.acc.finish();
                // a late value may reopen a closed window: merged exactly at the end
                self.done.push(((o.win, o.ddir), h));
            } else {
                k += 1;
            }
        }
        self.last = 0;
    }

    /// End of the file: the run, one window per time window and direction.
    ///
    /// A last line without a newline that does not parse is taken as cut by a writer that
    /// was killed (as a cut archive line is): it is dropped with a warning and every complete
    /// line before it is kept. It is the error when there is no complete line before it.
    pub fn finish(mut self) -> Result<Run, LatLogError> {
        let mut warnings = Vec::new();
        if let Some(head) = self.head.take() {
            // fewer than three bytes in all, the start of a byte-order mark
            self.feed_lines(&head)?;
        }
        if !self.carry.is_empty() {
            let mut line = std::mem::take(&mut self.carry);
            line.push(b'\n');
            let complete = self.count;
            if let Err(e) = self.parse_at(&line, 0) {
                if complete == 0 {
                    return Err(e);
                }
                warnings.push(Warning {
                    line: usize::try_from(e.line).ok(),
                    message: format!(
                        "the file ends in the middle of this line ({}); it was dropped and the {complete} \
                         complete samples before it were kept (was fio killed?)",
                        e.kind
                    ),
                });
            }
        }
        if self.count == 0 {
            self.line = self.line.max(1);
            return Err(self.err(LatLogErrorKind::Empty));
        }
        self.close_before(u64::MAX);
        if !self.measure_known {
            warnings.push(Warning {
                line: None,
                message: "the file name does not say clat, lat or slat (fio names logs NAME_clat.N.log); \
                          read as completion latency: rename the file to say which it is"
                    .into(),
            });
        }
        if self.zero_bs == self.count {
            warnings.push(Warning {
                line: None,
                message: "every sample has block size 0, as fio writes for averaged logs: these are \
                          window averages, not I/Os; log with log_avg_msec=0 for per-I/O latencies"
                    .into(),
            });
        }
        let wms = self.window_ms;
        // the last window ends after the last sample: a partial window (Run::is_partial), left
        // out of per-window rates and steady state, its I/Os in every level and the run's IOPS
        let end_ms = self.max_ms.saturating_add(1);
        let windows = super::order::in_key_order(std::mem::take(&mut self.done))
            .into_iter()
            .map(|((win, ddir), hist)| {
                let start = win * wms;
                Window {
                    start_s: start as f64 / 1e3,
                    length_s: (wms.min(end_ms.saturating_sub(start)).max(1)) as f64 / 1e3,
                    tag: Some(format!("{}{}", ddir_tag(ddir), self.measure.suffix())),
                    hist,
                }
            })
            .collect();
        let meta = RunMeta {
            source_format: Some(SourceFormat::One("fio latency log".into())),
            fio_lat_log: Some(FioLatLog { samples: self.count, window_ms: wms as f64, ..FioLatLog::default() }),
            ..RunMeta::default()
        };
        let run = Run {
            name: log_run_name(&self.source_name),
            source: self.source_name.clone(),
            start_time: self.base_ms.filter(|&b| b > 0).map(|b| b as f64 / 1e3),
            meta,
            windows,
            warnings,
            context: Vec::new(),
        };
        // one sample a line: a file cannot hold 2^63 lines, but the promise is every reader's
        run.checked().map_err(|e| self.err(LatLogErrorKind::Counts(e)))
    }
}

/// Parse a whole well-formed line at `buf[i..]`: `(fields, index after the newline)`, or
/// `None` for anything unusual (blanks other than one space after a comma, more than 19
/// digits, more than 8 fields, no newline before the end of the buffer).
#[inline(always)]
fn fast_fields(buf: &[u8], mut i: usize, out: &mut [u64; 8]) -> Option<(usize, usize)> {
    let mut n = 0;
    loop {
        let start = i;
        let mut v = 0_u64;
        match digit_run(buf, i) {
            // the first four fields are used; later ones (offset, prio) only counted
            Some((word, nd)) if n < 4 => {
                v = match nd {
                    0 => 0,
                    1 => word & 0xff,
                    _ => swar_value(word, nd),
                };
                i += nd;
            }
            Some((_, nd)) => i += nd,
            None => {}
        }
        while let Some(&b) = buf.get(i) {
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            v = v.wrapping_mul(10).wrapping_add(u64::from(d));
            i += 1;
        }
        let digits = i - start;
        if digits == 0 || digits > 19 || n >= out.len() {
            return None;
        }
        out[n] = v;
        n += 1;
        match buf.get(i) {
            Some(b',') => {
                i += 1;
                if buf.get(i) == Some(&b' ') {
                    i += 1;
                }
            }
            Some(b'\n') => return Some((n, i + 1)),
            _ => return None,
        }
    }
}

/// The 8 bytes at `buf[i..]` as one word less `'0'` per byte, and how many of them lead as
/// decimal digits (8 when all are); `None` with fewer than 8 bytes left. Bytes after the first
/// non-digit may be disturbed by borrows and carries; callers use only the leading digits.
#[inline(always)]
fn digit_run(buf: &[u8], i: usize) -> Option<(u64, usize)> {
    let bytes: [u8; 8] = buf.get(i..i + 8)?.try_into().ok()?;
    let word = u64::from_le_bytes(bytes);
    let lo = word.wrapping_sub(0x3030_3030_3030_3030); // each byte minus '0'
    let hi = word.wrapping_add(0x4646_4646_4646_4646); // top bit set from ':' (0x3a) up
    let nondigit = (lo | hi) & 0x8080_8080_8080_8080;
    Some((lo, (nondigit.trailing_zeros() / 8) as usize))
}

/// The value of the `nd` (1..=8) leading digits of a [`digit_run`] word (SWAR: leading zeros
/// for the missing digits, then pairwise sums, 8 digits in 3 multiplies).
#[inline(always)]
fn swar_value(lo: u64, nd: usize) -> u64 {
    let mut v = lo << (8 * (8 - nd));
    v = ((v & 0x0f0f_0f0f_0f0f_0f0f).wrapping_mul(2561)) >> 8;
    v = ((v & 0x00ff_00ff_00ff_00ff).wrapping_mul(6_553_601)) >> 16;
    ((v & 0x0000_ffff_0000_ffff).wrapping_mul(42_949_672_960_001)) >> 32
}

/// Up to 8 leading decimal digits of `buf[i..]`: `(value, digit count)`, or `None` with
/// fewer than 8 bytes left.
#[cfg(test)]
fn swar_digits(buf: &[u8], i: usize) -> Option<(u64, usize)> {
    let (lo, nd) = digit_run(buf, i)?;
    Some((if nd == 0 { 0 } else { swar_value(lo, nd) }, nd))
}

/// Does a run of 20 or more decimal digits fit in a u64?
fn fits_u64(digits: &[u8]) -> bool {
    let d = match digits.iter().position(|&b| b != b'0') {
        Some(p) => &digits[p..],
        None => return true,
    };
    d.len() < 20 || (d.len() == 20 && d <= b"18446744073709551615".as_slice())
}

/// Does this look like a fio latency log? (4 to 7 integer columns)
pub fn sniff(bytes: &[u8]) -> bool {
    let bytes = crate::bom::without_bom(bytes);
    let end = bytes.iter().position(|&b| b == b'\n').unwrap_or(bytes.len());
    let Ok(first) = std::str::from_utf8(&bytes[..end]) else { return false };
    let cols: Vec<&str> = first.split(',').collect();
    (4..=7).contains(&cols.len()) && cols.iter().all(|c| !c.trim().is_empty() && c.trim().bytes().all(|b| b.is_ascii_digit()))
}

/// Read a whole latency log held in memory.
pub fn read(source_name: &str, bytes: &[u8], window_s: f64) -> Result<Run, LatLogError> {
    let mut r = LatLogReader::new(source_name, window_s);
    r.feed(bytes)?;
    r.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quantile::{standard_levels, Level, Support};
    use crate::stats::{run_stats, Options};
    use proptest::prelude::*;

    fn log(samples: &[(u64, u64, u64)]) -> String {
        samples.iter().map(|(t, v, d)| format!("{t}, {v}, {d}, 4096, 0\n")).collect()
    }

    #[test]
    fn windows_directions_and_measures() {
        let text = log(&[(0, 1000, 0), (10, 2000, 1), (999, 3000, 0), (1000, 4000, 0), (2500, 5000, 1)]);
        let run = read("job_lat.1.log", text.as_bytes(), 1.0).unwrap();
        let tags: Vec<(f64, &str, u64)> = run.windows.iter().map(|w| (w.start_s, w.tag.as_deref().unwrap(), w.hist.count())).collect();
        assert_eq!(tags, [(0.0, "read.lat", 2), (0.0, "write.lat", 1), (1.0, "read.lat", 1), (2.0, "write.lat", 1)]);
        assert!((run.windows[3].length_s - 0.501).abs() < 1e-9);
        assert!(run.warnings.is_empty());
        let run = read("job_clat.1.log", text.as_bytes(), 0.5).unwrap();
        assert_eq!(run.windows[0].tag.as_deref(), Some("read"));
        assert_eq!(run.windows.len(), 5);
        assert_eq!(read("x.log", text.as_bytes(), 1.0).unwrap().warnings.len(), 1);
    }

    #[test]
    fn the_last_window_is_partial() {
        // 200 reads a second for 5 s, then 102 in [5.0 s, 5.5 s): the last window ends after
        // its last sample and is partial; the others are whole
        let mut samples: Vec<(u64, u64, u64)> = (0..1000).map(|i| (i * 5, 1000, 0)).collect();
        samples.extend((0..102).map(|i| (5000 + i * 4, 1000, 0)));
        let run = read("r_clat.1.log", log(&samples).as_bytes(), 1.0).unwrap();
        let last = run.windows.last().unwrap();
        assert_eq!((last.start_s, last.length_s, last.hist.count()), (5.0, 0.405, 102));
        assert!(run.is_partial(last));
        assert!(run.windows[..5].iter().all(|w| w.length_s == 1.0 && !run.is_partial(w)));
        // within fio's 1 ms log slack a last window is whole
        samples.push((5999, 1000, 0));
        let run = read("r_clat.1.log", log(&samples).as_bytes(), 1.0).unwrap();
        assert!(!run.is_partial(run.windows.last().unwrap()));
    }

    #[test]
    fn extreme_times_and_values() {
        let text = "18446744073709551615, 18446744073709551615, 0, 4096, 0\n0, 1, 7, 4096, 0\n";
        let run = read("x_clat.1.log", text.as_bytes(), 0.001).unwrap();
        assert_eq!(run.windows.len(), 2);
        assert_eq!(run.windows.iter().find(|w| w.tag.as_deref() == Some("ddir7")).unwrap().hist.count(), 1);
        let e = read("x_clat.1.log", b"18446744073709551616, 1, 0, 4096, 0\n", 1.0).unwrap_err();
        assert!(matches!(e.kind, LatLogErrorKind::Number { column: 1, .. }), "{e}");
    }

    #[test]
    fn run_names_drop_measure_and_job() {
        assert_eq!(log_run_name("/d/mix_clat.2.log"), "mix");
        assert_eq!(log_run_name("mix_clat_hist.1.log"), "mix");
        assert_eq!(log_run_name("a_b_slat.1.log"), "a_b");
        assert_eq!(log_run_name("plain.log"), "plain");
    }

    #[test]
    fn late_samples_reopen_closed_windows() {
        let text = log(&[(0, 1, 0), (5000, 2, 0), (100, 3, 0), (6000, 4, 0)]);
        let run = read("a_clat.1.log", text.as_bytes(), 1.0).unwrap();
        assert_eq!(run.windows.len(), 3);
        assert_eq!(run.windows[0].hist.count(), 2);
    }

    #[test]
    fn errors() {
        let e = read("a_clat.1.log", b"0, 1, 0, 4096, 0\n0, 1, 0\n", 1.0).unwrap_err();
        assert_eq!((e.line, e.kind.clone()), (2, LatLogErrorKind::Columns { found: 3, expected: "5 as on the first line".into() }));
        assert!(e.to_string().starts_with("a_clat.1.log: line 2: 3 columns"), "{e}");
        let e = read("a_clat.1.log", b"0, 1, 0, 4096, 0\n0, 1.5, 0, 4096, 0\n", 1.0).unwrap_err();
        assert_eq!(e.kind, LatLogErrorKind::Number { column: 2, text: "1.5".into() });
        assert_eq!(read("a_clat.1.log", b"", 1.0).unwrap_err().kind, LatLogErrorKind::Empty);
        let e = read("a_clat.1.log", b"1, 2\n", 1.0).unwrap_err();
        assert!(matches!(e.kind, LatLogErrorKind::Columns { found: 2, .. }));
        let e = read("a_clat.1.log", b"\xff\xfe junk", 1.0).unwrap_err();
        assert_eq!(e.line, 1);
        let e = read("a_clat.1.log", b"99999999999999999999999, 1, 0, 4096\n", 1.0).unwrap_err();
        assert!(matches!(e.kind, LatLogErrorKind::Number { column: 1, .. }));
    }

    #[test]
    fn a_cut_last_line_is_a_warning() {
        let text = log(&[(0, 1000, 0), (10, 2000, 1), (999, 3000, 0)]);
        for cut in ["5, 12", "5, 1234, 0, 40", "5, 1234, 0, 4096,", "7, 1x"] {
            let run = read("c_clat.1.log", format!("{text}{cut}").as_bytes(), 1.0).unwrap();
            assert_eq!(run.windows.iter().map(|w| w.hist.count()).sum::<u64>(), 3, "{cut}");
            assert_eq!(run.warnings.len(), 1, "{cut}");
            assert_eq!(run.warnings[0].line, Some(4), "{cut}");
            assert!(run.warnings[0].message.contains("ends in the middle of this line"), "{}", run.warnings[0]);
            // fed byte by byte, the same
            let mut r = LatLogReader::new("c_clat.1.log", 1.0);
            for b in format!("{text}{cut}").as_bytes() {
                r.feed(std::slice::from_ref(b)).unwrap();
            }
            assert_eq!(r.finish().unwrap(), run);
            // with a newline it is an error
            assert!(read("c_clat.1.log", format!("{text}{cut}\n").as_bytes(), 1.0).is_err());
        }
        // a complete last line without a newline is kept
        let run = read("c_clat.1.log", format!("{text}5, 1234, 0, 4096, 0").as_bytes(), 1.0).unwrap();
        assert_eq!((run.windows[0].hist.count(), run.warnings.len()), (3, 0));
        // nothing complete before it: the error
        let e = read("c_clat.1.log", b"5, 12", 1.0).unwrap_err();
        assert!(matches!(e.kind, LatLogErrorKind::Columns { found: 2, .. }), "{e}");
        // a cut line at the end of the last part of a file read in parts
        let whole = format!("{text}{}5, 12", log(&[(1500, 5, 0)]));
        let lines: Vec<&str> = whole.split_inclusive('\n').collect();
        let mut first = LatLogReader::new("c_clat.1.log", 1.0);
        first.feed(lines[..2].concat().as_bytes()).unwrap();
        let mut second = first.continuation();
        second.feed(lines[2..].concat().as_bytes()).unwrap();
        first.absorb(second).unwrap();
        assert_eq!(first.finish().unwrap(), read("c_clat.1.log", whole.as_bytes(), 1.0).unwrap());
    }

    #[test]
    fn a_byte_order_mark_is_skipped() {
        let text = log(&[(0, 1000, 0), (10, 2000, 1), (1999, 3000, 0)]);
        let plain = read("b_clat.1.log", text.as_bytes(), 1.0).unwrap();
        let with = [crate::import::BOM, text.as_bytes()].concat();
        assert!(sniff(&with));
        assert_eq!(read("b_clat.1.log", &with, 1.0).unwrap(), plain);
        assert_eq!(crate::import::read_any("b_clat.1.log", &with).unwrap(), plain);
        // however the chunks cut the mark
        for at in 0..=4 {
            let mut r = LatLogReader::new("b_clat.1.log", 1.0);
            r.feed(&with[..at]).unwrap();
            r.feed(&with[at..]).unwrap();
            assert_eq!(r.finish().unwrap(), plain, "{at}");
        }
        // the start of a mark and nothing else is not a log; one byte is fed as it is
        assert!(read("b_clat.1.log", &crate::import::BOM[..2], 1.0).is_err());
        let mut r = LatLogReader::new("b_clat.1.log", 1.0);
        r.feed(b"\xef").unwrap();
        assert!(matches!(r.feed(b"1, 2, 0, 4096\n").unwrap_err().kind, LatLogErrorKind::Number { column: 1, .. }));
    }

    proptest! {
        #[test]
        fn swar_matches_scalar(v in 0u64..=u64::MAX, tail in "[ ,\n0-9a-z]{0,9}", zeros in 0usize..3) {
            let text = format!("{}{v}{tail}", "0".repeat(zeros));
            let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
            if let Some((x, nd)) = swar_digits(text.as_bytes(), 0) {
                prop_assert_eq!(nd, digits.len().min(8));
                prop_assert_eq!(x, digits[..nd].parse::<u64>().unwrap_or(0));
            } else {
                prop_assert!(text.len() < 8);
            }
        }

        // Parts read by continuation readers and absorbed give the same run as one reader.
        #[test]
        fn parts_absorb_to_the_whole(samples in proptest::collection::vec((0u64..5000, 1u64..10_000_000, 0u64..3), 2..300),
                                     cut in 0usize..1000) {
            let text = log(&samples);
            let whole = read("a_clat.1.log", text.as_bytes(), 0.3).unwrap();
            let lines: Vec<&str> = text.split_inclusive('\n').collect();
            let k = 1 + cut % (lines.len() - 1);
            let (a, b) = (lines[..k].concat(), lines[k..].concat());
            let mut first = LatLogReader::new("a_clat.1.log", 0.3);
            first.feed(a.as_bytes()).unwrap();
            let mut second = first.continuation();
            second.feed(b.as_bytes()).unwrap();
            first.absorb(second).unwrap();
            prop_assert_eq!(first.finish().unwrap(), whole);
        }

        // Any split of the file into chunks gives the same run.
        #[test]
        fn chunking_does_not_matter(samples in proptest::collection::vec((0u64..5000, 1u64..10_000_000, 0u64..3), 1..300),
                                    cuts in proptest::collection::vec(0usize..20_000, 0..20)) {
            let text = log(&samples);
            let whole = read("a_clat.1.log", text.as_bytes(), 0.7).unwrap();
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (text.len() + 1)).collect();
            cuts.sort_unstable();
            let mut r = LatLogReader::new("a_clat.1.log", 0.7);
            let mut at = 0;
            for c in cuts { r.feed(&text.as_bytes()[at..c]).unwrap(); at = c; }
            r.feed(&text.as_bytes()[at..]).unwrap();
            prop_assert_eq!(r.finish().unwrap(), whole);
        }

        // Levels equal the exact nearest-rank value of the logged values, per direction.
        #[test]
        fn levels_are_exact_nearest_rank(samples in proptest::collection::vec((0u64..3000, 1u64..50_000_000, 0u64..2), 1..2000)) {
            let run = read("a_clat.1.log", log(&samples).as_bytes(), 1.0).unwrap();
            let s = run_stats(&run, &Options::default());
            let l = Layout::default_ns();
            for (d, tag) in [(0, "read"), (1, "write")] {
                let mut v: Vec<u64> = samples.iter().filter(|x| x.2 == d).map(|x| x.1).collect();
                if v.is_empty() { continue; }
                v.sort_unstable();
                let t = &s.tags[tag];
                prop_assert_eq!(t.count, v.len() as u64);
                for (lv, st) in standard_levels().iter().zip(&t.levels) {
                    if st.support == Support::None { continue; }
                    let exact = v[(lv.rank(v.len() as u64) - 1) as usize];
                    prop_assert_eq!(st.value_ns, Some(l.highest_equivalent(exact)));
                }
                let _ = Level::nines(1);
            }
        }

        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
            let _ = read("a_clat.1.log", &bytes, 1.0);
        }
    }
}
