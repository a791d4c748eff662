//! A run's metadata: the object of an archive's `#[nines {...}]` lines, typed.
//!
//! The collector writes it (what ran, on what, how it ended), the importers write theirs (the
//! source format, fio's own JSON documents, the stated precision), and the core, the reports
//! and the viewer read it. Every key nines knows has a typed field; any other key (written by a
//! newer nines, or added by hand) is kept in `other` and written back unchanged, so reading
//! and rewriting an archive never drops metadata. A known key holding the wrong kind of value
//! is an error naming the key (see [`RunMeta::from_map`]), not a silently ignored value.
//!
//! Keys are listed in the README's "Metadata" section. A run's metadata can come in several
//! lines (the collector appends its end summary when the run ends): later lines replace the
//! earlier lines' keys, key by key at the top level.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::precision::Precision;

/// The metadata of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RunMeta {
    /// Version of nines' metadata layout (1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<u64>,
    /// The run's name (`nines run --name`, else the archive's file stem).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Free text about the run (`nines run --notes`), Markdown in reports.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// The program that wrote the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<Tool>,
    /// When the first recorded window began (RFC 3339, UTC).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    /// What the collector ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workload: Option<Workload>,
    /// What it ran on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<Target>,
    /// The machine it ran on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<Host>,
    /// The I/O engine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub engine: Option<Engine>,
    /// How windows were cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<WindowRule>,
    /// Unit of the recorded values (`ns`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub units: Option<String>,
    /// What each tag holds, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tags: Option<String>,
    /// How the run ended (appended by the collector when it ends).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<Summary>,
    /// The steady-state outcome of a `nines run --steady` run (appended with the summary).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steady: Option<SteadyMeta>,
    /// The format an imported run came from (`fio json+`, ...; several for a merge).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_format: Option<SourceFormat>,
    /// The files a merged import came from.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<String>,
    /// fio's own JSON documents of an imported run, as fio wrote them (fio's format, not ours:
    /// kept as JSON values).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fio: Vec<Value>,
    /// fio histogram log import: the log's bucket coarseness.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fio_hist_log: Option<FioHistLog>,
    /// fio latency log import.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fio_lat_log: Option<FioLatLog>,
    /// Latency list import.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list: Option<ListImport>,
    /// Percentile spectrum import.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spectrum: Option<SpectrumImport>,
    /// How precise the values are when the source was coarser than the histograms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub precision: Option<Precision>,
    /// Sweep labels (`nines import --sweep`): parameter name to value.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub param: Map<String, Value>,
    /// Every other key, kept as it was.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// The program that wrote a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Tool {
    pub name: String,
    pub version: String,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A block size as runs state it: bytes, or a size in words (`4k`, `4KiB/70:64KiB/30`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Size {
    Bytes(u64),
    Text(String),
}

/// What the collector ran (`nines run`'s flags, resolved).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Workload {
    /// `read`, `randread`, `randrw`, `trim`, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rw: Option<String>,
    /// Share of reads in a mix, in percent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_pct: Option<u32>,
    /// The directions recorded (`read`, `write`, `trim`, `sync`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub directions: Vec<String>,
    /// The block size, or the split (`4KiB/70:64KiB/30`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bs: Option<Size>,
    /// The split as `[bytes, percent]` pairs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bs_bytes: Vec<(u64, u32)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qd: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jobs: Option<u32>,
    /// I/Os submitted per `io_uring_enter`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub submit_batch: Option<u32>,
    /// Bytes of the target the I/Os fall in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime_s: Option<f64>,
    /// I/O count limit (`--ios`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ios: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ramp_s: Option<f64>,
    /// O_DIRECT.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub direct: Option<bool>,
    /// O_SYNC/O_DSYNC writes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sync: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fsync_every: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate_iops_per_job: Option<f64>,
    /// Arrival process of a rate-limited run (`uniform`, `poisson`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arrival: Option<String>,
    /// Where latency is measured from (submission, or the due time of a rate-limited I/O).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_from: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Latencies were recorded (`false` for `--no-record`, which measures the engine alone).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded: Option<bool>,
    /// The steady-state stop rule (`--steady`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steady: Option<SteadyRule>,
    /// Other keys (`block_size`, `bs_write`, ... from other writers), kept as they were.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// `nines run --steady`: the criterion and its rolling window.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SteadyRule {
    pub criterion: String,
    pub window_s: f64,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// What a run measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Target {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// `file`, `block`, `none (null engine)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region_bytes: Option<u64>,
    /// The file was created by this run (and marked as nines' own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_by_nines: Option<bool>,
    /// The mark (an extended attribute) could be set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub marked: Option<bool>,
    /// The file's region was filled by this run before it began.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub laid_out_now: Option<bool>,
    /// A file system signature the run wrote over (`--destroy-data`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overwritten_signature: Option<String>,
    /// The block device under a file (name, model, vendor, ... as sysfs names them); a
    /// block device target has these facts at the top level of `target`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<Map<String, Value>>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// The machine a run ran on.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Host {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hostname: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub os: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpus: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_bytes: Option<u64>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// The I/O engine a run used.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Engine {
    /// The engine asked for (`--engine`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requested: Option<String>,
    /// The engine that ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Why the engine that ran is not the one asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback_reason: Option<String>,
    /// `--qd` when the engine ran one I/O at a time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qd_requested: Option<u32>,
    /// How trims were issued.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trim: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub registered_files: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub registered_buffers: Option<bool>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// How windows were cut: `{"by": "time", "length_s": 1}` or `{"by": "ios", "ios": 10000}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WindowRule {
    pub by: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub length_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ios: Option<u64>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// How a collection ended.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Summary {
    /// When the last window ended (RFC 3339, UTC).
    pub end: String,
    pub duration_s: f64,
    pub windows: u64,
    /// I/Os per tag.
    pub ios: BTreeMap<String, u64>,
    /// Bytes per direction.
    pub bytes: BTreeMap<String, u64>,
    /// `runtime`, `ios`, `steady`, `SIGINT`, `error`, ...
    pub stopped_by: String,
    /// Errors that ended the run.
    pub errors: Vec<String>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// The steady-state outcome of a run, as stored.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SteadyMeta {
    pub criterion: String,
    pub reached: bool,
    /// Reached: where the steady window ended, its windows, mean, measure and criterion value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub windows: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean: Option<f64>,
    /// The measure's value over the steady window (IOPS, or a latency in ns).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measure: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub criterion_value: Option<f64>,
    /// Not reached: how many windows were checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub windows_checked: Option<u64>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// The source format of an imported run: one, or several for a merge of different formats.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SourceFormat {
    One(String),
    Many(Vec<String>),
}

