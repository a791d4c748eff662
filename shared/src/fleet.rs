//! Runs of many hosts merged into one (`nines merge`): windows matched by absolute time and
//! summed exactly per tag, each source's tags kept in its scope, `LABEL/TAG` ([`crate::tag`]).
//!
//! HdrHistograms merge by adding counts, so a fleet needs no coordinator of its own: each
//! host runs `nines run` (started by ssh, pdsh, a Kubernetes Indexed Job or Slurm, ideally
//! with `--start-at` so that windows begin at the same wall-clock instants), and the archives
//! are merged afterwards. A window's absolute start is the run's `StartTime` plus the window's
//! own start. Windows of different runs are the same window when their absolute starts lie
//! within the tolerance of each other (by default the worst maximum clock error the runs
//! state, at least 1 ms); runs whose windows do not line up are refused with the numbers,
//! unless `regrid` puts every window whole into the merged window holding its midpoint (the
//! sums stay exact; the time a window is shown at moves by up to half its length).

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::hist::{add_counts, Accumulator, Hist, HistBuilder, Layout};
use serde_json::{json, Map, Value};

use crate::meta::{RunMeta, Tool};
use crate::run::{Run, Window};
use crate::stats::tag_name;
use crate::tag::{scope_name, scoped};
use crate::units::iso_date;

/// The smallest default tolerance, in seconds: what two NTP-synchronised hosts on one network
/// typically agree to (and well below any window a QoS run records).
pub const MIN_TOLERANCE_S: f64 = 0.001;

/// One run to merge and the label its own tags are kept under.
pub struct Source<'a> {
    pub run: &'a Run,
    pub label: String,
}

/// How to merge.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The merged run's name.
    pub name: String,
    /// The largest offset between windows taken as the same window, in seconds; `None`: the
    /// worst stated maximum clock error, at least [`MIN_TOLERANCE_S`].
    pub tolerance_s: Option<f64>,
    /// Put windows on a common grid of this many seconds (at least the longest window) rather
    /// than refuse runs whose windows do not line up.
    pub regrid_s: Option<f64>,
}

/// Why runs could not be merged, in words with the numbers.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct MergeError(pub String);

/// A label from a run: its host name, else its name, as a scope name ([`clean_label`]).
pub fn label_of(run: &Run) -> String {
    let host = run.meta.host.as_ref().and_then(|h| h.hostname.clone());
    clean_label(host.as_deref().unwrap_or(&run.name))
}

/// `s` as a scope name: every character outside `[A-Za-z0-9_.:-]` becomes `_`
/// ([`scope_name`]); an empty label is `run`.
pub fn clean_label(s: &str) -> String {
    if s.is_empty() {
        "run".into()
    } else {
        scope_name(s)
    }
}

/// Why a run has no one length of window: each names the run (its source).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum WindowLengthError {
    /// Two windows of different lengths (`first` s, then `other` s in the window starting at
    /// `start_s`, of tag `tag`), neither the last of its tag.
    #[error(
        "{source_name}: its windows differ in length ({first} s and {other} s at {start_s:.3} s, tag {tag}): windows cut by I/O count do not line up in time"
    )]
    Differ { source_name: String, first: f64, other: f64, start_s: f64, tag: String },
    #[error("{source_name}: no window with a length")]
    NoLength { source_name: String },
}

/// The length of a run's windows: that of each tag's windows but its last (a run may end
/// within a window); an error naming the run when they differ.
fn window_length(run: &Run) -> Result<f64, WindowLengthError> {
    let mut len: Option<f64> = None;
    for tag in run.tags() {
        let ws: Vec<&Window> = run.windows_of(tag.as_deref()).collect();
        let full = if ws.len() > 1 { &ws[..ws.len() - 1] } else { &ws[..] };
        for w in full {
            match len {
                None => len = Some(w.length_s),
                Some(l) if (w.length_s - l).abs() > 1e-6 * l.max(1e-9) => {
                    return Err(WindowLengthError::Differ {
                        source_name: run.source.clone(),
                        first: l,
                        other: w.length_s,
                        start_s: w.start_s,
                        tag: tag_name(tag.as_deref()).to_string(),
                    });
                }
                Some(_) => {}
            }
        }
    }
    len.filter(|l| *l > 0.0).ok_or_else(|| WindowLengthError::NoLength { source_name: run.source.clone() })
}

/// What a merge needs of a run before any of its windows is summed. [`Merger::new`] plans
/// the merge from one of these per run, so that a caller can read the runs one at a time
/// (once for these, once more to sum them) and hold no more than one run in memory.
///
/// A merge of a thousand runs holds a thousand of these for as long as it runs, so a run's
/// metadata is not kept whole (it can hold a fio job's whole JSON output): only what the
/// merged header states of each run (its host's name and clock errors), fingerprints of its
/// workload and of the whole metadata (to tell that every run ran the same workload, and that
/// a run read again is the run planned), and the workload and units themselves, which
/// [`Merger::new`] keeps of the first run only.
#[derive(Clone, Debug)]
pub struct SourceInfo {
    pub label: String,
    source: String,
    /// the run's name (to be made distinct from the others' by the caller)
    pub name: String,
    start_time: Option<f64>,
    host: Option<String>,
    clock_esterror_s: Option<f64>,
    clock_maxerror_s: Option<f64>,
    /// fingerprints of the run's workload and of its whole metadata ([`fingerprint`])
    workload_print: u64,
    meta_print: u64,
    /// the run's workload and units (`None` once the merger holds the first run's)
    head: Option<Box<(Option<crate::meta::Workload>, Option<String>)>>,
    /// the run's own keys (`user` of its metadata: `nines run --meta`, `nines import
    /// --meta`); once the merger is planned, the first run's holds the keys every run gives
    /// the same value, and the others' are emptied
    user: Map<String, Value>,
    /// the run's tags by name, in the order it lists them
    tags: Vec<String>,
    window_length: Result<f64, WindowLengthError>,
    /// the earliest window start and the longest window, in seconds
    first_start: f64,
    longest: f64,
    windows: usize,
    layout: Option<crate::hist::Layout>,
}

/// Two plans of one run are equal when everything but the workload and units kept whole is:
/// those are compared by their fingerprints.
impl PartialEq for SourceInfo {
    fn eq(&self, o: &SourceInfo) -> bool {
        (&self.label, &self.source, &self.name, self.start_time, &self.host, self.clock_esterror_s, self.clock_maxerror_s)
            == (&o.label, &o.source, &o.name, o.start_time, &o.host, o.clock_esterror_s, o.clock_maxerror_s)
            && (self.workload_print, self.meta_print) == (o.workload_print, o.meta_print)
            && (&self.tags, &self.window_length, self.first_start, self.longest, self.windows, self.layout)
                == (&o.tags, &o.window_length, o.first_start, o.longest, o.windows, o.layout)
    }
}

