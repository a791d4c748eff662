//! The rate panel (IOPS or MB/s per window, SNIA PTS steady state shaded; drawn with the
//! runtime chart, whose x axis it shares: see `runtime_panel`).

use leptos::prelude::*;

use super::export;
use super::interact::{x_down, x_leave, x_move, x_up, x_wheel};
use super::page::page;
use crate::state::{RateMode, ViewState};

#[component]
pub(super) fn RatePanel() -> impl IntoView {
    let p = page();
    let (state, c) = (p.state, p.canvases);
    let set = move |f: Box<dyn FnOnce(&mut ViewState)>| p.set(f);
    view! {
        <section class="panel" data-testid="panel-rate">
            <div class="tools">
                <span class="hint" title="SNIA PTS over 5 consecutive windows: range at most 20% of the average and the fitted line's change at most 10%; the band spans 90% to 110% of the average">"shaded: steady state (SNIA PTS)"</span>
                <button data-testid="rate-iops" class:active=move || state.with(|s| s.rate == RateMode::Iops) on:click=move |_| set(Box::new(|s| s.rate = RateMode::Iops))>"IOPS"</button>
                <button data-testid="rate-mbps" class:active=move || state.with(|s| s.rate == RateMode::Mbps) on:click=move |_| set(Box::new(|s| s.rate = RateMode::Mbps))>"MB/s"</button>
                <button data-testid="export-rate-png" on:click=move |_| export::png(c.rate, "rate")>"PNG"</button>
                <button data-testid="export-rate-svg" on:click=move |_| export::svg(state, "rate")>"SVG"</button>
            </div>
            <div class="chart">
                <canvas node_ref=c.rate data-testid="rate-canvas"></canvas>
                <canvas class="overlay" node_ref=c.rate_overlay data-testid="rate-overlay"
                    on:mousedown=move |ev| x_down(p, "rate", ev) on:mousemove=move |ev| x_move(p, "rate", ev)
                    on:mouseup=move |ev| x_up(p, "rate", ev) on:mouseleave=move |_| x_leave(p, "rate")
                    on:wheel=move |ev| x_wheel(p, "rate", ev)></canvas>
            </div>
        </section>
    }
}
