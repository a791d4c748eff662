//! fio histogram logs (`--write_hist_log=NAME --log_hist_msec=MS [--log_hist_coarseness=C]`,
//! files `NAME_clat_hist.N.log`).
//!
//! Each line is `time_ms, ddir, bs, c0, c1, ..., c(K-1)`: the completion latencies of one
//! direction since that direction's previous line, as counts of fio's buckets with `2^C`
//! buckets summed per column, so `K = 1856 >> C` (1859 to 32 columns in all). fio writes a
//! line when an I/O completes after the interval has passed, so the time is the interval's end
//! and I/Os after the last line of a direction are not in the log (fio 3.33 stat.c,
//! `add_clat_sample`; iolog.c, `flush_hist_samples`).
//!
//! One window per line, from the direction's previous line (0 for the first) to this one.
//! Counts are recorded at the middle of their coarse bucket and the run's precision is that
//! coarseness ([`crate::precision`]).

use crate::hist::{add_counts, Accumulator, Layout};
use crate::meta::{FioHistLog, RunMeta, SourceFormat};
use crate::precision::fio_buckets::{Coarse, MAX_COARSENESS, NR};
use crate::precision::Precision;
use crate::run::{Run, Warning, Window};

use super::fio_log::{ddir_tag, log_run_name};

/// Why a fio histogram log could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{source_name}: line {line}: {kind}")]
pub struct FioHistError {
    pub source_name: String,
    /// 1-based line.
    pub line: usize,
    pub kind: FioHistErrorKind,
}

/// What was wrong. Each message says what was expected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FioHistErrorKind {
    /// Binary data; a compressed log (`log_compression`) must be inflated with
    /// `fio --inflate-log` first.
    #[error("not text (byte {0:#04x}); expected fio histogram log lines `time, ddir, bs, counts...`")]
    NotText(u8),
    /// A line has a column count fio never writes, or differs from the first line.
    #[error("{found} columns, expected {expected}")]
    Columns { found: usize, expected: String },
    /// A column is not a non-negative integer.
    #[error("column {column} is {text:?}, expected a non-negative integer")]
    Number { column: usize, text: String },
    /// No line with counts.
    #[error("no histogram lines; expected lines `time_ms, ddir, bs, count0, count1, ...` written by fio --write_hist_log")]
    Empty,
    /// The counts up to this column add up to more than a run may hold.
    #[error("column {column}'s count takes the log's I/Os past 2^63-1 (9223372036854775807), the most an HdrHistogram log holds; expected at most that many I/Os in one log")]
    Count { column: usize },
    /// More I/Os than a run may hold (2^63 - 1 in all).
    #[error("{}", .0.reason())]
    Counts(crate::run::CountError),
}

/// Column counts fio writes, by coarseness.
fn coarseness_of(columns: usize) -> Option<u8> {
    (0..=MAX_COARSENESS).find(|&c| columns == 3 + (NR >> c))
}

fn expected_columns() -> String {
    let v: Vec<String> = (0..=MAX_COARSENESS).map(|c| (3 + (NR >> c)).to_string()).collect();
    format!("one of {} (time, ddir, bs and 1856 >> coarseness counts)", v.join(", "))
}

/// Does this look like a fio histogram log?
pub fn sniff(bytes: &[u8]) -> bool {
    let bytes = crate::bom::without_bom(bytes);
    let end = bytes.iter().position(|&b| b == b'\n').unwrap_or(bytes.len());
    let first = &bytes[..end];
    let Ok(text) = std::str::from_utf8(first) else { return false };
    let cols: Vec<&str> = text.split(',').collect();
    coarseness_of(cols.len()).is_some() && cols.iter().take(8).all(|c| c.trim().parse::<u64>().is_ok())
}

