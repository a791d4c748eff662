//! The device and host panel: what the devices under the target and the host did in each
//! window (the archive's context records, iostat -x's and the kernel's numbers), on the
//! runtime chart's time axis, zoomed and brushed with it, and a readout of every number at
//! the time under the mouse on any of the time charts.

use leptos::prelude::*;

use nines_core::context::{Getter, WindowContext};

use super::canvas::{canvas_size, draw_canvas, set_size, size_overlay};
use super::chart_data::runtime_extent;
use super::dom::now_ms;
use super::draws::mark_drawn;
use super::export;
use super::interact::{x_down, x_leave, x_move, x_up, x_wheel};
use super::model::runs;
use super::page::page;
use super::traces::traces;
use crate::charts::{self, RateLine, RateSpec, Scale, TraceStyle, DASHES};
use crate::panels;
use crate::state::ViewState;

/// A number the panel can draw: its button, the chart's title and unit, and its series.
struct Shown {
    button: &'static str,
    title: &'static str,
    unit: &'static str,
    series: &'static [(&'static str, Getter)],
}

const SHOWN: [Shown; 6] = [
    Shown {
        button: "queue",
        title: "Device queue per window (iostat aqu-sz)",
        unit: "I/Os queued or in service",
        series: &[("aqu-sz", |c| c.disk.map(|d| d.aqu_sz))],
    },
    Shown {
        button: "util",
        title: "Device busy per window (iostat %util)",
        unit: "% of the window",
        series: &[("%util", |c| c.disk.map(|d| d.util))],
    },
    Shown {
        button: "await",
        title: "Device await per window (iostat r_await, w_await)",
        unit: "ms an I/O",
        series: &[("r_await", |c| c.disk.map(|d| d.r_await)), ("w_await", |c| c.disk.map(|d| d.w_await))],
    },
    Shown {
        button: "device I/Os",
        title: "Device I/Os per second, all issuers (iostat r/s, w/s)",
        unit: "I/Os per second",
        series: &[("r/s", |c| c.disk.map(|d| d.r_s)), ("w/s", |c| c.disk.map(|d| d.w_s))],
    },
    Shown {
        button: "CPU",
        title: "Host CPU per window (/proc/stat)",
        unit: "% of all CPUs",
        series: &[
            ("user+sys", |c| c.cpu.map(|x| x.user + x.nice + x.system)),
            ("iowait", |c| c.cpu.map(|x| x.iowait)),
            ("irq+softirq", |c| c.cpu.map(|x| x.irq + x.softirq)),
        ],
    },
    Shown {
        button: "pressure",
        title: "Pressure stalls per window (/proc/pressure)",
        unit: "% of the window stalled",
        series: &[
            ("I/O some", |c| c.io_pressure.map(|p| p.some)),
            ("I/O full", |c| c.io_pressure.and_then(|p| p.full)),
            ("CPU some", |c| c.cpu_pressure.map(|p| p.some)),
        ],
    },
];

/// The runs shown that carry context records: (run index, its label and style, records, and
/// how many windows a record spans).
fn shown_runs(st: &ViewState) -> Vec<(usize, String, TraceStyle, std::rc::Rc<nines_core::run::Run>, usize)> {
    let mut out: Vec<(usize, String, TraceStyle, std::rc::Rc<nines_core::run::Run>, usize)> = Vec::new();
    for t in traces(st) {
        if out.iter().any(|o| o.0 == t.run) {
            continue;
        }
        let Some((run, k)) = runs().with(|m| m.get(t.run).map(|l| (l.run.clone(), l.compact.as_ref().map_or(1, |c| c.form.context_group))))
        else {
            continue;
        };
        if !run.context.is_empty() {
            out.push((t.run, run.name.clone(), t.style, run, k));
        }
    }
    out
}

