//! The loaded runs and what is derived from them: the page's [`Runs`] handle holds the run
//! set in Leptos' arena, with the signal that says it changed (its readers track it), and
//! beside it the caches and draw bookkeeping ([`Book`]: each trace's (run x direction) 1-CDF,
//! density, steady regions and runtime points, cached by pyramid level, the stats of a run
//! over a range, the frames drawn), which notify nobody: a draw that fills a cache would
//! otherwise trigger itself again.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use leptos::prelude::*;

use nines_core::bandwidth::bytes_per_io;
use nines_core::ccdf::{ccdf, CcdfPoint};
use nines_core::compact::{self, Compact};
use nines_core::density::{log_density, DensityBin};
use nines_core::hist::Hist;
use nines_core::pyramid::{series_points, Axis, Pyramid, Slot};
use nines_core::quantile::Level;
use nines_core::run::Run;
use nines_core::series::{Direction, SeriesPoint};
use nines_core::stats::{run_stats, Options, RunStats};
use nines_core::steady::steady_regions;

use super::site::SiteRun;
use crate::charts::Frame;
use crate::panels::dir_key;

thread_local! {
    /// The page's [`Runs`] handle (arena ids; the runs themselves live in Leptos' arena, owned
    /// by the app), for the code no reactive owner reaches: `replace_run` called from
    /// JavaScript, tasks and timers, and the draw helpers they share with the panels.
    static RUNS: Cell<Option<Runs>> = const { Cell::new(None) };
}

/// A run that could not be loaded (or read while drawing), shown with the file it came from.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct LoadError {
    pub(super) file: String,
    pub(super) message: String,
}

/// The run set as the page holds it: shared, so that a reader keeps the set it read.
pub(super) type RunSet = Rc<Vec<Rc<Loaded>>>;

/// The page's loaded runs (reactive) and their caches and draw bookkeeping (not reactive).
///
/// Reads never panic, nested or not: [`Runs::get`] hands out the set as it is (an `Rc`), and
/// a change made while a reader holds it ([`Runs::commit`], [`Runs::stage`]) gives the page a
/// new set and leaves the reader its own (a read inside the closure given to `stage` or
/// `commit` sees no runs: the set being changed is the closure's). The bookkeeping
/// ([`Runs::book`]) is a `RefCell` borrowed for the closure given, and for `stage`'s: a `book`
/// call inside either panics (the closures given are short and call nothing that reaches the
/// bookkeeping).
#[derive(Clone, Copy)]
pub(super) struct Runs {
    held: StoredValue<Rc<Held>, LocalStorage>,
    /// Bumped when the run set changes.
    version: RwSignal<u64>,
    /// The page's load errors, which drawing may add to (a damaged carried group).
    pub(super) errors: RwSignal<Vec<LoadError>>,
}

/// What the [`Runs`] handle holds in the arena (each borrowed only within a call of its).
#[derive(Default)]
struct Held {
    set: RefCell<RunSet>,
    book: RefCell<Book>,
}

impl Runs {
    /// The page's runs, owned by the current reactive owner (the app), and the handle for the
    /// code no owner reaches ([`runs`]).
    pub(super) fn new(errors: RwSignal<Vec<LoadError>>) -> Self {
        let r = Runs { held: StoredValue::new_local(Rc::default()), version: RwSignal::new(0), errors };
        RUNS.with(|h| h.set(Some(r)));
        r
    }

    /// The loaded runs; the reactive caller runs again when they change.
    pub(super) fn get(self) -> RunSet {
        self.version.track();
        self.get_untracked()
    }

    /// The loaded runs, without tracking them.
    #[inline(never)]
    pub(super) fn get_untracked(self) -> RunSet {
        self.held().set.borrow().clone()
    }

    /// What the arena holds (one copy of the arena's code, however many callers).
    #[inline(never)]
    fn held(self) -> Rc<Held> {
        self.held.try_with_value(Rc::clone).unwrap_or_default()
    }

    /// The site's runs that have a summary (not reactive: set once, as the page is built).
    pub(super) fn site(self) -> Rc<Vec<SiteRun>> {
        self.book(|b| b.site.clone())
    }

