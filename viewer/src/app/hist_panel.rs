//! The latency histogram panel (log-spaced densities; drawn with the 1-CDF, whose x axis it
//! follows: see `cdf_panel`).

use leptos::prelude::*;

use super::export;
use super::page::page;

#[component]
pub(super) fn HistPanel() -> impl IntoView {
    let p = page();
    let (state, c) = (p.state, p.canvases);
    view! {
        <section class="panel" data-testid="panel-hist">
            <div class="tools">
                <span class="hint">"x axis follows the 1-CDF"</span>
                <button data-testid="export-hist-png" on:click=move |_| export::png(c.hist, "histogram")>"PNG"</button>
                <button data-testid="export-hist-svg" on:click=move |_| export::svg(state, "hist")>"SVG"</button>
            </div>
            <div class="chart"><canvas node_ref=c.hist data-testid="hist-canvas"></canvas></div>
        </section>
    }
}
