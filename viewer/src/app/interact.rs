//! The mouse on the charts, one set of gestures on every chart: a drag zooms (a box on the
//! 1-CDF, a time range on the runtime, rate and device charts), a double-click returns to the
//! whole run, the wheel zooms about the mouse. On the time charts shift-drag selects a range
//! for every panel, snapped to the recorded windows' edges (`panels::snap_range`), and
//! alt-drag or the middle button pans. The hover rule and drag boxes are drawn on overlay
//! canvases without redrawing the charts.

use leptos::prelude::*;

use super::canvas::{css_size, ctx_css};
use super::chart_data::runtime_extent;
use super::model::runs;
use super::page::{Gesture, Page};
use super::traces::traces;
use crate::charts::Frame;
use crate::state::ViewState;

/// Where chart `name` was last drawn.
pub(super) fn frame(name: &'static str) -> Option<Frame> {
    runs().book(|m| m.frames.get(name).copied())
}

/// The hover rule on the 1-CDF and the drag boxes (a range box spans both linked charts).
pub(super) fn overlays(p: Page) {
    let Page { state, hover_x, hover_t, drag, canvases: c, .. } = p;
    let (cdf_overlay, rt_overlay, rate_overlay, ctx_overlay) = (c.cdf_overlay, c.runtime_overlay, c.rate_overlay, c.context_overlay);
    Effect::new(move |_| {
        let hx = hover_x.get();
        let ht = hover_t.get();
        let dr = drag.get();
        let x_ios = state.with(|s| s.x_ios);
        for (name, node) in [("cdf", cdf_overlay), ("runtime", rt_overlay), ("rate", rate_overlay), ("context", ctx_overlay)] {
            let Some(o) = node.get() else { continue };
            let Some(ctx) = ctx_css(&o) else { continue };
            let (cw, ch) = css_size(&o);
            ctx.clear_rect(0.0, 0.0, cw as f64, ch as f64);
            let Some(f) = runs().book(|m| m.frames.get(name).copied()) else { continue };
            // the time under the mouse, on every chart of the same axis
            let rule = match (name, ht) {
                ("cdf", _) => hx,
                // (the heatmap follows the runtime chart's axis, time or I/Os)
                (_, Some((from, t))) if from == name || (!x_ios && from != "cdf") || (from == "heatmap" && name != "context") => Some(t),
                _ => None,
            };
            {
                if let Some(x) = rule.filter(|&x| x >= f.x.lo && x <= f.x.hi) {
                    let px = f.px(x).round() + 0.5;
                    ctx.set_stroke_style_str("#555");
                    ctx.set_line_width(1.0);
                    ctx.begin_path();
                    ctx.move_to(px, f.top as f64);
                    ctx.line_to(px, f.bottom as f64);
                    ctx.stroke();
                }
            }
            if let Some((dn, x0, y0, x1, y1, gesture)) = dr {
                // a zoom's box on its own chart; a selection spans every time chart
                let shown = match gesture {
                    Gesture::Pan => false,
                    Gesture::Zoom => dn == name || (dn != "cdf" && name != "cdf"),
                    Gesture::Select => dn != "cdf" && name != "cdf",
                };
                if !shown {
                    continue;
                }
                let (fill, stroke) = match gesture {
                    Gesture::Select => ("rgba(51,102,204,0.15)", "rgb(51,102,204)"),
                    _ => ("rgba(0,0,0,0.08)", "#666"),
                };
                ctx.set_fill_style_str(fill);
                ctx.set_stroke_style_str(stroke);
                let (ya, yb) = if name == "cdf" { (y0.min(y1), (y1 - y0).abs()) } else { (f.top as f64, (f.bottom - f.top) as f64) };
                ctx.fill_rect(x0.min(x1), ya, (x1 - x0).abs(), yb);
                ctx.stroke_rect(x0.min(x1) + 0.5, ya + 0.5, (x1 - x0).abs(), yb);
            }
        }
    });
}