/// A 64-bit fingerprint of a JSON value (SipHash with fixed keys, so the same in every
/// reading of a run): two different metadata with one fingerprint are as likely as a 64-bit
/// collision, and would only let a merge miss that a run changed between its readings.
fn fingerprint(v: &Value) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    v.to_string().hash(&mut h);
    h.finish()
}

/// The labels runs get when none is given: each one's host name ([`label_of`]), but the run's
/// own name where two runs name the same host (two devices of one host merged).
pub fn default_labels(infos: &[SourceInfo]) -> Vec<String> {
    let hosts: Vec<String> = infos.iter().map(SourceInfo::default_label).collect();
    hosts
        .iter()
        .zip(infos)
        .map(|(h, info)| if hosts.iter().filter(|o| *o == h).count() > 1 { clean_label(&info.name) } else { h.clone() })
        .collect()
}

impl SourceInfo {
    /// The label a run gets alone when none is given ([`label_of`]); see [`default_labels`].
    pub fn default_label(&self) -> String {
        clean_label(self.host.as_deref().unwrap_or(&self.name))
    }

    pub fn of(run: &Run, label: String) -> SourceInfo {
        let host = run.meta.host.as_ref();
        SourceInfo {
            label,
            source: run.source.clone(),
            name: run.name.clone(),
            start_time: run.start_time,
            host: host.and_then(|h| h.hostname.clone()),
            clock_esterror_s: host.and_then(|h| h.clock_esterror_s),
            clock_maxerror_s: host.and_then(|h| h.clock_maxerror_s),
            workload_print: fingerprint(&run.meta.workload.as_ref().map_or(Value::Null, |w| Value::Object(w.to_object()))),
            meta_print: fingerprint(&Value::Object(run.meta.to_object())),
            head: Some(Box::new((run.meta.workload.clone(), run.meta.units.clone()))),
            user: run.meta.other.get("user").and_then(Value::as_object).cloned().unwrap_or_default(),
            tags: run.tags().iter().map(|t| tag_name(t.as_deref()).to_string()).collect(),
            window_length: window_length(run),
            first_start: run.windows.iter().map(|w| w.start_s).fold(f64::INFINITY, f64::min),
            longest: run.windows.iter().map(|w| w.length_s).fold(0.0, f64::max),
            windows: run.windows.len(),
            layout: run.windows.first().map(|w| w.hist.layout()),
        }
    }
}

/// Merge the sources into one run (see the module documentation): [`Merger`] with every run
/// in memory.
pub fn merge(sources: &[Source], opts: &Options) -> Result<Run, MergeError> {
    let infos = sources.iter().map(|s| SourceInfo::of(s.run, s.label.clone())).collect();
    let mut merger = Merger::new(infos, opts)?;
    let own = sources.iter().enumerate().map(|(i, s)| merger.add(i, s.run)).collect::<Result<Vec<_>, _>>()?;
    let merged = merger.finish();
    let (start_time, meta) = (merged.start_time, merged.meta.clone());
    let mut windows = Vec::new();
    merged.assemble(own.into_iter().map(Vec::into_iter).collect(), |piece| {
        windows.push(match piece {
            Piece::Merged(w) | Piece::Own(_, w) => w,
        });
        Ok::<(), MergeError>(())
    })?;
    Ok(Run {
        name: opts.name.clone(),
        source: opts.name.clone(),
        start_time: Some(start_time),
        meta,
        windows,
        warnings: Vec::new(),
        context: Vec::new(),
    })
}

/// A merge in steps: planned from every run's [`SourceInfo`], then fed the runs one at a
/// time ([`Merger::add`]), which hands back each run's own windows (its tags in its scope),
/// and keeps only the sums across runs (one histogram a window and tag, however many runs
/// there are). [`Merged::assemble`] puts the two together in the archive's order.
///
/// With a memory budget ([`Merger::with_budget`]) the sums are held one band of common
/// windows at a time: the runs are fed once per band, each band's sums taken with
/// [`Merger::take_band`] and put in order with [`Shape::assemble`], until [`Merger::done`].
/// A band starts with every common window from where the one before ended; when its sums
/// pass the budget its last common windows are dropped (summed again in the next band), so
/// the sums never hold much more than the budget, however many runs there are.
pub struct Merger {
    infos: Vec<SourceInfo>,
    opts: Options,
    origin: f64,
    grid: f64,
    tolerance: f64,
    one_clock: bool,
    stated: Vec<f64>,
    worst_clock: Option<f64>,
    /// the sums across runs of the band: slot, tag, (sum, longest window); their bytes are
    /// in `store`
    slots: BTreeMap<i64, BTreeMap<String, (Packed, f64)>>,
    store: Store,
    /// the band: the common windows from `lo` to before `hi`
    lo: i64,
    hi: i64,
    /// about how many bytes the band's sums may take, and what they take besides their
    /// store's live bytes (an entry a common window and a sum)
    budget: usize,
    held: usize,
    /// how many bands were taken ([`Merger::take_band`]); the runs' own windows and their
    /// total are taken in the first only
    bands: usize,
    /// where [`Packed::add`] writes a new sum before it is copied to its exact size
    scratch: Vec<u8>,
    total: u64,
    max_offset: f64,
    offsets: Vec<f64>,
}

/// One run's own windows from [`Merger::add`]: (slot, position of the tag in the run's tags,
/// window), in slot order, then tag order. The slot and position are 32-bit: a caller keeping
/// these for a thousand runs of thousands of windows keeps 8 bytes a window besides `T`.
pub type Own<T> = Vec<(u32, u32, T)>;

