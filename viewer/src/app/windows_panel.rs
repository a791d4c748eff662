//! The per-window levels panel (folded under the stats table): each level of the table on every
//! recorded window of each shown run and direction, the spread of those values, and how often
//! each limit of the QoS spec was broken ([`crate::windows_table`]), of the whole runs or the
//! brushed range, as `nines stats --windows --limit` gives them.
//!
//! A recorded run is computed from its windows' histograms ([`stats::attach_windows`]). A run
//! carried as a compact form has histograms only per group of windows, but keeps every
//! recorded window's median, 1 to 9 nines and max (its level-0 points), which is what the
//! per-window levels of those levels need: they are exact ([`spread_of_windows`]). The I/Os
//! beyond a limit add over windows, so the whole run's merged histogram, or the carried groups
//! of a range whose edges fall on group edges, give them exactly; any other range, and levels
//! other than the median and nines, are said to be unknown rather than shown wrong.

use leptos::prelude::*;

use nines_core::quantile::{standard_levels, Level};
use nines_core::run::is_direction;
use nines_core::series::Direction;
use nines_core::spec::{Metric, Op};
use nines_core::stats::{self, run_stats, Options};
use nines_core::window_levels::{ios_beyond, spread_of_windows, stated, WindowLimit, WindowValues};

use super::dom::{self, now_ms};
use super::model::{runs, CompactParts, Loaded, RangeError};
use super::page::page;
use super::qos::{limit_tag, parsed};
use super::traces::run_time_sel;
use crate::panels::shown_tag;
use crate::state::ViewState;
use crate::windows_table::{windows_table, WindowsRun};

#[component]
pub(super) fn WindowsPanel() -> impl IntoView {
    let p = page();
    let (state, runs) = (p.state, p.runs);
    // folded at first, computed only when open: read after the table, it is what a page of
    // many runs can spare. Open when the spec limits a level: how often a run broke it is then
    // the first question.
    let limited = state.with_untracked(limits_a_level);
    let open = RwSignal::new(limited);
    let out: NodeRef<leptos::html::Div> = NodeRef::new();
    // a spec typed in later that limits a level opens the panel too (its toggle then sets
    // `open`); closed by hand, it stays closed until the spec changes
    let seen = std::rc::Rc::new(std::cell::RefCell::new(state.with_untracked(|s| s.spec.clone())));
    Effect::new(move |_| {
        let s = state.get();
        let _ = runs.version();
        if *seen.borrow() != s.spec {
            seen.replace(s.spec.clone());
            if let Some(d) = out.get().and_then(|o| o.parent_element()).filter(|_| limits_a_level(&s)) {
                let _ = d.set_attribute("open", "");
            }
        }
        if !open.get() {
            return;
        }
        if let Some(out) = out.get() {
            let t0 = now_ms();
            let table: Vec<WindowsRun> = (0..runs.len()).filter(|i| !s.hidden.contains(i)).filter_map(|i| run_windows(&s, i)).collect();
            dom::mount(&out, &windows_table(&table));
            if let Some(b) = dom::body() {
                let _ = b.set_attribute("data-draw-ms-windows", &format!("{:.2}", now_ms() - t0));
            }
        }
    });
    let toggle = move |ev: web_sys::Event| {
        let d: web_sys::Element = event_target(&ev);
        open.set(d.has_attribute("open"));
    };
    view! {
        <section class="panel table" data-testid="panel-windows">
            <details data-testid="windows-details" prop:open=limited on:toggle=toggle>
                <summary>"How often the tail is bad: each level per window, and its spread over the windows"</summary>
                <p class="hint">"Each level of the table computed on every recorded window (of the brushed range, when there is one), then the min, p50, p90, p99 and max of those per-window values, by nearest rank (nines stats --windows). * thin: some windows had fewer than 100 I/Os beyond the level; too few: windows with none beyond it, left out. With a QoS spec: the windows whose level broke each limit, the I/Os beyond it, and the IOPS of the windows that met it."</p>
                <div node_ref=out data-testid="windows-table"></div>
            </details>
        </section>
    }
}

/// Does the view's QoS spec limit a level? How often a run broke it is then the first question.
fn limits_a_level(s: &ViewState) -> bool {
    matches!(parsed(s), Some(Ok(spec)) if spec.sections.iter().flat_map(|x| &x.limits).any(|l| matches!(l.metric, Metric::Level(_))))
}

/// The levels computed: the table's (the standard ones and the view's own), and those the spec
/// limits that are not among them.
fn levels_of(st: &ViewState, limits: &[WindowLimit]) -> Vec<Level> {
    let mut levels = standard_levels();
    levels.extend(st.custom.iter().cloned());
    for l in limits {
        if !levels.iter().any(|x| u128::from(x.num) * u128::from(l.level.den) == u128::from(l.level.num) * u128::from(x.den)) {
            levels.push(l.level.clone());
        }
    }
    levels
}

/// The spec's upper limits on a level that apply to `loaded` (as `nines stats --windows
/// --limit 'read p99.99 <= 2ms'` takes them).
fn spec_limits(st: &ViewState, loaded: &Loaded) -> Vec<WindowLimit> {
    let Some(Ok(spec)) = parsed(st) else { return Vec::new() };
    spec.limits_for(&loaded.run)
        .into_iter()
        .filter_map(|l| match (&l.metric, l.op) {
            (Metric::Level(q), Op::Le | Op::Lt) => {
                Some(WindowLimit { tag: Some(l.tag.clone()), level: q.clone(), op: l.op, value_ns: l.value as u64 })
            }
            _ => None,
        })
        .collect()
}

