//! fio `--output-format=json+` results (fio 3.x).
//!
//! A file may hold several JSON documents (one per fio invocation, appended), each with a
//! `jobs` array: one entry per job, or per group with `group_reporting`. Each job has a
//! `read`, `write` and `trim` object (and `sync`, `mixed` where fio writes them) with
//! `clat_ns`, `lat_ns` and `slat_ns` summaries; json+ adds `bins` to each summary fio computed
//! percentiles for: bucket name (see [`crate::precision::fio_buckets::name_of`]) to count.
//!
//! Each document becomes one window per direction and measure, as long as the longest job's
//! runtime, placed in time by the document's `timestamp_ms` (fio writes it when it reports, at
//! the end of the run). Jobs are merged per direction. Completion latency is the direction
//! itself (`read`); total latency and submission latency are auxiliary measures `read.lat`
//! and `read.slat`. fio's own summaries and printed percentiles are kept in the run metadata
//! under `fio`, and the run's precision is fio's buckets ([`crate::precision`]).

use serde_json::{Map, Value};

use crate::hist::{add_counts, Accumulator, Layout};
use crate::meta::{RunMeta, SourceFormat};
use crate::precision::fio_buckets::{index_of, Coarse};
use crate::precision::Precision;
use crate::run::{Run, Warning, Window};

/// Why a fio json+ file could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{source_name}: line {line}, column {column}: {kind}")]
pub struct FioJsonError {
    pub source_name: String,
    /// 1-based line of the problem (of the document's start for structural problems).
    pub line: usize,
    pub column: usize,
    pub kind: FioJsonErrorKind,
}

/// What was wrong. Each message says what was expected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FioJsonErrorKind {
    /// The JSON itself is broken (cut short, junk inside).
    #[error("invalid JSON ({0}); expected fio --output-format=json+ output")]
    Syntax(String),
    /// A document is JSON but not fio's.
    #[error("a JSON document without a \"jobs\" array; expected fio --output-format=json+ output")]
    NotFio,
    /// A field has the wrong type or value.
    #[error("job {job} {dir}.{measure}: {what}")]
    Field { job: usize, dir: String, measure: String, what: String },
    /// fio ran with `--output-format=json`: summaries but no bins, so no distribution.
    #[error("no latency bins in any job; run fio with --output-format=json+ (plain json has only fio's percentiles)")]
    NoBins,
    /// fio's `disk_util` list holds something other than its disks' objects.
    #[error("disk_util entry {entry}: {what}; expected fio's disk statistics (name, read_ios, ..., util)")]
    DiskUtil { entry: usize, what: String },
    /// Nothing but white space.
    #[error("the file is empty; expected fio --output-format=json+ output")]
    Empty,
    /// The documents hold more I/Os than a run may (2^63 - 1 in all).
    #[error("{}", .0.reason())]
    Counts(crate::run::CountError),
}

const DIRECTIONS: &[&str] = &["read", "write", "trim", "sync", "mixed"];
const MEASURES: &[(&str, &str)] = &[("clat_ns", ""), ("lat_ns", ".lat"), ("slat_ns", ".slat")];

/// Does this look like fio JSON output?
pub fn sniff(bytes: &[u8]) -> bool {
    let bytes = crate::bom::without_bom(bytes);
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]);
    head.contains("\"fio version\"") || (head.trim_start().starts_with('{') && head.contains("\"jobs\""))
}

/// One parsed document, before it is placed in a run.
#[derive(Debug)]
pub struct Doc {
    /// fio's report time, ms since the epoch, when given.
    pub timestamp_ms: Option<f64>,
    /// Longest runtime of any job and direction, in seconds.
    pub runtime_s: f64,
    /// (tag, histogram) per direction and measure, merged over jobs.
    pub hists: Vec<(String, crate::hist::Hist)>,
    /// fio's summaries, percentiles and options, for the metadata.
    pub meta: Value,
    /// 1-based line where the document starts.
    pub line: usize,
    /// fio's disk statistics of the run (`disk_util`, fio's HOWTO "Disk statistics").
    pub disk_util: Vec<crate::meta::DiskUtil>,
}

