//! The steady-state panel: the SNIA PTS check of a run's tracked result over rounds, its
//! convergence plot and window table.

use leptos::prelude::*;

use super::super::canvas::{canvas_size, draw_canvas};
use super::super::dom::{mount, now_ms};
use super::super::draws::mark_drawn;
use super::super::page::page;
use super::common::{cached, conv_series, ctl_key, fold, on_change, steady_data, steady_view, CtlKey, Fold, SsKey, STEADY};
use crate::charts::Scale;
use crate::judge_charts::{self as jc, ConvSpec};
use crate::judge_controls;

#[component]
pub(in crate::app) fn SteadyPanel() -> impl IntoView {
    let p = page();
    let (state, runs, size) = (p.state, p.runs, p.size);
    let ss_memo = Memo::new(move |_| {
        let s = state.get();
        ((runs.version(), s.dir.clone(), s.steady.clone()), size.get())
    });
    let conv_canvas: NodeRef<leptos::html::Canvas> = NodeRef::new();
    let ss_out: NodeRef<leptos::html::Div> = NodeRef::new();
    let ss_sec: NodeRef<leptos::html::Section> = NodeRef::new();
    let ss_note: NodeRef<leptos::html::Span> = NodeRef::new();
    let ss_ctl: NodeRef<leptos::html::Span> = NodeRef::new();
    let sst = move |k: &SsKey| cached(&STEADY, k, || steady_data(&state.get_untracked()));

    Effect::new(move |_| {
        let (k, _) = ss_memo.get();
        let (Some(c), Some(sec), Some(slot)) = (conv_canvas.get(), ss_sec.get(), ss_note.get()) else { return };
        let t0 = now_ms();
        let d = sst(&k);
        let series = conv_series(&d);
        if !series.iter().any(|s| !s.points.is_empty()) {
            // the note, or why each direction cannot be checked (too few windows, ...)
            let few = runs.get().is_empty();
            let why: Vec<String> = d.series.iter().filter_map(|s| s.report.as_ref().err().map(|e| format!("{}: {e}", s.label))).collect();
            let f = match &d.note {
                Some(n) => Fold { testid: "steady-note", class: "fold-note", text: n.clone(), few },
                None if why.is_empty() => Fold { testid: "steady-note", class: "fold-note", text: "No rounds to check.".into(), few },
                None => Fold { testid: "steady-error", class: "fold-note error", text: why.join("; "), few },
            };
            fold(&sec, &slot, Some(&f));
            if let Some(out) = ss_out.get() {
                mount(&out, &[]);
            }
            mark_drawn("steady", now_ms() - t0);
            return;
        }
        fold(&sec, &slot, None);
        canvas_size(&c, 340);
        let n = series.iter().map(|s| s.points.len()).max().unwrap_or(1) as f64;
        let title = match &d.run {
            Some((_, name)) => format!("Steady state (SNIA PTS): {} per round, {}", d.track, name),
            None => "Steady state (SNIA PTS)".into(),
        };
        let spec = ConvSpec {
            title: &title,
            y_desc: &d.track,
            unit: d.unit,
            series: &series,
            x: Scale { lo: 0.5, hi: n + 0.5, log: false },
            y: jc::conv_y(&series),
            legend: series.len() > 1,
        };
        draw_canvas(&c, |root| jc::draw_convergence(root, &spec));
        if let Some(out) = ss_out.get() {
            mount(&out, &steady_view(&d));
        }
        mark_drawn("steady", now_ms() - t0);
    });
    // the controls, rebuilt whenever the runs or the choices change
    Effect::new(move |prev: Option<Option<CtlKey>>| -> Option<CtlKey> {
        let st = state.get();
        let key = Some(ctl_key(&st, runs.version()));
        if prev.as_ref() == Some(&key) {
            return key;
        }
        // not mounted yet: draw on the next run
        let c = ss_ctl.get()?;
        let names = runs.with(|m| m.iter().map(|r| r.run.name.clone()).collect::<Vec<_>>());
        mount(&c, &judge_controls::steady(&names, &st.steady));
        key
    });

    let on_change = move |ev: web_sys::Event| on_change(p, ev);
    view! {
        <section class="panel judge" data-testid="panel-steady" node_ref=ss_sec>
            <div class="tools" on:change=on_change>
                <span class="hint" title="SNIA PTS: over the measurement window of the last N rounds, the range of the tracked result is at most 20% of its average and the least-squares line changes by at most 10% of it">
                    "Steady state: can the measurement be trusted?" <span node_ref=ss_note></span>
                </span>
                <span class="ctl" node_ref=ss_ctl></span>
            </div>
            <div class="chart"><canvas node_ref=conv_canvas data-testid="conv-canvas"></canvas></div>
            <div node_ref=ss_out></div>
        </section>
    }
}