    /// `f` of the loaded runs (tracked).
    pub(super) fn with<T>(self, f: impl FnOnce(&[Rc<Loaded>]) -> T) -> T {
        f(&self.get())
    }

    /// How many runs are loaded (tracked).
    pub(super) fn len(self) -> usize {
        self.get().len()
    }

    /// The runs' version (tracked): bumped at each change.
    pub(super) fn version(self) -> u64 {
        self.version.get()
    }

    pub(super) fn version_untracked(self) -> u64 {
        self.version.get_untracked()
    }

    /// Change the runs and tell their readers once.
    pub(super) fn commit<T>(self, f: impl FnOnce(&mut Vec<Rc<Loaded>>, &mut Book) -> T) -> T {
        let t = self.stage(f);
        self.notify();
        t
    }

    /// Change the runs without telling their readers (a loader that adds several runs and
    /// draws them together calls [`Runs::notify`] after the last). `f` is given the set and the
    /// bookkeeping; meanwhile the page's set reads as empty.
    pub(super) fn stage<T>(self, f: impl FnOnce(&mut Vec<Rc<Loaded>>, &mut Book) -> T) -> T {
        let held = self.held();
        let mut set = std::mem::take(&mut *held.set.borrow_mut());
        let t = f(Rc::make_mut(&mut set), &mut held.book.borrow_mut());
        *held.set.borrow_mut() = set;
        t
    }

    /// Tell the runs' readers that they changed (they draw again).
    #[inline(never)]
    pub(super) fn notify(self) {
        self.version.update(|v| *v += 1);
    }

    /// The caches and draw bookkeeping (no reader is told of a change).
    pub(super) fn book<T>(self, f: impl FnOnce(&mut Book) -> T) -> T {
        f(&mut self.held().book.borrow_mut())
    }
}

/// The page's [`Runs`] handle, from anywhere once the app is built.
#[inline(never)]
pub(super) fn runs() -> Runs {
    RUNS.with(Cell::get).expect("the app holds the runs")
}

pub(super) struct Loaded {
    /// The run; for a compact form, one window per tag: the whole run merged (its carried
    /// groups are [`Loaded::windows`]). Its name is the one the page shows, distinct from
    /// every other run's (`loading::name_runs`).
    pub(super) run: Rc<Run>,
    /// The name the run's file gives it.
    pub(super) given: String,
    /// File name as given (picker, manifest entry, embedded name).
    pub(super) file: String,
    /// The compact form's points and grouping, when the run came as one.
    pub(super) compact: Option<CompactParts>,
}

impl Loaded {
    /// The run with windows: the recorded ones, or a compact form's carried groups (decoded
    /// now, for the panels that work window by window: compare's IOPS spread, steady state).
    /// None while the groups are being fetched: the page draws again when they arrive.
    pub(super) fn windows(&self) -> Option<Rc<Run>> {
        match &self.compact {
            None => Some(self.run.clone()),
            Some(c) => match c.range(&self.file, None, None) {
                Ok(r) => Some(r),
                Err(RangeError::Pending) => None,
                Err(RangeError::Bad(e)) => {
                    report_range_error(&self.file, e);
                    Some(self.run.clone())
                }
            },
        }
    }
}

/// Why a compact form gives no histograms for a range: its groups are being fetched (the page
/// draws again when they arrive), or they cannot be read.
pub(super) enum RangeError {
    Pending,
    Bad(String),
}

/// What a compact form brings besides its run: the stored points of every direction, and its
/// carried groups (decoded when a range needs them).
#[derive(Clone)]
pub(super) struct CompactParts {
    pub(super) form: Compact,
    pub(super) group: usize,
    /// What a carried histogram covers, for the page to state.
    pub(super) text: String,
    /// The groups of the last range asked for, decoded: (from, to) bits and the run of them
    /// (the traces and the table of one brush all ask for the same range).
    pub(super) range: RefCell<Option<RangeRun>>,
    /// Where the groups are, for a form read without them (a site's page fetches the bytes
    /// before them): the form's URL, the byte they begin at and the byte its recorded
    /// windows begin at (a group's windows are fetched when a range cuts it).
    pub(super) groups_url: Option<(String, usize, Option<usize>)>,
    /// The groups were asked for.
    pub(super) fetching: Cell<bool>,
    /// The window sections asked for: (tag, group).
    pub(super) windows_fetching: RefCell<std::collections::HashSet<(usize, usize)>>,
}

