//! The archive: an HdrHistogram interval log (format 1.3) with a nines metadata comment.
//!
//! ```text
//! #[Histogram log format version 1.3]
//! #[StartTime: 1764489600.000 (seconds since epoch), Sun Nov 30 08:00:00 UTC 2025]
//! #[BaseTime: 1764489600.000 (seconds since epoch)]
//! #[nines {"version":1,"name":"...","workload":{...}}]
//! "StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
//! Tag=read,0.000,1.000,2.769,HISTFAAA...
//! ```
//!
//! The line parser is our own rather than `hdrhistogram`'s `IntervalLogIterator` because an
//! archive must report errors by line number, keep the windows before a line cut off by a
//! killed writer, and read the nines metadata comment; histogram decoding is in [`crate::codec`].

use std::io::{self, Write};

use serde_json::{Map, Value};

use crate::codec::{DecodeError, Decoder, EncodeError, Encoder};
use crate::context::{WindowContext, CONTEXT_PREFIX};
use crate::hist::Hist;
use crate::meta::RunMeta;
use crate::run::{Run, Warning, Window};

/// The legend line Java's `HistogramLogWriter` writes.
pub const LEGEND: &str = "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"";
const META_PREFIX: &str = "#[nines ";
/// Seconds in a year: Java's rule for telling absolute from relative timestamps.
const YEAR_S: f64 = 365.0 * 24.0 * 3600.0;

/// An archive line that could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{source_name}: line {line}: {kind}")]
pub struct ArchiveError {
    /// File (or other source) name.
    pub source_name: String,
    /// 1-based line number.
    pub line: usize,
    /// What was wrong.
    pub kind: ArchiveErrorKind,
}

