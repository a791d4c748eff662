//! The sweep panel: IOPS and latency against a parameter (fio's numjobs, ...), or the latency
//! curve (levels against achieved IOPS), its table and CSV export.

use leptos::prelude::*;

use super::super::canvas::{canvas_size, draw_canvas};
use super::super::dom::{download, mount, now_ms};
use super::super::draws::mark_drawn;
use super::super::page::page;
use super::common::{
    cached, ctl_key, curve_points_attr, curve_table_view, fold, on_change, sweep_data, sweep_fold, sweep_key, sweep_table_view, CtlKey,
    Fold, SweepKey, SWEEP,
};
use crate::judge_charts::{self as jc, CurveSpec, SweepSpec};
use crate::judge_controls;

#[component]
pub(in crate::app) fn SweepPanel() -> impl IntoView {
    let p = page();
    let (state, runs, size) = (p.state, p.runs, p.size);
    let sweep_memo = Memo::new(move |_| (sweep_key(&state.get(), runs.version()), size.get()));
    let sweep_canvas: NodeRef<leptos::html::Canvas> = NodeRef::new();
    let sweep_out: NodeRef<leptos::html::Div> = NodeRef::new();
    let sweep_sec: NodeRef<leptos::html::Section> = NodeRef::new();
    let sweep_note: NodeRef<leptos::html::Span> = NodeRef::new();
    let sweep_ctl: NodeRef<leptos::html::Span> = NodeRef::new();
    let swp = move |k: &SweepKey| cached(&SWEEP, k, || sweep_data(&state.get_untracked()));

    Effect::new(move |_| {
        let (k, _) = sweep_memo.get();
        let (Some(c), Some(sec), Some(slot)) = (sweep_canvas.get(), sweep_sec.get(), sweep_note.get()) else { return };
        let t0 = now_ms();
        let d = swp(&k);
        if let Some(cd) = d.curve.as_ref().filter(|cd| cd.lines.iter().any(|l| !l.points.is_empty())) {
            fold(&sec, &slot, None);
            canvas_size(&c, 460);
            let (x, y) = jc::curve_scales(&cd.lines, cd.limit.as_ref().map(|l| l.0), cd.log_x);
            let title = format!("Latency curve: levels against achieved IOPS ({})", cd.table.tag);
            let spec = CurveSpec {
                title: &title,
                lines: &cd.lines,
                limit: cd.limit.as_ref().map(|(v, t)| (*v, t.as_str())),
                found: cd.found,
                x,
                y,
                legend: true,
            };
            draw_canvas(&c, |root| jc::draw_curve(root, &spec));
            let _ = c.set_attribute("data-points", &curve_points_attr(&cd.lines));
            if let Some(out) = sweep_out.get() {
                mount(&out, &curve_table_view(cd));
            }
            mark_drawn("sweep", now_ms() - t0);
            return;
        }
        let _ = c.remove_attribute("data-points");
        if d.curve.is_some() {
            fold(
                &sec,
                &slot,
                Some(&Fold {
                    testid: "sweep-note",
                    class: "fold-note",
                    text: "No shown run has the direction to draw a latency curve of.".into(),
                    few: false,
                }),
            );
            if let Some(out) = sweep_out.get() {
                mount(&out, &[]);
            }
            mark_drawn("sweep", now_ms() - t0);
            return;
        }
        if !d.panels.iter().any(|p| p.lines.iter().any(|l| !l.points.is_empty())) {
            let shown = state.with_untracked(|s| runs.with(|m| (0..m.len()).filter(|i| !s.hidden.contains(i)).count()));
            fold(&sec, &slot, Some(&sweep_fold(&d, shown)));
            if let Some(out) = sweep_out.get() {
                mount(&out, &[]);
            }
            mark_drawn("sweep", now_ms() - t0);
            return;
        }
        fold(&sec, &slot, None);
        canvas_size(&c, 560);
        let param = d.param.clone().unwrap_or_else(|| "parameter".into());
        let spec = SweepSpec { param: &param, panels: &d.panels, legend: false };
        draw_canvas(&c, |root| jc::draw_sweep(root, &spec));
        if let Some(out) = sweep_out.get() {
            mount(&out, &sweep_table_view(&d));
        }
        mark_drawn("sweep", now_ms() - t0);
    });

    let export_sweep_csv = move |_: web_sys::MouseEvent| {
        let d = swp(&sweep_memo.get_untracked().0);
        if let Some(Ok(t)) = &d.table {
            download("nines-sweep.csv", "text/csv", nines_core::export::csv::sweep(t).as_bytes());
        }
    };

    // the controls, rebuilt whenever the runs or the choices change
    Effect::new(move |prev: Option<Option<CtlKey>>| -> Option<CtlKey> {
        let st = state.get();
        let key = Some(ctl_key(&st, runs.version()));
        if prev.as_ref() == Some(&key) {
            return key;
        }
        // not mounted yet: draw on the next run
        let c = sweep_ctl.get()?;
        let d = swp(&sweep_key(&st, runs.version_untracked()));
        mount(&c, &judge_controls::sweep(d.param.as_deref(), &d.params, d.curve.is_some(), st.curve_log));
        key
    });

    let on_change = move |ev: web_sys::Event| on_change(p, ev);
    view! {
        <section class="panel judge" data-testid="panel-sweep" node_ref=sweep_sec>
            <div class="tools" on:change=on_change>
                <span class="hint">"Sweep: IOPS and latency against a parameter, or the latency curve (levels against achieved IOPS)" <span node_ref=sweep_note></span></span>
                <span class="glabel">"show"</span>
                <span class="ctl" node_ref=sweep_ctl></span>
                <button data-testid="export-sweep-csv" on:click=export_sweep_csv>"CSV"</button>
            </div>
            <div class="chart"><canvas node_ref=sweep_canvas data-testid="sweep-canvas"></canvas></div>
            <div node_ref=sweep_out></div>
        </section>
    }
}