/// By file: the compact forms requested without their groups: the form's URL, where its
/// groups begin and where its recorded windows begin.
pub(super) type GroupsAt = Vec<(String, (String, usize, Option<usize>))>;

/// A range's (from, to) bits and the carried groups in it.
pub(super) type RangeRun = ((u64, u64), Rc<Run>);

impl CompactParts {
    /// The histograms of `[from, to)`, as a run (the last range is kept): exact at any
    /// window edge when the form carries its recorded windows, else the carried groups that
    /// start in the range. A form read without its groups, or without the windows of a group
    /// the range cuts, fetches them now (`file` is the run's).
    pub(super) fn range(&self, file: &str, from: Option<f64>, to: Option<f64>) -> Result<Rc<Run>, RangeError> {
        if !self.form.has_groups() {
            return match &self.groups_url {
                Some((url, at, wat)) => {
                    if !self.fetching.replace(true) {
                        let bytes = match wat {
                            Some(w) => format!("bytes={at}-{}", w - 1),
                            None => format!("bytes={at}-"),
                        };
                        fetch_part(file.to_string(), url.clone(), bytes, |c, b| c.form.attach_groups(b).map_err(|e| e.to_string()));
                    }
                    Err(RangeError::Pending)
                }
                None => Err(RangeError::Bad(format!("{file}: compact form: the groups are not there"))),
            };
        }
        // the range drawn last is kept whole: each panel of a redraw asks for it again
        let key = (from.unwrap_or(f64::NEG_INFINITY).to_bits(), to.unwrap_or(f64::INFINITY).to_bits());
        if let Some((k, r)) = &*self.range.borrow() {
            if *k == key {
                return Ok(r.clone());
            }
        }
        let missing = self.form.windows_missing(from, to);
        if !missing.is_empty() {
            let Some((url, ..)) = &self.groups_url else {
                return Err(RangeError::Bad(format!("{file}: compact form: the windows of a group are not there")));
            };
            for m in missing {
                if self.windows_fetching.borrow_mut().insert((m.tag, m.group)) {
                    let bytes = format!("bytes={}-{}", m.bytes.start, m.bytes.end - 1);
                    fetch_part(file.to_string(), url.clone(), bytes, move |c, b| c.form.attach_windows(&m, b).map_err(|e| e.to_string()));
                }
            }
            return Err(RangeError::Pending);
        }
        let r = Rc::new(self.form.range(from, to).map_err(|e| RangeError::Bad(e.to_string()))?);
        *self.range.borrow_mut() = Some((key, r.clone()));
        Ok(r)
    }
}

/// Fetch part of run `file`'s compact form (bytes `range` of `url`, an HTTP range request;
/// for the groups, a server that sends the whole form is fine too), give it to the form with
/// `attach`, and draw again once no other fetch is under way (or a second after the first
/// that was not drawn): a brush on a site of 100 runs asks for the groups of 96 at once, and
/// drawing every panel again at each arrival took its table 15 s to fill, against 1 s.
fn fetch_part(file: String, url: String, range: String, attach: impl FnOnce(&CompactParts, &[u8]) -> Result<(), String> + 'static) {
    let h = runs();
    h.book(|b| b.groups_pending += 1);
    leptos::task::spawn_local(async move {
        let got = super::net::fetch_range(&url, &range).await.and_then(|bytes| {
            match h.get_untracked().iter().find(|r| r.file == file).and_then(|r| r.compact.as_ref()) {
                Some(c) => attach(c, &bytes),
                None => Ok(()),
            }
        });
        match got {
            Ok(()) => h.book(|b| {
                b.drawn.clear();
                b.first_render_done = false;
            }),
            Err(e) => report_range_error(&file, format!("could not load part of its compact form ({range}): {e}")),
        }
        let left = h.book(|b| {
            b.groups_pending -= 1;
            b.groups_undrawn = true;
            b.groups_pending
        });
        if left == 0 {
            draw_groups(h);
        } else if !h.book(|b| std::mem::replace(&mut b.groups_timer, true)) {
            // a fetch that takes long holds back the others' drawing by at most a second
            leptos::prelude::set_timeout(
                move || {
                    if h.book(|b| {
                        b.groups_timer = false;
                        b.groups_undrawn
                    }) {
                        draw_groups(h);
                    }
                },
                std::time::Duration::from_secs(1),
            );
        }
    });
}

