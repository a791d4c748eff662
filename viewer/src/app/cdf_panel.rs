//! The 1-CDF panel (levels of nines of every trace; a dragged box zooms, the mouse reads the
//! share slower at a latency) and its draw, which draws the latency histogram too: the two
//! share the x axis.

use leptos::prelude::*;

use nines_core::ccdf::{nines_of, share_at};
use nines_core::units::{format_ns, group};

use super::canvas::{canvas_size, draw_canvas, size_overlay};
use super::chart_data::{cdf_data, hist_data};
use super::dom::now_ms;
use super::draws::mark_drawn;
use super::export;
use super::interact::frame;
use super::model::runs;
use super::page::page;
use crate::charts::{self, CdfSpec, HistSpec};
use crate::state::ViewState;

#[component]
pub(super) fn CdfPanel() -> impl IntoView {
    let p = page();
    let (state, runs, size, hover_x, drag, c) = (p.state, p.runs, p.size, p.hover_x, p.drag, p.canvases);
    let (cdf_canvas, cdf_overlay, hist_canvas) = (c.cdf, c.cdf_overlay, c.hist);
    let set = move |f: Box<dyn FnOnce(&mut ViewState)>| p.set(f);
    // while the default view starts above the minimum (at the lowest p1): the whole x, the y
    let cut = RwSignal::new(None::<(f64, f64, f64, f64)>);
    // what the 1-CDF and histogram depend on
    let cdf_key = Memo::new(move |_| {
        let s = state.get();
        (runs.version(), size.get(), s.dir.clone(), s.hidden.clone(), s.sel, s.x_ios, s.cdf, s.spec.clone())
    });

    // ----- 1-CDF and histogram (share the x axis)
    Effect::new(move |_| {
        let _ = cdf_key.get();
        let (Some(c), Some(o), Some(hc)) = (cdf_canvas.get(), cdf_overlay.get(), hist_canvas.get()) else { return };
        let st = state.get_untracked();
        let t0 = now_ms();
        canvas_size(&c, 470);
        size_overlay(&o, &c);
        let data = cdf_data(&st);
        cut.set((st.cdf.is_none() && data.full_x.lo < data.x.lo).then_some((data.full_x.lo, data.full_x.hi, data.y.lo, data.y.hi)));
        let spec = CdfSpec {
            title: "1-CDF: levels of nines",
            curves: &data.curves,
            x: data.x,
            y: data.y,
            hover_x: None,
            drag_box: None,
            legend: false,
            envelopes: &data.envelopes,
        };
        if let Some(f) = draw_canvas(&c, |root| charts::draw_cdf(root, &spec)) {
            runs.book(|m| {
                m.frames.insert("cdf", f);
                m.hover_curves = data.hover;
            });
        }
        // test hook: the spec's envelopes drawn, as (latency ns, share) corners
        let env: Vec<String> =
            data.envelopes.iter().map(|e| e.iter().map(|(x, y)| format!("{x}:{y}")).collect::<Vec<_>>().join(",")).collect();
        let _ = c.set_attribute("data-envelopes", &env.join(";"));
        mark_drawn("cdf", now_ms() - t0);
        let t1 = now_ms();
        canvas_size(&hc, 280);
        let hd = hist_data(&st, data.x);
        let hspec = HistSpec { title: "Latency histogram", traces: &hd.traces, x: hd.x, y: hd.y, legend: false };
        if let Some(f) = draw_canvas(&hc, |root| charts::draw_hist(root, &hspec)) {
            runs.book(|m| m.frames.insert("hist", f));
        }
        mark_drawn("hist", now_ms() - t1);
    });

    // ----- a box dragged zooms, the mouse reads the curves
    let cdf_down = move |ev: web_sys::MouseEvent| {
        ev.prevent_default();
        let (x, y) = (ev.offset_x() as f64, ev.offset_y() as f64);
        if frame("cdf").is_some_and(|f| f.contains(x, y)) {
            drag.set(Some(("cdf", x, y, x, y, super::page::Gesture::Zoom)));
        }
    };
    let cdf_move = move |ev: web_sys::MouseEvent| {
        let (x, y) = (ev.offset_x() as f64, ev.offset_y() as f64);
        if let Some(f) = frame("cdf") {
            hover_x.set(f.contains(x, y).then(|| f.x_at(x)));
        }
        if let Some(("cdf", x0, y0, _, _, p)) = drag.get_untracked() {
            drag.set(Some(("cdf", x0, y0, x, y, p)));
        }
    };
    let cdf_up = move |ev: web_sys::MouseEvent| {
        let (x, y) = (ev.offset_x() as f64, ev.offset_y() as f64);
        if let (Some(("cdf", x0, y0, _, _, _)), Some(f)) = (drag.get_untracked(), frame("cdf")) {
            drag.set(None);
            if (x - x0).abs() > 6.0 && (y - y0).abs() > 6.0 {
                let (a, b) = (f.x_at(x0.min(x)), f.x_at(x0.max(x)));
                let (c, d) = (f.y_at(y0.max(y)), f.y_at(y0.min(y)));
                set(Box::new(move |s| s.cdf = Some((a, b, c, d))));
            }
        }
    };
    let cdf_leave = move |_: web_sys::MouseEvent| {
        hover_x.set(None);
        if matches!(drag.get_untracked(), Some(("cdf", ..))) {
            drag.set(None);
        }
    };

    view! {
        <section class="panel" data-testid="panel-cdf">
            <div class="tools">
                <span class="hint">"drag a box to zoom, double-click to reset"</span>
                <button data-testid="cdf-reset" on:click=move |_| set(Box::new(|s| s.cdf = None))>"reset zoom"</button>
                {from_minimum(cut)}
                <button data-testid="export-cdf-png" on:click=move |_| export::png(c.cdf, "cdf")>"PNG"</button>
                <button data-testid="export-cdf-svg" on:click=move |_| export::svg(state, "cdf")>"SVG"</button>
            </div>
            <div class="chart">
                <canvas node_ref=c.cdf data-testid="cdf-canvas"></canvas>
                <canvas class="overlay" node_ref=c.cdf_overlay data-testid="cdf-overlay"
                    on:mousedown=cdf_down on:mousemove=cdf_move on:mouseup=cdf_up on:mouseleave=cdf_leave
                    on:dblclick=move |_| set(Box::new(|s| s.cdf = None))></canvas>
            </div>
            {readout(hover_x)}
        </section>
    }
}

