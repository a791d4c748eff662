//! The compare panel: a baseline against every other shown run, per direction and level of
//! nines, the change chart and the table of verdicts.

use leptos::prelude::*;

use super::super::canvas::{canvas_size, draw_canvas};
use super::super::dom::{mount, now_ms};
use super::super::draws::mark_drawn;
use super::super::page::page;
use super::common::{cached, change_chart, cmp_key, compare_data, compare_table, ctl_key, fold, on_change, CmpKey, CtlKey, Fold, CMP};
use crate::judge_charts::{self as jc, ChangeSpec};
use crate::judge_controls;

#[component]
pub(in crate::app) fn ComparePanel() -> impl IntoView {
    let p = page();
    let (state, runs, size) = (p.state, p.runs, p.size);
    let set = move |f: Box<dyn FnOnce(&mut crate::state::ViewState)>| p.set(f);
    let cmp_memo = Memo::new(move |_| (cmp_key(&state.get(), runs.version()), size.get()));
    let change_canvas: NodeRef<leptos::html::Canvas> = NodeRef::new();
    let cmp_out: NodeRef<leptos::html::Div> = NodeRef::new();
    let cmp_sec: NodeRef<leptos::html::Section> = NodeRef::new();
    let cmp_note: NodeRef<leptos::html::Span> = NodeRef::new();
    let cmp_ctl: NodeRef<leptos::html::Span> = NodeRef::new();
    let cmp = move |k: &CmpKey| cached(&CMP, k, || compare_data(&state.get_untracked()));

    Effect::new(move |_| {
        let (k, _) = cmp_memo.get();
        let (Some(c), Some(sec), Some(slot)) = (change_canvas.get(), cmp_sec.get(), cmp_note.get()) else { return };
        let t0 = now_ms();
        let d = cmp(&k);
        if d.rows.is_empty() {
            let few = runs.len() < 2;
            let why = Fold { testid: "compare-note", class: "fold-note", text: d.note.clone().unwrap_or_default(), few };
            fold(&sec, &slot, Some(&why));
            if let Some(out) = cmp_out.get() {
                mount(&out, &[]);
            }
            mark_drawn("change", now_ms() - t0);
            return;
        }
        fold(&sec, &slot, None);
        canvas_size(&c, 340);
        let ch = change_chart(&d);
        let spec = ChangeSpec {
            title: "Change against the baseline, per level of nines",
            levels: &ch.levels,
            bands: &ch.bands,
            series: &ch.series,
            x: ch.x,
            y: ch.y,
            legend: false,
        };
        draw_canvas(&c, |root| jc::draw_change(root, &spec));
        // test hook: the changes drawn off the scale, as level x:percent, and the thin ones
        let marks = |keep: &dyn Fn(&jc::ChangePoint) -> bool| {
            ch.series
                .iter()
                .flat_map(|s| &s.points)
                .filter(|p| keep(p))
                .map(|p| format!("{:.2}:{:.0}", p.x, p.pct))
                .collect::<Vec<_>>()
                .join(",")
        };
        let _ = c.set_attribute("data-offscale", &marks(&|p| p.pct > ch.y.hi || p.pct < ch.y.lo));
        let _ = c.set_attribute("data-thin", &marks(&|p| p.thin));
        if let Some(out) = cmp_out.get() {
            mount(&out, &compare_table(&d));
        }
        mark_drawn("change", now_ms() - t0);
    });
    // the controls, rebuilt whenever the runs or the choices change
    Effect::new(move |prev: Option<Option<CtlKey>>| -> Option<CtlKey> {
        let st = state.get();
        let key = Some(ctl_key(&st, runs.version()));
        if prev.as_ref() == Some(&key) {
            return key;
        }
        // not mounted yet: draw on the next run
        let c = cmp_ctl.get()?;
        let names = runs.with(|m| m.iter().map(|r| r.run.name.clone()).collect::<Vec<_>>());
        mount(&c, &judge_controls::compare(&names, &st.base, st.cset));
        key
    });

    let on_change = move |ev: web_sys::Event| on_change(p, ev);
    view! {
        <section class="panel judge" data-testid="panel-compare" node_ref=cmp_sec>
            <div class="tools" on:change=on_change>
                <span class="hint">"Compare: did the change move the tail by more than the measurement allows?" <span node_ref=cmp_note></span></span>
                <span class="glabel">"baseline"</span>
                <span class="ctl" node_ref=cmp_ctl></span>
                <button data-testid="baseline-clear" on:click=move |_| set(Box::new(|s| s.base.clear()))>"none"</button>
            </div>
            <div class="chart"><canvas node_ref=change_canvas data-testid="change-canvas"></canvas></div>
            <div node_ref=cmp_out></div>
        </section>
    }
}
