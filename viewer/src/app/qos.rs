//! The QoS spec panel: a spec typed or pasted (or brought by the link or by `nines report
//! --spec`), the runs' verdicts as `nines check` gives them, and what the charts draw of it
//! (the 1-CDF's envelope, the runtime chart's limits and the windows beyond them).
//!
//! Every verdict is nines-core's (`spec::check_run`, or `Compact::check` for a run carried as
//! a compact form, which judges the recorded windows' rates, not its groups'); the page only
//! lays them out.

use std::rc::Rc;

use leptos::prelude::*;

use nines_core::quantile::Level;
use nines_core::run::{Run, ALL};
use nines_core::series::Direction;
use nines_core::spec::{self, Limit, Metric, Op, RunCheck, Spec, SpecError};
use nines_core::stats::tag_name;
use nines_core::units::group;

use super::dom::{busy, el, mount, now_ms, tx, Node};
use super::draws::mark_drawn;
use super::model::{Loaded, Runs};
use crate::charts;
use crate::state::ViewState;

/// The name a spec typed on the page goes by in its limits' places (`spec:3`).
const SOURCE: &str = "spec";

/// The state's spec, parsed; `None` when there is none, the error when it does not parse.
pub(super) fn parsed(st: &ViewState) -> Option<Result<Spec, SpecError>> {
    (!st.spec.trim().is_empty()).then(|| Spec::parse(SOURCE, &st.spec))
}

/// The direction a limit names for a trace of `run`: `all` for every direction merged (and for
/// the one direction of a log without tags), else the tag.
pub(super) fn limit_tag(run: &Run, dir: &Direction) -> String {
    match dir {
        Direction::All => ALL.to_string(),
        Direction::Tag(None) if run.windows.iter().all(|w| w.tag.is_none()) => ALL.to_string(),
        Direction::Tag(t) => tag_name(t.as_deref()).to_string(),
    }
}

/// The 1-CDF envelope of a trace: the limits of the spec that apply to its run and direction.
pub(super) fn envelope(spec: &Spec, run: &Run, dir: &Direction) -> Vec<(f64, f64)> {
    spec::envelope(&spec.limits_for(run), &limit_tag(run, dir))
}

/// The tightest upper limit of the spec on a runtime metric of a trace (the median, a level
/// of nines, the max), if any.
pub(super) fn runtime_limit<'a>(spec: &'a Spec, run: &Run, dir: &Direction, m: charts::Metric) -> Option<&'a Limit> {
    let tag = limit_tag(run, dir);
    let wanted = |l: &Limit| match (&l.metric, m) {
        (Metric::Level(q), charts::Metric::Median) => q.num * 2 == q.den,
        (Metric::Level(q), charts::Metric::Nines(k)) => *q == Level::nines(k),
        (Metric::Max, charts::Metric::Max) => true,
        _ => false,
    };
    spec.limits_for(run)
        .into_iter()
        .filter(|l| l.tag == tag && matches!(l.op, Op::Le | Op::Lt) && wanted(l))
        .min_by(|a, b| a.value.total_cmp(&b.value))
}

/// A run's verdicts over the whole run, as `nines check` gives them.
fn check(r: &Loaded, spec: &Spec) -> RunCheck {
    match &r.compact {
        // the page holds the form's whole-run windows (and its distinct name) in its run
        Some(c) => c.form.check_whole(&r.run, spec),
        None => spec::check_run(&r.run, spec, None, None),
    }
}