impl Merger {
    /// Check that the runs can be merged and plan the common windows: everything but each
    /// window's offset from the grid, which [`Merger::add`] checks.
    pub fn new(infos: Vec<SourceInfo>, opts: &Options) -> Result<Merger, MergeError> {
        let err = |s: String| MergeError(s);
        if infos.len() < 2 {
            return Err(err("a merge needs at least two runs".into()));
        }
        let mut labels: std::collections::HashSet<&str> = std::collections::HashSet::new();
        for s in &infos {
            if s.start_time.is_none() {
                return Err(err(format!("{}: the run states no start time (StartTime): its windows cannot be placed in time", s.source)));
            }
            if s.windows == 0 {
                return Err(err(format!("{}: the run has no windows", s.source)));
            }
            if !labels.insert(&s.label) {
                return Err(err(format!("two runs are labelled {:?}: give each its own --label", s.label)));
            }
        }
        let clock = |r: &SourceInfo| r.clock_maxerror_s;
        let worst_clock = infos.iter().filter_map(clock).reduce(f64::max);
        // Runs of one host share its clock: their windows can only be apart by how they were
        // started. Two hosts' clocks may disagree by the sum of their stated maximum errors.
        let one_clock = infos[0].host.is_some() && infos.iter().all(|s| s.host == infos[0].host);
        let mut stated: Vec<f64> = infos.iter().filter_map(clock).collect();
        crate::sort::sort_by_f64(&mut stated, |&x| -x);
        let clocks_apart = if one_clock { 0.0 } else { stated.iter().take(2).sum::<f64>() };
        let tolerance = opts.tolerance_s.unwrap_or_else(|| clocks_apart.max(MIN_TOLERANCE_S));
        // the grid starts at the earliest window of any source
        let origin = infos.iter().map(|s| s.start_time.unwrap_or(0.0) + s.first_start).fold(f64::INFINITY, f64::min);
        let grid = match opts.regrid_s {
            Some(g) => {
                let longest = infos.iter().map(|s| s.longest).fold(0.0, f64::max);
                if !(g.is_finite() && g > 0.0 && g >= longest * (1.0 - 1e-9)) {
                    return Err(err(format!("--regrid {g} s: the common windows must be at least the longest window ({longest} s)")));
                }
                g
            }
            None => {
                let mut len: Option<(f64, &str)> = None;
                for s in &infos {
                    let l = s.window_length.clone().map_err(|e| err(format!("{e}; --regrid merges them onto common windows")))?;
                    match len {
                        None => len = Some((l, &s.source)),
                        Some((first, name)) if (l - first).abs() > 1e-6 * first => {
                            return Err(err(format!(
                                "{} has windows of {l} s, {name} of {first} s: windows of different lengths do not line up; --regrid DURATION merges them onto common windows",
                                s.source
                            )));
                        }
                        Some(_) => {}
                    }
                }
                len.expect("two sources").0
            }
        };
        if opts.regrid_s.is_none() && tolerance >= grid / 2.0 {
            return Err(err(format!(
                "the runs' clocks may be {tolerance} s apart ({}), more than half a window ({grid} s): their windows cannot be matched; \
                 synchronise the clocks (NTP, PTP), give --tolerance, or --regrid to windows longer than twice that",
                if opts.tolerance_s.is_some() {
                    "--tolerance".to_string()
                } else {
                    "the sum of the two largest maximum clock errors the runs state".to_string()
                }
            )));
        }
        let n = infos.len();
        // the merged run states the first run's workload and units (when every run's equal)
        let mut infos = infos;
        // and the user keys every run gives, each with the same value (a key the runs
        // disagree on, or that one lacks, says nothing of the merged run)
        let agreed: Map<String, Value> = infos[0]
            .user
            .iter()
            .filter(|(k, v)| infos[1..].iter().all(|s| s.user.get(*k) == Some(*v)))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        infos[0].user = agreed;
        for s in &mut infos[1..] {
            s.head = None;
            s.user = Map::new();
        }
        Ok(Merger {
            infos,
            opts: opts.clone(),
            origin,
            grid,
            tolerance,
            one_clock,
            stated,
            worst_clock,
            slots: BTreeMap::new(),
            store: Store::default(),
            lo: 0,
            hi: i64::MAX,
            budget: usize::MAX,
            held: 0,
            bands: 0,
            scratch: Vec::new(),
            total: 0,
            max_offset: 0.0,
            offsets: vec![0.0; n],
        })
    }

    /// Hold the sums a band of common windows at a time, each band's about `bytes` at most
    /// (but always at least one common window): see [`Merger`].
    #[must_use]
    pub fn with_budget(mut self, bytes: usize) -> Merger {
        self.budget = bytes;
        self.store = Store::for_budget(bytes);
        self
    }

    /// The sums of the band the runs were just fed for; the next band begins where it ends.
    pub fn take_band(&mut self) -> Band {
        let slots = std::mem::take(&mut self.slots);
        let store = std::mem::replace(&mut self.store, Store::for_budget(self.budget));
        self.lo = self.hi;
        self.hi = i64::MAX;
        self.held = 0;
        self.bands += 1;
        Band { slots, store }
    }

    /// Whether the last band taken ended with the last common window (the merge is whole).
    pub fn done(&self) -> bool {
        self.bands > 0 && self.lo == i64::MAX
    }

    /// The merged run's start and metadata, once the first band is taken (every window of
    /// every run has been placed, so every offset from the grid is known).
    pub fn head(&self) -> (f64, RunMeta) {
        let meta =
            merged_meta(&self.infos, &self.opts, self.grid, self.tolerance, self.max_offset, self.worst_clock, &self.offsets, self.origin);
        (self.origin, meta)
    }

    /// How the merged run's windows are laid out (its tags, in order, and its grid).
    pub fn shape(&self) -> Shape {
        // tags in a stable order: the merged tags as the first source lists them, then each
        // source's parts
        let mut merged_tags: Vec<String> = Vec::new();
        for s in &self.infos {
            for t in &s.tags {
                if !merged_tags.contains(t) {
                    merged_tags.push(t.clone());
                }
            }
        }
        Shape {
            grid: self.grid,
            regrid: self.opts.regrid_s.is_some(),
            merged_tags,
            own_tags: self.infos.iter().map(|s| s.tags.iter().map(|t| scoped(&s.label, t)).collect()).collect(),
            layout: self.infos[0].layout.unwrap_or_else(crate::hist::Layout::default_ns),
        }
    }

    /// Sum run `si` (the run [`SourceInfo`] `si` was taken of) into the merge, and give back
    /// its own windows: per slot and tag the sum of its windows there, tagged `LABEL/TAG`
    /// (in the first band only; an empty list in the others).
    /// A run that is not the one planned (a file changed between two reads) is an error.
    pub fn add(&mut self, si: usize, run: &Run) -> Result<Own<Window>, MergeError> {
        self.check(si, run)?;
        self.place(si, run, run.windows.iter().map(Cow::Borrowed))
    }

    /// [`Merger::add`] taking the run: a window that is the run's only one in its slot and
    /// tag (every window, where the runs line up) is handed back without being copied, so
    /// that the run's histograms are not held twice.
    pub fn add_run(&mut self, si: usize, mut run: Run) -> Result<Own<Window>, MergeError> {
        self.check(si, &run)?;
        let windows = std::mem::take(&mut run.windows);
        self.place(si, &run, windows.into_iter().map(Cow::Owned))
    }

    /// A run that is not the one planned (a file changed between two reads) is an error.
    fn check(&self, si: usize, run: &Run) -> Result<(), MergeError> {
        let info = &self.infos[si];
        if SourceInfo::of(run, info.label.clone()) != *info {
            return Err(MergeError(format!("{}: the run changed while it was being merged (it was read twice and differed)", info.source)));
        }
        Ok(())
    }