/// Read a histogram log. A last line without a newline that does not parse is taken as cut
/// by a writer that was killed (as a cut archive line is): it is dropped with a warning and
/// every complete line before it is kept.
pub fn read(source_name: &str, bytes: &[u8]) -> Result<Run, FioHistError> {
    let bytes = crate::bom::without_bom(bytes);
    let mut warnings = Vec::new();
    let result = read_lines(source_name, bytes);
    let (windows, c, line_of) = match result {
        // a cut last line: read again up to it
        Err((err, complete)) if !bytes.ends_with(b"\n") && err.line == bytes.split(|&b| b == b'\n').count() && complete > 0 => {
            let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
            warnings.push(Warning {
                line: Some(err.line),
                message: format!(
                    "the file ends in the middle of this line ({}); it was dropped and the {complete} complete \
                     lines before it were kept (was fio killed?)",
                    err.kind
                ),
            });
            read_lines(source_name, &bytes[..keep]).map_err(|(e, _)| e)?
        }
        Err((err, _)) => return Err(err),
        Ok(x) => x,
    };
    let meta = RunMeta {
        source_format: Some(SourceFormat::One("fio histogram log".into())),
        precision: Some(Precision::Fio { coarseness: c }),
        fio_hist_log: Some(FioHistLog {
            coarseness: c,
            note: Some("fio logs no I/O after each direction's last interval".into()),
            ..FioHistLog::default()
        }),
        ..RunMeta::default()
    };
    let run = Run {
        name: log_run_name(source_name),
        source: source_name.to_string(),
        start_time: None,
        meta,
        windows,
        warnings,
        context: Vec::new(),
    };
    run.checked().map_err(|e| {
        let line = line_of.get(e.window).copied().unwrap_or(1);
        FioHistError { source_name: source_name.to_string(), line, kind: FioHistErrorKind::Counts(e) }
    })
}