/// What was wrong with an archive line. Each message says what was expected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ArchiveErrorKind {
    /// The file is not UTF-8 text; is it an interval log at all?
    #[error("not UTF-8 text at byte offset {0}; expected an HdrHistogram interval log")]
    NotText(usize),
    /// A data line does not have the four comma-separated fields.
    #[error("expected 4 fields (start, length, max, histogram) after an optional Tag=, found {0}")]
    FieldCount(usize),
    /// A number field did not parse.
    #[error("{field} is {text:?}, expected a non-negative decimal number")]
    Number { field: &'static str, text: String },
    /// The histogram field did not decode.
    #[error("{0}")]
    Histogram(DecodeError),
    /// A `#[StartTime: ...]` or `#[BaseTime: ...]` header with no number.
    #[error("{0} header has no number of seconds")]
    Header(&'static str),
    /// A `#[nines {...}]` line whose JSON is invalid, is not an object, or holds a known key
    /// with the wrong kind of value ([`RunMeta::from_map`]).
    #[error("bad nines metadata: {0}")]
    Meta(String),
    /// A tag with characters the format cannot carry.
    #[error("tag {0:?} is empty or contains a comma, white space or a control character")]
    Tag(String),
    /// The file has no window at all.
    #[error("no histogram lines found; expected lines like `Tag=read,0.000,1.000,2.769,HISTF...`")]
    Empty,
    /// The windows up to this line hold more I/Os than a run may (2^63 - 1 in all).
    #[error("{}", .0.reason())]
    Counts(crate::run::CountError),
}

fn err(source_name: &str, line: usize, kind: ArchiveErrorKind) -> ArchiveError {
    ArchiveError { source_name: source_name.to_string(), line, kind }
}

/// Default display name of a source: its file name without directories and extension.
pub fn stem(source_name: &str) -> String {
    let base = source_name.rsplit(['/', '\\']).next().unwrap_or(source_name);
    match base.rfind('.') {
        Some(i) if i > 0 => base[..i].to_string(),
        _ => base.to_string(),
    }
}

/// Does this look like an interval log (for format detection)?
pub fn sniff(bytes: &[u8]) -> bool {
    let bytes = crate::bom::without_bom(bytes);
    let head = &bytes[..bytes.len().min(4096)];
    let text = String::from_utf8_lossy(head);
    text.lines().any(|l| {
        l.starts_with("#[Histogram log format")
            || l.starts_with("#[StartTime:")
            || l.starts_with("\"StartTimestamp\"")
            || l.starts_with(META_PREFIX)
            || (l.contains(",HIST") && !l.starts_with('#'))
    })
}

/// Read an interval log from bytes. `source_name` names the file in errors and warnings.
///
/// A last line without a newline that does not parse is taken as cut by a writer that was
/// killed: its window is dropped with a warning. Every other bad line is an error, and so
/// are windows whose counts add up to more than 2^63 - 1 ([`Run::check_counts`]). A leading
/// UTF-8 byte-order mark is skipped.
pub fn read(source_name: &str, bytes: &[u8]) -> Result<Run, ArchiveError> {
    let scanned = scan(source_name, bytes)?;
    let windows = decode_lines(source_name, scanned.data_lines())?;
    scanned.finish_checked(windows)
}

/// A window line decoded: (timestamp as written, length, tag, histogram).
pub type RawWindow = (f64, f64, Option<String>, Hist);

/// An interval log whose header and comment lines are read and whose window lines are found
/// but not decoded yet. Decoding is the costly part and is independent line by line, so a
/// caller with threads may decode chunks of [`Scanned::data_lines`] in parallel with
/// [`decode_lines`] and hand the results, in order, to [`Scanned::finish_checked`].
pub struct Scanned<'a> {
    source_name: String,
    start_time: Option<f64>,
    base_time: Option<f64>,
    meta: Map<String, Value>,
    lines: Vec<(usize, &'a str)>,
    /// The last line, when the file does not end with a newline and it is a window line.
    tail: Option<(usize, &'a str)>,
    warnings: Vec<Warning>,
    total_lines: usize,
    context: Vec<WindowContext>,
}

/// Read the header and comment lines of an interval log and locate its window lines.
pub fn scan<'a>(source_name: &str, bytes: &'a [u8]) -> Result<Scanned<'a>, ArchiveError> {
    let all = bytes;
    let bytes = crate::bom::without_bom(bytes);
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count() + 1;
        err(source_name, line, ArchiveErrorKind::NotText(e.valid_up_to() + (all.len() - bytes.len())))
    })?;
    let ends_with_newline = text.ends_with('\n');
    let mut sc = Scanned {
        source_name: source_name.to_string(),
        start_time: None,
        base_time: None,
        meta: Map::new(),
        lines: Vec::new(),
        tail: None,
        warnings: Vec::new(),
        total_lines: 0,
        context: Vec::new(),
    };
    let mut lines = text.split('\n').enumerate().peekable();
    while let Some((i, line)) = lines.next() {
        let lineno = i + 1;
        sc.total_lines = lineno;
        let cut = lines.peek().is_none() && !ends_with_newline;
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        if line.starts_with(CONTEXT_PREFIX) {
            // a comment to every other reader: one that does not parse is a warning, never
            // a reason to refuse the windows
            match WindowContext::parse_line(line) {
                Ok(c) => sc.context.push(c),
                Err(e) => {
                    let why = if cut { "the file ends in the middle of it" } else { "it could not be read" };
                    sc.warnings.push(Warning { line: Some(lineno), message: format!("a context line was skipped: {why} ({e})") })
                }
            }
            continue;
        }
        match header_line(line, &mut sc.start_time, &mut sc.base_time, &mut sc.meta) {
            Ok(true) => {}
            Ok(false) if cut => sc.tail = Some((lineno, line)),
            Ok(false) => sc.lines.push((lineno, line)),
            Err(kind) if cut => sc.warnings.push(cut_warning(lineno, &kind, sc.lines.len())),
            Err(kind) => return Err(err(source_name, lineno, kind)),
        }
    }
    Ok(sc)
}

fn cut_warning(lineno: usize, kind: &ArchiveErrorKind, complete: usize) -> Warning {
    Warning {
        line: Some(lineno),
        message: format!(
            "the file ends in the middle of this line ({kind}); it was dropped and the {complete} \
             complete windows before it were kept (was the writer killed?)"
        ),
    }
}

/// Decode window lines (as located by [`scan`]).
pub fn decode_lines(source_name: &str, lines: &[(usize, &str)]) -> Result<Vec<RawWindow>, ArchiveError> {
    let mut decoder = Decoder::new();
    lines.iter().map(|&(lineno, line)| window_line(line, &mut decoder).map_err(|kind| err(source_name, lineno, kind))).collect()
}

