//! What the panels drew, for the page's test hooks: `<body data-nines-renders>`,
//! `data-nines-idle` and `data-nines-first-render-ms` (see the app's module documentation).

use std::cell::Cell;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::dom::{body, now_ms};
use super::model::runs;

// A timer's flag for the test hook, not page state.
thread_local! {
    static IDLE_PENDING: Cell<bool> = const { Cell::new(false) };
}

const PANELS: [&str; 4] = ["cdf", "runtime", "rate", "hist"];

/// Record that a panel drew; flips the idle flag once the queued draws are done.
pub(super) fn mark_drawn(panel: &'static str, ms: f64) {
    let h = runs();
    let loaded = !h.get_untracked().is_empty();
    let (renders, first) = h.book(|m| {
        m.renders += 1;
        if loaded && !m.drawn.contains(&panel) {
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
