//! The Leptos app (wasm32 only): loading, the panels, interactions and exports.
//!
//! Runs and everything derived from them live in a thread-local [`Model`] outside the reactive
//! graph (histograms are large and not `Send`-cheap); a `version` signal says when it changed.
//! The view state is one signal ([`ViewState`]) mirrored into the URL hash. Each chart draws
//! in its own effect keyed by a memo of the state it depends on, so a zoom step redraws only
//! the runtime and rate charts.
//!
//! Test hooks: every control has a `data-testid`; `<body>` carries `data-nines-renders`
//! (draws so far), `data-nines-idle` ("1" once the draws queued by the last change are done)
//! and `data-nines-first-render-ms` (performance.now() when every panel first drew the loaded
//! runs).

use std::cell::{Cell, RefCell};
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

use base64::Engine;
use leptos::prelude::*;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use nines_core::bandwidth::{bytes_per_io, mb_per_s};
use nines_core::ccdf::{ccdf, ccdf_steps, nines_of, share_at, CcdfPoint};
use nines_core::compact::{self, Compact};
use nines_core::density::{log_density, DensityBin};
use nines_core::hist::Hist;
use nines_core::pyramid::{series_points, time_range_of_ios, Axis, Pyramid, Slot};
use nines_core::quantile::{Level, Support};
use nines_core::run::{distinct_names, Run};
use nines_core::series::{Direction, SeriesPoint};
use nines_core::stats::{run_stats, Options, RunStats, TagStats};
use nines_core::steady::steady_regions;
use nines_core::units::{format_ns, format_ns_f, format_rate, group};
use nines_core::variability::variability;

use crate::charts::{
    self, CdfSpec, Curve, Frame, HistSpec, HistTrace, Metric, RateLine, RateSpec, RuntimeLine, RuntimeSpec, Scale, TraceStyle,
};
use crate::state::{DirMode, Focus, RateMode, ViewState};
use dom::{el, tx, Node};

mod dom;
mod heatmap;
mod hidpi;
mod judge;
mod qos;
mod trend;
mod workers;

#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
    // in a worker (static/worker.js) the module only decodes runs
    if web_sys::window().is_none() {
        return;
    }
    if let Some(b) = body() {
        let _ = b.class_list().add_1("viewer-on");
    }
    let proto = web_sys::window().and_then(|w| w.location().protocol().ok()).unwrap_or_default();
    // a page that carries its runs (a report, however it is opened) reads no manifest
    let embedded = handed_runs().is_some()
        || web_sys::window()
            .and_then(|w| w.document()?.get_element_by_id("nines-runs")?.text_content())
            .is_some_and(|t| !t.trim().is_empty());
    if proto.starts_with("http") && !embedded {
        // a site: its manifest is read and every run requested before the page is built, so
        // the runs download while the page draws its empty panels (which took 150 to 250 ms
        // that the requests waited for)
        // (leptos' executor starts with the page: the request runs on wasm-bindgen's own)
        wasm_bindgen_futures::spawn_local(async {
            let items = manifest_items().await;
            PRELOAD.with(|p| *p.borrow_mut() = Some(items));
            leptos::mount::mount_to_body(App);
        });
    } else {
        leptos::mount::mount_to_body(App);
    }
}

/// A manifest's runs, requested; an error for a manifest that is not JSON.
type Preload = Result<Vec<(String, Pending, Option<String>)>, LoadError>;

thread_local! {
    /// The runs of the site's manifest, requested before the page was built.
    static PRELOAD: RefCell<Option<Preload>> = const { RefCell::new(None) };
}

/// The runs listed in `manifest.json` beside the page, each requested now (no runs when there
/// is no manifest).
async fn manifest_items() -> Preload {
    let Ok(bytes) = fetch_bytes("manifest.json").await else { return Ok(Vec::new()) };
    let v = serde_json::from_slice::<serde_json::Value>(&bytes)
        .map_err(|e| LoadError { file: "manifest.json".into(), message: format!("not valid JSON: {e}") })?;
    let Some(w) = web_sys::window() else { return Ok(Vec::new()) };
    let entries = manifest_entries(&v);
    let summarised: Vec<trend::SiteRun> = entries
        .iter()
        .filter_map(|e| {
            Some(trend::SiteRun { file: e.file.clone(), compact: e.compact.clone(), name: e.name.clone(), summary: e.summary.clone()? })
        })
        .collect();
    // a site of many runs opens on its trend, each run loaded when asked for
    let trend_only = entries.len() > AUTO_LOAD_MAX && summarised.len() == entries.len();
    trend::set_site(summarised);
    if trend_only {
        return Ok(Vec::new());
    }
    // every request goes out now; the runs download while earlier ones decode
    Ok(entries
        .into_iter()
        .map(|e| {
            // the compact form when the site has one; the archive waits until a brushed range
            // needs it
            let p = w.fetch_with_str(e.compact.as_deref().unwrap_or(&e.file));
            let archive = e.compact.is_some().then(|| e.file.clone());
            (e.file, Pending::Fetch(p), archive)
        })
        .collect())
}

// ---------------------------------------------------------------------------------------
// Model

struct Loaded {
    /// The run; for a compact form, one window per tag: the whole run merged (its carried
    /// groups are [`Loaded::windows`]). Its name is the one the page shows, distinct from
    /// every other run's ([`name_runs`]).
    run: Rc<Run>,
    /// The name the run's file gives it.
    given: String,
    /// File name as given (picker, manifest entry, embedded name).
    file: String,
    /// The compact form's points and grouping, when the run came as one.
    compact: Option<CompactParts>,
    /// Where the run's archive is (a site's, or the object URL of a file a worker decoded),
    /// when a compact form was loaded in its place.
    archive: Option<String>,
}

impl Loaded {
    /// The run with windows: the recorded ones, or a compact form's carried groups (decoded
    /// now, for the panels that work window by window: compare's IOPS spread, steady state).
    fn windows(&self) -> Rc<Run> {
        match &self.compact {
            None => self.run.clone(),
            Some(c) => c.range(None, None).unwrap_or_else(|e| {
                report_range_error(&self.file, e);
                self.run.clone()
            }),
        }
    }
}

/// What a compact form brings besides its run: the stored points of every direction, and its
/// carried groups (decoded when a range needs them).
#[derive(Clone)]
struct CompactParts {
    form: Compact,
    group: usize,
    /// What a carried histogram covers, for the page to state.
    text: String,
    /// The groups of the last range asked for, decoded: (from, to) bits and the run of them
    /// (the traces and the table of one brush all ask for the same range).
    range: RefCell<Option<RangeRun>>,
}

/// A range's (from, to) bits and the carried groups in it.
type RangeRun = ((u64, u64), Rc<Run>);

impl CompactParts {
    /// The carried groups that start in `[from, to)`, as a run (the last range is kept).
    fn range(&self, from: Option<f64>, to: Option<f64>) -> Result<Rc<Run>, String> {
        let key = (from.unwrap_or(f64::NEG_INFINITY).to_bits(), to.unwrap_or(f64::INFINITY).to_bits());
        if let Some((k, r)) = &*self.range.borrow() {
            if *k == key {
                return Ok(r.clone());
            }
        }
        let r = Rc::new(self.form.range(from, to).map_err(|e| e.to_string())?);
        *self.range.borrow_mut() = Some((key, r.clone()));
        Ok(r)
    }
}

/// Where a trace's runtime points come from: merged from the run's windows on demand
/// (a recorded run), or stored (a compact form; exact, computed when it was written).
enum Points {
    Pyramid(Pyramid),
    Stored(usize),
}

/// What a trace (run x direction) needs, computed once.
struct TraceData {
    loaded: Rc<Loaded>,
    dir: Direction,
    source: Points,
    ccdf: Vec<CcdfPoint>,
    density: Vec<DensityBin>,
    bytes_per_io: Option<f64>,
    /// SNIA PTS steady regions of the recorded windows' IOPS: (start s, end s, I/Os before,
    /// I/Os after, average IOPS).
    steady: Vec<(f64, f64, f64, f64, f64)>,
    /// Runtime points already computed, by pyramid level and group (a zoom step or a pan
    /// mostly revisits them), with the levels they were computed for.
    points: RefCell<(Vec<u32>, PointCache)>,
    /// Heatmap columns already computed, by axis (I/Os or not), pyramid level and group, with
    /// the levels they were computed for (as `points`: a zoom step mostly revisits them).
    heat: RefCell<(Vec<u32>, HeatCache)>,
}