    /// Sum `windows`, run `si`'s (`run` is the rest of it), into the merge; its own windows
    /// per slot and tag.
    fn place<'w>(&mut self, si: usize, run: &Run, windows: impl Iterator<Item = Cow<'w, Window>>) -> Result<Own<Window>, MergeError> {
        let err = |s: String| MergeError(s);
        let (grid, tolerance, regrid) = (self.grid, self.tolerance, self.opts.regrid_s.is_some());
        let mut own: BTreeMap<(u32, u32), Vec<Cow<Window>>> = BTreeMap::new();
        for (wi, w) in windows.enumerate() {
            let a = run.start_time.unwrap_or(0.0) + w.start_s - self.origin;
            let k = if regrid { ((a + w.length_s / 2.0) / grid).floor() } else { (a / grid).round() };
            let offset = a - k * grid;
            if !regrid && offset.abs() > tolerance {
                return Err(err(format!(
                    "{}: its windows start {:+.6} s off the grid of {} ({} s windows from {}), beyond the tolerance of {} s ({}): start the runs with --start-at, give --tolerance, or --regrid DURATION",
                    run.source,
                    offset,
                    self.infos[0].source,
                    grid,
                    iso_date(self.origin),
                    tolerance,
                    match (self.opts.tolerance_s, self.one_clock, self.stated.is_empty()) {
                        (Some(_), _, _) => "given".to_string(),
                        (None, true, _) => format!("runs of one host share its clock: {MIN_TOLERANCE_S} s"),
                        (None, false, true) => format!("no run states its clock error: {MIN_TOLERANCE_S} s"),
                        (None, false, false) => format!("the two largest maximum clock errors the runs state, at least {MIN_TOLERANCE_S} s"),
                    }
                )));
            }
            // (the same in every band)
            if wi == 0 {
                self.offsets[si] = offset;
            }
            self.max_offset = self.max_offset.max(offset.abs());
            let first = self.bands == 0;
            if first {
                self.total = add_counts(self.total, w.hist.count()).map_err(|_| {
                    err(format!("{}: window at {:.3} s: the merged run would hold more I/Os than a log can count", run.source, w.start_s))
                })?;
            }
            let tag = tag_name(w.tag.as_deref());
            let k = k as i64;
            if (self.lo..self.hi).contains(&k) {
                let slots = &mut self.slots;
                let sums = slots.entry(k).or_insert_with(|| {
                    self.held += SLOT_BYTES;
                    BTreeMap::new()
                });
                let e = sums.entry(tag.to_string()).or_insert_with(|| {
                    self.held += SUM_BYTES + tag.len();
                    (Packed::empty(w.hist.layout()), 0.0)
                });
                e.0.add(&w.hist, &mut self.store, &mut self.scratch);
                e.1 = e.1.max(w.length_s);
                self.shrink();
            }
            let pos = self.infos[si].tags.iter().position(|t| t == tag).expect("the run's own tag");
            // the origin is the earliest window, so no slot is below 0
            let slot = u32::try_from(k)
                .map_err(|_| err(format!("{}: window at {:.3} s is beyond 2^32 common windows from the first", run.source, w.start_s)))?;
            if first {
                own.entry((slot, pos as u32)).or_default().push(w);
            }
        }
        let info = &self.infos[si];
        Ok(own
            .into_iter()
            .map(|((k, pos), mut ws)| {
                let len = if regrid { grid } else { ws.iter().map(|w| w.length_s).fold(0.0, f64::max) };
                let hist = match ws.len() {
                    1 => ws.pop().expect("one window").into_owned().hist,
                    _ => sum(&ws.iter().map(|w| &w.hist).collect::<Vec<_>>()),
                };
                let tag = scoped(&info.label, &info.tags[pos as usize]);
                (k, pos, Window { start_s: f64::from(k) * grid, length_s: len, tag: Some(tag), hist })
            })
            .collect())
    }

    /// Past the budget, the band's last common windows dropped (to be summed in the next
    /// band) until its sums fit again or one common window is left; the store compacted when
    /// its dead bytes pass an eighth of it.
    fn shrink(&mut self) {
        while self.held + self.store.live() > self.budget && self.slots.len() > 1 {
            let (k, sums) = self.slots.pop_last().expect("two slots");
            for (t, (p, _)) in &sums {
                self.held -= SUM_BYTES + t.len();
                self.store.free(p);
            }
            self.held -= SLOT_BYTES;
            self.hi = k;
        }
        if self.store.dead > self.store.bytes.len() / 8 {
            self.store.compact(self.slots.values_mut().flat_map(|m| m.values_mut()).map(|(p, _)| p));
        }
    }

    /// The sums across runs, with the merged run's start and metadata (the merge in one band:
    /// the runs fed once, with no budget).
    pub fn finish(mut self) -> Merged {
        let band = self.take_band();
        let (start_time, meta) = self.head();
        Merged { start_time, meta, shape: self.shape(), band }
    }
}

/// About what a band holds besides a sum's packed bytes, for its budget: per common window
/// (a `BTreeMap` of its tags, whose node has room for 11 of them) and per sum (its entry, its
/// tag's name besides).
const SLOT_BYTES: usize = 1024;
const SUM_BYTES: usize = 64;

/// A window of the merged run, from [`Merged::assemble`]: one summed across runs (or an empty
/// one where no run has the tag at that time), or one of a run's own windows as
/// [`Merger::add`] gave it.
pub enum Piece<T> {
    Merged(Window),
    /// Run `i`'s window, as it was given for it.
    Own(usize, T),
}

/// A merge's sums across runs ([`Merger::finish`]).
pub struct Merged {
    pub start_time: f64,
    pub meta: RunMeta,
    shape: Shape,
    band: Band,
}

impl Merged {
    /// How many common windows the merged run has.
    pub fn windows(&self) -> usize {
        self.band.windows()
    }

    /// The merged run's windows in order, each given to `out` ([`Shape::assemble`]).
    pub fn assemble<T, E, I>(self, own: Vec<I>, out: impl FnMut(Piece<T>) -> Result<(), E>) -> Result<(), E>
    where
        I: Iterator<Item = (u32, u32, T)>,
    {
        let mut own: Vec<std::iter::Peekable<I>> = own.into_iter().map(Iterator::peekable).collect();
        self.shape.assemble(self.band, &mut own, out)
    }
}

/// The sums across runs of a band of common windows ([`Merger::take_band`]).
pub struct Band {
    slots: BTreeMap<i64, BTreeMap<String, (Packed, f64)>>,
    store: Store,
}

impl Band {
    /// How many common windows the band has.
    pub fn windows(&self) -> usize {
        self.slots.len()
    }
}

/// How a merged run's windows are laid out ([`Merger::shape`]).
pub struct Shape {
    grid: f64,
    regrid: bool,
    merged_tags: Vec<String>,
    own_tags: Vec<Vec<String>>,
    layout: crate::hist::Layout,
}

