//! # nines-worker
//!
//! The wasm module a viewer's Web Worker runs (`static/worker.js`): it turns a raw run (an
//! archive, or any format `nines stats` reads) into its compact form with
//! [`nines_core::summarise::summarise`], and nothing else. It is a module of its own so
//! that it can be built for speed while the page's module is built for size (see
//! `xtask::build_viewer`): decoding every window of a run and merging every group of them is
//! all a worker does, and the page's size budget does not pay for it.

use nines_core::hist::{Hist, Layout};
use nines_core::run::{Run, Window};
pub use nines_core::summarise::summarise;

/// The worker's entry point (see `static/worker.js`): the compact form of the run in `bytes`
/// (named `name` in errors).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen(js_name = summarise)]
pub fn summarise_js(name: &str, bytes: &[u8]) -> Result<Vec<u8>, wasm_bindgen::JsError> {
    summarise(name, bytes).map_err(|e| wasm_bindgen::JsError::new(&e.to_string()))
}

/// Windows of the warm-up run, per direction. Few: the warm-up's own archive is written with
/// deflate, unoptimised code at first, and a file given meanwhile waits for it (with 1,024
/// windows a direction it took 430-600 ms in a cold instance, in Node).
const WARM_WINDOWS: usize = 128;

/// Summarise a small synthetic archive once, so that the engine has compiled the code a run
/// goes through before the first file arrives, and has started optimising the hottest of it.
/// V8 compiles wasm lazily, a function at its first call, with its baseline compiler
/// (Liftoff), and optimises a function once it has run enough, the optimised code serving its
/// next calls ("WebAssembly compilation pipeline", v8.dev/docs/wasm-compilation-pipeline): a
/// cold worker runs its first file partly unoptimised. Returns the compact form's size.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen::prelude::wasm_bindgen)]
pub fn warm() -> usize {
    warm_archive().ok().and_then(|bytes| summarise("warm-up", &bytes).ok()).map_or(0, |c| c.len())
}

/// The warm-up run's archive: [`WARM_WINDOWS`] one-second windows of reads and writes, each
/// a body and a tail over four decades, differing from window to window.
fn warm_archive() -> std::io::Result<Vec<u8>> {
    let layout = Layout::default_ns();
    let windows = (0..WARM_WINDOWS)
        .flat_map(|s| {
            [("read", 3u64), ("write", 5u64)].map(|(tag, step)| Window {
                start_s: s as f64,
                length_s: 1.0,
                tag: Some(tag.into()),
                hist: Hist::from_values(layout, (1..=64u64).map(|i| 20_000 + i * i * i * step + (s as u64 % 13) * 997)),
            })
        })
        .collect();
    nines_core::archive::write(Vec::new(), &Run { windows, ..Run::default() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use nines_core::compact::Compact;

    #[test]
    fn the_warm_up_run_is_summarised() {
        let c = summarise("warm-up", &warm_archive().unwrap()).unwrap();
        assert_eq!(warm(), c.len());
        let c = Compact::read("w", &c).unwrap();
        assert_eq!(c.windows, 2 * WARM_WINDOWS);
        assert_eq!(c.run.tags(), [Some("read".to_string()), Some("write".to_string())]);
    }
}