/// Runtime points by (pyramid level, group): the point and the I/Os it holds, `None` for an
/// empty group.
type PointCache = HashMap<(u32, usize), Option<(SeriesPoint, u64)>>;
type HeatCache = HashMap<(bool, u32, usize), Option<nines_core::heatmap::Column>>;
/// Embedded runs: file name and bytes, or why they could not be decoded.
type EmbeddedRuns = Vec<(String, Pending)>;
/// A drag in progress: which handle, where it started (x, y) and the view's range then, and
/// whether it moved.
type Drag = Option<(&'static str, f64, f64, f64, f64, bool)>;
/// Stats table rows: run index, name, file, per-tag stats.
type TableRows = Vec<(usize, String, String, Vec<(String, TagStats)>)>;

/// Consecutive windows the PTS rule is applied over (its "rounds").
const STEADY_ROUNDS: usize = 5;

#[derive(Default)]
struct Model {
    runs: Vec<Rc<Loaded>>,
    traces: HashMap<(usize, String), Rc<TraceData>>,
    stats: HashMap<(usize, u64, u64), Rc<RunStats>>,
    frames: HashMap<&'static str, Frame>,
    /// The 1-CDF curves last drawn, for the hover readout: (label, css colour, points).
    hover_curves: Vec<(String, String, Vec<CcdfPoint>)>,
    drawn: BTreeSet<&'static str>,
    first_render_done: bool,
    renders: u64,
}

thread_local! {
    static MODEL: RefCell<Model> = RefCell::new(Model::default());
    static IDLE_PENDING: Cell<bool> = const { Cell::new(false) };
    /// Archives asked for (by run index) for a brushed range.
    static FETCHING: RefCell<BTreeSet<usize>> = const { RefCell::new(BTreeSet::new()) };
    /// The page's list of errors, for errors found while drawing (a damaged carried group).
    static ERRORS: Cell<Option<RwSignal<Vec<LoadError>>>> = const { Cell::new(None) };
    /// The page's run version, once its first runs are loaded ([`replace_run`]).
    static LIVE: Cell<Option<RwSignal<u64>>> = const { Cell::new(None) };
    /// The direction shown is decided: by the link, by a click, or by the first runs loaded
    /// ([`split_by_default`]).
    static DIR_DECIDED: Cell<bool> = const { Cell::new(false) };
}

const BINS_PER_DECADE: u32 = 40;
const PANELS: [&str; 4] = ["cdf", "runtime", "rate", "hist"];

fn with_model<T>(f: impl FnOnce(&mut Model) -> T) -> T {
    MODEL.with(|m| f(&mut m.borrow_mut()))
}

fn dir_key(d: &Direction) -> String {
    match d {
        Direction::All => "all".into(),
        Direction::Tag(t) => nines_core::stats::tag_name(t.as_deref()).to_string(),
    }
}

fn trace_data(run: usize, dir: &Direction) -> Option<Rc<TraceData>> {
    let key = (run, dir_key(dir));
    if let Some(t) = with_model(|m| m.traces.get(&key).cloned()) {
        return Some(t);
    }
    let loaded = with_model(|m| m.runs.get(run).cloned())?;
    let source = match &loaded.compact {
        Some(c) => Points::Stored(c.form.traces.iter().position(|t| t.dir == *dir)?),
        None => Points::Pyramid(Pyramid::new(&loaded.run, dir)),
    };
    let mut td = TraceData {
        loaded: loaded.clone(),
        dir: dir.clone(),
        source,
        points: RefCell::new((Vec::new(), HashMap::new())),
        heat: RefCell::new((Vec::new(), HashMap::new())),
        steady: Vec::new(),
        ccdf: Vec::new(),
        density: Vec::new(),
        bytes_per_io: None,
    };
    let whole = td.merged(None, None)?;
    let tag = match dir {
        Direction::Tag(t) => t.as_deref(),
        Direction::All => None,
    };
    let native = td.slots();
    let iops: Vec<f64> = native.iter().map(|s| if s.length_s > 0.0 { s.count as f64 / s.length_s } else { 0.0 }).collect();
    let steady = steady_regions(&iops, STEADY_ROUNDS)
        .into_iter()
        .map(|r| {
            let (a, b) = (&native[r.first], &native[r.end - 1]);
            (a.start_s, b.start_s + b.length_s, a.extent(Axis::Ios).0, b.extent(Axis::Ios).1, r.average)
        })
        .collect();
    td.steady = steady;
    td.ccdf = ccdf(&whole);
    td.density = log_density(&whole, BINS_PER_DECADE);
    td.bytes_per_io = bytes_per_io(&loaded.run, tag);
    let td = Rc::new(td);
    with_model(|m| m.traces.insert(key, td.clone()));
    Some(td)
}

impl TraceData {
    fn stored(&self) -> Option<&compact::Trace> {
        match self.source {
            Points::Stored(i) => self.loaded.compact.as_ref()?.form.traces.get(i),
            Points::Pyramid(_) => None,
        }
    }

    /// The direction's recorded windows (slots), in time order.
    fn slots(&self) -> &[Slot] {
        match (&self.source, self.stored()) {
            (Points::Pyramid(p), _) => p.slots(),
            (_, Some(t)) => t.slots(),
            _ => &[],
        }
    }

    fn extent(&self, axis: Axis) -> Option<(f64, f64)> {
        let s = self.slots();
        Some((s.first()?.extent(axis).0, s.last()?.extent(axis).1))
    }

    fn view_keys(&self, axis: Axis, from: f64, to: f64, max_points: usize) -> (u32, std::ops::Range<usize>) {
        match (&self.source, self.stored()) {
            (Points::Pyramid(p), _) => p.view_keys(axis, from, to, max_points),
            (_, Some(t)) => t.view_keys(axis, from, to, max_points),
            _ => (0, 0..0),
        }
    }

    /// Point `i` of level `k` with the given levels of nines, and the I/Os before it.
    fn point(&self, k: u32, i: usize, nines: &[u32]) -> Option<(SeriesPoint, u64)> {
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

    /// The exact merge of the carried windows that start in `[from, to)` seconds.
    fn merged(&self, from: Option<f64>, to: Option<f64>) -> Option<Hist> {
        match &self.source {
            Points::Pyramid(p) => p.merged(&self.loaded.run, from, to),
            // the whole run is carried merged; a range merges the groups in it
            Points::Stored(_) if from.is_none() && to.is_none() => compact::merged(&self.loaded.run, &self.dir, None, None),
            Points::Stored(_) => {
                let c = self.loaded.compact.as_ref()?;
                match c.range(from, to) {
                    Ok(r) => compact::merged(&r, &self.dir, from, to),
                    Err(e) => {
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
fn report_range_error(file: &str, message: String) {
    let Some(errors) = ERRORS.with(Cell::get) else { return };
    let e = LoadError { file: file.to_string(), message };
    leptos::task::spawn_local(async move {
        errors.update(|v| {
            if !v.contains(&e) {
                v.push(e)
            }
        })
    });
}

/// Stats of a run over a time range (cached).
fn stats_of(run: usize, range: Option<(f64, f64)>) -> Option<Rc<RunStats>> {
    let key = (run, range.map_or(u64::MAX, |r| r.0.to_bits()), range.map_or(u64::MAX, |r| r.1.to_bits()));
    if let Some(s) = with_model(|m| m.stats.get(&key).cloned()) {
        return Some(s);
    }
    let loaded = with_model(|m| m.runs.get(run).cloned())?;
    let opts = Options { from: range.map(|r| r.0), to: range.map(|r| r.1), ..Options::default() };
    let s = match (&loaded.compact, range) {
        (Some(c), Some(_)) => match c.range(opts.from, opts.to) {
            Ok(r) => Rc::new(run_stats(&r, &opts)),
            Err(e) => {
                report_range_error(&loaded.file, e);
                return None;
            }
        },
        _ => Rc::new(run_stats(&loaded.run, &opts)),
    };
    with_model(|m| m.stats.insert(key, s.clone()));
    Some(s)
}

/// One curve on the page: a run in one direction.
#[derive(Clone)]
struct Trace {
    run: usize,
    dir: Direction,
    label: String,
    style: TraceStyle,
}

fn directions_of(run: &Run, mode: &DirMode) -> Vec<Direction> {
    let has = |t: &str| run.windows.iter().any(|w| w.tag.as_deref() == Some(t));
    match mode {
        DirMode::All => vec![Direction::All],
        DirMode::Read => {
            if has("read") {
                vec![Direction::Tag(Some("read".into()))]
            } else {
                vec![]
            }
        }
        DirMode::Write => {
            if has("write") {
                vec![Direction::Tag(Some("write".into()))]
            } else {
                vec![]
            }
        }
        DirMode::Trim => {
            if has("trim") {
                vec![Direction::Tag(Some("trim".into()))]
            } else {
                vec![]
            }
        }
        DirMode::Scoped(t) => {
            if has(t) {
                vec![Direction::Tag(Some(t.clone()))]
            } else {
                vec![]
            }
        }
        // every direction, scoped ones too (a merge's `host07/read`), not auxiliary measures
        DirMode::Overlay => run
            .tags()
            .into_iter()
            .filter(|t| t.as_deref().is_none_or(|t| nines_core::tag::Tag::parse(t).measure.is_none()))
            .map(Direction::Tag)
            .collect(),
    }
}

fn traces(st: &ViewState) -> Vec<Trace> {
    let runs = with_model(|m| m.runs.clone());
    let mut out = Vec::new();
    for (i, r) in runs.iter().enumerate() {
        if st.hidden.contains(&i) {
            continue;
        }
        for (d, dir) in directions_of(&r.run, &st.dir).into_iter().enumerate() {
            let style = trace_style(i, d, &st.dir);
            let base = if st.base.contains(&i) { " (baseline)" } else { "" };
            out.push(Trace { run: i, label: format!("{} {}{base}", r.run.name, dir_key(&dir)), dir, style });
        }
    }
    out
}

/// Do the loaded runs have more than one direction (read and write, a merge's hosts)?
fn multi_direction() -> bool {
    with_model(|m| m.runs.iter().any(|r| directions_of(&r.run, &DirMode::Overlay).len() > 1))
}

/// Runs with more than one direction open with each direction shown, not merged: decided once,
/// when the first runs are loaded, unless the link (or a click) chose a direction.
fn split_by_default(state: RwSignal<ViewState>) {
    if DIR_DECIDED.with(Cell::get) || with_model(|m| m.runs.is_empty()) {
        return;
    }
    DIR_DECIDED.with(|d| d.set(true));
    if multi_direction() && state.with_untracked(|s| s.dir == DirMode::All) {
        state.update(|s| s.dir = DirMode::Overlay);
    }
}

/// Style of the `d`-th direction of run `run`: one colour per run, or with directions
/// overlaid one colour per run and direction (three slots a run), so read and write stay
/// apart in every chart; a merge's scoped directions go on into the next slots.
fn trace_style(run: usize, d: usize, mode: &DirMode) -> TraceStyle {
    if *mode == DirMode::Overlay {
        TraceStyle::nth(run * 3 + d)
    } else {
        TraceStyle::nth(run)
    }
}

/// The brushed range of a trace in seconds (the selection is kept in x-axis units).
fn time_sel(st: &ViewState, td: &TraceData) -> Option<(f64, f64)> {
    let (a, b) = st.sel?;
    if st.x_ios {
        Some(time_range_of_ios(td.slots(), a, b).unwrap_or((0.0, 0.0)))
    } else {
        Some((a, b))
    }
}

fn run_time_sel(st: &ViewState, run: usize) -> Option<(f64, f64)> {
    st.sel?;
    let td = trace_data(run, &Direction::All)?;
    time_sel(st, &td)
}

// ---------------------------------------------------------------------------------------
// DOM helpers

fn body() -> Option<web_sys::HtmlElement> {
    web_sys::window()?.document()?.body()
}

fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

fn busy() {
    if let Some(b) = body() {
        let _ = b.set_attribute("data-nines-idle", "0");
    }
}

/// Record that a panel drew; flips the idle flag once the queued draws are done.
fn mark_drawn(panel: &'static str, ms: f64) {
    let (renders, first) = with_model(|m| {
        m.renders += 1;
        if !m.runs.is_empty() {
            m.drawn.insert(panel);
        }
        let first = !m.first_render_done && PANELS.iter().all(|p| m.drawn.contains(p));
        if first {
            m.first_render_done = true;
        }
        (m.renders, first)
    });
    if let Some(b) = body() {
        let _ = b.set_attribute("data-nines-renders", &renders.to_string());
        let _ = b.set_attribute(&format!("data-draw-ms-{panel}"), &format!("{ms:.2}"));
        if first {
            let t = format!("{:.1}", now_ms());
            if b.get_attribute("data-nines-first-run-ms").is_none() {
                let _ = b.set_attribute("data-nines-first-run-ms", &t);
            }
            let _ = b.set_attribute("data-nines-first-render-ms", &t);
            if let Ok(mem) = wasm_bindgen::memory().dyn_into::<js_sys::WebAssembly::Memory>() {
                if let Ok(buf) = mem.buffer().dyn_into::<js_sys::ArrayBuffer>() {
                    let _ = b.set_attribute("data-nines-wasm-mb", &format!("{:.0}", buf.byte_length() as f64 / 1048576.0));
                }
            }
        }
    }
    if !IDLE_PENDING.with(|p| p.replace(true)) {
        set_timeout(
            || {
                IDLE_PENDING.with(|p| p.set(false));
                if let Some(b) = body() {
                    let _ = b.set_attribute("data-nines-idle", "1");
                }
            },
            std::time::Duration::from_millis(0),
        );
    }
}

fn download(name: &str, mime: &str, data: &[u8]) {
    let arr = js_sys::Uint8Array::from(data);
    let parts = js_sys::Array::of1(&arr);
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &opts) else { return };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else { return };
    download_url(name, &url);
    let _ = web_sys::Url::revoke_object_url(&url);
}

fn download_url(name: &str, url: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    let Ok(a) = doc.create_element("a") else { return };
    let a: web_sys::HtmlAnchorElement = a.unchecked_into();
    a.set_href(url);
    a.set_download(name);
    a.click();
}

/// Size a chart canvas to its column: CSS pixels for layout and the mouse, device pixels in
/// the canvas (see `hidpi`). Returns the size in CSS pixels.
fn canvas_size(c: &web_sys::HtmlCanvasElement, height: u32) -> (u32, u32) {
    let w = c.parent_element().map_or(800, |p| p.client_width().max(320) as u32);
    set_size(c, w, height);
    (w, height)
}

fn set_size(c: &web_sys::HtmlCanvasElement, w: u32, h: u32) {
    let r = hidpi::ratio();
    let (pw, ph) = ((w as f64 * r).round() as u32, (h as f64 * r).round() as u32);
    if c.width() != pw || c.height() != ph {
        c.set_width(pw);
        c.set_height(ph);
        let _ = web_sys::HtmlElement::style(c).set_property("width", &format!("{w}px"));
        let _ = web_sys::HtmlElement::style(c).set_property("height", &format!("{h}px"));
    }
}

/// A canvas's size in CSS pixels.
fn css_size(c: &web_sys::HtmlCanvasElement) -> (u32, u32) {
    let r = hidpi::ratio();
    ((c.width() as f64 / r).round() as u32, (c.height() as f64 / r).round() as u32)
}

fn size_overlay(o: &web_sys::HtmlCanvasElement, base: &web_sys::HtmlCanvasElement) {
    let (w, h) = css_size(base);
    set_size(o, w, h);
}

/// The 2d context of a canvas, drawing in CSS pixels.
fn ctx_css(c: &web_sys::HtmlCanvasElement) -> Option<web_sys::CanvasRenderingContext2d> {
    let ctx = ctx2d(c)?;
    let r = hidpi::ratio();
    ctx.set_transform(r, 0.0, 0.0, r, 0.0, 0.0).ok()?;
    Some(ctx)
}

fn ctx2d(c: &web_sys::HtmlCanvasElement) -> Option<web_sys::CanvasRenderingContext2d> {
    c.get_context("2d").ok()??.dyn_into().ok()
}

// ---------------------------------------------------------------------------------------
// Chart data (owned), shared by the canvas draw and the SVG export

struct CdfData {
    curves: Vec<Curve>,
    hover: Vec<(String, String, Vec<CcdfPoint>)>,
    /// The QoS spec's envelopes of the curves shown (each distinct one once).
    envelopes: Vec<Vec<(f64, f64)>>,
    x: Scale,
    y: Scale,
}

fn cdf_data(st: &ViewState) -> CdfData {
    let mut curves = Vec::new();
    let mut hover = Vec::new();
    let mut envelopes: Vec<Vec<(f64, f64)>> = Vec::new();
    let spec = qos::parsed(st).and_then(Result::ok);
    for t in traces(st) {
        let Some(td) = trace_data(t.run, &t.dir) else { continue };
        if let Some(spec) = &spec {
            let e = qos::envelope(spec, &td.loaded.run, &t.dir);
            if !e.is_empty() && !envelopes.contains(&e) {
                envelopes.push(e);
            }
        }
        let pts = match time_sel(st, &td) {
            Some((a, b)) => match td.merged(Some(a), Some(b)) {
                Some(h) => ccdf(&h),
                None => continue,
            },
            None => td.ccdf.clone(),
        };
        if pts.is_empty() {
            continue;
        }
        curves.push(Curve {
            label: t.label.clone(),
            style: t.style,
            points: ccdf_steps(&pts).into_iter().map(|(x, y)| (x as f64, y)).collect(),
        });
        hover.push((t.label, t.style.css(), pts));
    }
    let (x, y) = cdf_ranges(st, &curves, &envelopes);
    CdfData { curves, hover, envelopes, x, y }
}

fn cdf_ranges(st: &ViewState, curves: &[Curve], envelopes: &[Vec<(f64, f64)>]) -> (Scale, Scale) {
    if let Some((x0, x1, y0, y1)) = st.cdf {
        return (Scale { lo: x0, hi: x1, log: true }, Scale { lo: y0, hi: y1, log: true });
    }
    // the curves, and the spec's limits beside them
    let limits = || envelopes.iter().flatten().map(|c| c.0).filter(|&v| v >= 1.0);
    let lo = curves.iter().filter_map(|c| c.points.first().map(|p| p.0)).chain(limits()).fold(f64::INFINITY, f64::min);
    let hi = curves.iter().filter_map(|c| c.points.last().map(|p| p.0)).chain(limits()).fold(0.0, f64::max);
    let min_share = curves.iter().filter_map(|c| c.points.last().map(|p| p.1)).fold(1.0, f64::min);
    let (lo, hi) = if lo.is_finite() && hi > 0.0 { (lo / 1.3, hi * 1.3) } else { (1e3, 1e7) };
    // down to the level of nines below the smallest 1/N, at least 3 nines
    let k = (-min_share.log10()).ceil().clamp(3.0, 12.0);
    // a little room above share 1 so curves do not run along the frame
    (Scale { lo: lo.max(1.0), hi, log: true }, Scale { lo: 10f64.powf(-k), hi: 1.6, log: true })
}

/// The focus run of the runtime and rate charts among the runs the legend shows.
fn focus_of(st: &ViewState) -> Option<usize> {
    let n = with_model(|m| m.runs.len());
    let shown: Vec<usize> = (0..n).filter(|i| !st.hidden.contains(i)).collect();
    crate::state::focus_run(&shown, st.focus)
}

struct RuntimeData {
    /// The run drawn strong (`state::focus_run`), the others faint.
    focus: Option<usize>,
    lines: Vec<RuntimeLine>,
    rates: Vec<RateLine>,
    rate_note: Option<String>,
    x: Scale,
    y: Scale,
    ry: Scale,
}

fn runtime_extent(st: &ViewState, ts: &[Trace]) -> Option<(f64, f64)> {
    let axis = if st.x_ios { Axis::Ios } else { Axis::Time };
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for t in ts {
        if let Some((a, b)) = trace_data(t.run, &t.dir).and_then(|td| td.extent(axis)) {
            lo = lo.min(a);
            hi = hi.max(b);
        }
    }
    (hi > lo).then_some((lo, hi))
}

fn runtime_data(st: &ViewState, width_px: u32) -> RuntimeData {
    let ts = traces(st);
    let axis = if st.x_ios { Axis::Ios } else { Axis::Time };
    let full = runtime_extent(st, &ts).unwrap_or((0.0, 1.0));
    let (x0, x1) = st.zoom.unwrap_or(full);
    // about one point per two pixels of plot
    let max_points = ((width_px.saturating_sub(charts::Y_LABEL_AREA + 30)) / 2).max(10) as usize;
    let mut lines = Vec::new();
    let mut rates = Vec::new();
    let mut ymin = f64::INFINITY;
    let mut ymax: f64 = 0.0;
    let mut rmax: f64 = 0.0;
    let mut missing_bs = false;
    let spec = qos::parsed(st).and_then(Result::ok);
    let focus = focus_of(st);
    for t in &ts {
        let Some(td) = trace_data(t.run, &t.dir) else { continue };
        let faint = focus.is_some_and(|f| f != t.run);
        let (k, range) = td.view_keys(axis, x0, x1, max_points);
        let mut cache = td.points.borrow_mut();
        if cache.0 != st.levels {
            cache.1.clear();
            cache.0 = st.levels.clone();
        }
        let mut pts: Vec<SeriesPoint> = Vec::with_capacity(range.len());
        let mut xs: Vec<f64> = Vec::with_capacity(range.len());
        for i in range {
            let entry = cache.1.entry((k, i)).or_insert_with(|| td.point(k, i, &st.levels));
            if let Some((p, before)) = entry {
                xs.push(match axis {
                    Axis::Time => p.start_s + p.length_s / 2.0,
                    Axis::Ios => *before as f64 + p.count as f64 / 2.0,
                });
                pts.push(p.clone());
            }
        }
        drop(cache);
        let mut push = |metric: Metric, vals: Vec<Option<u64>>, thin: Vec<bool>| {
            for v in vals.iter().flatten() {
                ymin = ymin.min(*v as f64);
                ymax = ymax.max(*v as f64);
            }
            let limit = spec.as_ref().and_then(|s| qos::runtime_limit(s, &td.loaded.run, &t.dir, metric));
            let broken = match limit {
                Some(l) => vals.iter().map(|v| v.is_some_and(|v| l.broken_by(v as f64))).collect(),
                None => Vec::new(),
            };
            lines.push(RuntimeLine {
                trace: t.label.clone(),
                style: t.style,
                metric,
                points: xs.iter().zip(vals).map(|(&x, v)| (x, v.map(|v| v as f64))).collect(),
                thin,
                limit: limit.map(|l| l.value),
                broken,
                faint,
            });
        };
        push(Metric::Median, pts.iter().map(|p| p.p50_ns).collect(), Vec::new());
        for (i, k) in st.levels.iter().enumerate() {
            push(
                Metric::Nines(*k),
                pts.iter().map(|p| p.levels[i].0).collect(),
                pts.iter().map(|p| p.levels[i].1 == Support::Thin).collect(),
            );
        }
        push(Metric::Max, pts.iter().map(|p| p.max_ns).collect(), Vec::new());
        let scale = match st.rate {
            RateMode::Iops => Some(1.0),
            RateMode::Mbps => td.bytes_per_io.map(|b| mb_per_s(1.0, b)),
        };
        let steady = scale
            .map(|k| {
                td.steady
                    .iter()
                    .map(|&(t0, t1, i0, i1, avg)| {
                        let (a, b) = if st.x_ios { (i0, i1) } else { (t0, t1) };
                        (a, b, 0.9 * avg * k, 1.1 * avg * k)
                    })
                    .collect()
            })
            .unwrap_or_default();
        let rate: Vec<(f64, f64)> = match st.rate {
            RateMode::Iops => xs.iter().zip(&pts).map(|(&x, p)| (x, p.iops)).collect(),
            RateMode::Mbps => match td.bytes_per_io {
                Some(bpi) => xs.iter().zip(&pts).map(|(&x, p)| (x, mb_per_s(p.iops, bpi))).collect(),
                None => {
                    missing_bs = true;
                    Vec::new()
                }
            },
        };
        for &(_, r) in &rate {
            rmax = rmax.max(r);
        }
        rates.push(RateLine { label: t.label.clone(), style: t.style, points: rate, steady, faint });
    }
    let (ylo, yhi) = if ymax > 0.0 { ((ymin / 1.5).max(1.0), ymax * 1.5) } else { (1e3, 1e7) };
    RuntimeData {
        focus,
        lines,
        rates,
        rate_note: missing_bs.then(|| "MB/s needs the block size, which this run's metadata does not give".to_string()),
        x: Scale { lo: x0, hi: x1, log: false },
        y: Scale { lo: ylo, hi: yhi, log: true },
        ry: Scale { lo: 0.0, hi: if rmax > 0.0 { rmax * 1.12 } else { 1.0 }, log: false },
    }
}

struct HistData {
    traces: Vec<HistTrace>,
    x: Scale,
    y: Scale,
}

fn hist_data(st: &ViewState, x: Scale) -> HistData {
    let mut out = Vec::new();
    let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
    for t in traces(st) {
        let Some(td) = trace_data(t.run, &t.dir) else { continue };
        let bins = match time_sel(st, &td) {
            Some((a, b)) => match td.merged(Some(a), Some(b)) {
                Some(h) => log_density(&h, BINS_PER_DECADE),
                None => continue,
            },
            None => td.density.clone(),
        };
        for b in bins.iter().filter(|b| b.count > 0) {
            lo = lo.min(b.density);
            hi = hi.max(b.density);
        }
        out.push(HistTrace { label: t.label, style: t.style, bins });
    }
    let y = if hi > 0.0 {
        Scale { lo: 10f64.powf((lo / 1.5).log10().floor()), hi: 10f64.powf((hi * 1.5).log10().ceil()), log: true }
    } else {
        Scale { lo: 1e-6, hi: 10.0, log: true }
    };
    HistData { traces: out, x, y }
}

fn draw_canvas(
    canvas: &web_sys::HtmlCanvasElement,
    draw: impl FnOnce(&DrawingArea<hidpi::HiDpi, plotters::coord::Shift>) -> Result<Frame, String>,
) -> Option<Frame> {
    let ctx = ctx_css(canvas)?;
    let inner = CanvasBackend::with_canvas_object(canvas.clone())?;
    let root = hidpi::HiDpi::new(inner, ctx, css_size(canvas)).into_drawing_area();
    let f = draw(&root);
    let _ = root.present();
    match f {
        Ok(f) => Some(f),
        Err(e) => {
            leptos::logging::error!("chart: {e}");
            None
        }
    }
}

// ---------------------------------------------------------------------------------------
// Loading

#[derive(Clone, Debug, PartialEq)]
struct LoadError {
    file: String,
    message: String,
}

fn add_run(file: &str, bytes: &[u8], archive: Option<String>) -> Result<(), LoadError> {
    let l = read_run(file, bytes, archive)?;
    with_model(|m| {
        m.runs.push(Rc::new(l));
        name_runs(m);
        m.drawn.clear();
        m.first_render_done = false;
    });
    Ok(())
}

/// Replace the run the page loaded from `file` with these bytes (a compact form or any run's
/// file), or add it: `static/live.js` follows a run being written this way. False (nothing
/// done) until the page's first runs are loaded; an error when the bytes are not a run.
#[wasm_bindgen]
pub fn replace_run(file: &str, bytes: &[u8]) -> Result<bool, JsValue> {
    let Some(version) = LIVE.with(Cell::get) else { return Ok(false) };
    let archive = compact::sniff(bytes).then(|| file.to_string());
    let mut l = read_run(file, bytes, archive).map_err(|e| JsValue::from_str(&format!("{}: {}", e.file, e.message)))?;
    with_model(|m| {
        match m.runs.iter().position(|r| r.file == file) {
            Some(i) => {
                // the name the page shows stays
                let name = &m.runs[i].run.name;
                if let Some(r) = Rc::get_mut(&mut l.run) {
                    r.name.clone_from(name);
                }
                if let Some(c) = &mut l.compact {
                    c.form.run.name.clone_from(name);
                }
                m.runs[i] = Rc::new(l);
                m.traces.retain(|k, _| k.0 != i);
                m.stats.retain(|k, _| k.0 != i);
                FETCHING.with(|f| f.borrow_mut().remove(&i));
            }
            None => {
                m.runs.push(Rc::new(l));
                name_runs(m);
            }
        }
        m.drawn.clear();
        m.first_render_done = false;
    });
    version.update(|v| *v += 1);
    Ok(true)
}

/// Decode a run's bytes (a compact form or any format nines reads).
fn read_run(file: &str, bytes: &[u8], archive: Option<String>) -> Result<Loaded, LoadError> {
    let t0 = now_ms();
    let read = if compact::sniff(bytes) {
        Compact::read(file, bytes).map_err(|e| e.to_string()).map(|mut c| {
            let text = c.group_text();
            let group = c.group;
            // the form keeps the run's name and metadata (its ranges are runs of that name),
            // the page holds its merged windows
            let mut run = std::mem::take(&mut c.run);
            let windows = std::mem::take(&mut run.windows);
            c.run = run.clone();
            run.windows = windows;
            (run, Some(CompactParts { form: c, group, text, range: RefCell::new(None) }))
        })
    } else {
        nines_core::import::read_any(file, bytes).map_err(|e| e.to_string()).map(|r| (r, None))
    };
    // time spent decoding runs (nines_core::import::read_any only), for the benchmark
    if let Some(b) = body() {
        let prev: f64 = b.get_attribute("data-nines-parse-ms").and_then(|v| v.parse().ok()).unwrap_or(0.0);
        let _ = b.set_attribute("data-nines-parse-ms", &format!("{:.1}", prev + now_ms() - t0));
    }
    match read {
        Ok((run, compact)) => {
            // (decoded bucket lists are already of their exact size: nines-core copies each
            // window out of its scratch list)
            let given = run.name.clone();
            Ok(Loaded { run: Rc::new(run), given, file: file.to_string(), compact, archive })
        }
        Err(msg) => {
            // the error names the file itself; shown after the file name, once is enough
            let message = msg.strip_prefix(&format!("{file}: ")).map_or(msg.clone(), str::to_string);
            Err(LoadError { file: file.to_string(), message })
        }
    }
}

/// Give the runs distinct names (nines-core's `distinct_names` of their own names and file
/// names): a run whose name another run has too is renamed, and what was computed under its
/// old name is dropped.
fn name_runs(m: &mut Model) {
    // the usual case, a name no other run has: nothing to rename (and no pass over all pairs)
    if let Some((last, rest)) = m.runs.split_last() {
        if rest.iter().all(|r| r.given != last.given && r.run.name != last.given) && last.run.name == last.given {
            return;
        }
    }
    let names = distinct_names(&m.runs.iter().map(|r| (r.given.as_str(), r.file.as_str())).collect::<Vec<_>>());
    for (i, name) in names.into_iter().enumerate() {
        if m.runs[i].run.name == name {
            continue;
        }
        // the caches hold the run (traces) or its name (stats)
        m.traces.retain(|k, _| k.0 != i);
        m.stats.retain(|k, _| k.0 != i);
        let rename = |l: &mut Loaded| {
            Rc::make_mut(&mut l.run).name.clone_from(&name);
            if let Some(c) = &mut l.compact {
                c.form.run.name.clone_from(&name);
                *c.range.get_mut() = None;
            }
        };
        match Rc::get_mut(&mut m.runs[i]) {
            Some(l) => rename(l),
            None => {
                let old = &m.runs[i];
                let mut l = Loaded {
                    run: old.run.clone(),
                    given: old.given.clone(),
                    file: old.file.clone(),
                    compact: old.compact.clone(),
                    archive: old.archive.clone(),
                };
                rename(&mut l);
                m.runs[i] = Rc::new(l);
            }
        }
    }
}

/// Let the browser paint between heavy steps.
async fn yield_now() {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(p).await;
}

async fn read_file(f: web_sys::File) -> Result<Vec<u8>, String> {
    let buf = wasm_bindgen_futures::JsFuture::from(f.array_buffer()).await.map_err(|e| format!("{e:?}"))?;
    Ok(js_sys::Uint8Array::new(&buf).to_vec())
}

/// A run's bytes: read already, or a request under way.
enum Pending {
    Ready(Result<Vec<u8>, String>),
    /// Bytes still in JavaScript memory.
    Bytes(js_sys::Uint8Array),
    Fetch(js_sys::Promise),
}

async fn fetch_bytes(url: &str) -> Result<Vec<u8>, String> {
    let w = web_sys::window().ok_or("no window")?;
    body_of(w.fetch_with_str(url)).await
}

/// The body of a `fetch` response, or why there is none.
async fn body_of(fetch: js_sys::Promise) -> Result<Vec<u8>, String> {
    let resp = wasm_bindgen_futures::JsFuture::from(fetch).await.map_err(|_| "could not fetch".to_string())?;
    let resp: web_sys::Response = resp.dyn_into().map_err(|_| "not a response")?;
    if !resp.ok() {
        return Err(format!("HTTP {}", resp.status()));
    }
    let buf =
        wasm_bindgen_futures::JsFuture::from(resp.array_buffer().map_err(|_| "no body")?).await.map_err(|_| "could not read the body")?;
    Ok(js_sys::Uint8Array::new(&buf).to_vec())
}

/// Runs handed over by a report's bootstrap (`nines report`), as bytes:
/// `globalThis.ninesRuns = {runs: [{name, bytes: Uint8Array}], view}`; read once.
fn handed_runs() -> Option<JsValue> {
    thread_local!(static HANDED: RefCell<Option<Option<JsValue>>> = const { RefCell::new(None) });
    HANDED.with(|h| {
        h.borrow_mut()
            .get_or_insert_with(|| {
                let g = js_sys::global();
                let v = js_sys::Reflect::get(&g, &"ninesRuns".into()).ok().filter(JsValue::is_object)?;
                // the page keeps no second copy of the runs
                let _ = js_sys::Reflect::delete_property(g.unchecked_ref::<js_sys::Object>(), &"ninesRuns".into());
                Some(v)
            })
            .clone()
    })
}

/// The view a page with embedded runs opens with when its link has no hash.
fn embedded_view() -> Option<String> {
    if let Some(v) = handed_runs() {
        return js_sys::Reflect::get(&v, &"view".into()).ok()?.as_string();
    }
    let text = web_sys::window()?.document()?.get_element_by_id("nines-runs")?.text_content()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v.get("view")?.as_str().map(str::to_string)
}

/// Runs embedded in the page: handed over by a report's bootstrap, or written into it as
/// `<script type="application/json" id="nines-runs">{"runs":[{"name":"a.hlog","base64":"..."}]}</script>`.
fn embedded_runs() -> Option<EmbeddedRuns> {
    if let Some(v) = handed_runs() {
        let list: js_sys::Array = js_sys::Reflect::get(&v, &"runs".into()).ok()?.dyn_into().ok()?;
        return Some(
            list.iter()
                .enumerate()
                .map(|(i, r)| {
                    let name = js_sys::Reflect::get(&r, &"name".into())
                        .ok()
                        .and_then(|n| n.as_string())
                        .unwrap_or_else(|| format!("embedded run {}", i + 1));
                    // copied into wasm memory one run at a time, as it is decoded
                    let bytes = js_sys::Reflect::get(&r, &"bytes".into()).ok().and_then(|b| b.dyn_into::<js_sys::Uint8Array>().ok());
                    (name, bytes.map_or_else(|| Pending::Ready(Err("no bytes".to_string())), Pending::Bytes))
                })
                .collect(),
        );
    }
    let doc = web_sys::window()?.document()?;
    let el = doc.get_element_by_id("nines-runs")?;
    let text = el.text_content()?;
    if text.trim().is_empty() {
        return None;
    }
    let v: serde_json::Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => {
            return Some(vec![("embedded runs".into(), Pending::Ready(Err(format!("the page's embedded runs are not valid JSON: {e}"))))])
        }
    };
    let list = v.get("runs")?.as_array()?;
    Some(
        list.iter()
            .enumerate()
            .map(|(i, r)| {
                let name = r.get("name").and_then(|n| n.as_str()).map_or_else(|| format!("embedded run {}", i + 1), str::to_string);
                let data = r
                    .get("base64")
                    .and_then(|d| d.as_str())
                    .ok_or_else(|| "no base64 data".to_string())
                    .and_then(|d| base64::engine::general_purpose::STANDARD.decode(d.trim()).map_err(|e| format!("base64: {e}")));
                (name, Pending::Ready(data))
            })
            .collect(),
    )
}

/// The most runs a site's page loads by itself; past that (with every run summarised) it
/// opens on the trend across its runs, and loads a run when it is clicked.
const AUTO_LOAD_MAX: usize = 100;

/// A run a manifest lists: its archive, and the compact form to load first when there is one.
#[derive(Clone, Debug, PartialEq)]
struct ManifestEntry {
    file: String,
    compact: Option<String>,
    name: String,
    /// Its whole-run levels (`nines site` writes them), for the trend.
    summary: Option<nines_core::trend::Summary>,
}

/// Entries of a `manifest.json` beside the page: `{"runs":[{"file":"runs/a.hlog",
/// "compact":"runs/a.hlog.compact"}]}` or `["runs/a.hlog", ...]`. Only relative paths on the
/// same site are fetched.
fn manifest_entries(v: &serde_json::Value) -> Vec<ManifestEntry> {
    let local = |p: &str| !p.contains(':') && !p.starts_with('/') && !p.starts_with('\\');
    let list = v.get("runs").and_then(|r| r.as_array()).or_else(|| v.as_array());
    list.map(|l| {
        l.iter()
            .filter_map(|e| {
                let file = e.as_str().or_else(|| e.get("file").and_then(|f| f.as_str())).filter(|p| local(p))?.to_string();
                let compact = e.get("compact").and_then(|f| f.as_str()).filter(|p| local(p)).map(str::to_string);
                let name = e.get("name").and_then(|n| n.as_str()).unwrap_or(&file).to_string();
                // a summary that does not read leaves the run out of the trend only
                let summary = e.get("trend").and_then(|t| nines_core::trend::Summary::from_json(t).ok());
                Some(ManifestEntry { file, compact, name, summary })
            })
            .collect()
    })
    .unwrap_or_default()
}

/// The page's side of the worker pool: results are added in file order, those that arrive
/// together in one step (one redraw for them all).
struct PageSink {
    /// Index of the pool's first file in `progress`.
    base: usize,
    progress: RwSignal<Vec<(String, workers::Stage)>>,
    errors: RwSignal<Vec<LoadError>>,
    version: RwSignal<u64>,
    state: RwSignal<ViewState>,
    /// Results not added yet, and whether a task is adding them.
    queue: Rc<RefCell<(std::collections::VecDeque<Arrived>, bool)>>,
}

/// A file the pool is done with: its index, the file, what became of it, the worker's time.
type Arrived = (usize, web_sys::File, workers::Outcome, f64);

impl workers::Sink for PageSink {
    fn stage(&self, i: usize, stage: workers::Stage) {
        self.progress.update(|p| {
            if let Some(e) = p.get_mut(self.base + i) {
                e.1 = stage;
            }
        });
    }

    fn done(&self, i: usize, file: &web_sys::File, outcome: workers::Outcome, ms: f64) {
        let start = {
            let mut q = self.queue.borrow_mut();
            q.0.push_back((i, file.clone(), outcome, ms));
            !std::mem::replace(&mut q.1, true)
        };
        if !start {
            return;
        }
        let (queue, progress, errors, version, base, state) =
            (self.queue.clone(), self.progress, self.errors, self.version, self.base, self.state);
        leptos::task::spawn_local(async move {
            loop {
                let batch: Vec<_> = queue.borrow_mut().0.drain(..).collect();
                if batch.is_empty() {
                    queue.borrow_mut().1 = false;
                    break;
                }
                busy();
                for (i, file, outcome, ms) in batch {
                    let name = file.name();
                    let res = match outcome {
                        workers::Outcome::Compact(b) => {
                            // a brushed range reads the file itself again (see the selection effect)
                            let url = web_sys::Url::create_object_url_with_blob(&file).ok();
                            add_run(&name, &b, url)
                        }
                        workers::Outcome::Raw => match read_file(file).await {
                            Ok(b) => add_run(&name, &b, None),
                            Err(message) => Err(LoadError { file: name.clone(), message }),
                        },
                        workers::Outcome::Error(msg) => {
                            let message = msg.strip_prefix(&format!("{name}: ")).map_or(msg.clone(), str::to_string);
                            Err(LoadError { file: name.clone(), message })
                        }
                    };
                    let stage = if res.is_ok() { workers::Stage::Drawn(ms) } else { workers::Stage::Failed };
                    if let Err(e) = res {
                        errors.update(|v| v.push(e));
                    }
                    progress.update(|p| {
                        if let Some(e) = p.get_mut(base + i) {
                            e.1 = stage;
                        }
                    });
                }
                split_by_default(state);
                version.update(|v| *v += 1);
                // let the charts draw what came before the next results are added
                yield_now().await;
            }
        });
    }
}

// ---------------------------------------------------------------------------------------
// The app

#[component]
fn App() -> impl IntoView {
    // the link's view, else the one a report was written with (`nines report --baseline`)
    let hash = location_hash().filter(|h| !h.trim_start_matches('#').is_empty()).or_else(embedded_view).unwrap_or_default();
    let initial = ViewState::from_hash(&hash);
    DIR_DECIDED.with(|d| d.set(crate::state::dir_in_hash(&hash)));
    let state = RwSignal::new(initial);
    let version = RwSignal::new(0u64);
    let errors: RwSignal<Vec<LoadError>> = RwSignal::new(Vec::new());
    ERRORS.with(|e| e.set(Some(errors)));
    let loading: RwSignal<Option<String>> = RwSignal::new(None);
    let progress: RwSignal<Vec<(String, workers::Stage)>> = RwSignal::new(Vec::new());
    let size = RwSignal::new(0u32);
    let hover_x: RwSignal<Option<f64>> = RwSignal::new(None);

    let set = move |f: Box<dyn FnOnce(&mut ViewState)>| {
        busy();
        state.update(|s| f(s));
    };

    // Loading: embedded runs, else manifest.json beside the page (static sites).
    let load_list = move |items: Vec<(String, Pending, Option<String>)>| async move {
        busy();
        let n = items.len();
        // the page paints and takes input between runs, but not after every run: a yield
        // costs a timer's clamp and often a frame, which for a site of 100 small runs was
        // more than a second of its first render
        let mut painted = f64::NEG_INFINITY;
        for (i, (name, pending, archive)) in items.into_iter().enumerate() {
            if now_ms() - painted > 50.0 {
                loading.set(Some(format!("loading {} of {n}: {name}", i + 1)));
                yield_now().await;
                painted = now_ms();
            }
            let bytes = match pending {
                Pending::Ready(b) => b,
                Pending::Bytes(b) => Ok(b.to_vec()),
                Pending::Fetch(p) => body_of(p).await.map_err(|e| format!("could not load it from the manifest: {e}")),
            };
            let res = bytes.map_err(|message| LoadError { file: name.clone(), message }).and_then(|b| add_run(&name, &b, archive));
            if let Err(e) = res {
                errors.update(|v| v.push(e));
            }
        }
        loading.set(None);
        split_by_default(state);
        version.update(|v| *v += 1);
    };
    leptos::task::spawn_local(async move {
        if let Some(items) = embedded_runs() {
            load_list(items.into_iter().map(|(n, b)| (n, b, None)).collect()).await;
            return;
        }
        match PRELOAD.with(|p| p.borrow_mut().take()) {
            Some(Ok(items)) => load_list(items).await,
            Some(Err(e)) => errors.update(|v| v.push(e)),
            None => {}
        }
        version.update(|v| *v += 1);
        LIVE.with(|l| l.set(Some(version)));
    });

    // A brushed range on a site's run whose compact form carries merged windows: fetch the
    // run's archive, so that the range's histograms are of the recorded windows.
    Effect::new(move |_| {
        // again once runs are loaded (a link's range is set before they are)
        version.track();
        if state.with(|s| s.sel.is_none()) {
            return;
        }
        let wanted: Vec<(usize, String, String)> = with_model(|m| {
            m.runs
                .iter()
                .enumerate()
                .filter_map(|(i, r)| {
                    Some((i, r.archive.clone().filter(|_| r.compact.as_ref().is_some_and(|c| c.group > 1))?, r.file.clone()))
                })
                .collect()
        });
        for (i, url, name) in wanted {
            if !FETCHING.with(|f| f.borrow_mut().insert(i)) {
                continue;
            }
            leptos::task::spawn_local(async move {
                let got = fetch_bytes(&url).await.and_then(|b| nines_core::import::read_any(&name, &b).map_err(|e| e.to_string()));
                match got {
                    Ok(mut run) => {
                        with_model(|m| {
                            if let Some(r) = m.runs.get_mut(i) {
                                run.name.clone_from(&r.run.name);
                                let given = r.given.clone();
                                *r = Rc::new(Loaded { run: Rc::new(run), given, file: r.file.clone(), compact: None, archive: None });
                            }
                            m.traces.retain(|k, _| k.0 != i);
                            m.stats.retain(|k, _| k.0 != i);
                            m.drawn.clear();
                            m.first_render_done = false;
                        });
                        version.update(|v| *v += 1);
                    }
                    Err(e) => errors.update(|v| {
                        v.push(LoadError { file: name.clone(), message: format!("could not read the archive for the brushed range: {e}") })
                    }),
                }
            });
        }
    });

    let load_files = move |files: web_sys::FileList| {
        let list: Vec<web_sys::File> = (0..files.length()).filter_map(|i| files.get(i)).collect();
        if let Some(k) = workers::pool_size(list.len()) {
            busy();
            let base = progress.with_untracked(|p: &Vec<(String, workers::Stage)>| {
                if p.iter().all(|(_, s)| matches!(s, workers::Stage::Drawn(_) | workers::Stage::Failed)) {
                    0
                } else {
                    p.len()
                }
            });
            progress.update(|p| {
                p.truncate(base);
                p.extend(list.iter().map(|f| (f.name(), workers::Stage::Queued)));
            });
            let sink = Rc::new(PageSink { base, progress, errors, version, state, queue: Default::default() });
            workers::run(list, k, sink);
            return;
        }
        leptos::task::spawn_local(async move {
            let mut items = Vec::new();
            for f in list {
                let name = f.name();
                items.push((name, read_file(f).await));
            }
            load_list(items.into_iter().map(|(n, b)| (n, Pending::Ready(b), None)).collect()).await;
        });
    };

    // URL hash mirrors the state.
    Effect::new(move |_| {
        // `all` is written when the runs would open split, so the link keeps it
        let h = state.with(|s| {
            let h = s.to_hash();
            if s.dir == DirMode::All && DIR_DECIDED.with(Cell::get) && multi_direction() {
                if h.is_empty() {
                    "dir=all".to_string()
                } else {
                    format!("dir=all&{h}")
                }
            } else {
                h
            }
        });
        if let Some(w) = web_sys::window() {
            if let Ok(hist) = w.history() {
                let url = if h.is_empty() {
                    w.location().pathname().unwrap_or_default() + &w.location().search().unwrap_or_default()
                } else {
                    format!("#{h}")
                };
                let _ = hist.replace_state_with_url(&JsValue::NULL, "", Some(&url));
            }
        }
    });

    // Redraw on resize.
    let _resize = window_event_listener(leptos::ev::resize, move |_| size.update(|s| *s += 1));

    // ----- memos of what each panel depends on
    let cdf_key = Memo::new(move |_| {
        let s = state.get();
        (version.get(), size.get(), s.dir.clone(), s.hidden.clone(), s.sel, s.x_ios, s.cdf, s.spec.clone())
    });
    let rt_key = Memo::new(move |_| {
        let s = state.get();
        (
            version.get(),
            size.get(),
            s.dir.clone(),
            s.hidden.clone(),
            s.levels.clone(),
            s.x_ios,
            s.zoom,
            s.sel,
            s.rate,
            s.spec.clone(),
            s.focus,
        )
    });
    let table_key = Memo::new(move |_| {
        let s = state.get();
        (version.get(), s.dir.clone(), s.hidden.clone(), s.sel, s.x_ios)
    });

    let cdf_canvas: NodeRef<leptos::html::Canvas> = NodeRef::new();
    let cdf_overlay: NodeRef<leptos::html::Canvas> = NodeRef::new();
    let rt_canvas: NodeRef<leptos::html::Canvas> = NodeRef::new();
    let rt_overlay: NodeRef<leptos::html::Canvas> = NodeRef::new();
    let rate_canvas: NodeRef<leptos::html::Canvas> = NodeRef::new();
    let rate_overlay: NodeRef<leptos::html::Canvas> = NodeRef::new();
    let hist_canvas: NodeRef<leptos::html::Canvas> = NodeRef::new();
    let table_out: NodeRef<leptos::html::Div> = NodeRef::new();

    // ----- the stats table, rebuilt whole (see `dom`)
    Effect::new(move |_| {
        let _ = table_key.get();
        if let Some(out) = table_out.get() {
            dom::mount(&out, &stats_table(&state.get_untracked()));
        }
    });

    // ----- 1-CDF and histogram (share the x axis)
    Effect::new(move |_| {
        let _ = cdf_key.get();
        let (Some(c), Some(o), Some(hc)) = (cdf_canvas.get(), cdf_overlay.get(), hist_canvas.get()) else { return };
        let st = state.get_untracked();
        let t0 = now_ms();
        let (w, h) = canvas_size(&c, 470);
        size_overlay(&o, &c);
        let _ = w;
        let _ = h;
        let data = cdf_data(&st);
        let spec = CdfSpec {
            title: "1-CDF: levels of nines",
            curves: &data.curves,
            x: data.x,
            y: data.y,
            hover_x: None,
            drag_box: None,
            legend: false,
            envelopes: &data.envelopes,
        };
        if let Some(f) = draw_canvas(&c, |root| charts::draw_cdf(root, &spec)) {
            with_model(|m| {
                m.frames.insert("cdf", f);
                m.hover_curves = data.hover;
            });
        }
        // test hook: the spec's envelopes drawn, as (latency ns, share) corners
        let env: Vec<String> =
            data.envelopes.iter().map(|e| e.iter().map(|(x, y)| format!("{x}:{y}")).collect::<Vec<_>>().join(",")).collect();
        let _ = c.set_attribute("data-envelopes", &env.join(";"));
        mark_drawn("cdf", now_ms() - t0);
        let t1 = now_ms();
        canvas_size(&hc, 280);
        let hd = hist_data(&st, data.x);
        let hspec = HistSpec { title: "Latency histogram", traces: &hd.traces, x: hd.x, y: hd.y, legend: false };
        if let Some(f) = draw_canvas(&hc, |root| charts::draw_hist(root, &hspec)) {
            with_model(|m| m.frames.insert("hist", f));
        }
        mark_drawn("hist", now_ms() - t1);
    });

    // ----- runtime QoS and rates (share the x axis)
    Effect::new(move |_| {
        let _ = rt_key.get();
        let (Some(c), Some(o), Some(rc), Some(ro)) = (rt_canvas.get(), rt_overlay.get(), rate_canvas.get(), rate_overlay.get()) else {
            return;
        };
        let st = state.get_untracked();
        let t0 = now_ms();
        let (w, _) = canvas_size(&c, 360);
        size_overlay(&o, &c);
        canvas_size(&rc, 230);
        size_overlay(&ro, &rc);
        let d = runtime_data(&st, w);
        let x_desc = if st.x_ios { "I/Os completed" } else { "time since start" };
        let spec = RuntimeSpec {
            title: "Runtime QoS",
            x_desc,
            x_is_time: !st.x_ios,
            lines: &d.lines,
            x: d.x,
            y: d.y,
            selection: st.sel,
            legend: false,
        };
        if let Some(f) = draw_canvas(&c, |root| charts::draw_runtime(root, &spec)) {
            with_model(|m| m.frames.insert("runtime", f));
        }
        // test hook: the points ringed as beyond a limit of the spec
        let breaks = d.lines.iter().map(|l| l.broken.iter().filter(|b| **b).count()).sum::<usize>();
        let _ = c.set_attribute("data-limit-breaks", &breaks.to_string());
        // test hook: the run drawn strong (empty: every run alike)
        let focus = d.focus.and_then(|i| with_model(|m| m.runs.get(i).map(|r| r.run.name.clone())));
        let _ = c.set_attribute("data-focus", &focus.unwrap_or_default());
        mark_drawn("runtime", now_ms() - t0);
        let t1 = now_ms();
        let (title, ydesc) = match st.rate {
            RateMode::Iops => ("IOPS per window", "IOPS"),
            RateMode::Mbps => ("MB/s per window", "MB/s (10^6 B/s)"),
        };
        let rspec = RateSpec {
            title,
            x_desc,
            y_desc: ydesc,
            x_is_time: !st.x_ios,
            lines: &d.rates,
            x: d.x,
            y: d.ry,
            selection: st.sel,
            note: d.rate_note.as_deref(),
            legend: false,
        };
        if let Some(f) = draw_canvas(&rc, |root| charts::draw_rate(root, &rspec)) {
            with_model(|m| m.frames.insert("rate", f));
        }
        mark_drawn("rate", now_ms() - t1);
    });

    // ----- overlays: hover rule and drag boxes, drawn without redrawing the charts
    let drag: RwSignal<Drag> = RwSignal::new(None);
    Effect::new(move |_| {
        let hx = hover_x.get();
        let dr = drag.get();
        for (name, node) in [("cdf", cdf_overlay), ("runtime", rt_overlay), ("rate", rate_overlay)] {
            let Some(o) = node.get() else { continue };
            let Some(ctx) = ctx_css(&o) else { continue };
            let (cw, ch) = css_size(&o);
            ctx.clear_rect(0.0, 0.0, cw as f64, ch as f64);
            let Some(f) = with_model(|m| m.frames.get(name).copied()) else { continue };
            if name == "cdf" {
                if let Some(x) = hx {
                    let px = f.px(x).round() + 0.5;
                    ctx.set_stroke_style_str("#555");
                    ctx.set_line_width(1.0);
                    ctx.begin_path();
                    ctx.move_to(px, f.top as f64);
                    ctx.line_to(px, f.bottom as f64);
                    ctx.stroke();
                }
            }
            if let Some((dn, x0, y0, x1, y1, pan)) = dr {
                if pan {
                    continue;
                }
                let linked = dn == name || (dn != "cdf" && name != "cdf");
                if !linked {
                    continue;
                }
                ctx.set_fill_style_str("rgba(51,102,204,0.15)");
                ctx.set_stroke_style_str("rgb(51,102,204)");
                let (ya, yb) = if name == "cdf" { (y0.min(y1), (y1 - y0).abs()) } else { (f.top as f64, (f.bottom - f.top) as f64) };
                ctx.fill_rect(x0.min(x1), ya, (x1 - x0).abs(), yb);
                ctx.stroke_rect(x0.min(x1) + 0.5, ya + 0.5, (x1 - x0).abs(), yb);
            }
        }
    });

    // ----- interactions
    let frame = |name: &'static str| with_model(|m| m.frames.get(name).copied());
    let cdf_down = move |ev: web_sys::MouseEvent| {
        ev.prevent_default();
        let (x, y) = (ev.offset_x() as f64, ev.offset_y() as f64);
        if frame("cdf").is_some_and(|f| f.contains(x, y)) {
            drag.set(Some(("cdf", x, y, x, y, false)));
        }
    };
    let cdf_move = move |ev: web_sys::MouseEvent| {
        let (x, y) = (ev.offset_x() as f64, ev.offset_y() as f64);
        if let Some(f) = frame("cdf") {
            hover_x.set(f.contains(x, y).then(|| f.x_at(x)));
        }
        if let Some(("cdf", x0, y0, _, _, p)) = drag.get_untracked() {
            drag.set(Some(("cdf", x0, y0, x, y, p)));
        }
    };
    let cdf_up = move |ev: web_sys::MouseEvent| {
        let (x, y) = (ev.offset_x() as f64, ev.offset_y() as f64);
        if let (Some(("cdf", x0, y0, _, _, _)), Some(f)) = (drag.get_untracked(), frame("cdf")) {
            drag.set(None);
            if (x - x0).abs() > 6.0 && (y - y0).abs() > 6.0 {
                let (a, b) = (f.x_at(x0.min(x)), f.x_at(x0.max(x)));
                let (c, d) = (f.y_at(y0.max(y)), f.y_at(y0.min(y)));
                set(Box::new(move |s| s.cdf = Some((a, b, c, d))));
            }
        }
    };
    let cdf_leave = move |_: web_sys::MouseEvent| {
        hover_x.set(None);
        if matches!(drag.get_untracked(), Some(("cdf", ..))) {
            drag.set(None);
        }
    };

    let x_down = move |name: &'static str, ev: web_sys::MouseEvent| {
        ev.prevent_default();
        let (x, y) = (ev.offset_x() as f64, ev.offset_y() as f64);
        if frame(name).is_some_and(|f| f.contains(x, y)) {
            drag.set(Some((name, x, y, x, y, ev.shift_key() || ev.button() == 1)));
        }
    };
    let x_move = move |name: &'static str, ev: web_sys::MouseEvent| {
        let (x, y) = (ev.offset_x() as f64, ev.offset_y() as f64);
        if let Some((dn, x0, y0, _, _, pan)) = drag.get_untracked() {
            if dn != name {
                return;
            }
            if pan {
                // pan: shift the zoom window by the drag distance
                if let Some(f) = frame(name) {
                    let (lo, hi) = (f.x.lo, f.x.hi);
                    let dx = (f.x_at(x0) - f.x_at(x)).clamp(-(hi - lo), hi - lo);
                    if dx.abs() > 0.0 {
                        let full = state.with_untracked(|s| runtime_extent(s, &traces(s)));
                        set(Box::new(move |s| {
                            let (mut a, mut b) = (lo + dx, hi + dx);
                            if let Some((fa, fb)) = full {
                                if a < fa {
                                    b += fa - a;
                                    a = fa;
                                }
                                if b > fb {
                                    a -= b - fb;
                                    b = fb;
                                }
                                a = a.max(fa);
                            }
                            s.zoom = Some((a, b));
                        }));
                        drag.set(Some((name, x, y0, x, y, true)));
                    }
                }
            } else {
                drag.set(Some((name, x0, y0, x, y, false)));
            }
        }
    };
    let x_up = move |name: &'static str, ev: web_sys::MouseEvent| {
        let x = ev.offset_x() as f64;
        if let (Some((dn, x0, _, _, _, pan)), Some(f)) = (drag.get_untracked(), frame(name)) {
            drag.set(None);
            if dn != name || pan {
                return;
            }
            if (x - x0).abs() > 4.0 {
                let (a, b) = (f.x_at(x0.min(x)), f.x_at(x0.max(x)));
                set(Box::new(move |s| s.sel = Some((a, b))));
            } else if state.with_untracked(|s| s.sel.is_some()) {
                set(Box::new(|s| s.sel = None));
            }
        }
    };
    let x_wheel = move |name: &'static str, ev: web_sys::WheelEvent| {
        let Some(f) = frame(name) else { return };
        let (x, y) = (ev.offset_x() as f64, ev.offset_y() as f64);
        if !f.contains(x, y) {
            return;
        }
        ev.prevent_default();
        let at = f.x_at(x);
        let factor = if ev.delta_y() < 0.0 { 0.8 } else { 1.25 };
        let full = state.with_untracked(|s| runtime_extent(s, &traces(s)));
        let (lo, hi) = (f.x.lo, f.x.hi);
        set(Box::new(move |s| {
            let mut a = at - (at - lo) * factor;
            let mut b = at + (hi - at) * factor;
            if let Some((fa, fb)) = full {
                a = a.max(fa);
                b = b.min(fb);
                if a <= fa && b >= fb {
                    s.zoom = None;
                    return;
                }
            }
            if b - a > 1e-6 {
                s.zoom = Some((a, b));
            }
        }));
    };

    // ----- exports
    let export_png = move |node: NodeRef<leptos::html::Canvas>, name: &'static str| {
        if let Some(c) = node.get() {
            if let Ok(url) = c.to_data_url_with_type("image/png") {
                download_url(&format!("nines-{name}.png"), &url);
            }
        }
    };
    let export_svg = move |name: &'static str| {
        let st = state.get_untracked();
        let w = with_model(|m| m.frames.get("cdf").or(m.frames.get("runtime")).map(|f| f.right + 18)).unwrap_or(1000).max(600) as u32;
        let svg = match name {
            "cdf" => {
                let d = cdf_data(&st);
                let spec = CdfSpec {
                    title: "1-CDF: levels of nines",
                    curves: &d.curves,
                    x: d.x,
                    y: d.y,
                    hover_x: None,
                    drag_box: None,
                    legend: true,
                    envelopes: &d.envelopes,
                };
                charts::to_svg(w, 470, |r| charts::draw_cdf(r, &spec))
            }
            "hist" => {
                let d = cdf_data(&st);
                let hd = hist_data(&st, d.x);
                let spec = HistSpec { title: "Latency histogram", traces: &hd.traces, x: hd.x, y: hd.y, legend: true };
                charts::to_svg(w, 280, |r| charts::draw_hist(r, &spec))
            }
            "runtime" | "rate" => {
                let d = runtime_data(&st, w);
                let x_desc = if st.x_ios { "I/Os completed" } else { "time since start" };
                if name == "runtime" {
                    let spec = RuntimeSpec {
                        title: "Runtime QoS",
                        x_desc,
                        x_is_time: !st.x_ios,
                        lines: &d.lines,
                        x: d.x,
                        y: d.y,
                        selection: st.sel,
                        legend: true,
                    };
                    charts::to_svg(w, 360, |r| charts::draw_runtime(r, &spec))
                } else {
                    let (title, ydesc) = match st.rate {
                        RateMode::Iops => ("IOPS per window", "IOPS"),
                        RateMode::Mbps => ("MB/s per window", "MB/s (10^6 B/s)"),
                    };
                    let spec = RateSpec {
                        title,
                        x_desc,
                        y_desc: ydesc,
                        x_is_time: !st.x_ios,
                        lines: &d.rates,
                        x: d.x,
                        y: d.ry,
                        selection: st.sel,
                        note: d.rate_note.as_deref(),
                        legend: true,
                    };
                    charts::to_svg(w, 230, |r| charts::draw_rate(r, &spec))
                }
            }
            _ => return,
        };
        match svg {
            Ok((s, _)) => download(&format!("nines-{name}.svg"), "image/svg+xml", s.as_bytes()),
            Err(e) => leptos::logging::error!("svg export: {e}"),
        }
    };
    let export_csv = move |_| {
        let st = state.get_untracked();
        let n = with_model(|m| m.runs.len());
        let stats: Vec<RunStats> = (0..n)
            .filter(|i| !st.hidden.contains(i))
            .filter_map(|i| stats_of(i, run_time_sel(&st, i)))
            .map(|s| {
                let mut s = (*s).clone();
                s.tags.0.retain(|(t, _)| shown_tag(&st.dir, t));
                s
            })
            .collect();
        download("nines-stats.csv", "text/csv", nines_core::export::csv::stats(&stats).as_bytes());
    };

    // ----- drag and drop anywhere on the page
    let on_drop = move |ev: web_sys::DragEvent| {
        ev.prevent_default();
        if let Some(files) = ev.data_transfer().and_then(|d| d.files()) {
            load_files(files);
        }
    };

    // The legend, rebuilt whole (see `dom`), with one delegated click handler.
    let legend_out: NodeRef<leptos::html::Section> = NodeRef::new();
    // (the effect returns what it drew for, and skips a change that does not touch it: a
    // zoom step must not rebuild the legend and make the page lay out again)
    // what the legend was drawn for: the runs' version, the hidden runs, the direction mode, the focus
    type LegendKey = (u64, BTreeSet<usize>, DirMode, Option<usize>);
    Effect::new(move |prev: Option<Option<LegendKey>>| {
        let st = state.get();
        let focus = focus_of(&st);
        let key = Some((version.get(), st.hidden.clone(), st.dir.clone(), focus));
        if prev.as_ref() == Some(&key) {
            return key;
        }
        let out = legend_out.get()?;
        let runs = with_model(|m| m.runs.clone());
        if runs.is_empty() {
            // a large site opens on its trend alone: say where its runs are
            let site = trend::SITE.with(|s| s.borrow().len());
            let text = if site > 0 {
                format!(
                    "This site holds {site} runs: its trend is below, and a click on a point opens that run. Or open or drop run files."
                )
            } else {
                "No runs loaded. Open or drop nines archives (.hlog), HdrHistogram interval logs or other supported files.".to_string()
            };
            dom::mount(&out, &[tx("p", vec![("class", "empty".into()), ("data-testid", "no-runs".into())], text)]);
            return key;
        }
        let overlay = st.dir == DirMode::Overlay;
        let mut items = vec![
            tx("button", vec![("data-testid", "show-all".into()), ("data-act", "show-all".into())], "show all"),
            tx("button", vec![("data-testid", "hide-all".into()), ("data-act", "hide-all".into())], "hide all"),
        ];
        if runs.len() > 1 {
            let (label, title) = match focus {
                Some(_) => ("all alike", "draw every run alike on the runtime and rate charts"),
                None => ("focus one", "draw one run strong on the runtime and rate charts and the others faint (◎ on a run picks it)"),
            };
            items.push(tx(
                "button",
                vec![("data-testid", "focus-toggle".into()), ("data-act", "focus-toggle".into()), ("title", title.into())],
                label,
            ));
        }
        for (i, r) in runs.iter().enumerate() {
            let warns: Vec<String> = r.run.warnings.iter().map(|w| w.to_string()).collect();
            let swatches: Vec<(TraceStyle, Option<String>)> = if overlay {
                directions_of(&r.run, &DirMode::Overlay)
                    .iter()
                    .enumerate()
                    .map(|(d, dir)| (trace_style(i, d, &DirMode::Overlay), Some(dir_key(dir))))
                    .collect()
            } else {
                vec![(TraceStyle::nth(i), None)]
            };
            let title = format!(
                "{}, {:.0} s{}{}",
                r.file,
                r.run.duration_s(),
                r.compact.as_ref().map(|c| format!("\ncompact form: histograms of {}", c.text)).unwrap_or_default(),
                if warns.is_empty() { String::new() } else { format!("\n{}", warns.join("\n")) }
            );
            let mut kids = vec![tx("span", vec![("class", "rname".into())], r.run.name.clone())];
            for (sty, dn) in swatches {
                let line = el(
                    "line",
                    vec![
                        ("x1", "1".into()),
                        ("y1", "5".into()),
                        ("x2", "33".into()),
                        ("y2", "5".into()),
                        ("stroke", sty.css()),
                        ("stroke-width", "2.5".into()),
                        ("stroke-dasharray", sty.dasharray()),
                    ],
                    vec![],
                );
                kids.push(el("svg", vec![("width", "34".into()), ("height", "10".into()), ("aria-hidden", "true".into())], vec![line]));
                if let Some(d) = dn {
                    kids.push(tx("span", vec![("class", "dirname".into())], d));
                }
            }
            if runs.len() > 1 {
                let on = focus == Some(i);
                kids.push(tx(
                    "span",
                    vec![
                        ("class", if on { "focus on" } else { "focus" }.into()),
                        ("data-testid", "focus-run".into()),
                        ("data-act", "focus".into()),
                        ("data-run", i.to_string()),
                        ("title", if on { "the focus run (click: every run alike)" } else { "focus on this run: the others faint" }.into()),
                    ],
                    if on { "◉" } else { "◎" },
                ));
            }
            if !warns.is_empty() {
                kids.push(tx("span", vec![("class", "warn".into())], " ⚠"));
            }
            let class = if st.hidden.contains(&i) { "run off" } else { "run" };
            items.push(el(
                "button",
                vec![
                    ("class", class.into()),
                    ("data-testid", "legend-run".into()),
                    ("data-act", "run".into()),
                    ("data-run", i.to_string()),
                    ("title", title),
                ],
                kids,
            ));
        }
        // what each run in compact form carries: the charts' points are exact at any zoom;
        // histograms (1-CDF, latency histogram, table of a brushed range) are of groups
        // runs that carry the same are named together (a site of 100 runs says it once)
        let mut groups: Vec<(String, Vec<String>)> = Vec::new();
        for r in runs.iter() {
            let Some(c) = r.compact.as_ref() else { continue };
            let brush = if c.group > 1 { "; a brushed range counts the groups that start in it" } else { "" };
            let what = format!("histograms of {}{brush}", c.text);
            match groups.iter_mut().find(|(w, _)| *w == what) {
                Some((_, names)) => names.push(r.run.name.clone()),
                None => groups.push((what, vec![r.run.name.clone()])),
            }
        }
        let carried: Vec<String> = groups
            .into_iter()
            .map(|(what, names)| match names.len() {
                1..=3 => format!("{}: {what}", names.join(", ")),
                n if n == runs.len() => format!("all {n} runs: {what}"),
                n => format!("{n} runs ({}, ...): {what}", names[..2].join(", ")),
            })
            .collect();
        let mut nodes = vec![el("div", vec![("class", "legend".into())], items)];
        if !carried.is_empty() {
            nodes.push(tx(
                "p",
                vec![("class", "carries".into()), ("data-testid", "carries".into())],
                format!("Compact form (every runtime and rate point exact at any zoom). {}.", carried.join(". ")),
            ));
        }
        dom::mount(&out, &nodes);
        key
    });
    let legend_click = move |ev: web_sys::MouseEvent| {
        let Some(t) = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()).and_then(|t| t.closest("[data-act]").ok().flatten())
        else {
            return;
        };
        match t.get_attribute("data-act").as_deref() {
            Some("show-all") => set(Box::new(|s| s.hidden.clear())),
            Some("hide-all") => {
                let n = with_model(|m| m.runs.len());
                set(Box::new(move |s| s.hidden = (0..n).collect()));
            }
            Some("focus") => {
                if let Some(i) = t.get_attribute("data-run").and_then(|v| v.parse::<usize>().ok()) {
                    set(Box::new(move |s| {
                        s.focus = if focus_of(s) == Some(i) { Focus::Off } else { Focus::Run(i) };
                        s.hidden.remove(&i);
                    }));
                }
            }
            Some("focus-toggle") => set(Box::new(|s| {
                s.focus = match focus_of(s) {
                    Some(_) => Focus::Off,
                    None => {
                        let n = with_model(|m| m.runs.len());
                        (0..n).find(|i| !s.hidden.contains(i)).map(Focus::Run).unwrap_or_default()
                    }
                }
            })),
            Some("run") => {
                if let Some(i) = t.get_attribute("data-run").and_then(|v| v.parse::<usize>().ok()) {
                    set(Box::new(move |s| {
                        if !s.hidden.remove(&i) {
                            s.hidden.insert(i);
                        }
                    }));
                }
            }
            _ => {}
        }
    };

    view! {
        <div class="app" on:dragover=move |ev: web_sys::DragEvent| ev.prevent_default() on:drop=on_drop>
            <header class="bar">
                <h1>"nines"</h1>
                <label class="button" data-testid="open">
                    "Open runs…"
                    <input type="file" multiple data-testid="file-input" on:change=move |ev| {
                        let input: web_sys::HtmlInputElement = event_target(&ev);
                        if let Some(files) = input.files() { load_files(files); }
                        input.set_value("");
                    }/>
                </label>
                <span class="hint">"or drop .hlog and other run files anywhere"</span>
                <div class="group" role="radiogroup" aria-label="direction" data-testid="direction">
                    <span class="glabel">"direction"</span>
                    {DirMode::ALL.into_iter().map(|d| {
                        let (testid, label, on) = (format!("dir-{}", d.key()), d.label().to_string(), d.clone());
                        view! {
                            <button data-testid=testid
                                class:active=move || state.with(|s| s.dir == d)
                                on:click=move |_| { DIR_DECIDED.with(|c| c.set(true)); let d = on.clone(); set(Box::new(move |s| s.dir = d)) }>{label}</button>
                        }
                    }).collect_view()}
                    // the loaded runs' scoped directions (a job file's `probe/read`, a merge's
                    // `host07/read`), one of them alone
                    {move || {
                        version.get();
                        let tags = scoped_directions();
                        (!tags.is_empty()).then(|| view! {
                            <select data-testid="dir-scoped" title="one scoped direction alone: a job section's, target's or host's share"
                                class:active=move || state.with(|s| matches!(s.dir, DirMode::Scoped(_)))
                                prop:value=move || state.with(|s| if let DirMode::Scoped(t) = &s.dir { t.clone() } else { String::new() })
                                on:change=move |ev| {
                                    if let Some(d) = DirMode::from_key(&event_target_value(&ev)) {
                                        DIR_DECIDED.with(|c| c.set(true));
                                        set(Box::new(move |s| s.dir = d));
                                    }
                                }>
                                <option value="">"scoped…"</option>
                                {tags.into_iter().map(|t| view! { <option value=t.clone()>{t.clone()}</option> }).collect_view()}
                            </select>
                        })
                    }}
                </div>
                <div class="group" data-testid="levels">
                    <span class="glabel">"levels"</span>
                    {(1..=9u32).map(|k| view! {
                        <button data-testid=format!("level-{k}") title=format!("{} ({k} nines) on the runtime chart", Level::nines(k).label)
                            class:active=move || state.with(|s| s.levels.contains(&k))
                            on:click=move |_| set(Box::new(move |s| {
                                if let Some(i) = s.levels.iter().position(|&x| x == k) { s.levels.remove(i); } else { s.levels.push(k); s.levels.sort_unstable(); }
                            }))>{k.to_string()}</button>
                    }).collect_view()}
                </div>
                <div class="group">
                    <span class="glabel">"x axis"</span>
                    <button data-testid="x-time" class:active=move || state.with(|s| !s.x_ios)
                        on:click=move |_| set(Box::new(|s| { if s.x_ios { s.x_ios = false; s.zoom = None; s.sel = None; } }))>"time"</button>
                    <button data-testid="x-ios" class:active=move || state.with(|s| s.x_ios)
                        on:click=move |_| set(Box::new(|s| { if !s.x_ios { s.x_ios = true; s.zoom = None; s.sel = None; } }))>"I/Os"</button>
                </div>
            </header>
            <div class="status">
                <span data-testid="loading">{move || loading.get().unwrap_or_default()}</span>
                <ul class="progress" data-testid="progress">
                    {move || progress.get().into_iter().map(|(name, st)| view! {
                        <li data-testid="progress-file" data-state=st.name()><b>{name}</b>": "{st.text()}</li>
                    }).collect_view()}
                </ul>
                <ul class="errors" data-testid="errors">
                    <For each=move || errors.get().into_iter().enumerate() key=|(i, _)| *i children=move |(_, e)| view! {
                        <li data-testid="load-error"><b>{e.file.clone()}</b>": "{e.message.clone()}</li>
                    }/>
                </ul>
                {move || state.with(|s| s.sel).map(|(a, b)| {
                    let ios = state.with(|s| s.x_ios);
                    let fmt = move |v: f64| if ios { format!("{} I/Os", group(v.max(0.0) as u64)) } else { charts::format_seconds(v) };
                    view! {
                        <div class="selection" data-testid="selection">
                            "Showing only " {fmt(a)} " to " {fmt(b)} " in every panel. "
                            <button data-testid="clear-selection" on:click=move |_| set(Box::new(|s| s.sel = None))>"show the whole run"</button>
                        </div>
                    }
                })}
            </div>
            <trend::Trend state=state version=version size=size errors=errors/>
            <section class="runs" data-testid="runs" node_ref=legend_out on:click=legend_click></section>
            <main class="panels">
                <div class="col">
                    <section class="panel" data-testid="panel-cdf">
                        <div class="tools">
                            <span class="hint">"drag a box to zoom, double-click to reset"</span>
                            <button data-testid="cdf-reset" on:click=move |_| set(Box::new(|s| s.cdf = None))>"reset zoom"</button>
                            <button data-testid="export-cdf-png" on:click=move |_| export_png(cdf_canvas, "cdf")>"PNG"</button>
                            <button data-testid="export-cdf-svg" on:click=move |_| export_svg("cdf")>"SVG"</button>
                        </div>
                        <div class="chart">
                            <canvas node_ref=cdf_canvas data-testid="cdf-canvas"></canvas>
                            <canvas class="overlay" node_ref=cdf_overlay data-testid="cdf-overlay"
                                on:mousedown=cdf_down on:mousemove=cdf_move on:mouseup=cdf_up on:mouseleave=cdf_leave
                                on:dblclick=move |_| set(Box::new(|s| s.cdf = None))></canvas>
                        </div>
                        <div class="readout" data-testid="cdf-readout">
                            {move || {
                                let x = hover_x.get()?;
                                let rows = with_model(|m| m.hover_curves.iter().map(|(l, c, pts)| (l.clone(), c.clone(), share_at(pts, x))).collect::<Vec<_>>());
                                Some(view! {
                                    <b>{format_ns(x.round() as u64)}</b>
                                    {rows.into_iter().map(|(l, c, s)| {
                                        let txt = match s {
                                            Some(s) => format!("{:.2} nines ({:.4}% slower, 1 in {})", nines_of(s), s * 100.0, group((1.0 / s).round() as u64)),
                                            None => "none slower (beyond the max)".to_string(),
                                        };
                                        view! { <span class="ro"><i style:background=c></i>{l}": "{txt}</span> }
                                    }).collect_view()}
                                })
                            }}
                        </div>
                    </section>
                    <section class="panel" data-testid="panel-hist">
                        <div class="tools">
                            <span class="hint">"x axis follows the 1-CDF"</span>
                            <button data-testid="export-hist-png" on:click=move |_| export_png(hist_canvas, "histogram")>"PNG"</button>
                            <button data-testid="export-hist-svg" on:click=move |_| export_svg("hist")>"SVG"</button>
                        </div>
                        <div class="chart"><canvas node_ref=hist_canvas data-testid="hist-canvas"></canvas></div>
                    </section>
                </div>
                <div class="col">
                    <section class="panel" data-testid="panel-runtime">
                        <div class="tools">
                            <span class="hint">"wheel: zoom · drag: select a range for every panel · shift-drag: pan"</span>
                            <button data-testid="zoom-reset" on:click=move |_| set(Box::new(|s| s.zoom = None))>"reset zoom"</button>
                            <button data-testid="export-runtime-png" on:click=move |_| export_png(rt_canvas, "runtime")>"PNG"</button>
                            <button data-testid="export-runtime-svg" on:click=move |_| export_svg("runtime")>"SVG"</button>
                        </div>
                        <div class="chart">
                            <canvas node_ref=rt_canvas data-testid="runtime-canvas"></canvas>
                            <canvas class="overlay" node_ref=rt_overlay data-testid="runtime-overlay"
                                on:mousedown=move |ev| x_down("runtime", ev) on:mousemove=move |ev| x_move("runtime", ev)
                                on:mouseup=move |ev| x_up("runtime", ev) on:mouseleave=move |_| { if matches!(drag.get_untracked(), Some(("runtime", ..))) { drag.set(None) } }
                                on:wheel=move |ev| x_wheel("runtime", ev)></canvas>
                        </div>
                        <div class="keyline">"per window: median (thin), "
                            {move || state.with(|s| s.levels.iter().map(|k| Level::nines(*k).label).collect::<Vec<_>>().join(", "))}
                            " (dashed), max (■); points merge exactly to the pixel width"</div>
                    </section>
                    <section class="panel" data-testid="panel-rate">
                        <div class="tools">
                            <span class="hint" title="SNIA PTS over 5 consecutive windows: range below 20% of the average and the fitted line's change at most 10%; the band spans 90% to 110% of the average">"shaded: steady state (SNIA PTS)"</span>
                            <button data-testid="rate-iops" class:active=move || state.with(|s| s.rate == RateMode::Iops) on:click=move |_| set(Box::new(|s| s.rate = RateMode::Iops))>"IOPS"</button>
                            <button data-testid="rate-mbps" class:active=move || state.with(|s| s.rate == RateMode::Mbps) on:click=move |_| set(Box::new(|s| s.rate = RateMode::Mbps))>"MB/s"</button>
                            <button data-testid="export-rate-png" on:click=move |_| export_png(rate_canvas, "rate")>"PNG"</button>
                            <button data-testid="export-rate-svg" on:click=move |_| export_svg("rate")>"SVG"</button>
                        </div>
                        <div class="chart">
                            <canvas node_ref=rate_canvas data-testid="rate-canvas"></canvas>
                            <canvas class="overlay" node_ref=rate_overlay data-testid="rate-overlay"
                                on:mousedown=move |ev| x_down("rate", ev) on:mousemove=move |ev| x_move("rate", ev)
                                on:mouseup=move |ev| x_up("rate", ev) on:mouseleave=move |_| { if matches!(drag.get_untracked(), Some(("rate", ..))) { drag.set(None) } }
                                on:wheel=move |ev| x_wheel("rate", ev)></canvas>
                        </div>
                    </section>
                    <heatmap::HeatmapPanel state=state version=version size=size/>
                </div>
            </main>
            <section class="panel table" data-testid="panel-stats">
                <div class="tools">
                    <span class="hint">"* thin: fewer than 100 I/Os beyond the level (count shown); blank: none beyond, the value would only repeat the max. Hover a value for its 95% confidence interval."</span>
                    <button data-testid="export-csv" on:click=export_csv>"CSV"</button>
                </div>
                <div node_ref=table_out></div>
            </section>
            <qos::Qos state=state version=version/>
            <judge::Judge state=state version=version size=size/>
        </div>
    }
}