fn line_col(bytes: &[u8], offset: usize) -> (usize, usize) {
    let upto = &bytes[..offset.min(bytes.len())];
    let line = upto.iter().filter(|&&b| b == b'\n').count() + 1;
    let col = upto.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
    (line, col)
}

/// Parse every document of a json+ file.
pub fn read_docs(source_name: &str, bytes: &[u8]) -> Result<(Vec<Doc>, Vec<Warning>), FioJsonError> {
    let e = |line, column, kind| FioJsonError { source_name: source_name.to_string(), line, column, kind };
    let bytes = crate::bom::without_bom(bytes);
    let mut warnings = Vec::new();
    // fio prints notes ("note: both iodepth >= 1 and synchronous I/O engine ...") on stdout
    // before the JSON when --output is not used: skip text lines before the first `{`.
    let mut start = 0;
    let mut skipped = 0;
    while start < bytes.len() {
        let end = bytes[start..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |p| start + p + 1);
        let line = &bytes[start..end];
        let first = line.iter().find(|b| !b.is_ascii_whitespace());
        match first {
            Some(b'{') => break,
            None => {}
            Some(_) => skipped += 1,
        }
        start = end;
    }
    if start >= bytes.len() {
        return Err(if skipped == 0 { e(1, 1, FioJsonErrorKind::Empty) } else { e(1, 1, FioJsonErrorKind::NotFio) });
    }
    if skipped > 0 {
        warnings
            .push(Warning { line: Some(1), message: format!("skipped {skipped} line(s) of text before the JSON (fio's notes on stdout)") });
    }
    let body = &bytes[start..];
    let mut docs = Vec::new();
    let mut stream = serde_json::Deserializer::from_slice(body).into_iter::<Value>();
    loop {
        let at = start + stream.byte_offset();
        let doc_start = at + body[at - start..].iter().take_while(|b| b.is_ascii_whitespace()).count();
        match stream.next() {
            None => break,
            Some(Err(err)) => {
                // serde's position is relative to the slice it was given, which starts a line
                let (l0, _) = line_col(bytes, start);
                let (line, column) = (l0 + err.line().max(1) - 1, err.column().max(1));
                return Err(e(line, column, FioJsonErrorKind::Syntax(strip_position(&err.to_string()))));
            }
            Some(Ok(v)) => {
                let (line, _) = line_col(bytes, doc_start);
                docs.push(parse_doc(&v, line).map_err(|k| e(line, 1, k))?);
            }
        }
    }
    if docs.iter().all(|d| d.hists.is_empty()) {
        return Err(e(1, 1, FioJsonErrorKind::NoBins));
    }
    Ok((docs, warnings))
}

fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

fn field(job: usize, dir: &str, measure: &str, what: String) -> FioJsonErrorKind {
    FioJsonErrorKind::Field { job, dir: dir.to_string(), measure: measure.to_string(), what }
}