/// Draw the groups that arrived (the set of runs is the same; what they hold changed).
fn draw_groups(h: Runs) {
    h.book(|b| b.groups_undrawn = false);
    h.notify();
}

/// Where a trace's runtime points come from: merged from the run's windows on demand
/// (a recorded run), or stored (a compact form; exact, computed when it was written).
pub(super) enum Points {
    Pyramid(Pyramid),
    Stored(usize),
}

/// What a trace (run x direction) needs, computed once.
pub(super) struct TraceData {
    pub(super) loaded: Rc<Loaded>,
    pub(super) dir: Direction,
    pub(super) source: Points,
    /// The whole run's 1-CDF, shared with the hover readout.
    pub(super) ccdf: Rc<Vec<CcdfPoint>>,
    pub(super) density: Vec<DensityBin>,
    pub(super) bytes_per_io: Option<f64>,
    /// SNIA PTS steady regions of the recorded windows' IOPS: (start s, end s, I/Os before,
    /// I/Os after, average IOPS), found when first asked for ([`TraceData::steady`]: only the
    /// focus run's are drawn).
    steady: std::cell::OnceCell<Vec<SteadyRegion>>,
    /// Runtime points already computed, by pyramid level and group (a zoom step or a pan
    /// mostly revisits them), with the levels they were computed for.
    pub(super) points: RefCell<(Vec<u32>, PointCache)>,
    /// Heatmap columns already computed, by axis (I/Os or not), pyramid level and group, with
    /// the levels they were computed for (as `points`: a zoom step mostly revisits them).
    pub(super) heat: RefCell<(Vec<u32>, HeatCache)>,
}

/// A steady region: (start s, end s, I/Os before, I/Os after, average IOPS).
pub(super) type SteadyRegion = (f64, f64, f64, f64, f64);

/// Runtime points by (pyramid level, group): the point and the I/Os it holds, `None` for an
/// empty group.
pub(super) type PointCache = crate::paged::Paged<Option<(SeriesPoint, u64)>>;
/// Heatmap columns by (pyramid level and axis, group): see `heatmap::cached_heatmap`.
pub(super) type HeatCache = crate::paged::Paged<Option<nines_core::heatmap::Column>>;

/// Consecutive windows the PTS rule is applied over (its "rounds").
pub(super) const STEADY_ROUNDS: usize = 5;

/// The caches of what is derived from the runs (by run index: a change of the runs clears
/// those of the runs it touched) and the draw bookkeeping; see [`Runs`].
#[derive(Default)]
pub(super) struct Book {
    pub(super) traces: HashMap<(usize, String), Rc<TraceData>>,
    pub(super) stats: HashMap<(usize, u64, u64, String), Rc<RunStats>>,
    pub(super) frames: HashMap<&'static str, Frame>,
    /// The 1-CDF curves last drawn, for the hover readout: (label, css colour, points).
    pub(super) hover_curves: Vec<(String, String, Rc<Vec<CcdfPoint>>)>,
    /// What the heatmap last drew: each row's label, frame and heatmap (its readout and
    /// `heatmap_cells`).
    pub(super) heat_drawn: Vec<(String, Frame, nines_core::heatmap::Heatmap)>,
    /// The panels drawn since the runs last changed (a few names).
    pub(super) drawn: Vec<&'static str>,
    pub(super) first_render_done: bool,
    pub(super) renders: u64,
    /// The site's runs that have a summary, for the trend (`site::sorted`).
    pub(super) site: Rc<Vec<SiteRun>>,
    /// By file: the compact forms requested without their groups, and where those are.
    pub(super) groups_at: GroupsAt,
    /// Time spent decoding runs so far, in ms (`<body data-nines-parse-ms>`).
    pub(super) parse_ms: f64,
    /// The direction shown is decided (`traces::dir_decided`).
    pub(super) dir_decided: bool,
    /// The page's first runs are loaded: `replace_run` may change them.
    pub(super) live: bool,
    /// Fetches of groups not back yet; groups arrived and not drawn yet; a draw of them is
    /// due within a second (see `fetch_groups`).
    groups_pending: u32,
    groups_undrawn: bool,
    groups_timer: bool,
}

