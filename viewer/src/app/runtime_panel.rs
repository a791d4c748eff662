//! The runtime QoS panel (per window: median, the levels of nines chosen, max; a dragged
//! range is selected in every panel, the wheel zooms) and its draw, which draws the rate chart
//! too: the two share the x axis.

use leptos::prelude::*;

use nines_core::quantile::Level;

use super::canvas::{canvas_size, draw_canvas, set_size, size_overlay};
use super::chart_data::runtime_data;
use super::chart_data::RuntimeData;
use super::dom::now_ms;
use super::draws::mark_drawn;
use super::interact::{x_down, x_leave, x_move, x_up, x_wheel};
use super::page::page;
use super::{chart_data, export};
use crate::charts::{self, Frame};
use crate::state::{metric_key, metric_of, ViewState};

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
            (s.one, s.strips),
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
        let w = c.parent_element().map_or(800, |p| p.client_width().max(320) as u32);
        let d = runtime_data(&st, w);
        set_size(&c, w, d.runtime_height(&st));
        size_overlay(&o, &c);
        canvas_size(&rc, 230);
        size_overlay(&ro, &rc);
        let mut strips = Vec::new();
        if let Some(f) = draw_canvas(&c, |root| {
            d.draw_runtime(root, &st, false).map(|(f, fs)| {
                strips = fs;
                f
            })
        }) {
            runs.book(|m| m.frames.insert("runtime", f));
        }
        hooks(&c, &d, &st, &strips);
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
                <select data-testid="runtime-one" title="draw one level of every run, each run in its own colour"
                    prop:value=move || state.with(|s| s.one.map(metric_key).unwrap_or_default())
                    on:change=move |ev| { let m = metric_of(&event_target_value(&ev)); set(Box::new(move |s| s.one = m)) }>
                    {ONE.iter().map(|(v, t)| view! { <option value=*v>{*t}</option> }).collect_view()}
                </select>
                <button data-testid="runtime-strips" style="white-space: nowrap" title="one strip per run, stacked on the same time and latency axes"
                    class:active=move || state.with(|s| s.strips)
                    on:click=move |_| set(Box::new(|s| s.strips = !s.strips))>"one strip per run"</button>
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
            <div class="keyline">{move || state.with(keyline)}</div>
        </section>
    }
}

/// The choices of the one-level control: every metric (empty), or one of them alone.
const ONE: [(&str, &str); 12] = [
    ("", "median, levels and max"),
    ("med", "median of every run"),
    ("1", "p90 of every run"),
    ("2", "p99 of every run"),
    ("3", "p99.9 of every run"),
    ("4", "p99.99 of every run"),
    ("5", "p99.999 of every run"),
    ("6", "p99.9999 of every run"),
    ("7", "p99.99999 of every run"),
    ("8", "p99.999999 of every run"),
    ("9", "p99.9999999 of every run"),
    ("max", "max of every run"),
];

/// What the chart draws, under it.
fn keyline(s: &ViewState) -> String {
    let what = match s.one {
        None => format!(
            "per window: median (thin), {} (each its own dash, named in the chart's key), max (■, one a window, not joined)",
            s.levels.iter().map(|k| Level::nines(*k).label).collect::<Vec<_>>().join(", ")
        ),
        Some(m) => {
            format!("per window: the {} of every run alone, each run in its own colour (named in the chart's key)", charts::metric_name(&m))
        }
    };
    let strips = if s.strips { "; one strip per run, every strip on the same time and latency axes" } else { "" };
    format!("{what}{strips}; points merge exactly to the pixel width")
}

/// Test hooks on the runtime canvas: the lines drawn (`data-lines`: trace, metric, points;
/// each point's x and value too in the one-level view) and the strips (`data-strips`: label,
/// plot rectangle, axes, lines).
fn hooks(c: &web_sys::HtmlCanvasElement, d: &RuntimeData, st: &ViewState, strips: &[Frame]) {
    let q = |t: &str| serde_json::Value::from(t).to_string();
    let lines: Vec<String> = d
        .lines
        .iter()
        .map(|l| {
            let pts = if st.one.is_some() {
                let p: Vec<String> =
                    l.points.iter().map(|(x, v)| format!("[{x},{}]", v.map_or("null".into(), |v| v.to_string()))).collect();
                format!(r#","points":[{}]"#, p.join(","))
            } else {
                String::new()
            };
            format!(r#"{{"trace":{},"metric":{},"n":{}{pts}}}"#, q(&l.trace), q(&metric_key(l.metric)), l.points.len())
        })
        .collect();
    let _ = c.set_attribute("data-lines", &format!("[{}]", lines.join(",")));
    let strips: Vec<String> = d
        .strips
        .iter()
        .zip(strips)
        .map(|(s, f)| {
            let ls: Vec<String> = s.lines.iter().map(usize::to_string).collect();
            format!(
                r#"{{"label":{},"left":{},"right":{},"top":{},"bottom":{},"x":[{},{}],"y":[{},{}],"lines":[{}]}}"#,
                q(&s.label),
                f.left,
                f.right,
                f.top,
                f.bottom,
                f.x.lo,
                f.x.hi,
                f.y.lo,
                f.y.hi,
                ls.join(",")
            )
        })
        .collect();
    let _ = c.set_attribute("data-strips", &format!("[{}]", strips.join(",")));
}
