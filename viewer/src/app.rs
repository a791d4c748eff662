//! The Leptos app (wasm32 only): loading, the panels, interactions and exports.
//!
//! The loaded runs live in Leptos' arena behind the page's [`model::Runs`] handle, whose
//! readers track them; what is derived from them is cached beside them without notifying.
//! The view state is one signal ([`ViewState`]) mirrored into the URL hash. The page's signals
//! are handed to its panels as one [`page::Page`] context; each panel is its own component (its
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
use wasm_bindgen::prelude::*;

use crate::state::{DirMode, ViewState};
use dom::body;
use loading::{embedded_view, handed_runs, manifest_items, Preloaded};
use page::{Canvases, Page};
use traces::{decide_dir, dir_decided, multi_direction};

// The modules of the app: nothing imports app.rs, and no file imports one that imports it
// back (`scripts/import-graph.py` checks it).
// the panels
mod cdf_panel;
mod context_panel;
mod controls;
mod heatmap;
mod hist_panel;
mod judge;
mod legend;
mod qos;
mod rate_panel;
mod runtime_panel;
mod stats_panel;
mod trend;
mod windows_panel;
// what the panels share: the data of the charts, exports, the mouse, loading runs
mod chart_data;
mod export;
mod interact;
mod loading;
mod site;
mod traces;
// the page: canvases, the DOM, draws, the runs (model), requests, the page's signals, workers
mod canvas;
mod dom;
mod draws;
mod model;
mod net;
mod page;
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
            let pre = manifest_items().await;
            leptos::mount::mount_to_body(move || app(Some(pre)));
        });
    } else {
        leptos::mount::mount_to_body(|| app(None));
    }
}

// The debounce of the link's writes (a timer's bookkeeping), not page state.
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

// ---------------------------------------------------------------------------------------
// The app

/// The page, with what a site's manifest gave before it was built.
fn app(pre: Option<Preloaded>) -> impl IntoView {
    // the link's view, else the one a report was written with (`nines report --baseline`)
    let hash = location_hash().filter(|h| !h.trim_start_matches('#').is_empty()).or_else(embedded_view).unwrap_or_default();
    let initial = ViewState::from_hash(&hash);
    let errors = RwSignal::new(Vec::new());
    let p = Page {
        state: RwSignal::new(initial),
        runs: model::Runs::new(errors),
        size: RwSignal::new(0u32),
        errors,
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
    decide_dir(crate::state::dir_in_hash(&hash));
    let Page { state, runs, size, errors, .. } = p;

    // Loading: embedded runs, else manifest.json beside the page (static sites).
    let preload = pre.map(|pre| {
        runs.book(|b| {
            b.site = std::rc::Rc::new(pre.site);
            b.groups_at = pre.groups_at;
        });
        pre.items
    });
    loading::load_first(p, preload);

    // URL hash mirrors the state.
    Effect::new(move |_| {
        // `all` is written when the runs would open split, so the link keeps it
        let h = state.with(|s| {
            let h = s.to_hash();
            if s.dir == DirMode::All && dir_decided() && multi_direction() {
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
            <trend::Trend state=state runs=runs size=size errors=errors/>
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
            <heatmap::HeatmapPanel state=state runs=runs size=size/>
            <stats_panel::StatsPanel/>
            <windows_panel::WindowsPanel/>
            <qos::Qos state=state runs=runs/>
            <judge::ComparePanel/>
            <judge::SweepPanel/>
            <judge::SteadyPanel/>
        </div>
    }
}