pub(super) const BINS_PER_DECADE: u32 = 40;

pub(super) fn trace_data(run: usize, dir: &Direction) -> Option<Rc<TraceData>> {
    let key = (run, dir_key(dir));
    let h = runs();
    if let Some(t) = h.book(|b| b.traces.get(&key).cloned()) {
        return Some(t);
    }
    let loaded = h.get().get(run).cloned()?;
    let source = match &loaded.compact {
        Some(c) => Points::Stored(c.form.traces.iter().position(|t| t.dir == *dir)?),
        None => Points::Pyramid(Pyramid::new(&loaded.run, dir)),
    };
    let mut td = TraceData {
        loaded: loaded.clone(),
        dir: dir.clone(),
        source,
        points: RefCell::new((Vec::new(), PointCache::default())),
        heat: RefCell::new((Vec::new(), HeatCache::default())),
        steady: std::cell::OnceCell::new(),
        ccdf: Rc::default(),
        density: Vec::new(),
        bytes_per_io: None,
    };
    let whole = td.merged(None, None)?;
    let tag = match dir {
        Direction::Tag(t) => t.as_deref(),
        Direction::All => None,
    };
    td.ccdf = Rc::new(ccdf(&whole));
    td.density = log_density(&whole, BINS_PER_DECADE);
    td.bytes_per_io = bytes_per_io(&loaded.run, tag);
    let td = Rc::new(td);
    h.book(|b| b.traces.insert(key, td.clone()));
    Some(td)
}

impl TraceData {
    /// SNIA PTS steady regions of the recorded windows' IOPS (see the field).
    pub(super) fn steady(&self) -> &[SteadyRegion] {
        self.steady.get_or_init(|| {
            // a per-I/O import's partial last window has no rate ([`nines_core::run::Run::is_partial`])
            let run = &self.loaded.run;
            let native: Vec<&Slot> = self.slots().iter().filter(|s| !run.is_partial_length(s.length_s)).collect();
            let iops: Vec<f64> = native.iter().map(|s| if s.length_s > 0.0 { s.count as f64 / s.length_s } else { 0.0 }).collect();
            steady_regions(&iops, STEADY_ROUNDS)
                .into_iter()
                .map(|r| {
                    let (a, b) = (native[r.first], native[r.end - 1]);
                    (a.start_s, b.start_s + b.length_s, a.extent(Axis::Ios).0, b.extent(Axis::Ios).1, r.average)
                })
                .collect()
        })
    }

    pub(super) fn stored(&self) -> Option<&compact::Trace> {
        match self.source {
            Points::Stored(i) => self.loaded.compact.as_ref()?.form.traces.get(i),
            Points::Pyramid(_) => None,
        }
    }

    /// The direction's recorded windows (slots), in time order.
    pub(super) fn slots(&self) -> &[Slot] {
        match (&self.source, self.stored()) {
            (Points::Pyramid(p), _) => p.slots(),
            (_, Some(t)) => t.slots(),
            _ => &[],
        }
    }

    pub(super) fn extent(&self, axis: Axis) -> Option<(f64, f64)> {
        let s = self.slots();
        Some((s.first()?.extent(axis).0, s.last()?.extent(axis).1))
    }