/// While the default view starts above the runs' minimum latency: what it starts at, and a
/// button that zooms out to the whole range (`cut`: that range's x and the view's y).
fn from_minimum(cut: RwSignal<Option<(f64, f64, f64, f64)>>) -> impl IntoView {
    let p = page();
    move || {
        cut.get().map(|(a, b, c, d)| {
            view! {
                <span class="hint" data-testid="cdf-cut">{format!("latency from the lowest p1; min {}", format_ns((a * 1.3).round() as u64))}</span>
                <button data-testid="cdf-full" title="zoom out to the runs' minimum latency"
                    on:click=move |_| p.set(Box::new(move |s| s.cdf = Some((a, b, c, d))))>"from the minimum"</button>
            }
        })
    }
}

/// The hover readout: the latency under the mouse and, per curve, the share slower.
fn readout(hover_x: RwSignal<Option<f64>>) -> impl IntoView {
    view! {
        <div class="readout" data-testid="cdf-readout">
            {move || {
                let x = hover_x.get()?;
                let rows = runs().book(|m| m.hover_curves.iter().map(|(l, c, pts)| (l.clone(), c.clone(), share_at(pts, x))).collect::<Vec<_>>());
                Some(view! {
                    <b>{format_ns(x.round() as u64)}</b>
                    {rows.into_iter().map(|(l, c, s)| {
                        let txt = match s {
                            Some(s) => format!("{:.2} nines ({:.4}% slower, 1 in {})", nines_of(s), s * 100.0, group((1.0 / s).round() as u64)),
                            None => "none slower (beyond the max)".to_string(),
                        };
                        view! { <span class="ro"><i style:background=c></i>{l}": "{txt}</span> }
                    }).collect_view()}
                })
            }}
        </div>
    }
}
