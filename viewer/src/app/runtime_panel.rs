//! The runtime QoS panel (per window: median, the levels of nines chosen, max; a dragged
//! range is selected in every panel, the wheel zooms) and its draw, which draws the rate chart
//! too: the two share the x axis.

use leptos::prelude::*;

use nines_core::quantile::Level;

use super::canvas::{draw_canvas, set_size, size_overlay};
use super::chart_data::RuntimeData;
use super::chart_data::{runtime_data, strip_runs};
use super::dom::{self, now_ms, tx, Node};
use super::draws::mark_drawn;
use super::interact::{x_down, x_leave, x_move, x_up, x_wheel};
use super::model::runs;
use super::page::{page, Page};
use super::{chart_data, export};
use crate::charts::{self, Frame};
use crate::state::{metric_key, metric_of, ViewState, MAX_STRIPS};

#[component]
pub(super) fn RuntimePanel() -> impl IntoView {
    let p = page();
    let (state, runs, size, c) = (p.state, p.runs, p.size, p.canvases);
    let (rt_canvas, rt_overlay, rate_canvas, rate_overlay) = (c.runtime, c.runtime_overlay, c.rate, c.rate_overlay);
    let set = move |f: Box<dyn FnOnce(&mut ViewState)>| p.set(f);
    // with more runs than strips: a button per run (built as the heatmap's rows are)
    let strip_out: NodeRef<leptos::html::Div> = NodeRef::new();
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
            (s.one, s.strips, s.strip_runs.clone()),
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
        set_size(&rc, w, d.rate_height(&st));
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
        if let Some(out) = strip_out.get() {
            dom::mount(&out, &strip_buttons(&st, &d));
        }
        // test hook: the points ringed as beyond a limit of the spec
        let breaks = d.lines.iter().map(|l| l.broken.iter().filter(|b| **b).count()).sum::<usize>();
        let _ = c.set_attribute("data-limit-breaks", &breaks.to_string());
        // test hook: the run drawn strong (empty: every run alike)
        let focus = d.focus.and_then(|i| runs.with(|m| m.get(i).map(|r| r.run.name.clone())));
        let _ = c.set_attribute("data-focus", &focus.unwrap_or_default());
        mark_drawn("runtime", now_ms() - t0);
        let t1 = now_ms();
        if let Some(f) = draw_canvas(&rc, |root| d.draw_rate(root, &st, false)) {
            rate_hooks(&rc, &d, &st, &f);
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
            <div class="rows" data-testid="strip-runs" node_ref=strip_out on:click=move |ev| toggle_strip(&ev, p)></div>
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
            format!(
                "per window: the {} of every run alone, each run in its own colour, its directions each in its own dash (named in the chart's key)",
                charts::metric_name(&m)
            )
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
            let style = if st.one.is_some() {
                format!(r#","color":{},"dash":[{},{}],"faint":{}"#, q(&l.style.css()), l.style.dash.0, l.style.dash.1, l.faint)
            } else {
                String::new()
            };
            format!(r#"{{"trace":{},"metric":{},"n":{}{pts}{style}}}"#, q(&l.trace), q(&metric_key(l.metric)), l.points.len())
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
                r#"{{"label":{},"run":{},"focus":{},"dirs":{},"left":{},"right":{},"top":{},"bottom":{},"x":[{},{}],"y":[{},{}],"lines":[{}]}}"#,
                q(&s.label),
                s.run,
                s.focus,
                q(&s.dirs.iter().map(|d| d.0.as_str()).collect::<Vec<_>>().join(",")),
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

/// With more runs shown than strips drawn: how many are not drawn, and a button per run
/// (pressed: drawn) to choose which, as the heatmap's rows are chosen. Empty otherwise.
fn strip_buttons(st: &ViewState, d: &RuntimeData) -> Vec<Node> {
    let pool = &d.strip_pool;
    if !st.strips || pool.len() <= MAX_STRIPS {
        return Vec::new();
    }
    let drawn = strip_runs(st, pool);
    let note = format!(
        "{} of {} runs drawn, {} not (up to {MAX_STRIPS} strips; a button draws or drops its run):",
        drawn.len(),
        pool.len(),
        pool.len() - drawn.len()
    );
    let all = runs().get_untracked();
    let mut out = vec![tx("span", vec![("class", "hint".into()), ("data-testid", "strip-note".into())], note)];
    for &i in pool {
        let class = if drawn.contains(&i) { "active" } else { "" };
        let name = all.get(i).map(|r| r.run.name.clone()).unwrap_or_default();
        out.push(tx("button", vec![("data-testid", "strip-run".into()), ("data-run", i.to_string()), ("class", class.into())], name));
    }
    out
}

/// A click on a run's strip button: draw its strip (in place of the first drawn when
/// [`MAX_STRIPS`] are), or drop it.
fn toggle_strip(ev: &web_sys::MouseEvent, p: Page) {
    use wasm_bindgen::JsCast;
    let Some(b) = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()).and_then(|t| t.closest("[data-run]").ok().flatten())
    else {
        return;
    };
    let (Some(i), on) = (b.get_attribute("data-run").and_then(|v| v.parse::<usize>().ok()), b.class_list().contains("active")) else {
        return;
    };
    let n = runs().len();
    p.set(Box::new(move |s| {
        let shown: Vec<usize> = (0..n).filter(|k| !s.hidden.contains(k)).collect();
        // the strips drawn now become the choice, then the click changes it
        let mut now = strip_runs(s, &shown);
        now.retain(|k| *k != i);
        if !on {
            if now.len() >= MAX_STRIPS {
                now.remove(0);
            }
            now.push(i);
        }
        s.strip_runs.clear();
        s.strip_runs.extend(now);
    }))
}

/// Test hooks on the rate canvas: its frame (`data-frame`: left, right, top, bottom, x range)
/// and, as strips, each strip's run and its rate lines' points (`data-strips`).
fn rate_hooks(c: &web_sys::HtmlCanvasElement, d: &RuntimeData, st: &ViewState, f: &Frame) {
    let _ = c.set_attribute("data-frame", &format!("[{},{},{},{},{},{}]", f.left, f.right, f.top, f.bottom, f.x.lo, f.x.hi));
    let mut out = String::from("[");
    for s in d.strips.iter().filter(|_| st.strips) {
        out.push_str(&format!(r#"{{"run":{},"rates":["#, s.run));
        for (k, l) in s.rates.iter().filter_map(|&j| d.rates.get(j)).enumerate() {
            out.push_str(if k > 0 { ",[" } else { "[" });
            for (n, (x, v)) in l.points.iter().enumerate() {
                out.push_str(&format!("{}[{x},{v}]", if n > 0 { "," } else { "" }));
            }
            out.push(']');
        }
        out.push_str("]},");
    }
    if out.ends_with(',') {
        out.pop();
    }
    out.push(']');
    let _ = c.set_attribute("data-strips", &out);
}