impl Shape {
    /// A band's windows in order, each given to `out`: per common window, every tag (empty
    /// or not, as the collector writes them): the tags across runs, then each run's own.
    /// `own[i]` gives, in order, what [`Merger::add`] gave for run `i` (or the same list with
    /// each window replaced by what the caller keeps of it, such as its place in a file,
    /// which the caller may read back as it goes instead of keeping a list); the bands taken
    /// one after the other take them in turn from the same iterators.
    pub fn assemble<T, E, I>(
        &self,
        band: Band,
        own: &mut [std::iter::Peekable<I>],
        mut out: impl FnMut(Piece<T>) -> Result<(), E>,
    ) -> Result<(), E>
    where
        I: Iterator<Item = (u32, u32, T)>,
    {
        let grid = self.grid;
        let empty = |k: i64, tag: &str| Window {
            start_s: k as f64 * grid,
            length_s: grid,
            tag: Some(tag.to_string()),
            hist: Hist::empty(self.layout),
        };
        for (k, mut sums) in band.slots {
            for t in &self.merged_tags {
                out(Piece::Merged(match sums.remove(t) {
                    Some((sum, l)) => Window {
                        start_s: k as f64 * grid,
                        length_s: if self.regrid { grid } else { l },
                        tag: Some(t.clone()),
                        hist: sum.unpack(&band.store),
                    },
                    None => empty(k, t),
                }))?;
            }
            for (si, tags) in self.own_tags.iter().enumerate() {
                for (pos, t) in tags.iter().enumerate() {
                    match own[si].next_if(|o| i64::from(o.0) == k && o.1 as usize == pos) {
                        Some((_, _, w)) => out(Piece::Own(si, w))?,
                        None => out(Piece::Merged(empty(k, t)))?,
                    }
                }
            }
        }
        Ok(())
    }
}

/// A sum across runs as it is held until the merged archive is written: its buckets in
/// ascending index order, each as how many indexes it lies past the one after the previous
/// bucket (0 for the next index) and its count, both unsigned LEB128 varints (as Protocol
/// Buffers writes them: <https://protobuf.dev/programming-guides/encoding/#varints>). The gap
/// is mostly one byte and the count one or two, against 8 bytes a bucket decoded. The bytes
/// lie in the band's [`Store`], at `at`, with room for `cap`.
struct Packed {
    layout: Layout,
    buckets: u32,
    at: usize,
    len: usize,
    cap: usize,
}

/// The packed sums of a band, one after the other in one buffer. Why not a buffer each: a sum
/// widens a little with almost every run, and a sum rewritten into a new allocation of its new
/// size each time left the allocator's heap full of holes a little too small for the next
/// (the resident memory of a merge grew with the runs while its heap did not: BENCHMARKS.md,
/// "Merging many runs"). Here a sum is rewritten in place while it fits its room; one that
/// outgrows it moves to the end with an eighth more room, and the buffer is compacted when
/// the room left behind passes an eighth of it, so it holds at most about 9/8 of the live
/// sums and is never reallocated but to grow.
#[derive(Default)]
struct Store {
    bytes: Vec<u8>,
    /// bytes no sum uses any longer (the room of moved and dropped sums)
    dead: usize,
}

impl Store {
    /// A store with its room for a band of `budget` bytes reserved (address space only: a
    /// page takes memory once written), so that it is not reallocated as it fills: a buffer
    /// grown by doubling leaves each smaller copy behind in the heap (about as much again as
    /// the last size, in glibc's heap below its mmap threshold). Beyond 1 GiB, or if the
    /// reservation fails, the buffer grows as it needs.
    fn for_budget(budget: usize) -> Store {
        let mut bytes = Vec::new();
        if budget < usize::MAX {
            // the dead bytes are kept under an eighth of the store ([`Merger::shrink`])
            let _ = bytes.try_reserve_exact(budget.saturating_add(budget / 7).min(1 << 30));
        }
        Store { bytes, dead: 0 }
    }

    /// The bytes the live sums take with their room.
    fn live(&self) -> usize {
        self.bytes.len() - self.dead
    }

    /// `p`'s room is no longer used (its sum was dropped).
    fn free(&mut self, p: &Packed) {
        self.dead += p.cap;
    }

    /// Write `new` as `p`'s bytes: in its room if it fits, else at the end with room to widen.
    fn put(&mut self, p: &mut Packed, new: &[u8]) {
        if new.len() <= p.cap {
            self.bytes[p.at..p.at + new.len()].copy_from_slice(new);
        } else {
            self.dead += p.cap;
            let cap = new.len() + new.len() / 8;
            p.at = self.bytes.len();
            p.cap = cap;
            self.bytes.extend_from_slice(new);
            self.bytes.resize(p.at + cap, 0);
        }
        p.len = new.len();
    }

    /// Move every live sum (`sums`: all of them) to the front, in the order they lie, and drop
    /// the dead bytes.
    fn compact<'a>(&mut self, sums: impl Iterator<Item = &'a mut Packed>) {
        let mut sums: Vec<&mut Packed> = sums.collect();
        sums.sort_unstable_by_key(|p| p.at);
        let mut to = 0;
        for p in sums {
            self.bytes.copy_within(p.at..p.at + p.cap, to);
            p.at = to;
            to += p.cap;
        }
        self.bytes.truncate(to);
        self.dead = 0;
    }
}

impl Packed {
    fn empty(layout: Layout) -> Packed {
        Packed { layout, buckets: 0, at: 0, len: 0, cap: 0 }
    }

    /// The buckets: (index, count), in ascending index order.
    fn iter<'s>(&self, store: &'s Store) -> impl Iterator<Item = (u32, u64)> + 's {
        iter_packed(&store.bytes[self.at..self.at + self.len])
    }

    fn unpack(&self, store: &Store) -> Hist {
        let mut h = HistBuilder::with_capacity(self.layout, self.buckets as usize);
        for (i, c) in self.iter(store) {
            h.push(i, c);
        }
        h.finish()
    }

    /// Add `h` exactly, in this sum's layout (as [`add`] does), the new sum written into
    /// `scratch` first and then into its room in `store`.
    fn add(&mut self, h: &Hist, store: &mut Store, scratch: &mut Vec<u8>) {
        scratch.clear();
        if h.layout() != self.layout {
            let sum = add(&self.unpack(store), h);
            self.buckets = pack(sum.indexed(), std::iter::empty(), scratch);
        } else {
            self.buckets = pack(self.iter(store), h.indexed(), scratch);
        }
        store.put(self, scratch);
    }
}

/// The buckets of packed bytes: (index, count), in ascending index order.
fn iter_packed(b: &[u8]) -> impl Iterator<Item = (u32, u64)> + '_ {
    let (mut at, mut next) = (0, 0u64);
    std::iter::from_fn(move || {
        if at >= b.len() {
            return None;
        }
        let index = next + leb128(b, &mut at);
        next = index + 1;
        // indexes were u32 when packed
        Some((index as u32, leb128(b, &mut at)))
    })
}