/// The verdict table: one row per shown run and limit, the cells of `nines check`.
fn table(checks: &[RunCheck]) -> Vec<Node> {
    let (all, [meets, fails, unsure]) = spec::tally(checks);
    let head = ["run", "limit", "value", "95% interval", "I/Os", "beyond", "verdict", "why"];
    let thead = el("thead", vec![], vec![el("tr", vec![], head.iter().map(|h| tx("th", vec![], *h)).collect())]);
    let mut rows = Vec::new();
    let num = || vec![("class", "num".to_string())];
    for r in checks {
        if r.checks.is_empty() {
            rows.push(el(
                "tr",
                vec![("data-testid", "verdict-row".into()), ("data-verdict", "cannot_tell".into())],
                vec![
                    tx("td", vec![], r.name.clone()),
                    tx("td", vec![("colspan", "5".into())], ""),
                    tx("td", vec![("class", "ns-v-cannot_tell".into())], "cannot tell"),
                    tx("td", vec![], r.note.clone().unwrap_or_default()),
                ],
            ));
        }
        for c in &r.checks {
            let v = c.verdict.key();
            rows.push(el(
                "tr",
                vec![("data-testid", "verdict-row".into()), ("data-verdict", v.into()), ("data-limit", c.limit.clone())],
                vec![
                    tx("td", vec![], r.name.clone()),
                    tx("td", vec![], c.limit.clone()),
                    tx("td", num(), c.value_text()),
                    tx("td", num(), c.interval_text()),
                    tx("td", num(), group(c.count)),
                    tx("td", num(), c.beyond.map(group).unwrap_or_default()),
                    tx("td", vec![("class", format!("ns-v-{v}"))], c.verdict.text()),
                    tx("td", vec![], c.reason.clone().unwrap_or_default()),
                ],
            ));
        }
    }
    vec![
        tx(
            "p",
            vec![("data-testid", "verdict-summary".into()), ("data-verdict", all.key().into())],
            format!(
                "Whole runs: {} ({meets} met, {fails} failed, {unsure} cannot tell). Each verdict is judged on the value's 95% interval; thin support is never a pass.",
                all.text()
            ),
        ),
        el("table", vec![("class", "ns-check".into()), ("data-testid", "verdicts".into())], vec![thead, el("tbody", vec![], rows)]),
    ]
}

/// The QoS spec panel.
#[component]
pub(super) fn Qos(state: RwSignal<ViewState>, runs: Runs) -> impl IntoView {
    let out: NodeRef<leptos::html::Div> = NodeRef::new();
    let key = Memo::new(move |_| {
        let s = state.get();
        (runs.version(), s.spec.clone(), s.hidden.clone())
    });
    let error = RwSignal::new(None::<String>);
    Effect::new(move |_| {
        let (_, text, hidden) = key.get();
        let Some(o) = out.get() else { return };
        let t0 = now_ms();
        let nodes = match (!text.trim().is_empty()).then(|| Spec::parse(SOURCE, &text)) {
            None => {
                error.set(None);
                Vec::new()
            }
            Some(Err(e)) => {
                error.set(Some(e.to_string()));
                Vec::new()
            }
            Some(Ok(spec)) => {
                error.set(None);
                let runs: Vec<Rc<Loaded>> =
                    runs.with(|m| m.iter().enumerate().filter(|(i, _)| !hidden.contains(i)).map(|(_, r)| r.clone()).collect());
                let checks: Vec<RunCheck> = runs.iter().map(|r| check(r, &spec)).collect();
                table(&checks)
            }
        };
        mount(&o, &nodes);
        mark_drawn("qos", now_ms() - t0);
    });
    let on_change = move |ev: leptos::ev::Event| {
        let v = event_target_value(&ev);
        busy();
        state.update(|s| s.spec = v);
    };
    view! {
        <section class="panel table" data-testid="panel-qos">
            <div class="tools">
                <span class="hint">"QoS spec: one limit a line, as "<code>"nines check"</code>" reads it ("<code>"read p99.99 <= 1ms"</code>", "<code>"all max <= 50ms"</code>", "<code>"[name=*probe*]"</code>" sections). Limits on levels and the max are drawn on the 1-CDF (the envelope a curve stays under) and on the runtime chart (windows beyond a limit ringed)."</span>
            </div>
            <textarea data-testid="spec-input" rows="3" spellcheck="false" placeholder="read p99.99 <= 1ms"
                prop:value=move || state.with(|s| s.spec.clone()) on:change=on_change></textarea>
            <p class="errors" data-testid="spec-error">{move || error.get()}</p>
            <div node_ref=out></div>
        </section>
    }
}