impl<'a> Scanned<'a> {
    /// The window lines, with their 1-based line numbers, in file order.
    pub fn data_lines(&self) -> &[(usize, &'a str)] {
        &self.lines
    }

    /// Build the run from the decoded windows of [`Scanned::data_lines`], in order: the
    /// error for a file without windows or with more I/Os than a run may hold
    /// ([`Run::check_counts`], reported at the line of the window that passes the limit).
    pub fn finish_checked(mut self, mut raw: Vec<RawWindow>) -> Result<Run, ArchiveError> {
        let (name, total) = (self.source_name.clone(), self.total_lines);
        let mut lines: Vec<usize> = self.lines.iter().map(|l| l.0).collect();
        if let Some((lineno, line)) = self.tail {
            match window_line(line, &mut Decoder::new()) {
                Ok(w) => {
                    raw.push(w);
                    lines.push(lineno);
                }
                Err(kind) => {
                    let w = cut_warning(lineno, &kind, raw.len());
                    self.warnings.push(w);
                }
            }
        }
        let mut run = build_run(self, raw);
        if run.windows.is_empty() {
            return Err(err(&name, total, ArchiveErrorKind::Empty));
        }
        run.rename_reserved_tags();
        run.check_counts().map_err(|e| {
            let line = lines.get(e.window).copied().unwrap_or(total);
            err(&name, line, ArchiveErrorKind::Counts(e))
        })?;
        Ok(run)
    }
}

fn build_run(sc: Scanned<'_>, raw: Vec<RawWindow>) -> Run {
    // Absolute time of a timestamp, following Java's HistogramLogReader: with a BaseTime the
    // timestamps are relative to it; without one, timestamps more than a year before StartTime
    // are taken as relative to StartTime, others as absolute.
    let first_ts = raw.first().map_or(0.0, |w| w.0);
    let base = match (sc.base_time, sc.start_time) {
        (Some(b), _) => b,
        (None, Some(s)) if first_ts < s - YEAR_S => s,
        _ => 0.0,
    };
    let t0 = sc.start_time.unwrap_or(base + first_ts);
    let windows = raw.into_iter().map(|(ts, len, tag, hist)| Window { start_s: (base - t0) + ts, length_s: len, tag, hist }).collect();
    // every metadata line was typed when read (header_line), so the merge of them is too
    let meta = RunMeta::from_map(sc.meta).unwrap_or_default();
    let name = match &meta.name {
        Some(s) if !s.is_empty() => s.clone(),
        _ => stem(&sc.source_name),
    };
    Run {
        name,
        source: sc.source_name,
        start_time: if sc.start_time.is_some() || base != 0.0 { Some(t0) } else { None },
        meta,
        windows,
        warnings: sc.warnings,
        context: sc.context,
    }
}

fn header_number(line: &str, prefix: &str, what: &'static str) -> Result<f64, ArchiveErrorKind> {
    line[prefix.len()..]
        .split_whitespace()
        .next()
        .map(|s| s.trim_end_matches([']', ',']))
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|v| v.is_finite())
        .ok_or(ArchiveErrorKind::Header(what))
}

fn number(field: &'static str, text: &str) -> Result<f64, ArchiveErrorKind> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(ArchiveErrorKind::Number { field, text: text.to_string() }),
    }
}

/// Handle a header, comment or legend line: `Ok(true)`. `Ok(false)` for a window line.
fn header_line(
    line: &str,
    start_time: &mut Option<f64>,
    base_time: &mut Option<f64>,
    meta: &mut Map<String, Value>,
) -> Result<bool, ArchiveErrorKind> {
    if line.starts_with('#') {
        if line.starts_with("#[StartTime:") {
            *start_time = Some(header_number(line, "#[StartTime:", "StartTime")?);
        } else if line.starts_with("#[BaseTime:") {
            *base_time = Some(header_number(line, "#[BaseTime:", "BaseTime")?);
        } else if let Some(json) = line.strip_prefix(META_PREFIX) {
            let json = json.trim_end().strip_suffix(']').unwrap_or(json);
            // from_slice like every other JSON read of the crate: each of serde_json's readers
            // (str, slice) is a separate compiled copy of its parser
            match serde_json::from_slice::<Value>(json.as_bytes()) {
                Ok(Value::Object(m)) => {
                    RunMeta::from_map(m.clone()).map_err(|e| ArchiveErrorKind::Meta(e.0))?;
                    meta.extend(m)
                }
                Ok(_) => return Err(ArchiveErrorKind::Meta("expected a JSON object".into())),
                Err(e) => return Err(ArchiveErrorKind::Meta(format!("not JSON: {e}"))),
            }
        }
        return Ok(true);
    }
    Ok(line.starts_with("\"StartTimestamp\"") || line.starts_with("StartTimestamp"))
}

