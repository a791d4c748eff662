//! The page's signals: the [`Page`] context every panel reads.

use leptos::prelude::*;

use super::dom::busy;
use super::model::Runs;
use super::workers;
use crate::state::ViewState;

pub(super) use super::model::LoadError;

/// The page's signals, provided as a context to every panel ([`page`]).
#[derive(Clone, Copy)]
pub(super) struct Page {
    pub(super) state: RwSignal<ViewState>,
    /// The loaded runs (reactive: their readers draw again when they change).
    pub(super) runs: Runs,
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
