//! The legend: a button per run (a click hides or shows it, ◎ picks the focus run), show and
//! hide all, the focus toggle, and what runs in compact form carry. Built by
//! [`panels::legend`] and rebuilt whole (see `dom`), with one delegated click handler.

use crate::index_set::IndexSet;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::chart_data::focus_of;
use super::dom;
use super::page::page;
use crate::panels::{self, LegendRun};
use crate::state::{DirMode, Focus};

/// What the legend was drawn for: the runs' version, the hidden runs, the direction mode, the
/// focus.
type LegendKey = (u64, IndexSet, DirMode, Option<usize>);

#[component]
pub(super) fn Legend() -> impl IntoView {
    let p = page();
    let (state, runs) = (p.state, p.runs);
    let set = move |f: Box<dyn FnOnce(&mut crate::state::ViewState)>| p.set(f);
    let out: NodeRef<leptos::html::Section> = NodeRef::new();
    // (the effect returns what it drew for, and skips a change that does not touch it: a
    // zoom step must not rebuild the legend and make the page lay out again)
    Effect::new(move |prev: Option<Option<LegendKey>>| {
        let st = state.get();
        let focus = focus_of(&st);
        let key = Some((runs.version(), st.hidden.clone(), st.dir.clone(), focus));
        if prev.as_ref() == Some(&key) {
            return key;
        }
        let out = out.get()?;
        let runs = runs.get();
        let shown: Vec<LegendRun> = runs
            .iter()
            .map(|r| LegendRun { run: &r.run, file: &r.file, compact: r.compact.as_ref().map(|c| (c.text.as_str(), c.form.range_group())) })
            .collect();
        // a large site opens on its trend alone: the legend says where its runs are
        let site = if runs.is_empty() { p.runs.site().len() } else { 0 };
        dom::mount(&out, &panels::legend(&shown, &st.hidden, &st.dir, focus, site));
        key
    });
    let click = move |ev: web_sys::MouseEvent| {
        let Some(t) = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()).and_then(|t| t.closest("[data-act]").ok().flatten())
        else {
            return;
        };
        match t.get_attribute("data-act").as_deref() {
            Some("show-all") => set(Box::new(|s| s.hidden.clear())),
            Some("hide-all") => {
                let n = runs.len();
                // extend, not collect: a collected BTreeSet sorts first (one more sort in the wasm)
                set(Box::new(move |s| s.hidden.extend(0..n)));
            }
            Some("focus") => {
                if let Some(i) = t.get_attribute("data-run").and_then(|v| v.parse::<usize>().ok()) {
                    set(Box::new(move |s| {
                        s.focus = if focus_of(s) == Some(i) { Focus::Off } else { Focus::Run(i) };
                        s.hidden.remove(&i);
                    }));
                }
            }
            Some("focus-toggle") => set(Box::new(move |s| {
                s.focus = match focus_of(s) {
                    Some(_) => Focus::Off,
                    None => {
                        let n = runs.len();
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
    view! { <section class="runs" data-testid="runs" node_ref=out on:click=click></section> }
}