/// Decode a window line: `[Tag=T,]start,length,max,histogram`.
fn window_line(line: &str, decoder: &mut Decoder) -> Result<RawWindow, ArchiveErrorKind> {
    let (tag, rest) = match line.strip_prefix("Tag=") {
        Some(r) => {
            let (t, rest) = r.split_once(',').ok_or(ArchiveErrorKind::FieldCount(1))?;
            if t.is_empty() || t.contains(char::is_whitespace) {
                return Err(ArchiveErrorKind::Tag(t.to_string()));
            }
            (Some(t.to_string()), rest)
        }
        None => (None, line),
    };
    let fields: Vec<&str> = rest.split(',').collect();
    if fields.len() != 4 {
        return Err(ArchiveErrorKind::FieldCount(fields.len()));
    }
    let start = number("start timestamp", fields[0])?;
    let length = number("interval length", fields[1])?;
    // Interval_Max is informative only: writers disagree on its unit; maxima come from the
    // histogram. It must still be a number for the line to be well formed.
    number("interval max", fields[2])?;
    let hist = decoder.decode_base64(fields[3]).map_err(ArchiveErrorKind::Histogram)?;
    Ok((start, length, tag, hist))
}

/// What goes in an archive's header.
#[derive(Clone, Debug, Default)]
pub struct Header {
    /// Run start in seconds since the epoch; window starts are relative to it.
    pub start_time: f64,
    /// The nines metadata (name, workload, target, host, ...).
    pub meta: RunMeta,
}

/// Writes an archive window by window, flushing after each so a killed run keeps every
/// finished window.
pub struct ArchiveWriter<W: Write> {
    out: W,
    encoder: Encoder,
    line: String,
}

/// Check a tag can be written: no commas or white space.
pub fn valid_tag(tag: &str) -> bool {
    !tag.is_empty() && !tag.contains(',') && !tag.contains(char::is_whitespace) && !tag.contains(char::is_control)
}

impl<W: Write> ArchiveWriter<W> {
    /// Write the header the way Java's `HistogramLogWriter` does (format version, StartTime,
    /// BaseTime, legend), with the nines metadata as a comment line before the legend.
    pub fn new(mut out: W, header: &Header) -> io::Result<Self> {
        let t = header.start_time;
        if !t.is_finite() {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("run start {t} is not a finite number of seconds")));
        }
        writeln!(out, "#[Histogram log format version 1.3]")?;
        writeln!(out, "#[StartTime: {t:.3} (seconds since epoch), {}]", crate::units::utc_date(t))?;
        writeln!(out, "#[BaseTime: {t:.3} (seconds since epoch)]")?;
        if !header.meta.is_empty() {
            write_meta(&mut out, &header.meta)?;
        }
        writeln!(out, "{LEGEND}")?;
        out.flush()?;
        Ok(ArchiveWriter { out, encoder: Encoder::new(), line: String::new() })
    }

    /// Append one window of a dense histogram. `start_s` is relative to the header's start.
    /// `max_ns` is the exact maximum if known (written to the informative max column, in ms
    /// as Java writes it); otherwise the histogram's max is used.
    pub fn write_hdr(
        &mut self,
        start_s: f64,
        length_s: f64,
        tag: Option<&str>,
        hist: &hdrhistogram::Histogram<u64>,
        max_ns: Option<u64>,
    ) -> io::Result<()> {
        let max = max_ns.unwrap_or(if hist.is_empty() { 0 } else { hist.max() });
        let encoded = self.encoder.encode_hdr(hist).map_err(|e| encode_error(start_s, tag, e))?;
        self.write_line(start_s, length_s, tag, max, &encoded)
    }

    /// Append one window of a sparse histogram. A histogram the format cannot hold (a count
    /// of 2^63 or more) is an error of kind `InvalidData` that names the window.
    pub fn write_hist(&mut self, start_s: f64, length_s: f64, tag: Option<&str>, hist: &Hist) -> io::Result<()> {
        let encoded = self.encoder.encode(hist).map_err(|e| encode_error(start_s, tag, e))?;
        self.write_line(start_s, length_s, tag, hist.max(), &encoded)
    }

    /// Append a window of a run.
    pub fn write_window(&mut self, w: &Window) -> io::Result<()> {
        self.write_hist(w.start_s, w.length_s, w.tag.as_deref(), &w.hist)
    }

    fn write_line(&mut self, start_s: f64, length_s: f64, tag: Option<&str>, max_ns: u64, encoded: &str) -> io::Result<()> {
        use std::fmt::Write as _;
        if !(start_s.is_finite() && length_s.is_finite()) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{}: start {start_s} s or length {length_s} s is not a finite number", window_name(start_s, tag)),
            ));
        }
        self.line.clear();
        if let Some(t) = tag {
            if !valid_tag(t) {
                return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("tag {t:?} is empty or has a comma or white space")));
            }
            let _ = write!(self.line, "Tag={t},");
        }
        let _ = writeln!(self.line, "{:.3},{:.3},{:.3},{}", start_s.max(0.0), length_s.max(0.0), max_ns as f64 / 1e6, encoded);
        self.out.write_all(self.line.as_bytes())?;
        self.out.flush()
    }

    /// Append metadata learned during the run (e.g. steady state, end summary). Readers merge
    /// later metadata lines into earlier ones, key by key.
    pub fn write_meta(&mut self, meta: &RunMeta) -> io::Result<()> {
        write_meta(&mut self.out, meta)?;
        self.out.flush()
    }

    pub fn into_inner(self) -> W {
        self.out
    }

    /// The writer the lines go to: to append lines written elsewhere (a merge keeps windows
    /// it has written once in a spill file and copies them in), or to see how much was
    /// written.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out
    }
}