    pub(super) fn view_keys(&self, axis: Axis, from: f64, to: f64, max_points: usize) -> (u32, std::ops::Range<usize>) {
        match (&self.source, self.stored()) {
            (Points::Pyramid(p), _) => p.view_keys(axis, from, to, max_points),
            (_, Some(t)) => t.view_keys(axis, from, to, max_points),
            _ => (0, 0..0),
        }
    }

    /// Point `i` of level `k` with the given levels of nines, and the I/Os before it.
    pub(super) fn point(&self, k: u32, i: usize, nines: &[u32]) -> Option<(SeriesPoint, u64)> {
        match (&self.source, self.stored()) {
            (Points::Pyramid(p), _) => {
                let levels: Vec<Level> = nines.iter().map(|&k| Level::nines(k)).collect();
                let span = p.span(&self.loaded.run, k, i)?;
                Some((series_points(std::iter::once(&span), &levels).pop()?, span.ios_before))
            }
            (_, Some(t)) => t.point(k, i, nines).unwrap_or_else(|e| {
                report_range_error(&self.loaded.file, format!("{}: compact form: {e}", self.loaded.file));
                None
            }),
            _ => None,
        }
    }

    /// Decode level `k` of a compact form now (see `chart_data::read_ahead`); a damaged level
    /// is reported when a chart draws it.
    pub(super) fn read_ahead(&self, k: u32) {
        if let (Points::Stored(_), Some(t)) = (&self.source, self.stored()) {
            let _ = t.read_level(k);
        }
    }

    /// The exact merge of the carried windows that start in `[from, to)` seconds.
    pub(super) fn merged(&self, from: Option<f64>, to: Option<f64>) -> Option<Hist> {
        match &self.source {
            Points::Pyramid(p) => p.merged(&self.loaded.run, from, to),
            // the whole run is carried merged; a range merges the groups in it
            Points::Stored(_) if from.is_none() && to.is_none() => compact::merged(&self.loaded.run, &self.dir, None, None),
            Points::Stored(_) => {
                let c = self.loaded.compact.as_ref()?;
                match c.range(&self.loaded.file, from, to) {
                    Ok(r) => compact::merged(&r, &self.dir, from, to),
                    Err(RangeError::Pending) => None,
                    Err(RangeError::Bad(e)) => {
                        report_range_error(&self.loaded.file, e);
                        None
                    }
                }
            }
        }
    }
}

/// A carried group of a compact form could not be decoded for a range: shown with the load
/// errors (once), after the drawing that found it.
pub(super) fn report_range_error(file: &str, message: String) {
    let errors = runs().errors;
    let e = LoadError { file: file.to_string(), message };
    leptos::task::spawn_local(async move {
        errors.update(|v| {
            if !v.contains(&e) {
                v.push(e)
            }
        })
    });
}

/// Stats of a run over a time range (cached): the standard levels, then `custom` ones (the
/// view's [`crate::state::ViewState::custom`], as `nines stats --levels` computes them).
pub(super) fn stats_of(run: usize, range: Option<(f64, f64)>, custom: &[Level]) -> Option<Rc<RunStats>> {
    let labels = custom.iter().map(|l| l.label.as_str()).collect::<Vec<_>>().join(",");
    let key = (run, range.map_or(u64::MAX, |r| r.0.to_bits()), range.map_or(u64::MAX, |r| r.1.to_bits()), labels);
    let h = runs();
    if let Some(s) = h.book(|b| b.stats.get(&key).cloned()) {
        return Some(s);
    }
    let loaded = h.get().get(run).cloned()?;
    let mut opts = Options { from: range.map(|r| r.0), to: range.map(|r| r.1), ..Options::default() };
    opts.levels.extend_from_slice(custom);
    let s = match (&loaded.compact, range) {
        (Some(c), Some(_)) => match c.range(&loaded.file, opts.from, opts.to) {
            Ok(r) => Rc::new(run_stats(&r, &opts)),
            Err(RangeError::Pending) => return None,
            Err(RangeError::Bad(e)) => {
                report_range_error(&loaded.file, e);
                return None;
            }
        },
        _ => Rc::new(run_stats(&loaded.run, &opts)),
    };
    h.book(|b| b.stats.insert(key, s.clone()));
    Some(s)
}
