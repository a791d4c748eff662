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

use std::cell::Cell;

use leptos::prelude::*;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use nines_core::pyramid::time_range_of_ios;
use nines_core::series::Direction;

use crate::backend::Backend;
use crate::charts::Frame;
use crate::panels::{self, dir_key, directions_of, Trace};
use crate::state::{DirMode, ViewState};
use chart_data::{cdf_data, focus_of, hist_data, runtime_data, runtime_extent};
use interact::Drag;
use loading::{add_run, embedded_view, fetch_bytes, handed_runs, manifest_items, LoadError, PRELOAD};
use model::{
    report_range_error, stats_of, trace_data, with_model, CompactParts, Loaded, Model, Points, RangeError, TraceData, BINS_PER_DECADE,
};

mod cdf_panel;
mod chart_data;
mod context_panel;
mod controls;
mod dom;
mod export;
mod heatmap;
mod hidpi;
pub(crate) use hidpi::HiDpi;
mod hist_panel;
mod interact;
mod judge;
mod legend;
mod loading;
mod model;
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

thread_local! {
    static IDLE_PENDING: Cell<bool> = const { Cell::new(false) };
    /// The page's list of errors, for errors found while drawing (a damaged carried group).
    static ERRORS: Cell<Option<RwSignal<Vec<LoadError>>>> = const { Cell::new(None) };
    /// The page's run version, once its first runs are loaded ([`replace_run`]).
    static LIVE: Cell<Option<RwSignal<u64>>> = const { Cell::new(None) };
    /// The page's run version, for what arrives while drawing (a compact form's groups).
    static VERSION: Cell<Option<RwSignal<u64>>> = const { Cell::new(None) };
    /// The direction shown is decided: by the link, by a click, or by the first runs loaded
    /// ([`split_by_default`]).
    static DIR_DECIDED: Cell<bool> = const { Cell::new(false) };
}

const PANELS: [&str; 4] = ["cdf", "runtime", "rate", "hist"];

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

/// What the selection holds, for its banner: the windows that start in it (once a run) and
/// the I/Os of the traces shown ([`panels::Held`]).
fn held(st: &ViewState) -> Option<panels::Held> {
    st.sel?;
    let mut h = panels::Held::default();
    let mut seen = Vec::new();
    for t in traces(st) {
        let Some(td) = trace_data(t.run, &t.dir) else { continue };
        let Some((a, b)) = time_sel(st, &td) else { continue };
        let new_run = !seen.contains(&t.run);
        seen.push(t.run);
        h.add(td.slots().iter().map(|s| (s.start_s, s.count)), a, b, new_run);
    }
    Some(h)
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
        if !m.runs.is_empty() && !m.drawn.contains(&panel) {
            m.drawn.push(panel);
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

thread_local! {
    /// The link's hash waiting to be written (see `write_hash_soon`).
    static HASH_PENDING: std::cell::RefCell<Option<(u64, String)>> = const { std::cell::RefCell::new(None) };
    static HASH_GEN: Cell<u64> = const { Cell::new(0) };
}

/// Write the link's hash `HASH_DELAY_MS` after the last change (a trailing debounce): a wheel zoom or a pan changes
/// the state many times a second, and `history.replaceState` took several milliseconds of
/// each zoom step (browsers also limit how often it may be called: the HTML Living Standard
/// lets them throttle the history API). `<body data-nines-hash-pending="1">` while a write
/// waits, for tests.
fn write_hash_soon(h: String) {
    const HASH_DELAY_MS: u64 = 400;
    // each change restarts the wait: only a timer that sees no later change writes
    let gen = HASH_PENDING.with(|p| {
        let mut p = p.borrow_mut();
        let gen = HASH_GEN.with(|g| {
            g.set(g.get() + 1);
            g.get()
        });
        *p = Some((gen, h));
        gen
    });
    if let Some(b) = body() {
        let _ = b.set_attribute("data-nines-hash-pending", "1");
    }
    set_timeout(
        move || {
            let Some(h) = HASH_PENDING.with(|p| {
                let mut p = p.borrow_mut();
                if p.as_ref().is_some_and(|(g, _)| *g == gen) {
                    p.take().map(|(_, h)| h)
                } else {
                    None
                }
            }) else {
                return;
            };
            if let Some(w) = web_sys::window() {
                if let Ok(hist) = w.history() {
                    let url = if h.is_empty() {
                        w.location().pathname().unwrap_or_default() + &w.location().search().unwrap_or_default()
                    } else {
                        format!("#{h}")
                    };
                    if w.location().hash().ok().as_deref().map(|c| c.trim_start_matches('#')) != Some(h.as_str()) {
                        let _ = hist.replace_state_with_url(&JsValue::NULL, "", Some(&url));
                    }
                }
            }
            if let Some(b) = body() {
                let _ = b.set_attribute("data-nines-hash-pending", "0");
            }
        },
        std::time::Duration::from_millis(HASH_DELAY_MS),
    );
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
    draw: impl FnOnce(&DrawingArea<Backend<'_>, plotters::coord::Shift>) -> Result<Frame, String>,
) -> Option<Frame> {
    let ctx = ctx_css(canvas)?;
    let inner = CanvasBackend::with_canvas_object(canvas.clone())?;
    let root = Backend::canvas(HiDpi::new(inner, ctx, css_size(canvas))).into_drawing_area();
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
    /// The time chart under the mouse and the x there (seconds, or I/Os on the runtime and
    /// rate charts when they count I/Os): a rule on every time chart, the context readout.
    hover_t: RwSignal<Option<(&'static str, f64)>>,
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
    context: NodeRef<leptos::html::Canvas>,
    context_overlay: NodeRef<leptos::html::Canvas>,
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
        hover_t: RwSignal::new(None),
        drag: RwSignal::new(None),
        canvases: Canvases {
            cdf: NodeRef::new(),
            cdf_overlay: NodeRef::new(),
            hist: NodeRef::new(),
            runtime: NodeRef::new(),
            runtime_overlay: NodeRef::new(),
            rate: NodeRef::new(),
            rate_overlay: NodeRef::new(),
            context: NodeRef::new(),
            context_overlay: NodeRef::new(),
        },
    };
    provide_context(p);
    let Page { state, version, size, errors, .. } = p;
    ERRORS.with(|e| e.set(Some(errors)));
    VERSION.with(|v| v.set(Some(version)));

    // Loading: embedded runs, else manifest.json beside the page (static sites).
    loading::load_first(p);

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
        write_hash_soon(h);
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
                    <context_panel::ContextPanel/>
                </div>
            </main>
            // the full width under both columns: more columns of windows, and no empty space
            // under the histogram beside a column of four charts
            <heatmap::HeatmapPanel state=state version=version size=size/>
            <stats_panel::StatsPanel/>
            <qos::Qos state=state version=version/>
            <judge::ComparePanel/>
            <judge::SweepPanel/>
            <judge::SteadyPanel/>
        </div>
    }
}
