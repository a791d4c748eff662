//! Reading runs from any supported format, with detection.
//!
//! Every command that takes runs goes through [`read_any`], so a format added here is
//! available to `stats`, `report`, `site`, `compare` and the viewer at once.
//!
//! | format | module | precision |
//! |---|---|---|
//! | nines archives and HdrHistogram interval logs (Java, Python, JS, C writers) | [`crate::archive`] | the log's histograms |
//! | fio `--output-format=json+` | [`fio_json`] | fio's buckets ([`crate::precision`]) |
//! | fio histogram logs (`--write_hist_log`) | [`fio_hist`] | fio's buckets, coarsened |
//! | fio per-I/O latency logs (`--write_lat_log`, `log_avg_msec=0`) | [`fio_lat`] (streaming) | exact |
//! | percentile spectra (`.hgrm`, wrk2 `--latency`) | [`spectrum`] | the step between rows |
//! | plain latency lists, CSV | [`list`] | exact, unit given by the caller |
//!
//! ```
//! use nines_core::import::{read_any, read_any_with, Options, list::Unit};
//! let run = read_any_with("lat.txt", b"120\n340\n95\n", &Options { unit: Some(Unit::Us), ..Options::default() }).unwrap();
//! assert_eq!(run.windows[0].hist.count(), 3);
//! let err = read_any("junk.bin", b"\x00\x01\x02").unwrap_err();
//! assert!(err.to_string().contains("tried: HdrHistogram interval log"));
//! ```

pub mod fio_hist;
pub mod fio_json;
pub mod fio_lat;
pub mod fio_log;
pub mod list;
mod order;
pub mod spectrum;
pub mod sweep;

use std::collections::HashMap;

use crate::meta::{RunMeta, SourceFormat};

use crate::archive::{self, ArchiveError};
use crate::hist::Hist;
use crate::run::{CountError, Run, Warning, Window};

pub use crate::bom::{without_bom, BOM};
pub use crate::precision::Precision;
pub use fio_hist::FioHistError;
pub use fio_json::FioJsonError;
pub use fio_lat::{LatLogError, LatLogReader};
pub use list::{ListError, Unit};
pub use spectrum::SpectrumError;