fn window_name(start_s: f64, tag: Option<&str>) -> String {
    format!("the window of tag {} at {start_s:.3} s", crate::stats::tag_name(tag))
}

fn encode_error(start_s: f64, tag: Option<&str>, e: EncodeError) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("{} cannot be written: {e}", window_name(start_s, tag)))
}

fn write_meta<W: Write>(out: &mut W, meta: &RunMeta) -> io::Result<()> {
    // serde_json escapes control characters, so the object stays on one line.
    let json = serde_json::to_string(meta).map_err(io::Error::other)?;
    writeln!(out, "{META_PREFIX}{json}]")
}

/// Write a whole run as an archive. A window the format cannot hold (a count of 2^63 or
/// more; a run read by nines-core never has one, see [`Run::check_counts`]) is an error of
/// kind `InvalidData` naming the window; a tag with a comma or white space, or a time that
/// is not finite, one of kind `InvalidInput`.
pub fn write<W: Write>(out: W, run: &Run) -> io::Result<W> {
    let mut meta = run.meta.clone();
    meta.name.get_or_insert_with(|| run.name.clone());
    let mut w = ArchiveWriter::new(out, &Header { start_time: run.start_time.unwrap_or(0.0), meta })?;
    let n = run.windows.len();
    // each context record after the windows of its time span (before the first window that
    // starts at or after its end), as a run writes them
    let mut context = run.context.iter().peekable();
    for (i, win) in run.windows.iter().enumerate() {
        let start_ns = (win.start_s * 1e9).round().max(0.0) as u64;
        while let Some(c) = context.next_if(|c| c.end_ns <= start_ns) {
            writeln!(w.get_mut(), "{}", c.to_line())?;
        }
        w.write_window(win).map_err(|e| io::Error::new(e.kind(), format!("{}: window {} of {n}: {e}", run.source, i + 1)))?;
    }
    for c in context {
        writeln!(w.get_mut(), "{}", c.to_line())?;
    }
    Ok(w.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hist::Layout;

    fn sample_run() -> Run {
        let l = Layout::default_ns();
        let mut windows = Vec::new();
        for s in 0..3 {
            for (tag, base) in [("read", 100_000u64), ("write", 30_000)] {
                let hist = Hist::from_values(l, (1..=1000).map(|i| base + i * 37 + s * 5));
                windows.push(Window { start_s: s as f64, length_s: 1.0, tag: Some(tag.into()), hist });
            }
        }
        let meta = RunMeta { name: Some("sample </script>".into()), ..RunMeta::default() };
        Run {
            name: "sample </script>".into(),
            source: "x".into(),
            start_time: Some(1_764_489_600.0),
            meta,
            windows,
            warnings: vec![],
            context: Vec::new(),
        }
    }

    #[test]
    fn context_lines_are_read_written_after_their_window_and_a_bad_one_is_a_warning() {
        use crate::context::{CpuShares, WindowContext};
        let mut run = sample_run();
        let cpu = CpuShares { user: 12.5, system: 3.25, idle: 84.25, ..CpuShares::default() };
        run.context = (0..3)
            .map(|s| WindowContext {
                start_ns: s * 1_000_000_000,
                end_ns: (s + 1) * 1_000_000_000,
                cpu: Some(cpu),
                ..WindowContext::default()
            })
            .collect();
        let bytes = write(Vec::new(), &run).unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        // the second context record follows the second second's two windows
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| {
                !l.starts_with("#[StartTime")
                    && !l.starts_with("#[Histogram")
                    && !l.starts_with("#[nines")
                    && !l.starts_with("#[BaseTime")
                    && !l.starts_with("\"StartTimestamp")
            })
            .collect();
        assert!(lines[3].starts_with("Tag=read,1.000"), "{lines:?}");
        assert!(lines[4].starts_with("Tag=write,1.000"), "{lines:?}");
        assert!(lines[5].starts_with("#[context start_ns=1000000000 end_ns=2000000000 "), "{lines:?}");
        let back = read("c.hlog", &bytes).unwrap();
        assert_eq!(back.context, run.context);
        assert!(back.warnings.is_empty());
        let bad = text.replacen("#[context start_ns=1000000000", "#[context start_ns=x", 1);
        let back = read("c.hlog", bad.as_bytes()).unwrap();
        assert_eq!(back.context.len(), 2);
        assert_eq!(back.windows.len(), 6);
        assert!(back.warnings[0].message.contains("context line was skipped"), "{:?}", back.warnings);
    }

    #[test]
    fn roundtrip() {
        let run = sample_run();
        let bytes = write(Vec::new(), &run).unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(text.starts_with("#[Histogram log format version 1.3]\n#[StartTime: 1764489600.000 (seconds since epoch), "));
        let back = read("sample.hlog", &bytes).unwrap();
        assert_eq!(back.windows, run.windows);
        assert_eq!(back.name, run.name);
        assert_eq!(back.start_time, run.start_time);
        assert!(back.warnings.is_empty());
    }

    #[test]
    fn cut_last_line_keeps_complete_windows() {
        let bytes = write(Vec::new(), &sample_run()).unwrap();
        let cut = &bytes[..bytes.len() - 20];
        let run = read("cut.hlog", cut).unwrap();
        assert_eq!(run.windows.len(), 5);
        assert_eq!(run.warnings.len(), 1);
        assert_eq!(run.warnings[0].line, Some(11));
        assert!(run.warnings[0].to_string().contains("ends in the middle"), "{}", run.warnings[0]);
    }

    #[test]
    fn bad_line_in_the_middle_is_an_error_with_line_number() {
        let bytes = write(Vec::new(), &sample_run()).unwrap();
        let mut text = String::from_utf8(bytes).unwrap();
        text = text.replacen("Tag=write,0.000,1.000", "Tag=write,zero,1.000", 1);
        let e = read("bad.hlog", text.as_bytes()).unwrap_err();
        assert_eq!(e.line, 7);
        assert_eq!(e.to_string(), "bad.hlog: line 7: start timestamp is \"zero\", expected a non-negative decimal number");

        let text = "#[StartTime: 1.0 (x)]\nTag=read,1.0,1.0\n";
        let e = read("f.hlog", text.as_bytes()).unwrap_err();
        assert_eq!(e.to_string(), "f.hlog: line 2: expected 4 fields (start, length, max, histogram) after an optional Tag=, found 2");

        let e = read("e.hlog", b"").unwrap_err();
        assert!(matches!(e.kind, ArchiveErrorKind::Empty));
        let e = read("b.hlog", b"abc\n\xff\xfe").unwrap_err();
        assert_eq!(e.to_string(), "b.hlog: line 2: not UTF-8 text at byte offset 4; expected an HdrHistogram interval log");
    }

    #[test]
    fn untagged_java_style_log_without_basetime() {
        // Java without BaseTime, relative timestamps: relative to StartTime.
        let h = Hist::from_values(Layout::default_ns(), [1000, 2000]);
        let enc = Encoder::new().encode(&h).unwrap();
        let text =
            format!("#[StartTime: 1700000000.000 (seconds since epoch), x]\n{LEGEND}\n0.127,1.007,2.769,{enc}\n1.134,0.999,0.442,{enc}\n");
        let run = read("j.hlog", text.as_bytes()).unwrap();
        assert_eq!(run.windows.len(), 2);
        assert_eq!(run.windows[0].tag, None);
        assert!((run.windows[1].start_s - 1.134).abs() < 1e-9);
        assert_eq!(run.name, "j");
    }

    #[test]
    fn a_byte_order_mark_is_skipped() {
        let bytes = write(Vec::new(), &sample_run()).unwrap();
        let with = [crate::import::BOM, &bytes].concat();
        assert!(sniff(&with));
        assert_eq!(read("bom.hlog", &with).unwrap(), read("bom.hlog", &bytes).unwrap());
        assert_eq!(crate::import::read_any("bom.hlog", &with).unwrap(), read("bom.hlog", &bytes).unwrap());
        let e = read("b.hlog", b"\xef\xbb\xbfabc\n\xff").unwrap_err();
        assert_eq!(e.to_string(), "b.hlog: line 2: not UTF-8 text at byte offset 7; expected an HdrHistogram interval log");
    }

    /// An interval log line of one bucket with `count` values, as another writer may write.
    fn line_with_count(tag: &str, start: u64, count: u64) -> String {
        let mut h = hdrhistogram::Histogram::<u64>::new(3).unwrap();
        h.record_n(1000, count).unwrap();
        let mut buf = Vec::new();
        hdrhistogram::serialization::Serializer::serialize(&mut hdrhistogram::serialization::V2Serializer::new(), &h, &mut buf).unwrap();
        use base64::Engine as _;
        format!("Tag={tag},{start}.000,1.000,0.001,{}\n", base64::engine::general_purpose::STANDARD.encode(&buf))
    }

    #[test]
    fn counts_beyond_the_limit_are_an_error_at_their_line() {
        let max = crate::hist::MAX_COUNT;
        let ok = format!("{LEGEND}\n{}{}", line_with_count("read", 0, max - 5), line_with_count("write", 0, 5));
        let run = read("max.hlog", ok.as_bytes()).unwrap();
        assert_eq!(run.windows.iter().map(|w| w.hist.count()).sum::<u64>(), max);
        // written back exactly
        let back = read("max.hlog", &write(Vec::new(), &run).unwrap()).unwrap();
        assert_eq!(back.windows, run.windows);
        let bad = format!("{ok}{}{}", line_with_count("read", 1, 1), line_with_count("read", 2, 1));
        let e = read("big.hlog", bad.as_bytes()).unwrap_err();
        assert_eq!(e.line, 4);
        assert!(matches!(e.kind, ArchiveErrorKind::Counts(_)));
        assert!(
            e.to_string().starts_with(
                "big.hlog: line 4: window 3 (read starting at 1.000 s) takes the run's I/O count past 2^63-1 (9223372036854775807)"
            ),
            "{e}"
        );
    }

    #[test]
    fn unencodable_windows_are_invalid_data() {
        let l = Layout::default_ns();
        let mut b = crate::hist::HistBuilder::with_capacity(l, 1);
        b.push(l.index_of(1000) as u32, 1 << 63);
        let huge = b.finish();
        let mut w = ArchiveWriter::new(Vec::new(), &Header::default()).unwrap();
        let e = w.write_hist(2.0, 1.0, Some("read"), &huge).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert_eq!(e.to_string(), "the window of tag read at 2.000 s cannot be written: a bucket count is 2^63 or more; HdrHistogram logs hold counts up to 2^63-1 (9223372036854775807)");
        let e = w.write_hdr(2.0, 1.0, None, &huge.to_hdr(), None).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        let mut run = sample_run();
        run.source = "s.hlog".into();
        run.windows[3].hist = huge;
        let e = write(Vec::new(), &run).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert!(e.to_string().starts_with("s.hlog: window 4 of 6: the window of tag write at 1.000 s cannot be written: a bucket count is 2^63 or more; HdrHistogram logs hold counts up to 2^63-1"), "{e}");
        run.windows[3] = sample_run().windows[3].clone();
        run.windows[3].start_s = f64::INFINITY;
        assert_eq!(write(Vec::new(), &run).unwrap_err().kind(), io::ErrorKind::InvalidInput);
    }

    #[test]
    fn a_tag_named_all_is_renamed() {
        let text = format!("{LEGEND}\n{}{}{}", line_with_count("all", 0, 3), line_with_count("read", 0, 2), line_with_count("write", 0, 1));
        let run = read("t.hlog", text.as_bytes()).unwrap();
        assert_eq!(run.tags(), [Some("all.log".to_string()), Some("read".into()), Some("write".into())]);
        assert_eq!(run.warnings.len(), 1, "{:?}", run.warnings);
        let s = crate::stats::run_stats(&run, &crate::stats::Options::default());
        let names: Vec<&str> = s.tags.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(names, ["all.log", "read", "write", "all"]);
        assert_eq!(s.tags["all"].count, 3);
        let json: serde_json::Value = serde_json::from_str(&crate::export::json::stats(std::slice::from_ref(&s))).unwrap();
        assert_eq!(json["runs"][0]["tags"].as_object().unwrap().len(), 4);
        assert_eq!(crate::export::text::stats(&[s]).lines().filter(|l| l.starts_with("all ")).count(), 1);
        // written back, it reads the same (the renamed tag is kept, no warning again)
        let back = read("t.hlog", &write(Vec::new(), &run).unwrap()).unwrap();
        assert_eq!(back.windows, run.windows);
        assert!(back.warnings.is_empty());
        // "untagged" with windows without a tag
        let h = Hist::from_values(Layout::default_ns(), [1000]);
        let enc = Encoder::new().encode(&h).unwrap();
        let text = format!("{LEGEND}\n0.000,1.000,0.001,{enc}\n{}", line_with_count("untagged", 0, 2));
        let run = read("u.hlog", text.as_bytes()).unwrap();
        assert_eq!(run.tags(), [None, Some("untagged.log".to_string())]);
        let s = crate::stats::run_stats(&run, &crate::stats::Options::default());
        let names: Vec<&str> = s.tags.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(names, ["untagged", "untagged.log", "all"]);
    }

    #[test]
    fn writer_refuses_bad_tags() {
        let mut w = ArchiveWriter::new(Vec::new(), &Header::default()).unwrap();
        let h = Hist::empty(Layout::default_ns());
        assert!(w.write_hist(0.0, 1.0, Some("a,b"), &h).is_err());
        assert!(w.write_hist(0.0, 1.0, Some("read"), &h).is_ok());
    }

    #[test]
    fn metadata_keeps_unknown_keys_and_names_a_bad_key_with_its_line() {
        let h = Hist::from_values(Layout::default_ns(), [1000]);
        let enc = Encoder::new().encode(&h).unwrap();
        let body = format!("{LEGEND}\nTag=read,0.000,1.000,0.001,{enc}\n");
        let text = format!("#[nines {{\"name\":\"n\",\"site_build\":{{\"id\":7}},\"workload\":{{\"qd\":4,\"zone\":\"b\"}}}}]\n{body}");
        let run = read("m.hlog", text.as_bytes()).unwrap();
        assert_eq!(run.meta.workload.as_ref().unwrap().qd, Some(4));
        let back = read("m.hlog", &write(Vec::new(), &run).unwrap()).unwrap();
        assert_eq!(back.meta, run.meta);
        assert_eq!(back.meta.other["site_build"], serde_json::json!({"id": 7}));
        assert_eq!(back.meta.workload_value("zone"), Some(serde_json::json!("b")));
        // the second metadata line (an end summary) has a count that is not a number
        let text = format!("#[nines {{\"name\":\"n\"}}]\n{body}#[nines {{\"summary\":{{\"windows\":\"many\"}}}}]\n");
        let e = read("m.hlog", text.as_bytes()).unwrap_err().to_string();
        assert!(
            e.starts_with("m.hlog: line 4: bad nines metadata: metadata key 'summary': 'windows': invalid type: string \"many\""),
            "{e}"
        );
    }
}
