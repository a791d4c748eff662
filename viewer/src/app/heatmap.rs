//! The latency heatmap panel: for each trace shown (up to [`MAX_ROWS`]), nines-core's heatmap
//! (`nines_core::heatmap`) over the runtime chart's x range, zoomed and brushed with it. Each
//! column is the exact merge of the recorded windows it covers, or for a compact form of its
//! carried groups; the page only lays the counts out and reads them back under the mouse.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use leptos::prelude::*;
use wasm_bindgen::prelude::*;

use nines_core::heatmap::{column, Heatmap};
use nines_core::pyramid::{Axis, Pyramid};
use nines_core::quantile::Level;
use nines_core::run::Run;
use nines_core::units::{format_ns, group};

use super::canvas::{canvas_size, css_size, ctx_css, draw_canvas, size_overlay};
use super::chart_data::runtime_extent;
use super::dom::{self, download, download_url, now_ms, tx, Node};
use super::draws::mark_drawn;
use super::model::{report_range_error, runs, trace_data, Loaded, Points, RangeError, Runs, TraceData, BINS_PER_DECADE};
use super::page::page;
use super::traces::traces;
use crate::charts::{self, Frame, Scale, Y_LABEL_AREA};
use crate::heat_chart::{draw_heatmap, latency_scale, to_svg, HeatRow, HeatSpec, ShareScale, LEGEND_H};
use crate::state::ViewState;

/// The most traces drawn (one row each); with more, the panel's row buttons choose which.
pub(super) const MAX_ROWS: usize = 4;
/// Height of a row, CSS pixels.
const ROW_H: u32 = 250;

/// A compact form's carried groups as a run, with the pyramid of one direction over them.
type Source = (Rc<Loaded>, Rc<Run>, Rc<Pyramid>);

// A pure cache (checked against the run it was built from), not page state: the page's runs
// and bookkeeping are in `model::Runs`.
thread_local! {
    /// By (run, direction): the groups and pyramid of a compact form, for the run it was built
    /// from (a run replaced by its archive or a newer form is built again).
    static SOURCES: RefCell<HashMap<(usize, String), Source>> = RefCell::new(HashMap::new());
}

/// The heatmap of a trace: over the recorded windows' pyramid the page holds, or over a
/// compact form's carried groups (decoded once per run and direction).
fn trace_heatmap(run: usize, td: &TraceData, f: impl Fn(&Run, &Pyramid) -> Heatmap) -> Option<Heatmap> {
    match &td.source {
        Points::Pyramid(p) => Some(f(&td.loaded.run, p)),
        Points::Stored(_) => {
            let key = (run, crate::panels::dir_key(&td.dir));
            let hit = SOURCES
                .with(|s| s.borrow().get(&key).filter(|(l, _, _)| Rc::ptr_eq(l, &td.loaded)).map(|(_, r, p)| (r.clone(), p.clone())));
            let (r, p) = match hit {
                Some(x) => x,
                None => {
                    let c = td.loaded.compact.as_ref()?;
                    let groups = match c.range(&td.loaded.file, None, None) {
                        Ok(r) => r,
                        // drawn when they arrive
                        Err(RangeError::Pending) => return None,
                        Err(RangeError::Bad(e)) => {
                            report_range_error(&td.loaded.file, e);
                            return None;
                        }
                    };
                    let p = Rc::new(Pyramid::new(&groups, &td.dir));
                    SOURCES.with(|s| s.borrow_mut().insert(key, (td.loaded.clone(), groups.clone(), p.clone())));
                    (groups, p)
                }
            };
            Some(f(&r, &p))
        }
    }
}