/// Why a file could not be read as a run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LoadError {
    /// The file was recognised as an interval log but a line is bad.
    #[error(transparent)]
    Archive(#[from] ArchiveError),
    /// The file was recognised as fio JSON output but is damaged or not json+.
    #[error(transparent)]
    FioJson(#[from] FioJsonError),
    /// The file was recognised as a fio histogram log but a line is bad.
    #[error(transparent)]
    FioHist(#[from] FioHistError),
    /// The file was recognised as a fio latency log but a line is bad.
    #[error(transparent)]
    LatLog(#[from] LatLogError),
    /// The file was recognised as a percentile spectrum but a row is bad.
    #[error(transparent)]
    Spectrum(#[from] SpectrumError),
    /// The file was read as a latency list but a line is bad.
    #[error(transparent)]
    List(#[from] ListError),
    /// The file is a compact form (what reports and sites carry) but is damaged.
    #[error(transparent)]
    Compact(#[from] crate::compact::CompactError),
    /// The run holds more I/Os than an HdrHistogram log can (2^63 - 1 in all).
    #[error(transparent)]
    Counts(#[from] CountError),
    /// The file holds nothing.
    #[error("{source_name}: line 1: the file is empty; expected one of: {tried}")]
    Empty { source_name: String, tried: String },
    /// No reader recognised the file.
    #[error("{source_name}: line 1: format not recognised; tried: {tried}")]
    Unknown { source_name: String, tried: String },
}

/// The formats [`read_any`] tries, in order, for error messages.
pub const FORMATS: &[&str] = &[
    "HdrHistogram interval log (.hlog)",
    "fio json+ output",
    "fio histogram log (--write_hist_log)",
    "fio latency log (--write_lat_log, log_avg_msec=0)",
    "percentile spectrum (.hgrm, wrk2 --latency)",
    "latency list (one per line or CSV)",
    "nines compact form (.compact, as reports and sites carry runs)",
];

/// A detected format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Archive,
    FioJson,
    FioHist,
    FioLat,
    Spectrum,
    List,
    /// [`crate::compact`]: read as its run of merged windows, with a warning saying so.
    Compact,
}

/// What the caller knows that a file does not say.
#[derive(Clone, Debug)]
pub struct Options {
    /// Unit of plain latency lists (`None`: nanoseconds, with a warning) and of percentile
    /// spectra (`None`: milliseconds, wrk2's, with a warning).
    pub unit: Option<Unit>,
    /// Window length in seconds for formats with per-I/O times (latency logs, lists).
    pub window_s: f64,
}

impl Default for Options {
    fn default() -> Options {
        Options { unit: None, window_s: 1.0 }
    }
}

/// Tell the format of a file from its first bytes (and its name, for fio logs).
pub fn detect(source_name: &str, bytes: &[u8]) -> Option<Format> {
    let bytes = without_bom(bytes);
    if crate::compact::sniff(bytes) {
        Some(Format::Compact)
    } else if archive::sniff(bytes) {
        Some(Format::Archive)
    } else if fio_json::sniff(bytes) {
        Some(Format::FioJson)
    } else if fio_hist::sniff(bytes) {
        Some(Format::FioHist)
    } else if fio_lat::sniff(bytes) || (fio_lat::Measure::of_name(source_name).is_some() && !list::sniff(bytes)) {
        Some(Format::FioLat)
    } else if spectrum::sniff(bytes) {
        Some(Format::Spectrum)
    } else if list::sniff(bytes) {
        Some(Format::List)
    } else {
        None
    }
}

/// Read a run from bytes, detecting the format. `source_name` names the file in messages.
pub fn read_any(source_name: &str, bytes: &[u8]) -> Result<Run, LoadError> {
    read_any_with(source_name, bytes, &Options::default())
}

/// [`read_any`] with the caller's unit and window. Every run it returns holds the
/// invariant of [`Run::checked`] (at most 2^63 - 1 I/Os, no tag named like a row the
/// outputs make); a leading UTF-8 byte-order mark is skipped.
pub fn read_any_with(source_name: &str, bytes: &[u8], opts: &Options) -> Result<Run, LoadError> {
    let tried = || FORMATS.join(", ");
    let bytes = without_bom(bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(LoadError::Empty { source_name: source_name.to_string(), tried: tried() });
    }
    let run = match detect(source_name, bytes) {
        Some(Format::Archive) => archive::read(source_name, bytes)?,
        Some(Format::FioJson) => fio_json::read(source_name, bytes)?,
        Some(Format::FioHist) => fio_hist::read(source_name, bytes)?,
        Some(Format::FioLat) => fio_lat::read(source_name, bytes, opts.window_s)?,
        Some(Format::Spectrum) => spectrum::read(source_name, bytes, opts.unit)?,
        Some(Format::List) => list::read(source_name, bytes, opts.unit, opts.window_s)?,
        Some(Format::Compact) => {
            let c = crate::compact::Compact::read(source_name, bytes)?;
            let text = c.group_text();
            let group = c.group;
            let mut run = c.into_run()?;
            if group > 1 {
                run.warnings.push(Warning {
                    line: None,
                    message: format!(
                        "a compact form: its histograms are of {text}, so a --from/--to range counts the groups that start in it; the archive has the recorded windows"
                    ),
                });
            }
            run
        }
        None => return Err(LoadError::Unknown { source_name: source_name.to_string(), tried: tried() }),
    };
    // each reader has checked already, with its own line numbers; this keeps the promise
    // for any reader added later
    Ok(run.checked()?)
}

/// Combine runs read from several files of one measurement (the jobs' logs of one fio run,
/// json+ with its logs) into one run. Windows are kept, shifted to a common start when the
/// runs know their start times; windows of one tag with the same start (the jobs' latency
/// logs on one time grid) are added up. The precision is the coarsest of the parts.
///
/// An error when the runs hold more than 2^63 - 1 I/Os in all (it names the input and
/// window where the total passes the limit): the combined run keeps the invariant of
/// [`Run::check_counts`], so the windows added up here are exact.
pub fn combine(name: &str, runs: &[Run]) -> Result<Run, CountError> {
    if runs.len() == 1 {
        let mut r = runs[0].clone();
        r.name = name.to_string();
        // the file it came from, as for several (a fio log's name says whose run it is:
        // crate::same_run)
        if r.meta.sources.is_empty() && r.meta.source_format.is_some() {
            r.meta.sources.push(r.source.clone());
        }
        return r.checked();
    }
    let mut out = Run::merged(name, runs)?;
    let mut index: HashMap<(Option<String>, u64), usize> = HashMap::new();
    let mut windows: Vec<Window> = Vec::with_capacity(out.windows.len());
    for w in std::mem::take(&mut out.windows) {
        // A job's last window is cut at its last sample: same start, shorter length.
        let key = (w.tag.clone(), w.start_s.to_bits());
        match index.get(&key) {
            Some(&i) => {
                windows[i].hist = Hist::merge_all([&windows[i].hist, &w.hist]);
                windows[i].length_s = windows[i].length_s.max(w.length_s);
            }
            None => {
                index.insert(key, windows.len());
                windows.push(w);
            }
        }
    }
    crate::sort::sort_by_f64(&mut windows, |w| w.start_s);
    out.windows = windows;
    // Every other key: the first run's value (a key, with its typed value, at the top level).
    let mut rest = serde_json::Map::new();
    let mut formats: Vec<String> = Vec::new();
    let mut meta = RunMeta::default();
    for r in runs {
        meta.sources.push(r.source.clone());
        meta.fio.extend(r.meta.fio.iter().cloned());
        for f in r.meta.source_formats() {
            if !formats.iter().any(|g| g == f) {
                formats.push(f.to_string());
            }
        }
        for (k, v) in r.meta.to_map() {
            if !matches!(k.as_str(), "fio" | "source_format" | "precision" | "name" | "sources") {
                rest.entry(k).or_insert(v);
            }
        }
        out.warnings.extend(r.warnings.iter().map(|w| Warning { line: w.line, message: format!("{}: {}", r.source, w.message) }));
    }
    if let Ok(first) = RunMeta::from_map(rest) {
        let sources = std::mem::take(&mut meta.sources);
        let fio = std::mem::take(&mut meta.fio);
        meta = RunMeta { sources, fio, ..first };
    }
    meta.source_format = match formats.len() {
        0 => None,
        1 => Some(SourceFormat::One(formats.remove(0))),
        _ => Some(SourceFormat::Many(formats)),
    };
    meta.precision = runs.iter().map(|r| r.meta.precision.clone()).fold(None, Precision::coarsest);
    out.meta = meta;
    out.checked()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn detects_each_format() {
        assert_eq!(detect("a.json", br#"{"fio version": "fio-3.33", "jobs": []}"#), Some(Format::FioJson));
        assert_eq!(detect("a_clat.1.log", b"0, 100, 0, 4096, 0\n"), Some(Format::FioLat));
        assert_eq!(detect("x.log", b"0, 100, 0, 4096, 0\n"), Some(Format::FioLat));
        assert_eq!(detect("x.txt", b"100\n200\n"), Some(Format::List));
        assert_eq!(detect("x.csv", b"time,latency\n0,1\n"), Some(Format::List));
        let hist = format!("251, 0, 4096, {}\n", vec!["0"; 1856].join(", "));
        assert_eq!(detect("h.log", hist.as_bytes()), Some(Format::FioHist));
        assert_eq!(detect("j.bin", b"\x00\x13\x88junk"), None);
    }

    #[test]
    fn unknown_and_empty_files_list_what_was_tried() {
        let e = read_any("junk.bin", b"\x00\x01\x02\xff").unwrap_err();
        assert!(matches!(e, LoadError::Unknown { .. }));
        let msg = e.to_string();
        assert!(msg.starts_with("junk.bin: line 1: format not recognised; tried: "), "{msg}");
        for f in FORMATS {
            assert!(msg.contains(f), "{msg}");
        }
        let e = read_any("empty.log", b"").unwrap_err();
        assert!(e.to_string().starts_with("empty.log: line 1: the file is empty"), "{e}");
    }

    #[test]
    fn combine_adds_windows_on_one_grid() {
        let a = fio_lat::read("j_clat.1.log", b"0, 100, 0, 4096, 0\n1500, 200, 1, 4096, 0\n", 1.0).unwrap();
        let b = fio_lat::read("j_clat.2.log", b"10, 300, 0, 4096, 0\n", 1.0).unwrap();
        let c = combine("j", &[a, b]).unwrap();
        assert_eq!(c.windows.len(), 2);
        assert_eq!(c.windows[0].hist.count(), 2);
        assert_eq!(c.meta.sources.len(), 2);
    }

    #[test]
    fn combine_refuses_more_than_a_run_holds() {
        let mut acc = crate::hist::Accumulator::new(crate::hist::Layout::default_ns());
        acc.record_n(1000, crate::hist::MAX_COUNT);
        let w = Window { start_s: 0.0, length_s: 1.0, tag: Some("read".into()), hist: acc.finish() };
        let a = Run { name: "A".into(), source: "A.hlog".into(), windows: vec![w], ..Run::default() };
        let bytes = archive::write(Vec::new(), &a).unwrap();
        let a = read_any("A.hlog", &bytes).unwrap();
        assert_eq!(combine("A", std::slice::from_ref(&a)).unwrap().windows[0].hist.count(), crate::hist::MAX_COUNT);
        let e = combine("A", &[a.clone(), a]).unwrap_err();
        assert_eq!((e.source_name.as_str(), e.window), ("A.hlog", 0));
        assert!(e.to_string().starts_with("A.hlog: window 1 (read starting at 0.000 s) takes the run's I/O count past 2^63-1"), "{e}");
    }

    #[test]
    fn every_format_reads_with_a_byte_order_mark() {
        let hist = format!("251, 0, 4096, {}\n", vec!["1"; 1856].join(", "));
        let json = r#"{"fio version": "fio-3.33", "jobs": [{"jobname": "j", "read": {"total_ios": 1, "runtime": 1000, "clat_ns": {"N": 1, "bins": {"604": 1}}}}]}"#;
        let spectrum = "       Value   Percentile   TotalCount 1/(1-Percentile)\n\n       1.000     1.000000            5          inf\n";
        let archive = String::from_utf8(archive::write(Vec::new(), &read_any("l.txt", b"5\n").unwrap()).unwrap()).unwrap();
        let cases: [(&str, &str, Format); 6] = [
            ("a.hlog", archive.as_str(), Format::Archive),
            ("a.json", json, Format::FioJson),
            ("a_clat_hist.1.log", hist.as_str(), Format::FioHist),
            ("a_clat.1.log", "0, 100, 0, 4096, 0\n", Format::FioLat),
            ("a.hgrm", spectrum, Format::Spectrum),
            ("a.csv", "time,latency\n0,1\n", Format::List),
        ];
        for (name, text, format) in cases {
            let with = [BOM, text.as_bytes()].concat();
            assert_eq!(detect(name, &with), Some(format), "{name}");
            let plain = read_any(name, text.as_bytes()).unwrap();
            assert_eq!(read_any(name, &with).unwrap(), plain, "{name}");
        }
        assert!(matches!(read_any("e.txt", BOM).unwrap_err(), LoadError::Empty { .. }));
    }

    proptest! {
        // Whatever the bytes, reading returns (an error or a run) and never panics.
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2000), name in "[a-z_]{1,8}\\.(log|json|csv|hlog)") {
            let _ = read_any(&name, &bytes);
        }

        // Text-like input exercises the parsers more deeply than random bytes.
        #[test]
        fn random_text_never_panics(text in "[0-9, .\\n{}\":a-z#=\\[\\]-]{0,600}", name in "(x_clat.1.log|x.json|x.csv|x_clat_hist.1.log)") {
            let _ = read_any(&name, text.as_bytes());
        }
    }
}
