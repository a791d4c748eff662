//! Percentile spectra: HdrHistogram's `outputPercentileDistribution` text, as wrk2 prints it
//! ("Detailed Percentile spectrum") and as `.hgrm` files from Java's HistogramLogProcessor or
//! Python hdrh are written:
//!
//! ```text
//!        Value   Percentile   TotalCount 1/(1-Percentile)
//!
//!        0.921     0.000000            1         1.00
//!        1.117     0.100000          100         1.11
//!       12.345     1.000000         1000
//! #[Mean    =        2.081, StdDeviation   =        1.153]
//! #[Max     =       12.345, Total count    =         1000]
//! ```
//!
//! A row says how many values lie at or below its value (`TotalCount`), so the values counted
//! between two rows lie between the two rows' values: the histogram is rebuilt from those
//! steps, each recorded at its row's value, and every level read from it is stated as its
//! step ([`crate::precision::Precision::Steps`]). Values are in the unit the writer scaled
//! them to (wrk2: milliseconds); the caller says which, milliseconds if not told. A file with
//! several spectra (wrk2 `--u_latency` adds the uncorrected latency) is read for its first,
//! with a warning: one run states one precision, and each spectrum has its own steps.

use super::list::Unit;
use crate::hist::{Accumulator, Layout, MAX_COUNT};
use crate::meta::{RunMeta, SourceFormat, SpectrumImport};
use crate::precision::Precision;
use crate::run::{Run, Warning, Window};

/// Why a percentile spectrum could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{source_name}: line {line}: {kind}")]
pub struct SpectrumError {
    pub source_name: String,
    pub line: usize,
    pub kind: SpectrumErrorKind,
}

/// What was wrong. Each message says what was expected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SpectrumErrorKind {
    #[error("not UTF-8 text; expected a percentile spectrum (Value, Percentile, TotalCount rows)")]
    NotText,
    #[error("{0}; expected rows `value percentile total_count [1/(1-percentile)]`")]
    Row(String),
    #[error("total count goes down from {before} to {after}; expected cumulative counts")]
    NotCumulative { before: u64, after: u64 },
    #[error("the rows count {rows} values but the footer says {footer}")]
    Total { rows: u64, footer: u64 },
    #[error("no spectrum rows after the `Value Percentile TotalCount` header")]
    Empty,
    /// A total count beyond what a run may hold.
    #[error(
        "total count {0} is more than 2^63-1 (9223372036854775807), the most an HdrHistogram log holds; expected at most that many values"
    )]
    Count(String),
    /// More values than a run may hold.
    #[error("{}", .0.reason())]
    Counts(crate::run::CountError),
}

fn is_header(line: &str) -> bool {
    let l = line.trim();
    l.starts_with("Value") && l.contains("Percentile") && l.contains("TotalCount")
}

/// Does this look like a percentile spectrum?
pub fn sniff(bytes: &[u8]) -> bool {
    let bytes = crate::bom::without_bom(bytes);
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(16384)]);
    head.lines().any(is_header)
}