/// [`heatmap`] with the trace's columns kept by axis, level and group: a zoom step or a pan
/// mostly shows columns an earlier step computed (the same exact merges).
fn cached_heatmap(td: &TraceData, run: &Run, p: &Pyramid, axis: Axis, (x0, x1): (f64, f64), max_columns: usize, nines: &[u32]) -> Heatmap {
    let (k, range) = p.view_keys(axis, x0, x1, max_columns);
    let levels: Vec<Level> = nines.iter().map(|&n| Level::nines(n)).collect();
    let mut cache = td.heat.borrow_mut();
    // a bound on what zooming around a long run can keep
    if cache.0 != nines || cache.1.len() > 200_000 {
        cache.1.clear();
        cache.0 = nines.to_vec();
    }
    let ios = axis == Axis::Ios;
    let columns = range
        .filter_map(|i| {
            cache
                .1
                .get_or_insert_with(2 * k as usize + usize::from(ios), i, || column(run, p, axis, k, i, BINS_PER_DECADE, &levels))
                .clone()
        })
        .collect();
    Heatmap { bins_per_decade: BINS_PER_DECADE, columns }
}

struct HeatData {
    rows: Vec<(String, Heatmap)>,
    /// Traces shown but not drawn (past MAX_ROWS).
    more: usize,
    x: Scale,
    y: Scale,
    shares: ShareScale,
}

/// The traces drawn: those `chosen` (by label) that are shown, up to [`MAX_ROWS`]; with none
/// chosen, the first.
fn drawn_traces(ts: &[crate::panels::Trace], chosen: &[String]) -> Vec<crate::panels::Trace> {
    let picked: Vec<_> = ts.iter().filter(|t| chosen.contains(&t.label)).take(MAX_ROWS).cloned().collect();
    if picked.is_empty() {
        ts.iter().take(MAX_ROWS).cloned().collect()
    } else {
        picked
    }
}

fn heat_data(st: &ViewState, width_px: u32, chosen: &[String]) -> HeatData {
    let ts = traces(st);
    let axis = if st.x_ios { Axis::Ios } else { Axis::Time };
    let full = runtime_extent(st, &ts).unwrap_or((0.0, 1.0));
    let (x0, x1) = st.zoom.unwrap_or(full);
    // about one column per three pixels of plot
    let max_columns = ((width_px.saturating_sub(Y_LABEL_AREA + 30)) / 3).max(10) as usize;
    let mut rows = Vec::new();
    for t in &drawn_traces(&ts, chosen) {
        let Some(td) = trace_data(t.run, &t.dir) else { continue };
        let m = trace_heatmap(t.run, &td, |run, p| cached_heatmap(&td, run, p, axis, (x0, x1), max_columns, &st.levels));
        if let Some(m) = m {
            rows.push((t.label.clone(), m));
        }
    }
    let maps: Vec<&Heatmap> = rows.iter().map(|r| &r.1).collect();
    let y = latency_scale(&maps);
    let shares = ShareScale::covering(maps.iter().map(|m| m.min_share()).fold(1.0, f64::min));
    HeatData { more: ts.len().saturating_sub(MAX_ROWS), rows, x: Scale { lo: x0, hi: x1, log: false }, y, shares }
}

fn height_of(rows: usize) -> u32 {
    rows.max(1) as u32 * ROW_H + LEGEND_H
}

fn draw_into<DB: crate::backend::NativeDraw>(
    root: &plotters::prelude::DrawingArea<DB, plotters::coord::Shift>,
    st: &ViewState,
    d: &HeatData,
) -> Result<Vec<Frame>, String>
where
    DB::ErrorType: 'static,
{
    let rows: Vec<HeatRow> = d.rows.iter().map(|(l, m)| HeatRow { label: l, map: m }).collect();
    let spec = HeatSpec {
        x_desc: if st.x_ios { "I/Os completed" } else { "time since start" },
        x_is_time: !st.x_ios,
        rows: &rows,
        x: d.x,
        y: d.y,
        shares: d.shares,
        nines: &st.levels,
        selection: st.sel,
    };
    draw_heatmap(root, &spec)
}