fn parse_doc(v: &Value, line: usize) -> Result<Doc, FioJsonErrorKind> {
    let jobs = v.get("jobs").and_then(Value::as_array).ok_or(FioJsonErrorKind::NotFio)?;
    let layout = Layout::default_ns();
    let mut accs: Vec<(String, Accumulator)> = Vec::new();
    let mut runtime_ms = 0.0_f64;
    let mut jobs_meta = Vec::new();
    for (ji, job) in jobs.iter().enumerate() {
        let jn = ji + 1;
        let mut dirs_meta = Map::new();
        for &dir in DIRECTIONS {
            let Some(d) = job.get(dir).and_then(Value::as_object) else { continue };
            let total_ios = d.get("total_ios").and_then(Value::as_u64);
            if let Some(rt) = d.get("runtime").and_then(Value::as_f64) {
                if total_ios.unwrap_or(1) > 0 {
                    runtime_ms = runtime_ms.max(rt);
                }
            }
            let mut dir_meta = Map::new();
            for key in ["total_ios", "io_bytes", "iops", "bw_bytes", "runtime", "short_ios", "drop_ios"] {
                if let Some(x) = d.get(key) {
                    dir_meta.insert(key.into(), x.clone());
                }
            }
            for &(measure, suffix) in MEASURES {
                let Some(m) = d.get(measure).and_then(Value::as_object) else { continue };
                let mut summary = m.clone();
                let bins = summary.remove("bins");
                let n = m.get("N").and_then(Value::as_u64).unwrap_or(0);
                if n > 0 || summary.contains_key("percentile") {
                    dir_meta.insert(measure.into(), Value::Object(summary));
                }
                let Some(bins) = bins else { continue };
                let bins = bins.as_object().ok_or_else(|| field(jn, dir, measure, "bins is not an object".into()))?;
                let tag = format!("{dir}{suffix}");
                let pos = match accs.iter().position(|(t, _)| *t == tag) {
                    Some(p) => p,
                    None => {
                        accs.push((tag, Accumulator::new(layout)));
                        accs.len() - 1
                    }
                };
                let mut sum = 0_u64;
                for (name, count) in bins {
                    let ns: u64 = name.parse().map_err(|_| field(jn, dir, measure, format!("bin name {name:?} is not a latency in ns")))?;
                    let c = count
                        .as_u64()
                        .ok_or_else(|| field(jn, dir, measure, format!("bin {name} has count {count}, expected a non-negative integer")))?;
                    // Record at the middle of fio's bucket (the name is that middle rounded
                    // down; recomputing keeps odd producers' names inside the bucket too).
                    // The jobs' bins are merged per direction: checked, so that a sum past
                    // what a run may hold is refused rather than saturated.
                    let too_many = |tag: &str| {
                        field(
                            jn,
                            dir,
                            measure,
                            format!(
                                "bin {name} has count {c}, which takes the I/Os of {tag} past 2^63-1 (9223372036854775807), \
                             the most an HdrHistogram log holds; expected at most that many I/Os"
                            ),
                        )
                    };
                    let (tag, acc) = &mut accs[pos];
                    sum = add_counts(sum, c).map_err(|_| too_many(tag))?;
                    acc.try_record_n(Coarse::column(index_of(ns), 0).representative(), c).map_err(|_| too_many(tag))?;
                }
                if n > 0 && sum != n {
                    return Err(field(jn, dir, measure, format!("bins hold {sum} I/Os but N is {n}")));
                }
            }
            if !dir_meta.is_empty() && total_ios != Some(0) {
                dirs_meta.insert(dir.into(), Value::Object(dir_meta));
            }
        }
        let mut jm = Map::new();
        for key in ["jobname", "groupid", "job options", "job_runtime", "elapsed", "error"] {
            if let Some(x) = job.get(key) {
                jm.insert(key.into(), x.clone());
            }
        }
        jm.insert("directions".into(), Value::Object(dirs_meta));
        jobs_meta.push(Value::Object(jm));
        if runtime_ms == 0.0 {
            if let Some(rt) = job.get("job_runtime").and_then(Value::as_f64) {
                runtime_ms = runtime_ms.max(rt);
            }
        }
    }
    let mut meta = Map::new();
    for key in ["fio version", "timestamp", "timestamp_ms", "time", "global options"] {
        if let Some(x) = v.get(key) {
            meta.insert(key.into(), x.clone());
        }
    }
    meta.insert("jobs".into(), Value::Array(jobs_meta));
    let disk_util = match v.get("disk_util") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, d)| {
                <crate::meta::DiskUtil as crate::meta::Field>::from_json(d.clone())
                    .map_err(|e| FioJsonErrorKind::DiskUtil { entry: i + 1, what: e.to_string() })
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(FioJsonErrorKind::DiskUtil { entry: 0, what: "not a list".into() }),
    };
    Ok(Doc {
        disk_util,
        timestamp_ms: v.get("timestamp_ms").and_then(Value::as_f64).or_else(|| v.get("timestamp").and_then(Value::as_f64).map(|s| s * 1e3)),
        runtime_s: runtime_ms / 1e3,
        hists: accs.into_iter().map(|(t, a)| (t, a.finish())).filter(|(_, h)| !h.is_empty()).collect(),
        meta: Value::Object(meta),
        line,
    })
}

