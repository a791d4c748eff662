//! The Leptos app (wasm32 only): loading, the panels, interactions and exports.
//!
//! Runs and everything derived from them live in a thread-local [`Model`] outside the reactive
//! graph (histograms are large and not `Send`-cheap); a `version` signal says when it changed.
//! The view state is one signal ([`ViewState`]) mirrored into the URL hash. The page's signals
//! are handed to its panels as one [`Page`] context; each panel is its own component (its
//! module below) and draws in its own effect keyed by a memo of the state it depends on, so a
//! zoom step redraws only the runtime and rate charts. What the panels show is computed by the
//! native [`crate::panels`]; here it is gathered from the loaded runs and drawn or mounted.
//!
//! Test hooks: every control has a `data-testid`; `<body>` carries `data-nines-renders`
//! (draws so far), `data-nines-idle` ("1" once the draws queued by the last change are done)
//! and `data-nines-first-render-ms` (performance.now() when every panel first drew the loaded
//! runs).

use std::cell::{Cell, RefCell};
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

use leptos::prelude::*;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use nines_core::bandwidth::bytes_per_io;
use nines_core::ccdf::{ccdf, CcdfPoint};
use nines_core::compact::{self, Compact};
use nines_core::density::{log_density, DensityBin};
use nines_core::hist::Hist;
use nines_core::pyramid::{series_points, time_range_of_ios, Axis, Pyramid, Slot};
use nines_core::quantile::Level;
use nines_core::run::Run;
use nines_core::series::{Direction, SeriesPoint};
use nines_core::stats::{run_stats, Options, RunStats};
use nines_core::steady::steady_regions;

use crate::charts::Frame;
use crate::panels::{self, dir_key, directions_of, trace_style, Trace};
use crate::state::{DirMode, ViewState};
use chart_data::{cdf_data, focus_of, hist_data, runtime_data, runtime_extent};
use interact::Drag;
use loading::{add_run, embedded_view, fetch_bytes, handed_runs, manifest_items, LoadError, PRELOAD};

mod cdf_panel;
mod chart_data;
mod controls;
mod dom;
mod export;
mod heatmap;
mod hidpi;
mod hist_panel;
mod interact;
mod judge;
mod legend;
mod loading;
mod qos;
mod rate_panel;
mod runtime_panel;
mod stats_panel;
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

/// The traces the view shows of the loaded runs.
fn traces(st: &ViewState) -> Vec<Trace> {
    let runs = with_model(|m| m.runs.clone());
    panels::traces_of(runs.iter().map(|r| &*r.run), st)
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
// The app

/// The page's signals, provided as a context to every panel ([`page`]).
#[derive(Clone, Copy)]
struct Page {
    state: RwSignal<ViewState>,
    /// Bumped when the loaded runs change.
    version: RwSignal<u64>,
    /// Bumped when the window is resized.
    size: RwSignal<u32>,
    errors: RwSignal<Vec<LoadError>>,
    /// What is loading now, for the status line.
    loading: RwSignal<Option<String>>,
    /// Files the worker pool was given and how far each is.
    progress: RwSignal<Vec<(String, workers::Stage)>>,
    /// The latency under the mouse on the 1-CDF.
    hover_x: RwSignal<Option<f64>>,
    /// A drag on a chart in progress.
    drag: RwSignal<Drag>,
    canvases: Canvases,
}

/// The chart canvases (and the overlays the mouse draws on), for the panels that draw or read
/// another's: the 1-CDF and histogram share an x axis, as do the runtime and rate charts.
#[derive(Clone, Copy)]
struct Canvases {
    cdf: NodeRef<leptos::html::Canvas>,
    cdf_overlay: NodeRef<leptos::html::Canvas>,
    hist: NodeRef<leptos::html::Canvas>,
    runtime: NodeRef<leptos::html::Canvas>,
    runtime_overlay: NodeRef<leptos::html::Canvas>,
    rate: NodeRef<leptos::html::Canvas>,
    rate_overlay: NodeRef<leptos::html::Canvas>,
}

impl Page {
    /// Change the view state (the page is busy until the draws it queues are done).
    fn set(self, f: Box<dyn FnOnce(&mut ViewState)>) {
        busy();
        self.state.update(|s| f(s));
    }
}

/// The page's signals, from any panel.
fn page() -> Page {
    expect_context::<Page>()
}

#[component]
fn App() -> impl IntoView {
    // the link's view, else the one a report was written with (`nines report --baseline`)
    let hash = location_hash().filter(|h| !h.trim_start_matches('#').is_empty()).or_else(embedded_view).unwrap_or_default();
    let initial = ViewState::from_hash(&hash);
    DIR_DECIDED.with(|d| d.set(crate::state::dir_in_hash(&hash)));
    let p = Page {
        state: RwSignal::new(initial),
        version: RwSignal::new(0u64),
        size: RwSignal::new(0u32),
        errors: RwSignal::new(Vec::new()),
        loading: RwSignal::new(None),
        progress: RwSignal::new(Vec::new()),
        hover_x: RwSignal::new(None),
        drag: RwSignal::new(None),
        canvases: Canvases {
            cdf: NodeRef::new(),
            cdf_overlay: NodeRef::new(),
            hist: NodeRef::new(),
            runtime: NodeRef::new(),
            runtime_overlay: NodeRef::new(),
            rate: NodeRef::new(),
            rate_overlay: NodeRef::new(),
        },
    };
    provide_context(p);
    let Page { state, version, size, errors, .. } = p;
    ERRORS.with(|e| e.set(Some(errors)));

    // Loading: embedded runs, else manifest.json beside the page (static sites).
    loading::load_first(p);
    loading::fetch_archives(p);

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

    // hover rule and drag boxes, drawn without redrawing the charts
    interact::overlays(p);

    // ----- drag and drop anywhere on the page
    let on_drop = move |ev: web_sys::DragEvent| {
        ev.prevent_default();
        if let Some(files) = ev.data_transfer().and_then(|d| d.files()) {
            loading::load_files(p, files);
        }
    };

    view! {
        <div class="app" on:dragover=move |ev: web_sys::DragEvent| ev.prevent_default() on:drop=on_drop>
            <controls::Controls/>
            <controls::Status/>
            <trend::Trend state=state version=version size=size errors=errors/>
            <legend::Legend/>
            <main class="panels">
                <div class="col">
                    <cdf_panel::CdfPanel/>
                    <hist_panel::HistPanel/>
                </div>
                <div class="col">
                    <runtime_panel::RuntimePanel/>
                    <rate_panel::RatePanel/>
                    <heatmap::HeatmapPanel state=state version=version size=size/>
                </div>
            </main>
            <stats_panel::StatsPanel/>
            <qos::Qos state=state version=version/>
            <judge::ComparePanel/>
            <judge::SweepPanel/>
            <judge::SteadyPanel/>
        </div>
    }
}
