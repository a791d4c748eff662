//! The runtime QoS panel (per window: median, the levels of nines chosen, max; a dragged
//! range is selected in every panel, the wheel zooms) and its draw, which draws the rate chart
//! too: the two share the x axis.

use leptos::prelude::*;

use nines_core::quantile::Level;

use super::canvas::{canvas_size, draw_canvas, size_overlay};
use super::chart_data::runtime_data;
use super::dom::now_ms;
use super::draws::mark_drawn;
use super::interact::{x_down, x_leave, x_move, x_up, x_wheel};
use super::page::page;
use super::{chart_data, export};
use crate::charts;
use crate::state::ViewState;

#[component]
pub(super) fn RuntimePanel() -> impl IntoView {
    let p = page();
    let (state, runs, size, c) = (p.state, p.runs, p.size, p.canvases);
    let (rt_canvas, rt_overlay, rate_canvas, rate_overlay) = (c.runtime, c.runtime_overlay, c.rate, c.rate_overlay);
    let set = move |f: Box<dyn FnOnce(&mut ViewState)>| p.set(f);
    // what the runtime and rate charts depend on
    let rt_key = Memo::new(move |_| {
        let s = state.get();
        (
            runs.version(),
            size.get(),
            s.dir.clone(),
            s.hidden.clone(),
            s.levels.clone(),
            s.x_ios,
            s.zoom,
            s.sel,
            s.rate,
            s.spec.clone(),
            s.focus,
        )
    });

    // ----- runtime QoS and rates (share the x axis)
    Effect::new(move |_| {
        let _ = rt_key.get();
        let (Some(c), Some(o), Some(rc), Some(ro)) = (rt_canvas.get(), rt_overlay.get(), rate_canvas.get(), rate_overlay.get()) else {
            return;
        };
        let st = state.get_untracked();
        let t0 = now_ms();
        let (w, _) = canvas_size(&c, 360);
        size_overlay(&o, &c);
        canvas_size(&rc, 230);
        size_overlay(&ro, &rc);
        let d = runtime_data(&st, w);
        let spec = d.runtime_spec(&st, false);
        if let Some(f) = draw_canvas(&c, |root| charts::draw_runtime(root, &spec)) {
            runs.book(|m| m.frames.insert("runtime", f));
        }
        // test hook: the points ringed as beyond a limit of the spec
        let breaks = d.lines.iter().map(|l| l.broken.iter().filter(|b| **b).count()).sum::<usize>();
        let _ = c.set_attribute("data-limit-breaks", &breaks.to_string());
        // test hook: the run drawn strong (empty: every run alike)
        let focus = d.focus.and_then(|i| runs.with(|m| m.get(i).map(|r| r.run.name.clone())));
        let _ = c.set_attribute("data-focus", &focus.unwrap_or_default());
        mark_drawn("runtime", now_ms() - t0);
        let t1 = now_ms();
        let rspec = d.rate_spec(&st, false);
        if let Some(f) = draw_canvas(&rc, |root| charts::draw_rate(root, &rspec)) {
            runs.book(|m| m.frames.insert("rate", f));
        }
        mark_drawn("rate", now_ms() - t1);
        chart_data::read_ahead(&st, w);
    });

    view! {
        <section class="panel" data-testid="panel-runtime">
            <div class="tools">
                <span class="hint">"drag or wheel: zoom · shift-drag: select a range for every panel · alt-drag: pan · double-click: whole run"</span>
                <button data-testid="zoom-reset" on:click=move |_| set(Box::new(|s| s.zoom = None))>"reset zoom"</button>
                <button data-testid="export-runtime-png" on:click=move |_| export::png(c.runtime, "runtime")>"PNG"</button>
                <button data-testid="export-runtime-svg" on:click=move |_| export::svg(state, "runtime")>"SVG"</button>
            </div>
            <div class="chart">
                <canvas node_ref=c.runtime data-testid="runtime-canvas"></canvas>
                <canvas class="overlay" node_ref=c.runtime_overlay data-testid="runtime-overlay"
                    on:mousedown=move |ev| x_down(p, "runtime", ev) on:mousemove=move |ev| x_move(p, "runtime", ev)
                    on:mouseup=move |ev| x_up(p, "runtime", ev) on:mouseleave=move |_| x_leave(p, "runtime")
                    on:wheel=move |ev| x_wheel(p, "runtime", ev)></canvas>
            </div>
            <div class="keyline">"per window: median (thin), "
                {move || state.with(|s| s.levels.iter().map(|k| Level::nines(*k).label).collect::<Vec<_>>().join(", "))}
                " (each its own dash, named in the chart's key), max (■, one a window, not joined); points merge exactly to the pixel width"</div>
        </section>
    }
}