/// The stats table: `nines stats` columns per run and direction, then run-to-run variability.
fn stats_table(st: &ViewState) -> Vec<Node> {
    let n = with_model(|m| m.runs.len());
    let t0 = now_ms();
    let rows_of = |s: &RunStats| -> Vec<(String, TagStats)> { s.tags.iter().filter(|(tag, _)| shown_tag(&st.dir, tag)).cloned().collect() };
    let mut table: TableRows = Vec::new();
    for i in (0..n).filter(|i| !st.hidden.contains(i)) {
        if let Some(s) = stats_of(i, run_time_sel(st, i)) {
            table.push((i, s.name.clone(), s.file.clone(), rows_of(&s)));
        }
    }
    let labels: Vec<String> = nines_core::quantile::standard_levels().into_iter().map(|l| l.label).collect();
    // As `nines stats`: level columns up to the last one any shown row has a value in.
    let shown = (0..labels.len())
        .rev()
        .find(|&i| table.iter().any(|(_, _, _, rows)| rows.iter().any(|(_, s)| s.levels.get(i).is_some_and(|l| l.value_ns.is_some()))))
        .map_or(0, |i| i + 1);
    let ncols = 8 + shown;
    let cell = |class: &str, col: &str, ns: String, text: String| {
        tx("td", vec![("class", class.into()), ("data-testid", "cell".into()), ("data-col", col.into()), ("data-ns", ns)], text)
    };
    let mut body = Vec::new();
    for (i, name, file, rows) in &table {
        for (tag, s) in rows {
            let mut cells = vec![
                tx("td", vec![("class", "name".into()), ("title", file.clone())], name.clone()),
                tx("td", vec![], tag.clone()),
                cell("num", "count", s.count.to_string(), group(s.count)),
                cell("num", "iops", format!("{}", s.iops), format_rate(s.iops)),
                cell("num", "min", s.min_ns.to_string(), format_ns(s.min_ns)),
                cell("num", "mean", format!("{}", s.mean_ns), format_ns_f(s.mean_ns)),
                cell("num", "stdev", format!("{}", s.stdev_ns), format_ns_f(s.stdev_ns)),
            ];
            for l in &s.levels[..shown.min(s.levels.len())] {
                // the same cell text as `nines stats` (ranges at a coarser source's precision)
                let val = |v: u64| nines_core::precision::level_cell(l).unwrap_or_else(|| format_ns(v));
                let (text, class, title) = match (l.support, l.value_ns) {
                    (Support::Reliable, Some(v)) => (val(v), "num", ci_title(l.ci95_ns, l.beyond)),
                    (Support::Thin, Some(v)) => (
                        format!("{}*", val(v)),
                        "num thin",
                        format!("thin: only {} I/Os beyond this level. {}", group(l.beyond), ci_title(l.ci95_ns, l.beyond)),
                    ),
                    _ => (String::new(), "num none", "no I/O beyond this level: its value would only repeat the max".to_string()),
                };
                let attrs = vec![
                    ("class", class.to_string()),
                    ("title", title),
                    ("data-testid", "cell".into()),
                    ("data-col", l.label.clone()),
                    ("data-ns", l.value_ns.map_or(String::new(), |v| v.to_string())),
                    ("data-support", format!("{:?}", l.support).to_ascii_lowercase()),
                    ("data-beyond", l.beyond.to_string()),
                ];
                cells.push(tx("td", attrs, text));
            }
            cells.push(cell("num max", "max", s.max_ns.to_string(), format_ns(s.max_ns)));
            body.push(el(
                "tr",
                vec![
                    ("data-testid", "stats-row".into()),
                    ("data-run", i.to_string()),
                    ("data-dir", tag.clone()),
                    ("data-file", file.clone()),
                ],
                cells,
            ));
        }
    }
    // run-to-run variability per direction shown, with two or more runs
    let mut var_rows = Vec::new();
    if table.len() >= 2 {
        let mut dirs: Vec<String> = Vec::new();
        for (_, _, _, rows) in &table {
            for (t, _) in rows {
                if !dirs.contains(t) {
                    dirs.push(t.clone());
                }
            }
        }
        for d in dirs {
            let refs: Vec<&TagStats> =
                table.iter().filter_map(|(_, _, _, rows)| rows.iter().find(|(t, _)| *t == d).map(|(_, s)| s)).collect();
            if refs.len() < 2 {
                continue;
            }
            let mut cells = vec![
                tx("td", vec![("class", "name".into())], format!("{} runs", refs.len())),
                tx("td", vec![], d.clone()),
                tx("td", vec![("colspan", "5".into()), ("class", "hint".into())], "spread (max − min) / median across runs"),
            ];
            for lv in variability(&refs).into_iter().take(shown) {
                let title = match (lv.min_ns, lv.median_ns, lv.max_ns) {
                    (Some(a), Some(m), Some(b)) => {
                        format!("{} runs: min {}, median {}, max {}", lv.runs, format_ns(a), format_ns(m), format_ns(b))
                    }
                    _ => "no run has this level".into(),
                };
                let txt = if lv.runs >= 2 { lv.spread_pct.map_or(String::new(), |p| format!("{p:.1}%")) } else { String::new() };
                cells.push(tx(
                    "td",
                    vec![("class", "num".into()), ("title", title), ("data-testid", "spread".into()), ("data-col", lv.label)],
                    txt,
                ));
            }
            cells.push(el("td", vec![], vec![]));
            var_rows.push(el("tr", vec![("data-testid", "variability-row".into()), ("data-dir", d.clone())], cells));
        }
    }
    let mut head: Vec<Node> =
        ["run", "dir", "count", "IOPS", "min", "mean", "stdev"].iter().map(|h| tx("th", vec![], h.to_string())).collect();
    head.extend(labels[..shown].iter().map(|l| tx("th", vec![], l.clone())));
    head.push(tx("th", vec![], "max"));
    let mut parts = vec![el("thead", vec![], vec![el("tr", vec![], head)]), el("tbody", vec![], body)];
    if !var_rows.is_empty() {
        let mut v = vec![el("tr", vec![], vec![tx("th", vec![("colspan", ncols.to_string())], "Run-to-run variability")])];
        v.extend(var_rows);
        parts.push(el("tbody", vec![("class", "variability".into())], v));
    }
    let out = vec![el("table", vec![("data-testid", "stats-table".into())], parts)];
    mark_table(now_ms() - t0);
    out
}

