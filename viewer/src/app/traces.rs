//! The traces the view shows of the loaded runs, what a brushed range holds of them, and the
//! direction the first runs open with.

use leptos::prelude::*;

use nines_core::pyramid::time_range_of_ios;
use nines_core::series::Direction;

use super::model::{runs, trace_data, TraceData};
use crate::panels::{self, directions_of, Trace};
use crate::state::{DirMode, ViewState};

/// Is the direction shown decided: by the link, by a click, or by the first runs loaded
/// ([`split_by_default`])?
pub(super) fn dir_decided() -> bool {
    runs().book(|b| b.dir_decided)
}

/// The direction shown is decided (or not, for a link that names none).
pub(super) fn decide_dir(decided: bool) {
    runs().book(|b| b.dir_decided = decided);
}

/// The traces the view shows of the loaded runs.
pub(super) fn traces(st: &ViewState) -> Vec<Trace> {
    panels::traces_of(runs().get().iter().map(|r| &*r.run), st)
}

/// Do the loaded runs have more than one direction (read and write, a merge's hosts)? Not
/// tracked: the link's hash is written again when the view changes, not when runs arrive.
pub(super) fn multi_direction() -> bool {
    runs().get_untracked().iter().any(|r| directions_of(&r.run, &DirMode::Overlay).len() > 1)
}

/// Runs with more than one direction open with each direction shown, not merged: decided once,
/// when the first runs are loaded, unless the link (or a click) chose a direction.
pub(super) fn split_by_default(state: RwSignal<ViewState>) {
    if dir_decided() || runs().get_untracked().is_empty() {
        return;
    }
    decide_dir(true);
    if multi_direction() && state.with_untracked(|s| s.dir == DirMode::All) {
        state.update(|s| s.dir = DirMode::Overlay);
    }
}

/// The brushed range of a trace in seconds (the selection is kept in x-axis units).
pub(super) fn time_sel(st: &ViewState, td: &TraceData) -> Option<(f64, f64)> {
    let (a, b) = st.sel?;
    if st.x_ios {
        Some(time_range_of_ios(td.slots(), a, b).unwrap_or((0.0, 0.0)))
    } else {
        Some((a, b))
    }
}

/// What the selection holds, for its banner: the windows that start in it (once a run) and
/// the I/Os of the traces shown ([`panels::Held`]).
pub(super) fn held(st: &ViewState) -> Option<panels::Held> {
    st.sel?;
    let mut h = panels::Held::default();
    let mut seen = Vec::new();
    for t in traces(st) {
        let Some(td) = trace_data(t.run, &t.dir) else { continue };
        let Some((a, b)) = time_sel(st, &td) else { continue };
        let new_run = !seen.contains(&t.run);
        seen.push(t.run);
        // a compact form without its recorded windows holds a range's groups that start in it
        let g = td.loaded.compact.as_ref().map_or(1, |c| c.form.range_group());
        h.add(td.slots().chunks(g).flat_map(|c| c.iter().map(move |s| (c[0].start_s, s.count))), a, b, new_run);
    }
    Some(h)
}

pub(super) fn run_time_sel(st: &ViewState, run: usize) -> Option<(f64, f64)> {
    st.sel?;
    let td = trace_data(run, &Direction::All)?;
    time_sel(st, &td)
}