/// Build a run from parsed documents: each document's windows end at its report time.
pub fn docs_to_run(source_name: &str, docs: Vec<Doc>, warnings: Vec<Warning>) -> Run {
    // Document spans in absolute time when every document has a timestamp, else one after
    // another from 0.
    let all_stamped = docs.iter().all(|d| d.timestamp_ms.is_some());
    let starts: Vec<f64> = if all_stamped {
        docs.iter().map(|d| d.timestamp_ms.unwrap_or(0.0) / 1e3 - d.runtime_s).collect()
    } else {
        docs.iter()
            .scan(0.0, |t, d| {
                let s = *t;
                *t += d.runtime_s;
                Some(s)
            })
            .collect()
    };
    let t0 = starts.iter().copied().reduce(f64::min).unwrap_or(0.0);
    let mut windows = Vec::new();
    let mut metas = Vec::new();
    let mut disk_util = Vec::new();
    for (d, s) in docs.into_iter().zip(&starts) {
        disk_util.extend(d.disk_util);
        for (tag, hist) in d.hists {
            windows.push(Window { start_s: s - t0, length_s: d.runtime_s, tag: Some(tag), hist });
        }
        metas.push(d.meta);
    }
    let meta = RunMeta {
        source_format: Some(SourceFormat::One("fio json+".into())),
        fio: metas,
        precision: Some(Precision::Fio { coarseness: 0 }),
        disk_util,
        ..RunMeta::default()
    };
    Run {
        name: crate::archive::stem(source_name),
        source: source_name.to_string(),
        start_time: if all_stamped { Some(t0) } else { None },
        meta,
        windows,
        warnings,
        context: Vec::new(),
    }
}

/// The checks of [`Run::checked`], with a count error placed at its document's line.
fn checked(source_name: &str, run: Run, doc_lines: &[usize]) -> Result<Run, FioJsonError> {
    run.checked().map_err(|e| {
        let line = doc_lines.get(e.window).copied().unwrap_or(1);
        FioJsonError { source_name: source_name.to_string(), line, column: 1, kind: FioJsonErrorKind::Counts(e) }
    })
}

/// The line of each window [`docs_to_run`] makes, in order.
fn window_lines(docs: &[Doc]) -> Vec<usize> {
    docs.iter().flat_map(|d| std::iter::repeat_n(d.line, d.hists.len())).collect()
}

/// Read a json+ file as one run.
pub fn read(source_name: &str, bytes: &[u8]) -> Result<Run, FioJsonError> {
    let (docs, warnings) = read_docs(source_name, bytes)?;
    let lines = window_lines(&docs);
    checked(source_name, docs_to_run(source_name, docs, warnings), &lines)
}

