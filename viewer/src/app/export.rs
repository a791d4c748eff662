//! Chart exports: a canvas as PNG, a chart redrawn as SVG with its legend.

use leptos::prelude::*;

use super::chart_data::{cdf_data, hist_data, runtime_data};
use super::dom::{download, download_url};
use super::model::runs;
use crate::charts::{self, CdfSpec, HistSpec};
use crate::state::ViewState;

/// Download a chart's canvas as `nines-{name}.png`.
pub(super) fn png(node: NodeRef<leptos::html::Canvas>, name: &'static str) {
    if let Some(c) = node.get() {
        if let Ok(url) = c.to_data_url_with_type("image/png") {
            download_url(&format!("nines-{name}.png"), &url);
        }
    }
}

/// Download chart `name` (`cdf`, `hist`, `runtime`, `rate`) of the view as `nines-{name}.svg`,
/// as wide as the charts on the page.
pub(super) fn svg(state: RwSignal<ViewState>, name: &'static str) {
    let st = state.get_untracked();
    let w = runs().book(|m| m.frames.get("cdf").or(m.frames.get("runtime")).map(|f| f.right + 18)).unwrap_or(1000).max(600) as u32;
    let svg = match name {
        "cdf" => {
            let d = cdf_data(&st);
            let spec = CdfSpec {
                title: "1-CDF: levels of nines",
                curves: &d.curves,
                x: d.x,
                y: d.y,
                hover_x: None,
                drag_box: None,
                legend: true,
                envelopes: &d.envelopes,
            };
            charts::to_svg(w, 470, |r| charts::draw_cdf(r, &spec))
        }
        "hist" => {
            let d = cdf_data(&st);
            let hd = hist_data(&st, d.x);
            let spec = HistSpec { title: "Latency histogram", traces: &hd.traces, x: hd.x, y: hd.y, legend: true };
            charts::to_svg(w, 280, |r| charts::draw_hist(r, &spec))
        }
        "runtime" | "rate" => {
            let d = runtime_data(&st, w);
            if name == "runtime" {
                charts::to_svg(w, d.runtime_height(&st), |r| d.draw_runtime(r, &st, true).map(|f| f.0))
            } else {
                charts::to_svg(w, d.rate_height(&st), |r| d.draw_rate(r, &st, true))
            }
        }
        _ => return,
    };
    match svg {
        Ok((s, _)) => download(&format!("nines-{name}.svg"), "image/svg+xml", s.as_bytes()),
        Err(e) => leptos::logging::error!("svg export: {e}"),
    }
}
