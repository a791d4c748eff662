//! What the judge panels share: the page's model as [`JudgeRuns`], the last result per state,
//! folding a panel with nothing to draw, and the controls' changes.

use std::cell::RefCell;
use std::rc::Rc;
use std::thread::LocalKey;

use wasm_bindgen::{JsCast, JsValue};

use nines_core::curve;
use nines_core::run::Run;
use nines_core::spec::{RunCheck, Spec};
use nines_core::stats::RunStats;

use super::super::dom::{mount, tx};
use super::super::model::{runs, stats_of, RunSet};
use super::super::page::Page;
use crate::judge::{self as data, CmpData, JudgeRuns, SsData, SweepData};
pub(super) use crate::judge::{
    change_chart, compare_table, conv_series, curve_points_attr, curve_table_view, steady_view, sweep_fold, sweep_table_view, Fold,
};
use crate::state::{DirMode, SteadyView, ViewState, TRACKS};

/// The judge panels' view of the page's model: the loaded runs as they are now.
struct ModelRuns(RunSet);

impl ModelRuns {
    fn now() -> ModelRuns {
        ModelRuns(runs().get())
    }
}

impl JudgeRuns for ModelRuns {
    fn count(&self) -> usize {
        self.0.len()
    }
    fn run(&self, i: usize) -> &Run {
        &self.0[i].run
    }
    fn windows(&self, i: usize) -> Option<Rc<Run>> {
        self.0[i].windows()
    }
    fn stats(&self, i: usize, range: Option<(f64, f64)>) -> Option<Rc<RunStats>> {
        stats_of(i, range, &[])
    }
    fn check(&self, run: &Run, spec: &Spec) -> RunCheck {
        // as the QoS panel checks: a compact form by its own windows' counts
        match self.0.iter().find(|l| std::ptr::eq(&*l.run, run)).and_then(|l| l.compact.as_ref()) {
            Some(c) => c.form.check_whole(run, spec),
            None => curve::whole_run(run, spec),
        }
    }
}

pub(super) fn compare_data(st: &ViewState) -> CmpData {
    data::compare_data(st, &ModelRuns::now())
}

pub(super) fn sweep_data(st: &ViewState) -> SweepData {
    data::sweep_data(st, &ModelRuns::now())
}

pub(super) fn steady_data(st: &ViewState) -> SsData {
    data::steady_data(st, &ModelRuns::now())
}

/// The last result of an expensive computation and the key it was made for: the canvas
/// effect and the table of a panel both ask, only the first computes.
pub(super) type Slot<K, V> = RefCell<Option<(K, Rc<V>)>>;

pub(super) fn cached<K: PartialEq + Clone + 'static, V: 'static>(
    slot: &'static LocalKey<Slot<K, V>>,
    key: &K,
    f: impl FnOnce() -> V,
) -> Rc<V> {
    if let Some(v) = slot.with(|s| s.borrow().as_ref().filter(|(k, _)| k == key).map(|(_, v)| v.clone())) {
        return v;
    }
    let v = Rc::new(f());
    slot.with(|s| *s.borrow_mut() = Some((key.clone(), v.clone())));
    v
}

pub(super) type CmpKey = (u64, DirMode, Vec<usize>, Vec<usize>, Option<(f64, f64)>, bool, bool);
pub(super) type SweepKey = (u64, DirMode, Vec<usize>, Vec<usize>, Option<String>, Option<bool>, bool, String);
pub(super) type SsKey = (u64, DirMode, SteadyView);

pub(super) fn cmp_key(st: &ViewState, version: u64) -> CmpKey {
    let time_sel = if st.x_ios { None } else { st.sel };
    (version, st.dir.clone(), st.base.iter().copied().collect(), st.hidden.iter().copied().collect(), time_sel, st.x_ios, st.cset)
}

pub(super) fn sweep_key(st: &ViewState, version: u64) -> SweepKey {
    (
        version,
        st.dir.clone(),
        st.base.iter().copied().collect(),
        st.hidden.iter().copied().collect(),
        st.sweep.clone(),
        st.curve,
        st.curve_log,
        st.spec.clone(),
    )
}