impl SourceFormat {
    /// The formats, in order.
    pub fn names(&self) -> Vec<&str> {
        match self {
            SourceFormat::One(s) => vec![s.as_str()],
            SourceFormat::Many(v) => v.iter().map(String::as_str).collect(),
        }
    }
}

/// A fio histogram log import.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FioHistLog {
    /// fio's `log_hist_coarseness`: 2^c of fio's buckets summed per logged bucket.
    pub coarseness: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A fio latency log import.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FioLatLog {
    pub samples: u64,
    pub window_ms: f64,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A latency list import.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ListImport {
    /// Unit of the values (`ns`, `us`, `ms`, `s`).
    pub unit: String,
    pub values: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window_s: Option<f64>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// A percentile spectrum import.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SpectrumImport {
    /// Unit of the printed values.
    pub unit: String,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl RunMeta {
    /// Read metadata from a JSON object. A key nines knows that holds the wrong kind of value
    /// is an error naming it ("metadata key 'workload': invalid type: string, expected ...").
    pub fn from_map(map: Map<String, Value>) -> Result<RunMeta, String> {
        // Typed one key at a time, so the error names the key (serde's own error for a
        // flattened struct does not).
        for (k, v) in &map {
            if let Err(e) = Self::check_key(k, v) {
                return Err(format!("metadata key '{k}': {e}"));
            }
        }
        serde_json::from_value(Value::Object(map)).map_err(|e| e.to_string())
    }

    fn check_key(key: &str, v: &Value) -> Result<(), serde_json::Error> {
        let mut one = Map::new();
        one.insert(key.to_string(), v.clone());
        serde_json::from_value::<RunMeta>(Value::Object(one)).map(|_| ())
    }

    /// The metadata as a JSON object (known keys first, then the others).
    pub fn to_map(&self) -> Map<String, Value> {
        match serde_json::to_value(self) {
            Ok(Value::Object(m)) => m,
            // a struct of strings, numbers and JSON values always serialises to an object
            _ => Map::new(),
        }
    }

    /// Nothing is stated.
    pub fn is_empty(&self) -> bool {
        self == &RunMeta::default()
    }

    /// Replace this metadata's keys by the ones `later` states (a later metadata line).
    pub fn merge(&mut self, later: RunMeta) {
        let mut map = self.to_map();
        map.extend(later.to_map());
        // both sides were typed, so their union is too
        if let Ok(m) = RunMeta::from_map(map) {
            *self = m;
        }
    }

    /// A workload key by name, as JSON (typed keys and others alike), for sweeps and labels.
    pub fn workload_value(&self, key: &str) -> Option<Value> {
        let w = self.workload.as_ref()?;
        match serde_json::to_value(w).ok()? {
            Value::Object(mut m) => m.remove(key),
            _ => None,
        }
    }

    /// The source formats of an imported run.
    pub fn source_formats(&self) -> Vec<&str> {
        self.source_format.as_ref().map(SourceFormat::names).unwrap_or_default()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    /// Metadata from a JSON object literal, for tests.
    pub(crate) fn meta(v: Value) -> RunMeta {
        let Value::Object(m) = v else { panic!("metadata is an object") };
        RunMeta::from_map(m).unwrap()
    }

    #[test]
    fn unknown_keys_survive_a_round_trip_next_to_typed_ones() {
        let src = json!({
            "version": 1, "name": "probe", "made_up": {"a": [1, 2]},
            "workload": {"rw": "randread", "bs": "4KiB", "qd": 32, "block_size": 4096},
            "target": {"kind": "file", "path": "/x", "created_by_nines": true},
        });
        let Value::Object(map) = src.clone() else { unreachable!() };
        let meta = RunMeta::from_map(map).unwrap();
        assert_eq!(meta.name.as_deref(), Some("probe"));
        assert_eq!(meta.workload.as_ref().unwrap().qd, Some(32));
        assert_eq!(meta.workload.as_ref().unwrap().bs, Some(Size::Text("4KiB".into())));
        assert_eq!(meta.other["made_up"], json!({"a": [1, 2]}));
        assert_eq!(meta.workload_value("block_size"), Some(json!(4096)));
        assert_eq!(Value::Object(meta.to_map()), src);
    }

    #[test]
    fn a_known_key_of_the_wrong_kind_is_an_error_naming_it() {
        let Value::Object(map) = json!({"name": "x", "workload": {"qd": "deep"}}) else { unreachable!() };
        let e = RunMeta::from_map(map).unwrap_err();
        assert!(e.starts_with("metadata key 'workload': "), "{e}");
        assert!(e.contains("invalid type: string \"deep\""), "{e}");
        let Value::Object(map) = json!({"summary": {"windows": -1}}) else { unreachable!() };
        assert!(RunMeta::from_map(map).unwrap_err().starts_with("metadata key 'summary': "));
    }

    #[test]
    fn a_later_line_replaces_keys_at_the_top_level() {
        let Value::Object(a) = json!({"name": "a", "engine": {"name": "io_uring"}, "x": 1}) else { unreachable!() };
        let Value::Object(b) = json!({"engine": {"name": "psync", "registered_files": true}}) else { unreachable!() };
        let mut m = RunMeta::from_map(a).unwrap();
        m.merge(RunMeta::from_map(b).unwrap());
        assert_eq!(m.name.as_deref(), Some("a"));
        let e = m.engine.unwrap();
        assert_eq!((e.name.as_deref(), e.registered_files), (Some("psync"), Some(true)));
        assert_eq!(m.other["x"], json!(1));
    }
}