/// A press on a time chart: a range to zoom to, with shift a range to select, with alt (or
/// the middle button) a pan; the second press of a double-click returns to the whole run.
pub(super) fn x_down(p: Page, name: &'static str, ev: web_sys::MouseEvent) {
    let drag = p.drag;
    ev.prevent_default();
    let (x, y) = (ev.offset_x() as f64, ev.offset_y() as f64);
    if !frame(name).is_some_and(|f| f.contains(x, y)) {
        return;
    }
    if ev.detail() == 2 {
        drag.set(None);
        p.set(Box::new(|s| s.zoom = None));
        return;
    }
    let gesture = if ev.button() == 1 || ev.alt_key() {
        Gesture::Pan
    } else if ev.shift_key() {
        Gesture::Select
    } else {
        Gesture::Zoom
    };
    drag.set(Some((name, x, y, x, y, gesture)));
}
/// The mouse moving on the runtime or rate chart: the selection box grows, or a pan shifts the
/// zoom window by the drag distance.
pub(super) fn x_move(p: Page, name: &'static str, ev: web_sys::MouseEvent) {
    let Page { state, drag, hover_t, .. } = p;
    let set = move |f: Box<dyn FnOnce(&mut ViewState)>| p.set(f);
    let (x, y) = (ev.offset_x() as f64, ev.offset_y() as f64);
    let at = frame(name).filter(|f| f.contains(x, y)).map(|f| (name, f.x_at(x)));
    if hover_t.get_untracked() != at {
        hover_t.set(at);
    }
    if let Some((dn, x0, y0, _, _, gesture)) = drag.get_untracked() {
        if dn != name {
            return;
        }
        if gesture == Gesture::Pan {
            // pan: shift the zoom window by the drag distance
            if let Some(f) = frame(name) {
                let (lo, hi) = (f.x.lo, f.x.hi);
                let dx = (f.x_at(x0) - f.x_at(x)).clamp(-(hi - lo), hi - lo);
                if dx.abs() > 0.0 {
                    let full = state.with_untracked(|s| runtime_extent(s, &traces(s)));
                    set(Box::new(move |s| {
                        let (mut a, mut b) = (lo + dx, hi + dx);
                        if let Some((fa, fb)) = full {
                            if a < fa {
                                b += fa - a;
                                a = fa;
                            }
                            if b > fb {
                                a -= b - fb;
                                b = fb;
                            }
                            a = a.max(fa);
                        }
                        s.zoom = Some((a, b));
                    }));
                    drag.set(Some((name, x, y0, x, y, Gesture::Pan)));
                }
            }
        } else {
            drag.set(Some((name, x0, y0, x, y, gesture)));
        }
    }
}
/// The press let go: a range of more than a few pixels is zoomed to, or selected in every
/// panel (snapped to the recorded windows' edges, which the table then uses whole); a click
/// clears the selection.
pub(super) fn x_up(p: Page, name: &'static str, ev: web_sys::MouseEvent) {
    let Page { state, drag, .. } = p;
    let set = move |f: Box<dyn FnOnce(&mut ViewState)>| p.set(f);
    let x = ev.offset_x() as f64;
    if let (Some((dn, x0, _, _, _, gesture)), Some(f)) = (drag.get_untracked(), frame(name)) {
        drag.set(None);
        if dn != name || gesture == Gesture::Pan {
            return;
        }
        if (x - x0).abs() > 4.0 {
            let (a, b) = (f.x_at(x0.min(x)), f.x_at(x0.max(x)));
            if gesture == Gesture::Zoom {
                let full = state.with_untracked(|s| runtime_extent(s, &traces(s)));
                set(Box::new(move |s| s.zoom = zoom_within(a, b, full)));
            } else if let Some(r) = state.with_untracked(|s| snapped(s, a, b)) {
                set(Box::new(move |s| s.sel = Some(r)));
            }
        } else if state.with_untracked(|s| s.sel.is_some()) {
            set(Box::new(|s| s.sel = None));
        }
    }
}
/// The wheel on the runtime or rate chart: zoom in or out about the mouse, within the runs.
pub(super) fn x_wheel(p: Page, name: &'static str, ev: web_sys::WheelEvent) {
    let state = p.state;
    let set = move |f: Box<dyn FnOnce(&mut ViewState)>| p.set(f);
    let Some(f) = frame(name) else { return };
    let (x, y) = (ev.offset_x() as f64, ev.offset_y() as f64);
    if !f.contains(x, y) {
        return;
    }
    ev.prevent_default();
    let at = f.x_at(x);
    let factor = if ev.delta_y() < 0.0 { 0.8 } else { 1.25 };
    let full = state.with_untracked(|s| runtime_extent(s, &traces(s)));
    let (lo, hi) = (f.x.lo, f.x.hi);
    set(Box::new(move |s| {
        let mut a = at - (at - lo) * factor;
        let mut b = at + (hi - at) * factor;
        if let Some((fa, fb)) = full {
            a = a.max(fa);
            b = b.min(fb);
            if a <= fa && b >= fb {
                s.zoom = None;
                return;
            }
        }
        if b - a > 1e-6 {
            s.zoom = Some((a, b));
        }
    }));
}

/// A zoom to `[a, b]` kept within the runs' extent; none (the whole run) when it covers it.
fn zoom_within(a: f64, b: f64, full: Option<(f64, f64)>) -> Option<(f64, f64)> {
    let (a, b) = match full {
        Some((fa, fb)) if a <= fa && b >= fb => return None,
        Some((fa, fb)) => (a.max(fa), b.min(fb)),
        None => (a, b),
    };
    (b - a > 1e-6).then_some((a, b))
}

/// A selection dragged from `a` to `b` on the x axis, snapped to the edges of the windows of
/// the traces shown ([`crate::panels::snap_range`]), or of the groups of a compact form that
/// carries no recorded windows (its ranges are whole groups).
fn snapped(st: &ViewState, a: f64, b: f64) -> Option<(f64, f64)> {
    let axis = if st.x_ios { nines_core::pyramid::Axis::Ios } else { nines_core::pyramid::Axis::Time };
    let mut slots = Vec::new();
    for t in traces(st) {
        if let Some(td) = super::model::trace_data(t.run, &t.dir) {
            let group = td.loaded.compact.as_ref().map_or(1, |c| c.form.range_group());
            slots.extend(td.slots().chunks(group).map(|g| (g[0].extent(axis).0, g[g.len() - 1].extent(axis).1)));
        }
    }
    crate::panels::snap_range(&slots, a, b)
}

/// The mouse left the runtime or rate chart: a drag on it ends, and so does its rule.
pub(super) fn x_leave(p: Page, name: &'static str) {
    if matches!(p.drag.get_untracked(), Some((n, ..)) if n == name) {
        p.drag.set(None)
    }
    if p.hover_t.get_untracked().is_some() {
        p.hover_t.set(None);
    }
}