/// The sum of two lists of buckets in ascending index order, packed into `out` (as
/// [`Packed`] holds them); how many buckets it has.
fn pack(a: impl Iterator<Item = (u32, u64)>, b: impl Iterator<Item = (u32, u64)>, out: &mut Vec<u8>) -> u32 {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    let (mut next, mut n) = (0u32, 0u32);
    loop {
        let (i, c) = match (a.peek().copied(), b.peek().copied()) {
            (Some((i, c)), Some((j, d))) => match i.cmp(&j) {
                std::cmp::Ordering::Less => (i, c),
                std::cmp::Ordering::Greater => (j, d),
                // as Hist::merge: the counts were checked not to pass MAX_COUNT
                std::cmp::Ordering::Equal => (i, c.saturating_add(d)),
            },
            (Some((i, c)), None) => (i, c),
            (None, Some((j, d))) => (j, d),
            (None, None) => break,
        };
        a.next_if(|&(x, _)| x == i);
        b.next_if(|&(x, _)| x == i);
        push_leb128(out, u64::from(i - next));
        push_leb128(out, c);
        next = i + 1;
        n += 1;
    }
    n
}

/// Append `v` as an unsigned LEB128 varint: 7 bits a byte, low bits first, the top bit set on
/// every byte but the last.
fn push_leb128(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The unsigned LEB128 varint at `*at` (written by [`push_leb128`]), `*at` moved past it.
fn leb128(b: &[u8], at: &mut usize) -> u64 {
    let (mut v, mut shift) = (0u64, 0);
    loop {
        let byte = b[*at];
        *at += 1;
        v |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return v;
        }
        shift += 7;
    }
}

/// The exact sum of a run's windows in one slot, in the first one's layout (as the collector's
/// windows of one run are summed). One window is its own sum.
fn sum(hists: &[&Hist]) -> Hist {
    match hists {
        [one] => (*one).clone(),
        _ => {
            let mut acc = Accumulator::new(hists[0].layout());
            for h in hists {
                acc.add(h);
            }
            acc.finish()
        }
    }
}

/// `a + b`, exactly, in `a`'s layout (as [`Accumulator`] sums in its first window's layout).
fn add(a: &Hist, b: &Hist) -> Hist {
    if a.layout() == b.layout() {
        a.merge(b)
    } else {
        sum(&[a, b])
    }
}

#[allow(clippy::too_many_arguments)]
fn merged_meta(
    sources: &[SourceInfo],
    opts: &Options,
    grid: f64,
    tolerance: f64,
    max_offset: f64,
    worst_clock: Option<f64>,
    offsets: &[f64],
    origin: f64,
) -> RunMeta {
    let (workload, units) = sources[0].head.as_deref().cloned().unwrap_or_default();
    // the workload when every source ran the same one (so selectors and sweeps still apply)
    let same_workload = sources.iter().all(|s| s.workload_print == sources[0].workload_print);
    let mut other = Map::new();
    if !sources[0].user.is_empty() {
        other.insert("user".into(), Value::Object(sources[0].user.clone()));
    }
    RunMeta {
        version: Some(1),
        name: Some(opts.name.clone()),
        tool: Some(Tool { name: "nines merge".into(), version: env!("CARGO_PKG_VERSION").into(), ..Default::default() }),
        start: Some(iso_date(origin)),
        workload: if same_workload { workload } else { None },
        units,
        sources: sources.iter().map(|s| s.source.clone()).collect(),
        merge: merge_json(sources, opts, grid, tolerance, max_offset, worst_clock, offsets),
        other,
        ..Default::default()
    }
}