/// Run `i`'s per-window levels, of the directions shown; `None` while what they need is being
/// fetched.
fn run_windows(st: &ViewState, i: usize) -> Option<WindowsRun> {
    let loaded = runs().get_untracked().get(i).cloned()?;
    let range = run_time_sel(st, i);
    let limits = spec_limits(st, &loaded);
    let levels = levels_of(st, &limits);
    let mut out = WindowsRun { run: i, name: loaded.run.name.clone(), rows: Vec::new(), ios_unknown: None, notes: Vec::new() };
    match &loaded.compact {
        None => {
            let opts = Options { from: range.map(|r| r.0), to: range.map(|r| r.1), levels, ..Options::default() };
            let mut s = run_stats(&loaded.run, &opts);
            stats::attach_windows(&loaded.run, &opts, &limits, &mut s);
            out.rows = s.tags.0.into_iter().filter(|(t, _)| shown_tag(&st.dir, t)).filter_map(|(t, s)| Some((t, s.windows?))).collect();
        }
        Some(c) => compact_windows(st, &loaded, c, range, &levels, &limits, &mut out)?,
    }
    Some(out)
}

/// What a level is among a compact form's metrics per point: the median (`Some(0)`), a level
/// of 1 to 9 nines (`Some(k)`), or neither.
fn nines_of(l: &Level) -> Option<u32> {
    if l.is_median() {
        return Some(0);
    }
    l.nines_count().filter(|&k| k <= 9)
}

/// A compact form's per-window levels, from its level-0 points (see the module's note).
fn compact_windows(
    st: &ViewState,
    loaded: &Loaded,
    c: &CompactParts,
    range: Option<(f64, f64)>,
    levels: &[Level],
    limits: &[WindowLimit],
    out: &mut WindowsRun,
) -> Option<()> {
    let (known, unknown): (Vec<&Level>, Vec<&Level>) = levels.iter().partition(|l| nines_of(l).is_some());
    if !unknown.is_empty() {
        let names: Vec<&str> = unknown.iter().map(|l| l.label.as_str()).collect();
        out.notes.push(format!(
            "{}: not computed per window: the page holds each window's median, nines and max, and histograms only per group of {} windows",
            names.join(", "),
            c.group
        ));
    }
    let known: Vec<Level> = known.into_iter().cloned().collect();
    let nines: Vec<u32> = known.iter().filter_map(nines_of).filter(|&k| k > 0).collect();
    let (from, to) = (range.map_or(f64::NEG_INFINITY, |r| r.0), range.map_or(f64::INFINITY, |r| r.1));
    // the carried groups of the range (the I/Os beyond a limit), or the whole run's merge
    let groups = match range {
        Some(_) if !limits.is_empty() => match c.range(&loaded.file, Some(from), Some(to)) {
            Ok(r) => Some(r),
            Err(RangeError::Pending) => return None,
            Err(RangeError::Bad(e)) => {
                out.ios_unknown = Some(format!("the groups could not be read: {e}"));
                None
            }
        },
        _ => Some(loaded.run.clone()),
    };
    let precision = loaded.run.meta.precision.as_ref();
    for t in &c.form.traces {
        let tag = limit_tag(&loaded.run, &t.dir);
        if !shown_tag(&st.dir, &tag) {
            continue;
        }
        let slots = t.slots();
        let picked: Vec<usize> = (0..slots.len()).filter(|&j| slots[j].start_s >= from && slots[j].start_s < to).collect();
        let mut values = Vec::with_capacity(picked.len());
        for &j in &picked {
            let p = t.point(0, j, &nines).ok()?.map(|(p, _)| p);
            // a point's values are the merged histogram's; a coarser source states them at
            // its precision, as `nines stats --windows` does
            let value = |l: &Level| {
                let p = p.as_ref()?;
                let v = match nines_of(l)? {
                    0 => p.p50_ns,
                    k => p.levels[nines.iter().position(|&n| n == k)?].0,
                };
                v.map(|v| stated(precision, v))
            };
            values.push(WindowValues { ios: slots[j].count, length_s: slots[j].length_s, values: known.iter().map(value).collect() });
        }
        // the I/Os beyond a limit, exact when the range's edges fall on the groups' edges
        let aligned = range.is_none() || c.group <= 1 || on_group_edges(&picked, slots.len(), c.group);
        if !aligned && !limits.is_empty() {
            out.ios_unknown =
                Some(format!("the range's edges are not on the edges of the groups of {} windows the page holds histograms of", c.group));
        }
        let beyond = |l: &WindowLimit| {
            let Some(g) = &groups else { return 0 };
            let own = |w: &&nines_core::run::Window| match &t.dir {
                Direction::All => is_direction(w.tag.as_deref()),
                Direction::Tag(x) => w.tag == *x,
            };
            let whole = range.is_none();
            g.windows
                .iter()
                .filter(own)
                .filter(|w| whole || (w.start_s >= from && w.start_s < to))
                .map(|w| ios_beyond(&w.hist, l, precision))
                .sum()
        };
        out.rows.push((tag.clone(), spread_of_windows(&tag, &values, &known, limits, &beyond)));
    }
    Some(())
}

/// Do the windows `picked` (consecutive indices of `n`) start and end on edges of groups of
/// `group` windows?
fn on_group_edges(picked: &[usize], n: usize, group: usize) -> bool {
    match (picked.first(), picked.last()) {
        (Some(&a), Some(&b)) => a % group == 0 && ((b + 1) % group == 0 || b + 1 == n),
        _ => true,
    }
}
