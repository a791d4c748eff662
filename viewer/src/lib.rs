//! # nines-viewer
//!
//! The browser viewer of nines: a Leptos (CSR) app that loads runs (file picker, drag and
//! drop, runs embedded in the page, a `manifest.json` beside it), overlays their 1-CDFs,
//! zooms the runtime QoS view, splits reads from writes and shows the stats table. Every
//! number comes from `nines-core`; this crate lays them out.
//!
//! The chart code ([`charts`]), the view state ([`state`]) and what the panels show of the
//! runs ([`panels`]: traces, scales, the stats table and legend as a [`tree`] of nodes; and
//! [`judge`]: compare, sweep and steady state over a [`judge::JudgeRuns`]) are plain Rust,
//! tested natively; the app itself (`app`: one Leptos component per panel, the
//! loading, the canvases) exists only on wasm32. Raw files opened in the page are decoded in
//! Web Workers that run a wasm module of their own (the `nines-worker` crate).

pub mod backend;
pub mod charts;
pub mod heat_chart;
#[cfg(target_arch = "wasm32")]
mod hidpi;
mod image;
pub mod index_set;
pub mod judge;
pub mod judge_charts;
pub mod judge_controls;
pub mod paged;
pub mod panels;
pub mod state;
pub mod strips;
pub mod tree;
pub mod windows_table;
pub mod workload;

#[cfg(target_arch = "wasm32")]
mod app;