// Pure caches ([`cached`]: the last result and the key it was made for, the runs' version
// among it), not page state.
thread_local! {
    pub(super) static CMP: Slot<CmpKey, CmpData> = const { RefCell::new(None) };
    pub(super) static SWEEP: Slot<SweepKey, SweepData> = const { RefCell::new(None) };
    pub(super) static STEADY: Slot<SsKey, SsData> = const { RefCell::new(None) };
}

/// A judge panel with nothing to draw folds to its tools line, which then says what the panel
/// needs (`why`); its chart is hidden and not drawn. With `None` it unfolds.
pub(super) fn fold(section: &web_sys::Element, slot: &web_sys::Element, why: Option<&Fold>) {
    let chart = section.query_selector(".chart").ok().flatten();
    match why {
        Some(f) => {
            let _ = section.set_attribute("data-empty", if f.few { "few" } else { "1" });
            if let Some(c) = &chart {
                let _ = c.set_attribute("hidden", "");
            }
            mount(slot, &[tx("span", vec![("class", f.class.into()), ("data-testid", f.testid.into())], f.text.clone())]);
        }
        None => {
            let _ = section.remove_attribute("data-empty");
            if let Some(c) = &chart {
                let _ = c.remove_attribute("hidden");
            }
            mount(slot, &[]);
        }
    }
}

/// What the judge panels' controls show: the runs' version, the baselines, the sweep
/// parameter, the steady-state choices, the direction mode, the hidden runs, candidates as a
/// set, the latency curve and its log axis. Other changes (a zoom step) leave them alone.
pub(super) type CtlKey = (u64, Vec<usize>, Option<String>, SteadyView, DirMode, Vec<usize>, bool, Option<bool>, bool);

pub(super) fn ctl_key(st: &ViewState, version: u64) -> CtlKey {
    (
        version,
        st.base.iter().copied().collect(),
        st.sweep.clone(),
        st.steady.clone(),
        st.dir.clone(),
        st.hidden.iter().copied().collect(),
        st.cset,
        st.curve,
        st.curve_log,
    )
}

/// The controls of every judge panel are built with `dom` (one delegated change handler per
/// section reads `data-act`).
pub(super) fn on_change(p: Page, ev: web_sys::Event) {
    let set = move |f: Box<dyn FnOnce(&mut ViewState)>| p.set(f);
    let Some(t) = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else { return };
    let act = t.get_attribute("data-act").unwrap_or_default();
    let prop = |k: &str| js_sys::Reflect::get(&t, &JsValue::from_str(k)).ok();
    let value = prop("value").and_then(|v| v.as_string()).unwrap_or_default();
    match act.as_str() {
        "base" => {
            let Some(i) = t.get_attribute("data-run").and_then(|v| v.parse::<usize>().ok()) else { return };
            let on = prop("checked").and_then(|v| v.as_bool()).unwrap_or(false);
            set(Box::new(move |s| {
                if on {
                    s.base.insert(i);
                } else {
                    s.base.remove(&i);
                }
            }));
        }
        "cset" => {
            let on = prop("checked").and_then(|v| v.as_bool()).unwrap_or(false);
            set(Box::new(move |s| s.cset = on));
        }
        "sweep" => {
            let p = crate::state::param_name(value.trim());
            set(Box::new(move |s| s.sweep = p));
        }
        "sweep-view" => {
            let on = value == "curve";
            set(Box::new(move |s| s.curve = Some(on)));
        }
        "curve-log" => {
            let on = prop("checked").and_then(|v| v.as_bool()).unwrap_or(false);
            set(Box::new(move |s| s.curve_log = on));
        }
        "ss-run" => {
            if let Ok(i) = value.parse::<usize>() {
                set(Box::new(move |s| s.steady.run = i));
            }
        }
        "ss-track" if TRACKS.contains(&value.as_str()) => set(Box::new(move |s| s.steady.track = value)),
        "ss-rounds" => {
            if let Ok(n) = value.parse::<usize>() {
                let n = n.clamp(2, 100);
                set(Box::new(move |s| s.steady.rounds = n));
            }
        }
        "ss-round" => {
            let v = value.parse::<f64>().ok().filter(|v| *v > 0.0);
            set(Box::new(move |s| s.steady.round_s = v));
        }
        _ => {}
    }
}
