//! The page's signals: the [`Page`] context every panel reads, and the few of them that code
//! outside a component reaches (errors found while drawing, the run version).

use std::cell::Cell;

use leptos::prelude::*;

use super::dom::busy;
use super::workers;
use crate::state::ViewState;

#[derive(Clone, Debug, PartialEq)]
pub(super) struct LoadError {
    pub(super) file: String,
    pub(super) message: String,
}

thread_local! {
    /// The page's list of errors, for errors found while drawing (a damaged carried group).
    pub(super) static ERRORS: Cell<Option<RwSignal<Vec<LoadError>>>> = const { Cell::new(None) };
    /// The page's run version, once its first runs are loaded (`loading::replace_run`).
    pub(super) static LIVE: Cell<Option<RwSignal<u64>>> = const { Cell::new(None) };
    /// The page's run version, for what arrives while drawing (a compact form's groups).
    pub(super) static VERSION: Cell<Option<RwSignal<u64>>> = const { Cell::new(None) };
}

/// The page's signals, provided as a context to every panel ([`page`]).
#[derive(Clone, Copy)]
pub(super) struct Page {
    pub(super) state: RwSignal<ViewState>,
    /// Bumped when the loaded runs change.
    pub(super) version: RwSignal<u64>,
    /// Bumped when the window is resized.
    pub(super) size: RwSignal<u32>,
    pub(super) errors: RwSignal<Vec<LoadError>>,
    /// What is loading now, for the status line.
    pub(super) loading: RwSignal<Option<String>>,
    /// Files the worker pool was given and how far each is.
    pub(super) progress: RwSignal<Vec<(String, workers::Stage)>>,
    /// The latency under the mouse on the 1-CDF.
    pub(super) hover_x: RwSignal<Option<f64>>,
    /// The time chart under the mouse and the x there (seconds, or I/Os on the runtime and
    /// rate charts when they count I/Os): a rule on every time chart, the context readout.
    pub(super) hover_t: RwSignal<Option<(&'static str, f64)>>,
    /// A drag on a chart in progress.
    pub(super) drag: RwSignal<Drag>,
    pub(super) canvases: Canvases,
}

/// The chart canvases (and the overlays the mouse draws on), for the panels that draw or read
/// another's: the 1-CDF and histogram share an x axis, as do the runtime and rate charts.
#[derive(Clone, Copy)]
pub(super) struct Canvases {
    pub(super) cdf: NodeRef<leptos::html::Canvas>,
    pub(super) cdf_overlay: NodeRef<leptos::html::Canvas>,
    pub(super) hist: NodeRef<leptos::html::Canvas>,
    pub(super) runtime: NodeRef<leptos::html::Canvas>,
    pub(super) runtime_overlay: NodeRef<leptos::html::Canvas>,
    pub(super) rate: NodeRef<leptos::html::Canvas>,
    pub(super) rate_overlay: NodeRef<leptos::html::Canvas>,
    pub(super) context: NodeRef<leptos::html::Canvas>,
    pub(super) context_overlay: NodeRef<leptos::html::Canvas>,
}

impl Page {
    /// Change the view state (the page is busy until the draws it queues are done).
    pub(super) fn set(self, f: Box<dyn FnOnce(&mut ViewState)>) {
        busy();
        self.state.update(|s| f(s));
    }
}

/// The page's signals, from any panel.
pub(super) fn page() -> Page {
    expect_context::<Page>()
}

/// What a drag on a time chart does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Gesture {
    Zoom,
    Select,
    Pan,
}

/// A drag in progress: which chart, where it started (x, y) and where the mouse is now, and
/// what it does (the 1-CDF's box zoom is a `Zoom`).
pub(super) type Drag = Option<(&'static str, f64, f64, f64, f64, Gesture)>;
