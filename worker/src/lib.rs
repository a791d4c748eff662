//! # nines-worker
//!
//! The wasm module a viewer's Web Worker runs (`static/worker.js`): it turns a raw run (an
//! archive, or any format `nines stats` reads) into its compact form with
//! [`nines_core::summarise::summarise`], and nothing else. It is a module of its own so
//! that it can be built for speed while the page's module is built for size (see
//! `xtask::build_viewer`): decoding every window of a run and merging every group of them is
//! all a worker does, and the page's size budget does not pay for it.

pub use nines_core::summarise::summarise;

/// The worker's entry point (see `static/worker.js`): the compact form of the run in `bytes`
/// (named `name` in errors).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen(js_name = summarise)]
pub fn summarise_js(name: &str, bytes: &[u8]) -> Result<Vec<u8>, wasm_bindgen::JsError> {
    summarise(name, bytes).map_err(|e| wasm_bindgen::JsError::new(&e))
}