/// Each run's lines of number `which` over `[x0, x1]` seconds, records taken together (exact
/// means, [`WindowContext::merge`]) to about one point per two pixels.
fn lines(st: &ViewState, which: &Shown, x0: f64, x1: f64, width_px: u32) -> Vec<RateLine> {
    let max_points = ((width_px.saturating_sub(charts::Y_LABEL_AREA + 30)) / 2).max(10) as usize;
    let mut out = Vec::new();
    for (_, name, style, run, _) in shown_runs(st) {
        let inside: Vec<WindowContext> =
            run.context.iter().filter(|c| c.end_ns as f64 / 1e9 >= x0 && c.start_ns as f64 / 1e9 <= x1).cloned().collect();
        let per = inside.len().div_ceil(max_points).max(1);
        let recs: Vec<WindowContext> = if per == 1 { inside } else { inside.chunks(per).filter_map(WindowContext::merge).collect() };
        for (i, (label, get)) in which.series.iter().enumerate() {
            let points: Vec<(f64, f64)> = recs.iter().filter_map(|c| Some(((c.start_ns + c.end_ns) as f64 / 2e9, get(c)?))).collect();
            if points.is_empty() {
                continue;
            }
            let style = TraceStyle { color: style.color, dash: DASHES[i % DASHES.len()] };
            out.push(RateLine { label: format!("{name} {label}"), style, points, steady: Vec::new(), faint: false });
        }
    }
    out
}

/// Every number of each shown run's record at `t` seconds, one line a run.
fn readout(st: &ViewState, t: f64) -> Vec<String> {
    let ns = (t * 1e9).max(0.0) as u64;
    let mut out = Vec::new();
    for (_, name, _, run, _) in shown_runs(st) {
        let i = run.context.partition_point(|c| c.end_ns <= ns);
        let Some(c) = run.context.get(i).filter(|c| c.start_ns <= ns) else { continue };
        let n = |v: f64| charts::format_count(v);
        let mut parts = vec![format!(
            "{name} at {} to {}:",
            charts::format_seconds(c.start_ns as f64 / 1e9),
            charts::format_seconds(c.end_ns as f64 / 1e9)
        )];
        if let Some(d) = c.disk {
            parts.push(format!(
                "%util {} · aqu-sz {} · r_await {} ms · w_await {} ms · r/s {} · w/s {} · rkB/s {} · wkB/s {}",
                n(d.util),
                n(d.aqu_sz),
                n(d.r_await),
                n(d.w_await),
                n(d.r_s),
                n(d.w_s),
                n(d.rkb_s),
                n(d.wkb_s)
            ));
        }
        if let Some(x) = c.cpu {
            parts.push(format!(
                "· CPU user {}% sys {}% iowait {}% irq {}% softirq {}% steal {}%",
                n(x.user),
                n(x.system),
                n(x.iowait),
                n(x.irq),
                n(x.softirq),
                n(x.steal)
            ));
        }
        for (what, p) in [("I/O", c.io_pressure), ("CPU", c.cpu_pressure)] {
            if let Some(p) = p {
                let full = p.full.map(|f| format!(" full {}%", n(f))).unwrap_or_default();
                parts.push(format!("· {what} pressure some {}%{full}", n(p.some)));
            }
        }
        if let Some(x) = c.nines_cpu {
            parts.push(format!("· nines {}% of a core", n(x)));
        }
        out.push(parts.join(" "));
    }
    out
}

