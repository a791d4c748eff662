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

use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::precision::Precision;

/// A metadata object: the typed fields, and `other` for every key not listed. Its JSON form is
/// an object with a key per field (named as the field; an absent, empty or `None` field is
/// left out) and the other keys after them.
///
/// Written by hand rather than derived with serde: `#[serde(flatten)]` buffers every object
/// through serde's generic `Content` type, and serde's conversions from `serde_json::Value`
/// are one copy of generic code per field type; the derived version made the viewer's wasm
/// 17 KB (gzipped) larger than this one. Each field type here is a [`Field`] of a few lines.
macro_rules! meta_struct {
    ($(#[$m:meta])* pub struct $name:ident { $( $(#[$fm:meta])* pub $field:ident : $ty:ty, )* }) => {
        $(#[$m])*
        #[derive(Clone, Default, PartialEq)]
        pub struct $name {
            $( $(#[$fm])* pub $field: $ty, )*
            /// Every other key, kept as it was.
            pub other: Map<String, Value>,
        }

        impl $name {
            /// From a JSON object; a listed key of the wrong kind is an error naming it.
            pub fn from_object(mut m: Map<String, Value>) -> Result<$name, MetaError> {
                // field by field into a default (one drop on an error, not one per field)
                let mut x = $name::default();
                $( x.$field = take(&mut m, stringify!($field))?; )*
                x.other = m;
                Ok(x)
            }

            /// The JSON object (listed keys first, then the others).
            pub fn to_object(&self) -> Map<String, Value> {
                let mut m = Map::new();
                $( put(&mut m, stringify!($field), &self.$field); )*
                for (k, v) in &self.other {
                    m.entry(k.clone()).or_insert_with(|| v.clone());
                }
                m
            }
        }

        /// As its JSON object (one formatter for every metadata struct, not one per field).
        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Debug::fmt(&self.to_object(), f)
            }
        }

        impl Field for $name {
            fn from_json(v: Value) -> Result<$name, MetaError> {
                $name::from_object(Map::from_json(v)?)
            }
            fn to_json(&self) -> Value {
                Value::Object(self.to_object())
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                self.to_object().serialize(s)
            }
        }
    };
}

/// A field's value from its key (its default when absent), the key taken out of the map.
/// (Not inlined: one copy per field type, called from every struct, keeps the wasm small.)
#[inline(never)]
fn take<T: Field + Default>(m: &mut Map<String, Value>, key: &str) -> Result<T, MetaError> {
    match m.remove(key) {
        None => Ok(T::default()),
        Some(v) => T::from_json(v).map_err(|e| MetaError(format!("'{key}': {e}"))),
    }
}

/// Put a field under its key, unless it states nothing.
#[inline(never)]
fn put<T: Field>(m: &mut Map<String, Value>, key: &str, v: &T) {
    if v.stated() {
        m.insert(key.to_string(), v.to_json());
    }
}

/// A value a metadata field can hold, to and from JSON. (serde's generic conversions through
/// `serde_json::Value` cost the wasm a copy per type; these are a few lines each.)
pub trait Field: Sized {
    fn from_json(v: Value) -> Result<Self, MetaError>;
    fn to_json(&self) -> Value;
    /// Whether the field states something (is written).
    fn stated(&self) -> bool {
        true
    }
}

/// Why metadata could not be read, in words: what is wrong, after the keys and list items
/// it is under ("metadata key 'workload': 'qd': invalid type: string \"deep\", expected a
/// whole number >= 0").
///
/// A message rather than an enum of kinds and places: the viewer's page reads metadata, and
/// such an enum (boxed, cloned, compared) made the page's wasm 0.8 KB larger gzipped
/// (measured before wasm-opt), where the page is within a few hundred bytes of its budget
/// (BENCHMARKS.md).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct MetaError(pub String);

fn expected(what: &str, v: &Value) -> MetaError {
    let got = match v {
        Value::Null => "null".to_string(),
        Value::Bool(b) => format!("boolean `{b}`"),
        Value::Number(n) => format!("number {n}"),
        Value::String(s) => format!("string {s:?}"),
        Value::Array(_) => "a list".to_string(),
        Value::Object(_) => "an object".to_string(),
    };
    MetaError(format!("invalid type: {got}, expected {what}"))
}

impl Field for String {
    fn from_json(v: Value) -> Result<Self, MetaError> {
        match v {
            Value::String(s) => Ok(s),
            v => Err(expected("a string", &v)),
        }
    }
    fn to_json(&self) -> Value {
        Value::String(self.clone())
    }
}

impl Field for bool {
    fn from_json(v: Value) -> Result<Self, MetaError> {
        v.as_bool().ok_or_else(|| expected("a boolean", &v))
    }
    fn to_json(&self) -> Value {
        Value::Bool(*self)
    }
}

impl Field for u64 {
    fn from_json(v: Value) -> Result<Self, MetaError> {
        v.as_u64().ok_or_else(|| expected("a whole number >= 0", &v))
    }
    fn to_json(&self) -> Value {
        Value::from(*self)
    }
}

impl Field for u32 {
    fn from_json(v: Value) -> Result<Self, MetaError> {
        v.as_u64().and_then(|n| u32::try_from(n).ok()).ok_or_else(|| expected("a whole number from 0 to 2^32-1", &v))
    }
    fn to_json(&self) -> Value {
        Value::from(*self)
    }
}

impl Field for u8 {
    fn from_json(v: Value) -> Result<Self, MetaError> {
        v.as_u64().and_then(|n| u8::try_from(n).ok()).ok_or_else(|| expected("a whole number from 0 to 255", &v))
    }
    fn to_json(&self) -> Value {
        Value::from(*self)
    }
}

impl Field for f64 {
    fn from_json(v: Value) -> Result<Self, MetaError> {
        v.as_f64().ok_or_else(|| expected("a number", &v))
    }
    fn to_json(&self) -> Value {
        Value::from(*self)
    }
}

impl Field for Value {
    fn from_json(v: Value) -> Result<Self, MetaError> {
        Ok(v)
    }
    fn to_json(&self) -> Value {
        self.clone()
    }
}

impl Field for Map<String, Value> {
    fn from_json(v: Value) -> Result<Self, MetaError> {
        match v {
            Value::Object(m) => Ok(m),
            v => Err(expected("an object", &v)),
        }
    }
    fn to_json(&self) -> Value {
        Value::Object(self.clone())
    }
    fn stated(&self) -> bool {
        !self.is_empty()
    }
}

impl<T: Field> Field for Option<T> {
    fn from_json(v: Value) -> Result<Self, MetaError> {
        match v {
            Value::Null => Ok(None),
            v => T::from_json(v).map(Some),
        }
    }
    fn to_json(&self) -> Value {
        self.as_ref().map_or(Value::Null, T::to_json)
    }
    fn stated(&self) -> bool {
        self.is_some()
    }
}

impl<T: Field> Field for Vec<T> {
    fn from_json(v: Value) -> Result<Self, MetaError> {
        match v {
            Value::Array(a) => {
                a.into_iter().enumerate().map(|(i, x)| T::from_json(x).map_err(|e| MetaError(format!("item {}: {e}", i + 1)))).collect()
            }
            v => Err(expected("a list", &v)),
        }
    }
    fn to_json(&self) -> Value {
        Value::Array(self.iter().map(T::to_json).collect())
    }
    fn stated(&self) -> bool {
        !self.is_empty()
    }
}

/// Counts by name (I/Os per tag, bytes per direction), in name order. A sorted list rather
/// than a `BTreeMap`: each map type compiles its own copy of the B-tree's code, which the
/// viewer's wasm would carry for these two fields alone.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Counts(Vec<(String, u64)>);

impl Counts {
    /// Set `name`'s count.
    pub fn insert(&mut self, name: String, n: u64) {
        match self.0.binary_search_by(|(k, _)| k.as_str().cmp(&name)) {
            Ok(i) => self.0[i].1 = n,
            Err(i) => self.0.insert(i, (name, n)),
        }
    }

    pub fn get(&self, name: &str) -> Option<u64> {
        self.0.binary_search_by(|(k, _)| k.as_str().cmp(name)).ok().map(|i| self.0[i].1)
    }

    /// `(name, count)` in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, u64)> {
        self.0.iter().map(|(k, n)| (k.as_str(), *n))
    }

    pub fn values(&self) -> impl Iterator<Item = u64> + '_ {
        self.0.iter().map(|(_, n)| *n)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Field for Counts {
    fn from_json(v: Value) -> Result<Self, MetaError> {
        let mut out = Counts::default();
        for (k, x) in Map::from_json(v)? {
            let n = u64::from_json(x).map_err(|e| MetaError(format!("'{k}': {e}")))?;
            // serde_json's map gives its keys in order: each is pushed at the end
            out.insert(k, n);
        }
        Ok(out)
    }
    fn to_json(&self) -> Value {
        let mut m = Map::new();
        for (k, n) in self.iter() {
            m.insert(k.to_string(), Value::from(n));
        }
        Value::Object(m)
    }
}

/// `[bytes, percent]`.
impl Field for (u64, u32) {
    fn from_json(v: Value) -> Result<Self, MetaError> {
        match v.as_array().map(Vec::as_slice) {
            Some([a, b]) => Ok((u64::from_json(a.clone())?, u32::from_json(b.clone())?)),
            _ => Err(expected("a pair [bytes, percent]", &v)),
        }
    }
    fn to_json(&self) -> Value {
        Value::Array(vec![Value::from(self.0), Value::from(self.1)])
    }
}

impl Field for Size {
    fn from_json(v: Value) -> Result<Self, MetaError> {
        match v {
            Value::String(s) => Ok(Size::Text(s)),
            v => v.as_u64().map(Size::Bytes).ok_or_else(|| expected("bytes or a size such as \"4KiB\"", &v)),
        }
    }
    fn to_json(&self) -> Value {
        match self {
            Size::Bytes(b) => Value::from(*b),
            Size::Text(s) => Value::String(s.clone()),
        }
    }
}

impl Field for SourceFormat {
    fn from_json(v: Value) -> Result<Self, MetaError> {
        match v {
            Value::String(s) => Ok(SourceFormat::One(s)),
            v @ Value::Array(_) => Vec::<String>::from_json(v).map(SourceFormat::Many),
            v => Err(expected("a format name or a list of them", &v)),
        }
    }
    fn to_json(&self) -> Value {
        match self {
            SourceFormat::One(s) => Value::String(s.clone()),
            SourceFormat::Many(v) => v.to_json(),
        }
    }
}

impl Field for Precision {
    fn from_json(v: Value) -> Result<Self, MetaError> {
        Precision::from_value(&v).map_err(|e| MetaError(e.to_string()))
    }
    fn to_json(&self) -> Value {
        self.to_meta()
    }
}

meta_struct! {
    /// The metadata of a run.
    pub struct RunMeta {
        /// Version of nines' metadata layout (1).
        pub version: Option<u64>,
        /// The run's name (`nines run --name`, else the archive's file stem).
        pub name: Option<String>,
        /// Free text about the run (`nines run --notes`), Markdown in reports.
        pub notes: Option<String>,
        /// The program that wrote the run.
        pub tool: Option<Tool>,
        /// When the first recorded window began (RFC 3339, UTC).
        pub start: Option<String>,
        /// What the collector ran (with several concurrent jobs, the first of `jobs`).
        pub workload: Option<Workload>,
        /// Every job of a run of several concurrent jobs (fio job sections run together), each
        /// with the `scope` its tags are kept under (`SCOPE/read`).
        pub jobs: Vec<Workload>,
        /// What it ran on (with several targets, the first of `targets`).
        pub target: Option<Target>,
        /// Every target of a run of several, each with the `scope` its tags are kept under.
        pub targets: Vec<Target>,
        /// The machine it ran on.
        pub host: Option<Host>,
        /// The I/O engine.
        pub engine: Option<Engine>,
        /// How windows were cut.
        pub window: Option<WindowRule>,
        /// Unit of the recorded values (`ns`).
        pub units: Option<String>,
        /// What each tag holds, in words.
        pub tags: Option<String>,
        /// How the run ended (appended by the collector when it ends).
        pub summary: Option<Summary>,
        /// The steady-state outcome of a `nines run --steady` run (appended with the summary).
        pub steady: Option<SteadyMeta>,
        /// The format an imported run came from (`fio json+`, ...; several for a merge).
        pub source_format: Option<SourceFormat>,
        /// The files a merged import came from.
        pub sources: Vec<String>,
        /// fio's own JSON documents of an imported run, as fio wrote them (fio's format, not ours:
        /// kept as JSON values).
        pub fio: Vec<Value>,
        /// fio histogram log import: the log's bucket coarseness.
        pub fio_hist_log: Option<FioHistLog>,
        /// fio latency log import.
        pub fio_lat_log: Option<FioLatLog>,
        /// Latency list import.
        pub list: Option<ListImport>,
        /// Percentile spectrum import.
        pub spectrum: Option<SpectrumImport>,
        /// How precise the values are when the source was coarser than the histograms.
        pub precision: Option<Precision>,
        /// Sweep labels (`nines import --sweep`): parameter name to value.
        pub param: Map<String, Value>,
        /// How a merge of runs (`nines merge`) lined their windows up, and its sources
        /// (`window_s`, `regrid`, `tolerance_s`, `max_offset_s`, `clock_maxerror_s`, and
        /// `sources`: `label`, `file`, `name`, `host`, `start`, `clock_esterror_s`,
        /// `clock_maxerror_s`, `offset_s` each). Kept as JSON rather than typed: nothing but the
        /// merge writes it, and typed it would add its code to the viewer's wasm.
        pub merge: Map<String, Value>,
        /// A SNIA PTS test of `nines pts`: its parameters, the purge and preconditioning done,
        /// the cells (each a scope of the archive), the tracked results per round, the verdict
        /// and every deviation from the specification. Kept as JSON (as `merge`): nothing but
        /// `nines pts` writes it.
        pub pts: Map<String, Value>,
        /// The whole disks (/proc/diskstats names) whose rates the run's `#[context ...]`
        /// lines hold, resolved from the targets when the run began.
        pub context_devices: Vec<String>,
        /// Why the run's context lines hold no device rates (or none at all): a target on
        /// tmpfs, the null engine, `--no-context`.
        pub context_missing: Option<String>,
        /// fio's `disk_util` of an imported fio json+ run: each disk's counters over fio's run.
        pub disk_util: Vec<DiskUtil>,
    }
}

meta_struct! {
    /// One disk of fio's json+ `disk_util` (fio's HOWTO, "Disk statistics"): the I/Os, ticks
    /// and in-queue time it counted on the disk over its run, from /proc/diskstats.
    pub struct DiskUtil {
        pub name: String,
        pub read_ios: Option<u64>,
        pub write_ios: Option<u64>,
        pub read_merges: Option<u64>,
        pub write_merges: Option<u64>,
        /// Milliseconds spent reading, writing, and with I/Os queued (weighted).
        pub read_ticks: Option<u64>,
        pub write_ticks: Option<u64>,
        pub in_queue: Option<u64>,
        /// Percent of fio's run the disk was busy.
        pub util: Option<f64>,
    }
}

meta_struct! {
    /// The program that wrote a run.
    pub struct Tool {
        pub name: String,
        pub version: String,
    }
}

/// A block size as runs state it: bytes, or a size in words (`4k`, `4KiB/70:64KiB/30`).
#[derive(Clone, Debug, PartialEq)]
pub enum Size {
    Bytes(u64),
    Text(String),
}

meta_struct! {
    /// What the collector ran (`nines run`'s flags, resolved).
    pub struct Workload {
        /// `read`, `randread`, `randrw`, `trim`, ...
        pub rw: Option<String>,
        /// Share of reads in a mix, in percent.
        pub read_pct: Option<u32>,
        /// The directions recorded (`read`, `write`, `trim`, `sync`).
        pub directions: Vec<String>,
        /// The block size, or the split (`4KiB/70:64KiB/30`).
        pub bs: Option<Size>,
        /// The split as `[bytes, percent]` pairs.
        pub bs_bytes: Vec<(u64, u32)>,
        pub qd: Option<u32>,
        pub jobs: Option<u32>,
        /// I/Os submitted per `io_uring_enter`.
        pub submit_batch: Option<u32>,
        /// Completions handled per reap at most (fio's `iodepth_batch_complete_max`).
        pub complete_batch: Option<u32>,
        /// Bytes of the target the I/Os fall in.
        pub size_bytes: Option<u64>,
        pub runtime_s: Option<f64>,
        /// I/O count limit (`--ios`).
        pub ios: Option<u64>,
        pub ramp_s: Option<f64>,
        /// O_DIRECT.
        pub direct: Option<bool>,
        /// O_SYNC/O_DSYNC writes.
        pub sync: Option<bool>,
        pub fsync_every: Option<u64>,
        pub rate_iops_per_job: Option<f64>,
        /// Arrival process of a rate-limited run (`uniform`, `poisson`).
        pub arrival: Option<String>,
        /// Where latency is measured from (submission, or the due time of a rate-limited I/O).
        pub latency_from: Option<String>,
        pub seed: Option<u64>,
        /// Latencies were recorded (`false` for `--no-record`, which measures the engine alone).
        pub recorded: Option<bool>,
        /// The steady-state stop rule (`--steady`).
        pub steady: Option<SteadyRule>,
        /// `--start-at`: the wall-clock instant the first window began at (RFC 3339, UTC),
        /// and how late after it the workload was seen to begin, in seconds.
        pub start_at: Option<String>,
        pub start_late_s: Option<f64>,
        /// Where random offsets fall, as fio's `random_distribution` writes it (`random`,
        /// `zipf:1.2`, `pareto:0.9`, `normal:5`, `zoned:60/10:40/90`); random patterns only.
        pub random_distribution: Option<String>,
        /// The fio job file the workload came from, with its section (`job.fio [section]`).
        pub job_file: Option<String>,
        /// The scope of this job's tags in a run of several concurrent jobs (`probe`).
        pub scope: Option<String>,
        /// Bandwidth limit per job (`--rate`, fio's `rate`), bytes per second.
        pub rate_bytes_per_job: Option<u64>,
        /// Think time after each group of `thinktime_blocks` I/Os (fio's `thinktime`), of
        /// which `thinktime_spin_s` is spent busy.
        pub thinktime_s: Option<f64>,
        pub thinktime_blocks: Option<u32>,
        pub thinktime_spin_s: Option<f64>,
        /// The targets' paths when there are several (I/Os spread round robin).
        pub targets: Vec<String>,
    }
}

meta_struct! {
    /// `nines run --steady`: the criterion and its rolling window.
    pub struct SteadyRule {
        pub criterion: String,
        pub window_s: f64,
    }
}

meta_struct! {
    /// What a run measured.
    pub struct Target {
        pub path: Option<String>,
        /// `file`, `block`, `none (null engine)`.
        pub kind: Option<String>,
        pub size_bytes: Option<u64>,
        pub region_bytes: Option<u64>,
        /// The file was created by this run (and marked as nines' own).
        pub created_by_nines: Option<bool>,
        /// The mark (an extended attribute) could be set.
        pub marked: Option<bool>,
        /// The file's region was filled by this run before it began.
        pub laid_out_now: Option<bool>,
        /// A file system signature the run wrote over (`--destroy-data`).
        pub overwritten_signature: Option<String>,
        /// The scope of this target's tags in a run of several targets (`a.dat`).
        pub scope: Option<String>,
        /// The block device under a file (name, model, vendor, ... as sysfs names them); a
        /// block device target has these facts at the top level of `target`.
        pub device: Option<Map<String, Value>>,
    }
}

meta_struct! {
    /// The machine a run ran on.
    pub struct Host {
        pub hostname: Option<String>,
        pub kernel: Option<String>,
        pub os: Option<String>,
        pub cpu: Option<String>,
        pub cpus: Option<u64>,
        pub memory_bytes: Option<u64>,
        /// The system clock's estimated and maximum error when the run started, in seconds,
        /// as the kernel states them (adjtimex(2): `esterror`, `maxerror`).
        pub clock_esterror_s: Option<f64>,
        pub clock_maxerror_s: Option<f64>,
        /// The kernel counts the clock as synchronised (adjtimex(2) did not return TIME_ERROR).
        pub clock_synced: Option<bool>,
    }
}

meta_struct! {
    /// The I/O engine a run used.
    pub struct Engine {
        /// The engine asked for (`--engine`).
        pub requested: Option<String>,
        /// The engine that ran.
        pub name: Option<String>,
        /// Why the engine that ran is not the one asked for.
        pub fallback_reason: Option<String>,
        /// `--qd` when the engine ran one I/O at a time.
        pub qd_requested: Option<u32>,
        /// How trims were issued.
        pub trim: Option<String>,
        pub registered_files: Option<bool>,
        pub registered_buffers: Option<bool>,
    }
}

meta_struct! {
    /// How windows were cut: `{"by": "time", "length_s": 1}` or `{"by": "ios", "ios": 10000}`.
    pub struct WindowRule {
        pub by: String,
        pub length_s: Option<f64>,
        pub ios: Option<u64>,
    }
}

meta_struct! {
    /// How a collection ended.
    pub struct Summary {
        /// When the last window ended (RFC 3339, UTC).
        pub end: String,
        pub duration_s: f64,
        pub windows: u64,
        /// I/Os per tag.
        pub ios: Counts,
        /// Bytes per direction.
        pub bytes: Counts,
        /// `runtime`, `ios`, `steady`, `SIGINT`, `error`, ...
        pub stopped_by: String,
        /// Errors that ended the run.
        pub errors: Vec<String>,
    }
}

meta_struct! {
    /// The steady-state outcome of a run, as stored.
    pub struct SteadyMeta {
        pub criterion: String,
        pub reached: bool,
        /// Reached: where the steady window ended, its windows, mean, measure and criterion value.
        pub at_s: Option<f64>,
        pub windows: Option<u64>,
        pub mean: Option<f64>,
        /// The measure's value over the steady window (IOPS, or a latency in ns).
        pub measure: Option<f64>,
        pub criterion_value: Option<f64>,
        /// Not reached: how many windows were checked.
        pub windows_checked: Option<u64>,
    }
}

/// The source format of an imported run: one, or several for a merge of different formats.
#[derive(Clone, Debug, PartialEq)]
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

meta_struct! {
    /// A fio histogram log import.
    pub struct FioHistLog {
        /// fio's `log_hist_coarseness`: 2^c of fio's buckets summed per logged bucket.
        pub coarseness: u8,
        pub note: Option<String>,
    }
}

meta_struct! {
    /// A fio latency log import.
    pub struct FioLatLog {
        pub samples: u64,
        pub window_ms: f64,
    }
}

meta_struct! {
    /// A latency list import.
    pub struct ListImport {
        /// Unit of the values (`ns`, `us`, `ms`, `s`).
        pub unit: String,
        pub values: u64,
        pub window_s: Option<f64>,
    }
}

meta_struct! {
    /// A percentile spectrum import.
    pub struct SpectrumImport {
        /// Unit of the printed values.
        pub unit: String,
    }
}

impl RunMeta {
    /// Read metadata from a JSON object. A key nines knows that holds the wrong kind of value
    /// is an error naming it ("metadata key 'workload': 'qd': invalid type: string ...").
    pub fn from_map(map: Map<String, Value>) -> Result<RunMeta, MetaError> {
        RunMeta::from_object(map).map_err(|e| MetaError(format!("metadata key {e}")))
    }

    /// The metadata as a JSON object (known keys first, then the others).
    pub fn to_map(&self) -> Map<String, Value> {
        self.to_object()
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
        self.workload.as_ref()?.to_object().remove(key)
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

    #[test]
    fn counts_keep_name_order_and_round_trip() {
        let mut c = Counts::default();
        for (k, n) in [("write", 7), ("read", 5), ("trim", 1), ("read", 6)] {
            c.insert(k.into(), n);
        }
        assert_eq!(c.iter().collect::<Vec<_>>(), [("read", 6), ("trim", 1), ("write", 7)]);
        assert_eq!((c.get("write"), c.get("nope"), c.values().sum::<u64>()), (Some(7), None, 14));
        assert_eq!(Counts::from_json(c.to_json()).unwrap(), c);
        let e = Counts::from_json(json!({"read": "many"})).unwrap_err().to_string();
        assert!(e.contains("'read'"), "{e}");
    }

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
        let e = RunMeta::from_map(map).unwrap_err().to_string();
        assert!(e.starts_with("metadata key 'workload': "), "{e}");
        assert!(e.contains("invalid type: string \"deep\""), "{e}");
        let Value::Object(map) = json!({"summary": {"windows": -1}}) else { unreachable!() };
        assert!(RunMeta::from_map(map).unwrap_err().to_string().starts_with("metadata key 'summary': "));
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