/// Read a json+ file as one run per document (for sweeps that append every step's output to
/// one file).
pub fn read_each(source_name: &str, bytes: &[u8]) -> Result<Vec<Run>, FioJsonError> {
    let (docs, warnings) = read_docs(source_name, bytes)?;
    let n = docs.len();
    docs.into_iter()
        .enumerate()
        .map(|(i, d)| {
            let lines = vec![d.line; d.hists.len()];
            let mut r = docs_to_run(source_name, vec![d], warnings.clone());
            if n > 1 {
                r.name = format!("{} #{}", r.name, i + 1);
            }
            checked(source_name, r, &lines)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{run_stats, Options};
    use serde_json::json;

    /// A json+ document shaped like fio 3.33's (trimmed), with known bins.
    fn doc(ts_ms: u64, read_bins: &[(u64, u64)], write_bins: &[(u64, u64)]) -> String {
        let bins = |b: &[(u64, u64)]| {
            let m: Map<String, Value> = b.iter().map(|(k, v)| (k.to_string(), json!(v))).collect();
            Value::Object(m)
        };
        let n = |b: &[(u64, u64)]| b.iter().map(|x| x.1).sum::<u64>();
        json!({
            "fio version": "fio-3.33", "timestamp": ts_ms / 1000, "timestamp_ms": ts_ms, "time": "x",
            "global options": {"bs": "4k"},
            "jobs": [{
                "jobname": "j", "groupid": 0, "error": 0, "job options": {"rw": "randrw", "numjobs": "2"},
                "read": {"total_ios": n(read_bins), "runtime": 1000, "iops": 1.0,
                         "clat_ns": {"min": 1, "max": 2, "mean": 1.0, "stddev": 0.0, "N": n(read_bins),
                                     "percentile": {"50.000000": 11072}, "bins": bins(read_bins)},
                         "lat_ns": {"min": 1, "max": 2, "mean": 1.0, "stddev": 0.0, "N": n(read_bins)},
                         "slat_ns": {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0}},
                "write": {"total_ios": n(write_bins), "runtime": 900,
                          "clat_ns": {"N": n(write_bins), "bins": bins(write_bins)}},
                "trim": {"total_ios": 0, "runtime": 0, "clat_ns": {"N": 0}}
            }]
        })
        .to_string()
    }

    #[test]
    fn reads_directions_and_keeps_fio_percentiles() {
        let text = doc(1_796_028_067_433, &[(604, 3), (11072, 5), (2_310_144, 2)], &[(7328, 4)]);
        let run = read("x.json", text.as_bytes()).unwrap();
        assert_eq!(run.windows.len(), 2);
        let s = run_stats(&run, &Options::default());
        assert_eq!(s.tags["read"].count, 10);
        assert_eq!(s.tags["write"].count, 4);
        assert_eq!(s.tags["all"].count, 14);
        assert_eq!(run.meta.fio[0]["jobs"][0]["directions"]["read"]["clat_ns"]["percentile"]["50.000000"], 11072);
        assert!(run.meta.fio[0]["jobs"][0]["directions"]["read"]["clat_ns"].get("bins").is_none());
        assert!((run.start_time.unwrap() - (1_796_028_067.433 - 1.0)).abs() < 1e-6);
        assert_eq!(run.meta.precision, Some(Precision::Fio { coarseness: 0 }));
    }

    #[test]
    fn clamp_bucket_levels_are_at_least() {
        // fio names its last bucket 17112760320 ns; it holds everything from ~17.05 s up
        let text = doc(10_000, &[(1000, 990), (17_112_760_320, 10)], &[]);
        let run = read("slow.json", text.as_bytes()).unwrap();
        let s = run_stats(&run, &Options::default());
        let p99 = s.tags["read"].levels.iter().find(|l| l.label == "p99.9").unwrap();
        assert!(p99.at_least);
        assert_eq!(p99.value_ns, Some(crate::precision::fio_buckets::CLAMP_LO_NS));
        let p50 = &s.tags["read"].levels[0];
        assert!(!p50.at_least);
        assert_eq!(p50.bucket_ns, Some((1000, 1007)));
        let text = crate::export::text::stats(&[s]);
        assert!(text.contains("at least 17.0s"), "{text}");
        let json = crate::export::json::stats(&[run_stats(&run, &Options::default())]);
        assert!(json.contains("\"at_least\": true"), "{json}");
    }

    #[test]
    fn huge_bins_are_exact_or_refused() {
        use crate::hist::MAX_COUNT;
        // bins of about 2^62 each: exact, and the mean stays within [min, max]
        let big = 1u64 << 62;
        let text = doc(10_000, &[(604, big), (11072, big - 6)], &[(7328, 5)]);
        let run = read("big.json", text.as_bytes()).unwrap();
        let s = run_stats(&run, &Options::default());
        let r = &s.tags["read"];
        assert_eq!(r.count, 2 * big - 6);
        assert!(r.min_ns as f64 <= r.mean_ns && r.mean_ns <= r.max_ns as f64, "{} not in [{}, {}]", r.mean_ns, r.min_ns, r.max_ns);
        assert_eq!(s.tags["all"].count, MAX_COUNT);
        let h = &run.windows[0].hist;
        assert!(h.min() as f64 <= h.mean() && h.mean() <= h.max() as f64);
        // bins past 2^63-1: refused, naming the bin (bins are read in the order of their names)
        let text = doc(10_000, &[(604, big), (11072, big)], &[]).replace(&format!("\"N\":{}", 2 * big), "\"N\":0");
        let e = read("huge.json", text.as_bytes()).unwrap_err();
        assert!(
            e.to_string().contains("job 1 read.clat_ns: bin 604 has count 4611686018427387904, which takes the I/Os of read past 2^63-1"),
            "{e}"
        );
        let text = doc(10_000, &[(604, MAX_COUNT + 1)], &[]);
        assert!(read("huge.json", text.as_bytes()).unwrap_err().to_string().contains("bin 604 has count 9223372036854775808"));
        // within each direction but not in all: the run's total is refused at the document
        let text = doc(10_000, &[(604, big - 1)], &[(7328, big)]) + "\n" + &doc(20_000, &[(604, 1)], &[]);
        let e = read("two.json", text.as_bytes()).unwrap_err();
        assert!(matches!(e.kind, FioJsonErrorKind::Counts(_)), "{e}");
        assert!(
            e.to_string().starts_with("two.json: line 2, column 1: window 3 (read starting at 10.000 s) takes the run's I/O count past"),
            "{e}"
        );
        assert_eq!(read_each("two.json", text.as_bytes()).unwrap().len(), 2);
    }

    #[test]
    fn a_byte_order_mark_is_skipped() {
        let text = doc(10_000, &[(604, 3)], &[]);
        let with = [crate::import::BOM, text.as_bytes()].concat();
        assert!(sniff(&with));
        assert_eq!(read("bom.json", &with).unwrap(), read("bom.json", text.as_bytes()).unwrap());
        assert_eq!(crate::import::read_any("bom.json", &with).unwrap().windows.len(), 1);
    }

    #[test]
    fn several_documents_with_notes_before() {
        let text = format!(
            "note: both iodepth >= 1 and synchronous I/O engine are selected\n{}\n{}\n",
            doc(10_000, &[(604, 1)], &[]),
            doc(20_000, &[(604, 2)], &[])
        );
        let run = read("x.json", text.as_bytes()).unwrap();
        assert_eq!(run.windows.len(), 2);
        assert_eq!(run.windows[1].start_s - run.windows[0].start_s, 10.0);
        assert_eq!(run.warnings.len(), 1);
        assert_eq!(read_each("x.json", text.as_bytes()).unwrap().len(), 2);
    }

    #[test]
    fn errors_name_line_and_cause() {
        let text = doc(10_000, &[(604, 1)], &[]);
        let cut = format!("\n\n{}", &text[..text.len() / 2]);
        let e = read("cut.json", cut.as_bytes()).unwrap_err();
        assert!(matches!(e.kind, FioJsonErrorKind::Syntax(_)), "{e}");
        assert!(e.to_string().starts_with("cut.json: line 3"), "{e}");
        let e = read("e.json", b"  \n").unwrap_err();
        assert_eq!(e.kind, FioJsonErrorKind::Empty);
        let e = read("o.json", br#"{"a": 1}"#).unwrap_err();
        assert_eq!(e.kind, FioJsonErrorKind::NotFio);
        let plain = text.replace("\"bins\"", "\"nobins\"");
        assert_eq!(read("p.json", plain.as_bytes()).unwrap_err().kind, FioJsonErrorKind::NoBins);
        let bad = text.replace("\"604\"", "\"x604\"");
        let e = read("b.json", bad.as_bytes()).unwrap_err();
        assert!(e.to_string().contains("job 1 read.clat_ns: bin name \"x604\""), "{e}");
    }

    #[test]
    fn disk_util_is_kept_and_a_bad_one_is_an_error() {
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/fio-randrw.json")).unwrap();
        let run = read("r.json", text.as_bytes()).unwrap();
        let d = &run.meta.disk_util;
        assert_eq!(d.len(), 1);
        assert_eq!(
            (d[0].name.as_str(), d[0].read_ios, d[0].read_ticks, d[0].in_queue, d[0].util),
            ("vda", Some(527), Some(23), Some(23), Some(1.649485))
        );
        // kept through the archive
        let back = crate::archive::read("a.hlog", &crate::archive::write(Vec::new(), &run).unwrap()).unwrap();
        assert_eq!(back.meta.disk_util, run.meta.disk_util);
        let bad = text.replace("\"read_ios\" : 527", "\"read_ios\" : \"many\"");
        let e = read("r.json", bad.as_bytes()).unwrap_err().to_string();
        assert!(e.contains("disk_util entry 1: 'read_ios'"), "{e}");
    }
}