/// Test hook: the cells the chart last drew, as JSON: per row its label and columns (extent,
/// time range, count, first bin, counts per bin, levels, max).
/// (Written out by hand: `json!` objects of nine fields cost the page's wasm about 1 KB.)
#[wasm_bindgen]
pub fn heatmap_cells() -> String {
    let opt = |v: Option<u64>| v.map_or("null".to_string(), |v| v.to_string());
    let list = |v: Vec<String>| v.join(",");
    runs().book(|b| {
        let rows: Vec<String> = b
            .heat_drawn
            .iter()
            .map(|(label, _, m)| {
                let cols: Vec<String> = m
                    .columns
                    .iter()
                    .map(|c| {
                        // Display of a finite f64 is its shortest round-tripping decimal, valid JSON
                        format!(
                            r#"{{"x0":{},"x1":{},"start_s":{},"end_s":{},"count":{},"first_bin":{},"bins":[{}],"levels":[{}],"max":{}}}"#,
                            c.x0,
                            c.x1,
                            c.start_s,
                            c.end_s,
                            c.count,
                            c.first_bin,
                            list(c.bins.iter().map(u64::to_string).collect()),
                            list(c.levels.iter().map(|&l| opt(l)).collect()),
                            opt(c.max_ns)
                        )
                    })
                    .collect();
                format!(
                    r#"{{"label":{},"bins_per_decade":{},"columns":[{}]}}"#,
                    serde_json::Value::from(label.as_str()),
                    m.bins_per_decade,
                    list(cols)
                )
            })
            .collect();
        format!("[{}]", list(rows))
    })
}

/// What the cell under the mouse holds, shown beside the mouse.
fn readout(st: &ViewState, px: f64, py: f64) -> Option<String> {
    runs().book(|b| {
        let (label, f, m) = b.heat_drawn.iter().find(|(_, f, _)| f.contains(px, py))?;
        let (i, k) = m.at(f.x_at(px), f.y_at(py))?;
        let c = &m.columns[i];
        let (lo, hi) = m.edges(k);
        let span = if st.x_ios {
            format!("I/Os {} to {}", group(c.x0 as u64), group(c.x1 as u64))
        } else {
            format!("{} to {}", charts::format_seconds(c.start_s), charts::format_seconds(c.end_s))
        };
        let n = c.count_in(k);
        Some(format!(
            "{label}, {span}: {} to {}: {} I/Os, {:.4}% of the column's {}",
            format_ns(lo.round() as u64),
            format_ns(hi.round() as u64),
            group(n),
            c.share(k) * 100.0,
            group(c.count)
        ))
    })
}