/// Read every spectrum in the text; values in `unit` (milliseconds when `None`).
pub fn read(source_name: &str, bytes: &[u8], unit: Option<Unit>) -> Result<Run, SpectrumError> {
    let e = |line, kind| SpectrumError { source_name: source_name.to_string(), line, kind };
    let bytes = crate::bom::without_bom(bytes);
    let text = std::str::from_utf8(bytes).map_err(|err| {
        let line = bytes[..err.valid_up_to()].iter().filter(|&&b| b == b'\n').count() + 1;
        e(line, SpectrumErrorKind::NotText)
    })?;
    let scale = unit.unwrap_or(Unit::Ms).ns();
    let layout = Layout::default_ns();
    let mut spectra: Vec<(Accumulator, Vec<u64>, u64)> = Vec::new(); // (hist, edges, resolution)
    let mut in_rows = false;
    let mut last_total = 0_u64;
    let mut header_line = 0;
    for (i, raw) in text.lines().enumerate() {
        let lineno = i + 1;
        let line = raw.trim();
        if is_header(line) {
            spectra.push((Accumulator::new(layout), Vec::new(), 0));
            in_rows = true;
            last_total = 0;
            header_line = lineno;
            continue;
        }
        if !in_rows {
            continue;
        }
        if line.is_empty() && spectra.last().is_some_and(|s| s.1.is_empty()) {
            continue; // the blank line after the header
        }
        if let Some(footer) = line.strip_prefix("#[Max") {
            // `#[Max = 12.345, Total count = 1000]` (Java, wrk2) or `TotalCount =` (Python)
            // an integer is compared exactly (a float has 53 bits); Python may print `1000.0`
            let text = footer.rsplit('=').next().map_or("", |t| t.trim().trim_end_matches(']').trim());
            let total =
                text.parse::<u64>().ok().or_else(|| text.parse::<f64>().ok().filter(|t| t.is_finite() && *t >= 0.0).map(|t| t as u64));
            if let Some(t) = total {
                if t != last_total {
                    return Err(e(lineno, SpectrumErrorKind::Total { rows: last_total, footer: t }));
                }
            }
            continue;
        }
        if line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split_whitespace().collect();
        // A row's total count bounds every count of its spectrum (they are cumulative), so
        // one check here keeps the spectrum within what a run may hold.
        if (cols.len() == 3 || cols.len() == 4)
            && !cols[2].is_empty()
            && cols[2].bytes().all(|b| b.is_ascii_digit())
            && cols[2].parse::<u64>().map_or(true, |t| t > MAX_COUNT)
        {
            return Err(e(lineno, SpectrumErrorKind::Count(cols[2].chars().take(40).collect())));
        }
        let row = (cols.len() == 3 || cols.len() == 4)
            .then(|| Some((cols[0].parse::<f64>().ok()?, cols[1].parse::<f64>().ok()?, cols[2].parse::<u64>().ok()?)))
            .flatten();
        let Some((value, pct, total)) = row else {
            // the spectrum ends at the first line that is not a row (wrk2 prints more after)
            if spectra.last().is_some_and(|s| s.1.is_empty()) {
                return Err(e(
                    lineno,
                    SpectrumErrorKind::Row(format!("{:?} is not a spectrum row", line.chars().take(60).collect::<String>())),
                ));
            }
            in_rows = false;
            continue;
        };
        if !(value.is_finite() && value >= 0.0 && (0.0..=1.0).contains(&pct)) || value * scale > 1e18 {
            return Err(e(lineno, SpectrumErrorKind::Row(format!("value {} or percentile {} out of range", cols[0], cols[1]))));
        }
        if total < last_total {
            return Err(e(lineno, SpectrumErrorKind::NotCumulative { before: last_total, after: total }));
        }
        let ns = (value * scale).round() as u64;
        let decimals = cols[0].split_once('.').map_or(0, |(_, d)| d.len()) as i32;
        let res = (0.5 * scale * 10f64.powi(-decimals)).ceil() as u64;
        let s = spectra.last_mut().expect("rows follow a header");
        if s.1.last().is_some_and(|&prev| ns < prev) {
            return Err(e(lineno, SpectrumErrorKind::Row(format!("value {} is below the row before it", cols[0]))));
        }
        s.0.record_n(ns, total - last_total);
        if s.1.last() != Some(&ns) {
            s.1.push(ns);
        }
        s.2 = s.2.max(res);
        last_total = total;
    }
    if spectra.is_empty() || spectra.iter().all(|s| s.1.is_empty()) {
        return Err(e(header_line.max(1), SpectrumErrorKind::Empty));
    }
    // A run states one precision, and the steps of one spectrum are not those of another:
    // only the first spectrum (wrk2's corrected latency) is read.
    let extra = spectra.len() - 1;
    let (acc, edges, res) = spectra.swap_remove(0);
    let windows = vec![Window { start_s: 0.0, length_s: 0.0, tag: None, hist: acc.finish() }];
    let meta = RunMeta {
        source_format: Some(SourceFormat::One("percentile spectrum".into())),
        precision: Some(Precision::Steps { edges_ns: edges, res_ns: res }),
        spectrum: Some(SpectrumImport { unit: unit.unwrap_or(Unit::Ms).name().into(), ..SpectrumImport::default() }),
        ..RunMeta::default()
    };
    let mut warnings = Vec::new();
    if extra > 0 {
        warnings.push(Warning { line: None, message: format!("{extra} more spectrum(s) after the first (wrk2 --u_latency's uncorrected latency) were not read; save each spectrum to its own file to import it") });
    }
    if unit.is_none() {
        warnings.push(Warning {
            line: None,
            message: "no unit given for the spectrum: read as milliseconds (wrk2's unit); give the unit (nines import --unit us)".into(),
        });
    }
    warnings.push(Warning { line: None, message: "a percentile spectrum has no times: IOPS and the runtime view are not known".into() });
    let (name, source) = (crate::archive::stem(source_name), source_name.to_string());
    let run = Run { name, source, meta, windows, warnings, ..Run::default() };
    // one window of at most MAX_COUNT values (checked above): this cannot fail
    run.checked().map_err(|c| e(header_line.max(1), SpectrumErrorKind::Counts(c)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quantile::{standard_levels, value_at};
    use crate::stats::{run_stats, Options};

    const WRK2: &str = "Running 30s test @ http://127.0.0.1:80/
  2 threads and 100 connections
  Latency Distribution (HdrHistogram - Recorded Latency)
 50.000%    1.05ms
  Detailed Percentile spectrum:
       Value   Percentile   TotalCount 1/(1-Percentile)

       0.500     0.000000            1         1.00
       1.000     0.500000          500         2.00
       2.000     0.900000          900        10.00
       5.000     0.990000          990       100.00
      12.345     1.000000         1000          inf
#[Mean    =        1.081, StdDeviation   =        1.153]
#[Max     =       12.345, Total count    =         1000]
#[Buckets =           27, SubBuckets     =         2048]
----------------------------------------------------------
  30000 requests in 30.00s, 10.00MB read
";

    #[test]
    fn wrk2_output_levels_are_steps() {
        let run = read("wrk2.txt", WRK2.as_bytes(), None).unwrap();
        assert_eq!(run.windows.len(), 1);
        assert_eq!(run.windows[0].hist.count(), 1000);
        let s = run_stats(&run, &Options::default());
        let p90 = s.tags["all"].levels.iter().find(|l| l.label == "p90").unwrap();
        // rank 900 is counted by the 2.000 ms row: between 1.000 and 2.000 ms, +- 0.5 us
        assert_eq!(p90.bucket_ns, Some((999_500, 2_000_500)));
        assert_eq!(p90.value_ns, Some(2_000_500));
        let p99 = s.tags["all"].levels.iter().find(|l| l.label == "p99").unwrap();
        assert_eq!(p99.bucket_ns, Some((1_999_500, 5_000_500)));
        assert_eq!(run.warnings.len(), 2);
        let l = Layout::default_ns();
        assert_eq!(value_at(&run.windows[0].hist, &standard_levels()[0]), Some(l.highest_equivalent(1_000_000)));
    }

    #[test]
    fn total_counts_beyond_the_limit_are_errors() {
        let text = WRK2.replace("12.345     1.000000         1000", "12.345     1.000000  9223372036854775808");
        let e = read("big.hgrm", text.as_bytes(), None).unwrap_err();
        assert_eq!(e.line, 12);
        assert_eq!(e.kind, SpectrumErrorKind::Count("9223372036854775808".into()));
        assert!(e.to_string().starts_with("big.hgrm: line 12: total count 9223372036854775808 is more than 2^63-1"), "{e}");
        let text = WRK2.replace("12.345     1.000000         1000", "12.345     1.000000  99999999999999999999999");
        assert!(matches!(read("big.hgrm", text.as_bytes(), None).unwrap_err().kind, SpectrumErrorKind::Count(_)));
        // 2^63-1 itself is read exactly
        let text = WRK2
            .replace("12.345     1.000000         1000", "12.345     1.000000  9223372036854775807")
            .replace("Total count    =         1000", "Total count    =  9223372036854775807");
        let run = read("max.hgrm", text.as_bytes(), None).unwrap();
        assert_eq!(run.windows[0].hist.count(), MAX_COUNT);
    }

    #[test]
    fn a_byte_order_mark_is_skipped() {
        let with = [crate::import::BOM, WRK2.as_bytes()].concat();
        assert!(sniff(&with));
        assert_eq!(read("bom.hgrm", &with, None).unwrap(), read("bom.hgrm", WRK2.as_bytes(), None).unwrap());
        let hgrm = "       Value   Percentile   TotalCount 1/(1-Percentile)\n\n       1.000     1.000000            5          inf\n";
        let with = [crate::import::BOM, hgrm.as_bytes()].concat();
        assert_eq!(crate::import::read_any("bom.hgrm", &with).unwrap().windows[0].hist.count(), 5);
    }

    #[test]
    fn errors() {
        let e = read("x.hgrm", WRK2.replace("900        10.00", "400        10.00").as_bytes(), None).unwrap_err();
        assert!(matches!(e.kind, SpectrumErrorKind::NotCumulative { .. }), "{e}");
        assert_eq!(e.line, 10);
        let e =
            read("x.hgrm", WRK2.replace("Total count    =         1000", "Total count    =         1001").as_bytes(), None).unwrap_err();
        assert!(matches!(e.kind, SpectrumErrorKind::Total { rows: 1000, footer: 1001 }), "{e}");
        let e = read("x.hgrm", b"       Value   Percentile   TotalCount 1/(1-Percentile)\n\nfoo bar\n", None).unwrap_err();
        assert_eq!(e.line, 3);
        assert!(sniff(WRK2.as_bytes()));
    }
}