/// The windows, the coarseness and each window's line; or the error and how many lines
/// with counts came before it.
#[allow(clippy::type_complexity)]
fn read_lines(source_name: &str, bytes: &[u8]) -> Result<(Vec<Window>, u8, Vec<usize>), (FioHistError, usize)> {
    let layout = Layout::default_ns();
    let mut coarseness: Option<u8> = None;
    let mut prev_end_ms: Vec<(u64, u64)> = Vec::new(); // (ddir, last time)
    let mut windows = Vec::new();
    let mut line_of = Vec::new();
    let mut counts: Vec<u64> = Vec::new();
    // I/Os of the whole log: checked per count, so that no sum saturates
    let mut total = 0_u64;
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let lineno = i + 1;
        let complete = windows.len();
        let e = |line, kind| (FioHistError { source_name: source_name.to_string(), line, kind }, complete);
        if let Some(&b) = raw.iter().find(|&&b| b >= 0x80 || (b < 0x20 && !b"\t\r".contains(&b))) {
            return Err(e(lineno, FioHistErrorKind::NotText(b)));
        }
        let text = std::str::from_utf8(raw).map_err(|_| e(lineno, FioHistErrorKind::NotText(0)))?;
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        counts.clear();
        for (ci, f) in text.split(',').enumerate() {
            let f = f.trim();
            let v =
                f.parse::<u64>().map_err(|_| e(lineno, FioHistErrorKind::Number { column: ci + 1, text: f.chars().take(40).collect() }))?;
            counts.push(v);
        }
        let c = match coarseness {
            None => {
                let c = coarseness_of(counts.len())
                    .ok_or_else(|| e(lineno, FioHistErrorKind::Columns { found: counts.len(), expected: expected_columns() }))?;
                coarseness = Some(c);
                c
            }
            Some(c) => {
                if counts.len() != 3 + (NR >> c) {
                    return Err(e(
                        lineno,
                        FioHistErrorKind::Columns { found: counts.len(), expected: format!("{} as on the first line", 3 + (NR >> c)) },
                    ));
                }
                c
            }
        };
        let (t_ms, ddir) = (counts[0], counts[1]);
        let start_ms = match prev_end_ms.iter_mut().find(|(d, _)| *d == ddir) {
            Some((_, last)) => std::mem::replace(last, t_ms).min(t_ms),
            None => {
                prev_end_ms.push((ddir, t_ms));
                0
            }
        };
        let mut acc = Accumulator::new(layout);
        for (col, &n) in counts[3..].iter().enumerate() {
            if n > 0 {
                total = add_counts(total, n).map_err(|_| e(lineno, FioHistErrorKind::Count { column: col + 4 }))?;
                acc.record_n(Coarse::column(col, c).representative(), n);
            }
        }
        windows.push(Window {
            start_s: start_ms as f64 / 1e3,
            length_s: (t_ms - start_ms) as f64 / 1e3,
            tag: Some(ddir_tag(ddir)),
            hist: acc.finish(),
        });
        line_of.push(lineno);
    }
    let Some(c) = coarseness else {
        let n = bytes.split(|&b| b == b'\n').count();
        return Err((FioHistError { source_name: source_name.to_string(), line: n, kind: FioHistErrorKind::Empty }, 0));
    };
    Ok((windows, c, line_of))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quantile::{level_stat, Level};
    use crate::stats::{run_stats, Options};

    fn line(t: u64, ddir: u64, c: u8, cells: &[(usize, u64)]) -> String {
        let mut v = vec![0u64; NR >> c];
        for &(i, n) in cells {
            v[i] = n;
        }
        let counts: Vec<String> = v.iter().map(|x| x.to_string()).collect();
        format!("{t}, {ddir}, 4096, {}\n", counts.join(", "))
    }

    #[test]
    fn windows_per_line_and_direction() {
        // coarseness 2: column 300 sums fio buckets 1200..=1203
        let text = line(251, 0, 2, &[(300, 10), (301, 5)]) + &line(251, 1, 2, &[(10, 3)]) + &line(502, 0, 2, &[(300, 1)]);
        let run = read("x_clat_hist.1.log", text.as_bytes()).unwrap();
        assert_eq!(run.windows.len(), 3);
        assert_eq!((run.windows[2].start_s, run.windows[2].length_s), (0.251, 0.251));
        let s = run_stats(&run, &Options::default());
        assert_eq!(s.tags["read"].count, 16);
        assert_eq!(s.tags["write"].count, 3);
        // p50 of reads is in column 300: its range is the coarse bucket
        let p50 = &s.tags["read"].levels[0];
        let b = Coarse::column(300, 2);
        assert_eq!(p50.bucket_ns, Some((b.lo(), b.hi())));
        let raw = level_stat(&run.windows[0].hist, &Level::from_quantile(0.5).unwrap()).value_ns.unwrap();
        assert!(b.lo() <= raw && raw <= b.hi());
    }

    #[test]
    fn counts_beyond_the_limit_are_errors() {
        let big = 1u64 << 62;
        let text = line(251, 0, 2, &[(300, big), (301, big - 2)]) + &line(251, 1, 2, &[(10, 1)]);
        let run = read("x_clat_hist.1.log", text.as_bytes()).unwrap();
        assert_eq!(run.windows.iter().map(|w| w.hist.count()).sum::<u64>(), crate::hist::MAX_COUNT);
        let text = text + &line(502, 0, 2, &[(5, 3), (7, 1)]);
        let e = read("x_clat_hist.1.log", text.as_bytes()).unwrap_err();
        assert_eq!((e.line, e.kind.clone()), (3, FioHistErrorKind::Count { column: 4 + 5 }));
        assert!(e.to_string().starts_with("x_clat_hist.1.log: line 3: column 9's count takes the log's I/Os past 2^63-1"), "{e}");
        let text = line(251, 0, 2, &[(300, u64::MAX)]);
        assert_eq!(read("x_clat_hist.1.log", text.as_bytes()).unwrap_err().kind, FioHistErrorKind::Count { column: 304 });
    }

    #[test]
    fn a_cut_last_line_is_a_warning() {
        let good = line(251, 0, 0, &[(5, 1)]) + &line(502, 0, 0, &[(6, 2)]);
        let cut = format!("{good}{}", &line(753, 0, 0, &[(7, 3)])[..100]);
        let run = read("h.log", cut.as_bytes()).unwrap();
        assert_eq!(run.windows.len(), 2);
        assert_eq!(run.warnings.len(), 1);
        assert_eq!(run.warnings[0].line, Some(3));
        assert!(run.warnings[0].message.contains("ends in the middle of this line (column"), "{}", run.warnings[0]);
        assert!(read("h.log", format!("{cut}\n").as_bytes()).is_err());
        assert!(read("h.log", &cut.as_bytes()[good.len()..]).is_err());
    }

    #[test]
    fn a_byte_order_mark_is_skipped() {
        let text = line(251, 0, 0, &[(5, 1)]) + &line(502, 1, 0, &[(6, 2)]);
        let with = [crate::import::BOM, text.as_bytes()].concat();
        assert!(sniff(&with));
        assert_eq!(read("h.log", &with).unwrap(), read("h.log", text.as_bytes()).unwrap());
        assert_eq!(crate::import::read_any("h_clat_hist.1.log", &with).unwrap().windows.len(), 2);
    }

    #[test]
    fn bad_lines_name_line_and_column() {
        let good = line(251, 0, 0, &[(5, 1)]);
        let e = read("h.log", format!("{good}1, 2, 3\n").as_bytes()).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(matches!(e.kind, FioHistErrorKind::Columns { found: 3, .. }), "{e}");
        let e = read("h.log", good.replace(", 4096,", ", x4096,").as_bytes()).unwrap_err();
        assert_eq!(e.kind, FioHistErrorKind::Number { column: 3, text: "x4096".into() });
        assert_eq!(read("h.log", b"").unwrap_err().kind, FioHistErrorKind::Empty);
        assert!(matches!(read("h.log", b"\x00\x01").unwrap_err().kind, FioHistErrorKind::NotText(0)));
        assert!(sniff(good.as_bytes()));
        assert!(!sniff(b"1, 2, 3, 4, 5\n"));
    }
}