#[component]
pub(super) fn ContextPanel() -> impl IntoView {
    let p = page();
    let (state, runs, size, hover_t, c) = (p.state, p.runs, p.size, p.hover_t, p.canvases);
    let (canvas, overlay) = (c.context, c.context_overlay);
    let which = RwSignal::new(0usize);
    // shown when a loaded run has context records, or says why it has none
    let any = move || runs.with(|m| m.iter().any(|l| !l.run.context.is_empty() || l.run.meta.context_missing.is_some()));
    let missing = move || {
        runs.with(|m| {
            let why: Vec<String> =
                m.iter().filter_map(|l| l.run.meta.context_missing.as_ref().map(|why| format!("{}: {why}", l.run.name))).collect();
            why.join("; ")
        })
    };
    // a report carries a long run's records taken together (nines_core::compact)
    let per = move || match runs.with(|m| m.iter().filter_map(|l| l.compact.as_ref()).map(|c| c.form.context_group).max()).unwrap_or(1) {
        1 => "device and host, per window".to_string(),
        k => format!("device and host, per window (up to {k} windows a point, as the report carries them)"),
    };
    // (no memo of what the chart depends on, as the other panels keep: redrawing a few
    // hundred points on any change of the view costs less than the memo's code in the wasm)
    Effect::new(move |_| {
        let (_, _, st) = (runs.version(), size.get(), state.get());
        let (Some(cv), Some(o)) = (canvas.get(), overlay.get()) else { return };
        if !any() {
            return;
        }
        let t0 = now_ms();
        // the panel may have been hidden a moment ago (no width yet): the rate chart's column
        let w = c.rate.get().and_then(|r| r.parent_element()).map_or(0, |p| p.client_width());
        let w = if w > 0 {
            set_size(&cv, w as u32, 230);
            w as u32
        } else {
            canvas_size(&cv, 230).0
        };
        size_overlay(&o, &cv);
        let full = runtime_extent(&st, &traces(&st)).unwrap_or((0.0, 1.0));
        // the I/O axis has no place for records kept by time: the whole run by time then
        let (x0, x1) = if st.x_ios { runs.with(context_extent).unwrap_or(full) } else { st.zoom.unwrap_or(full) };
        let shown = &SHOWN[which.get().min(SHOWN.len() - 1)];
        let ls = lines(&st, shown, x0, x1, w);
        let note = if st.x_ios {
            Some("drawn against time: the runtime chart's x axis counts I/Os")
        } else if ls.is_empty() {
            Some("the runs shown record no such number (see the note below)")
        } else {
            None
        };
        let spec = RateSpec {
            title: shown.title,
            x_desc: "time since start",
            y_desc: shown.unit,
            x_is_time: true,
            lines: &ls,
            x: Scale { lo: x0, hi: x1, log: false },
            y: panels::rate_y(&ls),
            selection: if st.x_ios { None } else { st.sel },
            note,
            legend: true,
        };
        if let Some(f) = draw_canvas(&cv, |root| charts::draw_rate(root, &spec)) {
            runs.book(|m| m.frames.insert("context", f));
        }
        // test hooks: the number drawn and how many points
        let _ = cv.set_attribute("data-shown", shown.button);
        let _ = cv.set_attribute("data-points", &ls.iter().map(|l| l.points.len()).sum::<usize>().to_string());
        mark_drawn("context", now_ms() - t0);
    });

    let buttons = SHOWN
        .iter()
        .enumerate()
        .map(|(i, s)| {
            view! {
                <button data-testid=format!("context-{}", s.button.replace(' ', "-")) class:active=move || which.get() == i
                    on:click=move |_| which.set(i)>{s.button}</button>
            }
        })
        .collect::<Vec<_>>();
    let text = move || {
        let (from, t) = hover_t.get()?;
        // a chart counting I/Os gives no time; the heatmap, below this panel, would move
        // under the mouse as the readout grows
        if from == "heatmap" || (from != "context" && state.with_untracked(|s| s.x_ios)) {
            return None;
        }
        let lines = state.with_untracked(|s| readout(s, t));
        (!lines.is_empty()).then(|| lines.join("\n"))
    };
    view! {
        <section class="panel" data-testid="panel-context" style:display=move || if any() { "" } else { "none" }>
            <div class="tools">
                <span class="hint" title="read from /proc/diskstats, /proc/stat and /proc/pressure at every window's edges, as iostat -x computes them">{per}</span>
                {buttons}
                <button data-testid="export-context-png" on:click=move |_| export::png(canvas, "context")>"PNG"</button>
            </div>
            <div class="chart">
                <canvas node_ref=canvas data-testid="context-canvas"></canvas>
                <canvas class="overlay" node_ref=overlay data-testid="context-overlay"
                    on:mousedown=move |ev| x_down(p, "context", ev) on:mousemove=move |ev| x_move(p, "context", ev)
                    on:mouseup=move |ev| x_up(p, "context", ev) on:mouseleave=move |_| x_leave(p, "context")
                    on:wheel=move |ev| x_wheel(p, "context", ev)></canvas>
            </div>
            <div class="keyline readout" data-testid="context-readout" style="white-space: pre-line">
                {move || text().unwrap_or_else(|| "point at any time chart for every number of that window".into())}
            </div>
            <div class="keyline" data-testid="context-missing">{missing}</div>
        </section>
    }
}

/// From the earliest record's start to the latest record's end, seconds.
fn context_extent(runs: &[std::rc::Rc<super::model::Loaded>]) -> Option<(f64, f64)> {
    let recs = runs.iter().flat_map(|l| l.run.context.first().into_iter().chain(l.run.context.last()));
    let (lo, hi) =
        recs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), c| (lo.min(c.start_ns as f64 / 1e9), hi.max(c.end_ns as f64 / 1e9)));
    (hi > lo).then_some((lo, hi))
}