/// The mouse at (`x`, `y`) on the heatmap: the x under it, for the rule on every time panel
/// (none off the rows).
fn heat_hover(hover_t: RwSignal<Option<(&'static str, f64)>>, x: f64, y: f64) {
    let at = runs().book(|b| b.heat_drawn.iter().find(|(_, f, _)| f.contains(x, y)).map(|(_, f, _)| ("heatmap", f.x_at(x))));
    if hover_t.get_untracked() != at {
        hover_t.set(at);
    }
}

/// Draw the time rule of the mouse on any time panel (one of the same axis) over the rows.
fn follow_rule(state: RwSignal<ViewState>, overlay: NodeRef<leptos::html::Canvas>, hover_t: RwSignal<Option<(&'static str, f64)>>) {
    Effect::new(move |_| {
        let ht = hover_t.get();
        let x_ios = state.with_untracked(|s| s.x_ios);
        if let Some(o) = overlay.get() {
            draw_rule(&o, ht.filter(|(from, _)| *from != "cdf" && (!x_ios || *from != "context")).map(|h| h.1));
        }
    });
}

/// The time rule across every row of the heatmap at x `t` (none: cleared).
fn draw_rule(o: &web_sys::HtmlCanvasElement, t: Option<f64>) {
    let Some(ctx) = ctx_css(o) else { return };
    let (w, h) = css_size(o);
    ctx.clear_rect(0.0, 0.0, w as f64, h as f64);
    let _ = o.set_attribute("data-rule", &t.map(|t| t.to_string()).unwrap_or_default());
    let Some(t) = t else { return };
    ctx.set_stroke_style_str("#555");
    ctx.set_line_width(1.0);
    runs().book(|b| {
        for (_, f, _) in b.heat_drawn.iter().filter(|(_, f, _)| t >= f.x.lo && t <= f.x.hi) {
            let px = f.px(t).round() + 0.5;
            ctx.begin_path();
            ctx.move_to(px, f.top as f64);
            ctx.line_to(px, f.bottom as f64);
            ctx.stroke();
        }
    });
}

/// A click on a trace's row button: draw it (in place of the first chosen when the rows are
/// full), or stop drawing it.
fn toggle_row(ev: &web_sys::MouseEvent, chosen: RwSignal<Vec<String>>, state: RwSignal<ViewState>) {
    use wasm_bindgen::JsCast;
    let Some(b) = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()).and_then(|t| t.closest("[data-label]").ok().flatten())
    else {
        return;
    };
    let (Some(label), on) = (b.get_attribute("data-label"), b.class_list().contains("active")) else { return };
    chosen.update(|c| {
        if c.is_empty() {
            let st = state.get_untracked();
            *c = drawn_traces(&traces(&st), &[]).into_iter().map(|t| t.label).collect();
        }
        if on {
            c.retain(|l| *l != label);
        } else {
            if c.len() >= MAX_ROWS {
                c.remove(0);
            }
            c.push(label);
        }
    })
}

/// The heatmap panel.
#[component]
pub(super) fn HeatmapPanel(state: RwSignal<ViewState>, runs: Runs, size: RwSignal<u32>) -> impl IntoView {
    let canvas: NodeRef<leptos::html::Canvas> = NodeRef::new();
    // the time rule shared by every time panel, drawn over the rows
    let overlay: NodeRef<leptos::html::Canvas> = NodeRef::new();
    let hover_t = page().hover_t;
    // the readout and where the mouse is on the chart (CSS pixels), to show it beside it
    let hover: RwSignal<Option<(String, f64, f64)>> = RwSignal::new(None);
    // with more traces than rows: a button per trace (built as the legend is: see `dom`)
    let rows_out: NodeRef<leptos::html::Div> = NodeRef::new();
    // the traces the user chose to draw (labels; none: the first)
    let chosen: RwSignal<Vec<String>> = RwSignal::new(Vec::new());
    let key = Memo::new(move |_| {
        let s = state.get();
        (runs.version(), size.get(), s.dir, s.hidden.clone(), s.levels.clone(), s.x_ios, s.zoom, s.sel)
    });
    Effect::new(move |_| {
        let _ = key.get();
        let chosen = chosen.get();
        let Some(c) = canvas.get() else { return };
        let st = state.get_untracked();
        let t0 = now_ms();
        let ts = traces(&st);
        let drawn: Vec<String> = drawn_traces(&ts, &chosen).into_iter().map(|t| t.label).collect();
        let (w, _) = canvas_size(&c, height_of(drawn.len()));
        if let Some(o) = overlay.get() {
            size_overlay(&o, &c);
        }
        let d = heat_data(&st, w, &chosen);
        let frames: RefCell<Vec<Frame>> = RefCell::new(Vec::new());
        draw_canvas(&c, |root| {
            let f = draw_into(root, &st, &d)?;
            let first = f.first().copied().ok_or("no frame")?;
            *frames.borrow_mut() = f;
            Ok(first)
        });
        let frames = frames.into_inner();
        // test hooks: the x range drawn (the runtime chart's) and the columns of each row
        let _ = c.set_attribute("data-x", &format!("{},{}", d.x.lo, d.x.hi));
        let _ = c.set_attribute("data-y", &format!("{},{}", d.y.lo, d.y.hi));
        if let Some(f) = frames.first() {
            let _ = c.set_attribute("data-frame", &format!("{},{},{},{}", f.left, f.right, f.top, f.bottom));
        }
        let cols: Vec<String> = d.rows.iter().map(|r| r.1.columns.len().to_string()).collect();
        let _ = c.set_attribute("data-columns", &cols.join(","));
        if let Some(out) = rows_out.get() {
            let buttons: Vec<Node> = if d.more > 0 {
                std::iter::once(tx("span", vec![("class", "hint".into())], format!("rows (up to {MAX_ROWS}):")))
                    .chain(ts.iter().map(|t| {
                        let on = drawn.contains(&t.label);
                        let class = if on { "active" } else { "" };
                        let attrs = vec![("data-testid", "heatmap-row".into()), ("data-label", t.label.clone()), ("class", class.into())];
                        tx("button", attrs, t.label.clone())
                    }))
                    .collect()
            } else {
                Vec::new()
            };
            dom::mount(&out, &buttons);
        }
        runs.book(|b| b.heat_drawn = d.rows.into_iter().zip(frames).map(|((l, m), f)| (l, f, m)).collect());
        hover.set(None);
        mark_drawn("heatmap", now_ms() - t0);
    });
    follow_rule(state, overlay, hover_t);
    let on_move = move |ev: web_sys::MouseEvent| {
        let st = state.get_untracked();
        let (x, y) = (ev.offset_x() as f64, ev.offset_y() as f64);
        hover.set(readout(&st, x, y).map(|t| (t, x, y)));
        heat_hover(hover_t, x, y);
    };
    let on_leave = move |_| {
        hover.set(None);
        heat_hover(hover_t, -1.0, -1.0);
    };
    let toggle = move |ev: web_sys::MouseEvent| toggle_row(&ev, chosen, state);
    let export_png = move |_| {
        if let Some(c) = canvas.get() {
            if let Ok(url) = c.to_data_url_with_type("image/png") {
                download_url("nines-heatmap.png", &url);
            }
        }
    };
    let export_svg = move |_| {
        let st = state.get_untracked();
        let w = runs.book(|b| b.heat_drawn.first().map(|r| r.1.right + 18)).unwrap_or(1000).max(600) as u32;
        let d = heat_data(&st, w, &chosen.get_untracked());
        match to_svg(w, height_of(d.rows.len()), |root| draw_into(root, &st, &d)) {
            Ok((s, _)) => download("nines-heatmap.svg", "image/svg+xml", s.as_bytes()),
            Err(e) => leptos::logging::error!("svg export: {e}"),
        }
    };
    view! {
        <section class="panel" data-testid="panel-heatmap">
            <div class="tools">
                <span class="hint">"x axis follows the runtime chart; colour: share of each column's I/Os in a latency bin; lines: the levels and the max"</span>
                <button data-testid="export-heatmap-png" on:click=export_png>"PNG"</button>
                <button data-testid="export-heatmap-svg" on:click=export_svg>"SVG"</button>
            </div>
            <div class="rows" data-testid="heatmap-note" node_ref=rows_out on:click=toggle></div>
            <div class="chart">
                <canvas node_ref=canvas data-testid="heatmap-canvas" on:mousemove=on_move on:mouseleave=on_leave></canvas>
                <canvas class="overlay" node_ref=overlay data-testid="heatmap-overlay" style="pointer-events: none"></canvas>
                // beside the mouse, on the side with room
                <div class="tip" data-testid="heatmap-readout" style=move || hover.with(|h| match h {
                    None => "display:none".to_string(),
                    Some((_, x, y)) => {
                        let right_half = canvas.get_untracked().is_some_and(|c| *x > c.client_width() as f64 / 2.0);
                        let shift = if right_half { ";transform:translateX(calc(-100% - 28px))" } else { "" };
                        format!("left:{}px;top:{}px{shift}", x + 14.0, y + 14.0)
                    }
                })>{move || hover.with(|h| h.as_ref().map(|h| h.0.clone()))}</div>
            </div>
        </section>
    }
}