/// The scoped directions (`probe/read`, not measures such as `probe/read.svc`) of the loaded
/// runs, in the order they first appear.
fn scoped_directions() -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    with_model(|m| {
        for r in &m.runs {
            for t in r.run.tags().into_iter().flatten() {
                if matches!(DirMode::from_key(&t), Some(DirMode::Scoped(_))) && !out.contains(&t) {
                    out.push(t);
                }
            }
        }
    });
    out
}

/// Which rows of `nines stats` the table shows in a direction mode.
fn shown_tag(dir: &DirMode, tag: &str) -> bool {
    match dir {
        DirMode::All => tag == "all",
        DirMode::Read => tag == "read",
        DirMode::Write => tag == "write",
        DirMode::Trim => tag == "trim",
        DirMode::Overlay => tag != "all",
        DirMode::Scoped(t) => tag == t,
    }
}

fn mark_table(ms: f64) {
    if let Some(b) = body() {
        let _ = b.set_attribute("data-draw-ms-table", &format!("{ms:.2}"));
    }
}

fn ci_title(ci: Option<(u64, u64)>, beyond: u64) -> String {
    match ci {
        Some((a, b)) => format!("95% CI {} – {} ({} I/Os beyond)", format_ns(a), format_ns(b), group(beyond)),
        None => format!("95% CI not bounded: too few I/Os beyond ({})", group(beyond)),
    }
}

#[allow(dead_code)]
fn _assert_types(_: &Hist) {}