/// The merge's metadata object (see [`RunMeta::merge`]).
fn merge_json(
    sources: &[SourceInfo],
    opts: &Options,
    grid: f64,
    tolerance: f64,
    max_offset: f64,
    worst_clock: Option<f64>,
    offsets: &[f64],
) -> Map<String, Value> {
    let srcs: Vec<Value> = sources
        .iter()
        .zip(offsets)
        .map(|(s, &offset)| {
            json!({
                "label": s.label,
                "file": s.source,
                "name": s.name,
                "host": s.host,
                "start": s.start_time.map(iso_date),
                "clock_esterror_s": s.clock_esterror_s,
                "clock_maxerror_s": s.clock_maxerror_s,
                "offset_s": offset,
            })
        })
        .collect();
    let mut m = Map::new();
    m.insert("window_s".into(), json!(grid));
    if opts.regrid_s.is_some() {
        m.insert("regrid".into(), json!(true));
    }
    m.insert("tolerance_s".into(), json!(tolerance));
    m.insert("max_offset_s".into(), json!(max_offset));
    if let Some(c) = worst_clock {
        m.insert("clock_maxerror_s".into(), json!(c));
    }
    m.insert("sources".into(), Value::Array(srcs));
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hist::Layout;
    use crate::meta::Host;
    use crate::stats::{run_stats, Options as StatsOptions};

    fn run(name: &str, start: f64, windows: usize, len: f64, base: u64) -> Run {
        let l = Layout::default_ns();
        let mut ws = Vec::new();
        for i in 0..windows {
            for (tag, n) in [("read", 700u64), ("write", 300)] {
                ws.push(Window {
                    start_s: i as f64 * len,
                    length_s: len,
                    tag: Some(tag.into()),
                    hist: Hist::from_values(l, (0..n).map(|k| base + k * 31 + i as u64 * 7)),
                });
            }
        }
        let meta = RunMeta { host: Some(Host { hostname: Some(format!("{name}-host")), ..Default::default() }), ..Default::default() };
        Run {
            name: name.into(),
            source: format!("{name}.hlog"),
            start_time: Some(start),
            meta,
            windows: ws,
            warnings: Vec::new(),
            context: Vec::new(),
        }
    }

    fn merge_of(runs: &[Run], opts: &Options) -> Result<Run, MergeError> {
        let sources: Vec<Source> = runs.iter().map(|r| Source { run: r, label: label_of(r) }).collect();
        merge(&sources, opts)
    }

    #[test]
    fn packed_sums_are_the_histograms_sums() {
        let l = Layout::default_ns();
        let mut big = Accumulator::new(l);
        // a count past 32 bits (kept aside in a Hist) and one past 7 * 9 bits
        big.record_n(1_000, u64::from(u32::MAX) + 5);
        big.record_n(u64::MAX / 4, 1 << 60);
        let hists = [
            Hist::from_values(l, [5, 6, 7, 3_000, 1 << 40]),
            Hist::empty(l),
            big.finish(),
            Hist::from_values(l, (0..5_000).map(|k| k * 977)),
            // another layout: summed in the first one's, as `add` does
            Hist::from_values(Layout::new(1, 2).expect("layout"), [7, 90_000, 5_000_000]),
            Hist::from_values(l, [0, 1, 6]),
        ];
        let (mut packed, mut want, mut scratch) = (Packed::empty(l), Hist::empty(l), Vec::new());
        let mut store = Store::default();
        for h in &hists {
            packed.add(h, &mut store, &mut scratch);
            want = add(&want, h);
            assert_eq!(packed.unpack(&store), want);
            assert_eq!(packed.buckets as usize, want.indexed().count());
        }
        // the varints themselves, at the edges of their bytes
        let mut b = Vec::new();
        let vs = [0, 1, 127, 128, 16_383, 16_384, u64::from(u32::MAX), u64::MAX];
        for v in vs {
            push_leb128(&mut b, v);
        }
        assert_eq!(b.len(), 1 + 1 + 1 + 2 + 2 + 3 + 5 + 10);
        let mut at = 0;
        assert_eq!(vs.map(|_| leb128(&b, &mut at)), vs);
        assert_eq!(at, b.len());
    }

    #[test]
    fn sums_moved_and_compacted_in_their_store_stay_exact() {
        let l = Layout::default_ns();
        let (mut store, mut scratch) = (Store::default(), Vec::new());
        let mut sums: Vec<(Packed, Hist)> = (0..20).map(|_| (Packed::empty(l), Hist::empty(l))).collect();
        let mut moved = 0;
        for round in 0..30u64 {
            for (i, (p, want)) in sums.iter_mut().enumerate() {
                // each sum widens by a few buckets a round, some rounds not at all
                let h = Hist::from_values(l, (0..(i as u64 % 4) * round).map(|k| 1_000 + k * 131 * (i as u64 + 1)));
                let at = p.at;
                p.add(&h, &mut store, &mut scratch);
                moved += usize::from(p.at != at);
                *want = add(want, &h);
            }
            // one sum dropped now and then, as a band drops its last common windows
            if round % 7 == 6 {
                let (p, _) = sums.pop().expect("a sum");
                store.free(&p);
            }
            if store.dead > store.bytes.len() / 8 {
                store.compact(sums.iter_mut().map(|(p, _)| p));
                assert_eq!(store.dead, 0);
                assert_eq!(store.bytes.len(), sums.iter().map(|(p, _)| p.cap).sum::<usize>());
            }
            for (p, want) in &sums {
                assert_eq!(&p.unpack(&store), want);
                assert!(p.len <= p.cap);
            }
            assert_eq!(store.live(), sums.iter().map(|(p, _)| p.cap).sum::<usize>());
        }
        assert!(moved > 20, "the sums outgrew their room");
        // what the store counts as live is the room of the sums it holds, no more
        assert_eq!(store.live(), sums.iter().map(|(p, _)| p.cap).sum::<usize>());
    }

    #[test]
    fn aligned_runs_sum_exactly_and_keep_each_source() {
        let (a, b) = (run("a", 1000.0, 5, 1.0, 10_000), run("b", 1000.0004, 5, 1.0, 50_000));
        let m = merge_of(&[a.clone(), b.clone()], &Options { name: "fleet".into(), ..Default::default() }).unwrap();
        let s = run_stats(&m, &StatsOptions::default());
        let (sa, sb) = (run_stats(&a, &StatsOptions::default()), run_stats(&b, &StatsOptions::default()));
        for tag in ["read", "write", "all"] {
            assert_eq!(s.tags[tag].count, sa.tags[tag].count + sb.tags[tag].count, "{tag}");
        }
        // per-source parts are there, equal to their source, and not merged into all
        assert_eq!(s.tags["a-host/read"], sa.tags["read"]);
        assert_eq!(s.tags["b-host/write"], sb.tags["write"]);
        assert_eq!(s.tags["all"].count, 10_000);
        // the merged all equals the merge of both runs' windows
        let both = Run::merged("x", &[a, b]).unwrap();
        assert_eq!(s.tags["all"].levels, run_stats(&both, &StatsOptions::default()).tags["all"].levels);
        assert_eq!(m.windows.len(), 5 * 6);
        assert_eq!(m.start_time, Some(1000.0));
        let mm = &m.meta.merge;
        assert_eq!(mm["sources"].as_array().unwrap().len(), 2);
        assert!((mm["sources"][1]["offset_s"].as_f64().unwrap() - 0.0004).abs() < 1e-9, "{mm:?}");
        assert!((mm["max_offset_s"].as_f64().unwrap() - 0.0004).abs() < 1e-9);
        // the archive keeps it all
        let back = crate::archive::read("m.hlog", &crate::archive::write(Vec::new(), &m).unwrap()).unwrap();
        assert_eq!(run_stats(&back, &StatsOptions::default()).tags, s.tags);
        assert_eq!(back.meta.merge, m.meta.merge);
    }

    #[test]
    fn misaligned_runs_are_refused_with_the_numbers_unless_regridded() {
        let (a, b) = (run("a", 1000.0, 6, 1.0, 10_000), run("b", 1000.25, 6, 1.0, 50_000));
        let e = merge_of(&[a.clone(), b.clone()], &Options::default()).unwrap_err().to_string();
        assert!(e.contains("b.hlog: its windows start +0.250000 s off the grid of a.hlog (1 s windows"), "{e}");
        assert!(e.contains("tolerance of 0.001 s (no run states its clock error"), "{e}");
        // stated clock errors of two hosts widen the tolerance...
        let mut b2 = b.clone();
        b2.meta.host.as_mut().unwrap().clock_maxerror_s = Some(0.2);
        let mut a2 = a.clone();
        a2.meta.host.as_mut().unwrap().clock_maxerror_s = Some(0.1);
        let m = merge_of(&[a2.clone(), b2.clone()], &Options::default()).unwrap();
        assert_eq!(m.meta.merge["clock_maxerror_s"], 0.2);
        // ...not when the runs share one host's clock
        let mut b3 = b2.clone();
        b3.meta.host.as_mut().unwrap().hostname = Some("a-host".into());
        let one = [Source { run: &a2, label: "x".into() }, Source { run: &b3, label: "y".into() }];
        let e = merge(&one, &Options::default()).unwrap_err().to_string();
        assert!(e.contains("runs of one host share its clock"), "{e}");
        // an unsynchronised clock (16 s) cannot match 1 s windows
        b2.meta.host.as_mut().unwrap().clock_maxerror_s = Some(16.0);
        let e = merge_of(&[a2, b2], &Options::default()).unwrap_err().to_string();
        assert!(e.contains("may be 16.1 s apart") && e.contains("more than half a window (1 s)"), "{e}");
        // regridded: sums exact, windows of 2 s, said in the metadata
        let m = merge_of(&[a.clone(), b.clone()], &Options { regrid_s: Some(2.0), ..Default::default() }).unwrap();
        let s = run_stats(&m, &StatsOptions::default());
        assert_eq!(s.tags["all"].count, 12_000);
        assert!(m.windows.iter().all(|w| w.length_s == 2.0 && w.start_s % 2.0 == 0.0));
        assert_eq!(m.meta.merge["regrid"], true);
        let e = merge_of(&[a.clone(), b.clone()], &Options { regrid_s: Some(0.5), ..Default::default() }).unwrap_err().to_string();
        assert!(e.contains("at least the longest window (1 s)"), "{e}");
        // different lengths
        let c = run("c", 1000.0, 3, 2.0, 10_000);
        let e = merge_of(&[a.clone(), c], &Options::default()).unwrap_err().to_string();
        assert!(e.contains("c.hlog has windows of 2 s, a.hlog of 1 s"), "{e}");
        // no start time, one run, equal labels
        let mut n = a.clone();
        n.start_time = None;
        assert!(merge_of(&[a.clone(), n], &Options::default()).unwrap_err().to_string().contains("no start time"));
        assert!(merge_of(std::slice::from_ref(&a), &Options::default()).is_err());
        assert!(merge_of(&[a.clone(), a], &Options::default()).unwrap_err().to_string().contains("labelled \"a-host\""));
    }

    #[test]
    fn a_merge_in_bands_is_the_merge_in_one() {
        let runs = [run("a", 1000.0, 9, 1.0, 10_000), run("b", 1002.0003, 6, 1.0, 50_000), run("c", 999.0, 4, 1.0, 90_000)];
        let opts = Options { name: "fleet".into(), ..Default::default() };
        let whole = merge_of(&runs, &opts).unwrap();
        // one common window a band (a budget of 0), then a few a band
        for (budget, bands) in [(0, 10), (20_000, 3)] {
            let infos = runs.iter().map(|r| SourceInfo::of(r, label_of(r))).collect();
            let mut merger = Merger::new(infos, &opts).unwrap().with_budget(budget);
            let own: Vec<Own<Window>> = runs.iter().enumerate().map(|(i, r)| merger.add(i, r).unwrap()).collect();
            let mut band = merger.take_band();
            let (start_time, meta) = merger.head();
            let shape = merger.shape();
            let mut own: Vec<_> = own.into_iter().map(|o| o.into_iter().peekable()).collect();
            let (mut windows, mut taken) = (Vec::new(), 0);
            loop {
                taken += 1;
                shape
                    .assemble(band, &mut own, |p| {
                        windows.push(match p {
                            Piece::Merged(w) | Piece::Own(_, w) => w,
                        });
                        Ok::<(), MergeError>(())
                    })
                    .unwrap();
                if merger.done() {
                    break;
                }
                for (i, r) in runs.iter().enumerate() {
                    // the runs' own windows are given in the first band only
                    assert!(merger.add(i, r).unwrap().is_empty());
                }
                band = merger.take_band();
            }
            assert_eq!(taken, bands, "budget {budget}");
            assert_eq!((Some(start_time), &meta), (whole.start_time, &whole.meta));
            assert_eq!(windows, whole.windows, "budget {budget}");
        }
    }

    #[test]
    fn a_run_read_again_is_checked_against_its_plan_and_the_workload_is_the_first_runs() {
        use crate::meta::Workload;
        let with = |mut r: Run, qd: u32, notes: &str| {
            r.meta.workload = Some(Workload { rw: Some("randread".into()), qd: Some(qd), ..Default::default() });
            r.meta.notes = Some(notes.into());
            r
        };
        let (a, b) = (with(run("a", 1000.0, 3, 1.0, 10_000), 4, "x"), with(run("b", 1000.0, 3, 1.0, 50_000), 4, "y"));
        let opts = Options { name: "fleet".into(), ..Default::default() };
        let plan = |runs: &[&Run]| Merger::new(runs.iter().map(|r| SourceInfo::of(r, label_of(r))).collect(), &opts).unwrap();
        // the same workload: the merged run states it (only the first run's is kept whole)
        let mut m = plan(&[&a, &b]);
        m.add(0, &a).unwrap();
        m.add(1, &b).unwrap();
        m.take_band();
        assert_eq!(m.head().1.workload, a.meta.workload);
        // a run whose metadata changed between its readings (here only its notes) is refused
        let mut m = plan(&[&a, &b]);
        let changed = with(run("b", 1000.0, 3, 1.0, 50_000), 4, "z");
        let e = m.add(1, &changed).unwrap_err();
        assert!(e.0.contains("b.hlog: the run changed while it was being merged"), "{e}");
        // runs of two workloads: the merged run states none
        let c = with(run("c", 1000.0, 3, 1.0, 90_000), 32, "x");
        let mut m = plan(&[&a, &c]);
        m.add(0, &a).unwrap();
        m.add(1, &c).unwrap();
        m.take_band();
        assert_eq!(m.head().1.workload, None);
    }

    #[test]
    fn the_merge_keeps_the_user_keys_every_run_gives_alike() {
        let with = |mut r: Run, user: Value| {
            r.meta.other.insert("user".into(), user);
            r
        };
        let a = with(run("a", 1000.0, 3, 1.0, 10_000), json!({"build": "42", "kernel": "6.8", "rack": "1"}));
        let b = with(run("b", 1000.0, 3, 1.0, 50_000), json!({"build": "42", "kernel": "6.9"}));
        let opts = Options { name: "fleet".into(), ..Default::default() };
        let merged = |runs: &[&Run]| {
            let mut m = Merger::new(runs.iter().map(|r| SourceInfo::of(r, label_of(r))).collect(), &opts).unwrap();
            for (i, r) in runs.iter().enumerate() {
                m.add(i, r).unwrap();
            }
            m.take_band();
            m.head().1
        };
        // build agrees; kernel differs; rack is a's alone
        assert_eq!(merged(&[&a, &b]).other.get("user"), Some(&json!({"build": "42"})));
        // nothing agreed, or no keys at all: no user object
        let c = with(run("c", 1000.0, 3, 1.0, 90_000), json!({"build": "43"}));
        assert_eq!(merged(&[&a, &c]).other.get("user"), None);
        let plain = run("d", 1000.0, 3, 1.0, 70_000);
        assert_eq!(merged(&[&a, &plain]).other.get("user"), None);
    }

    #[test]
    fn labels_are_tag_safe() {
        assert_eq!(clean_label("node 1,rack@2/x"), "node_1_rack_2_x");
        assert_eq!(clean_label("h1.example.org"), "h1.example.org");
        assert_eq!(clean_label(""), "run");
    }

    #[test]
    fn runs_of_one_host_are_labelled_by_their_names() {
        let (mut a, mut b, c) =
            (run("nvme0", 1000.0, 2, 1.0, 10_000), run("nvme1", 1000.0, 2, 1.0, 20_000), run("c", 1000.0, 2, 1.0, 30_000));
        for r in [&mut a, &mut b] {
            r.meta.host.as_mut().unwrap().hostname = Some("vm".into());
        }
        let infos: Vec<SourceInfo> = [&a, &b, &c].iter().map(|r| SourceInfo::of(r, String::new())).collect();
        assert_eq!(default_labels(&infos), ["nvme0", "nvme1", "c-host"]);
        // and they merge, each run's tags in its own scope
        let sources: Vec<Source> = [&a, &b, &c].iter().zip(default_labels(&infos)).map(|(r, label)| Source { run: r, label }).collect();
        let m = merge(&sources, &Options::default()).unwrap();
        assert!(m.windows.iter().any(|w| w.tag.as_deref() == Some("nvme1/read")));
    }
}
