//! The chart canvases: sized in CSS pixels with device pixels inside (see `hidpi`), and drawn
//! through the one backend ([`crate::backend`]).

use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;

use crate::backend::Backend;
use crate::charts::Frame;
use crate::hidpi::{self, HiDpi};

/// Size a chart canvas to its column: CSS pixels for layout and the mouse, device pixels in
/// the canvas (see `hidpi`). Returns the size in CSS pixels.
pub(super) fn canvas_size(c: &web_sys::HtmlCanvasElement, height: u32) -> (u32, u32) {
    let w = c.parent_element().map_or(800, |p| p.client_width().max(320) as u32);
    set_size(c, w, height);
    (w, height)
}

pub(super) fn set_size(c: &web_sys::HtmlCanvasElement, w: u32, h: u32) {
    let r = hidpi::ratio();
    let (pw, ph) = ((w as f64 * r).round() as u32, (h as f64 * r).round() as u32);
    if c.width() != pw || c.height() != ph {
        c.set_width(pw);
        c.set_height(ph);
        let _ = web_sys::HtmlElement::style(c).set_property("width", &format!("{w}px"));
        let _ = web_sys::HtmlElement::style(c).set_property("height", &format!("{h}px"));
    }
}

/// A canvas's size in CSS pixels.
pub(super) fn css_size(c: &web_sys::HtmlCanvasElement) -> (u32, u32) {
    let r = hidpi::ratio();
    ((c.width() as f64 / r).round() as u32, (c.height() as f64 / r).round() as u32)
}

pub(super) fn size_overlay(o: &web_sys::HtmlCanvasElement, base: &web_sys::HtmlCanvasElement) {
    let (w, h) = css_size(base);
    set_size(o, w, h);
}

/// The 2d context of a canvas, drawing in CSS pixels.
pub(super) fn ctx_css(c: &web_sys::HtmlCanvasElement) -> Option<web_sys::CanvasRenderingContext2d> {
    let ctx = ctx2d(c)?;
    let r = hidpi::ratio();
    ctx.set_transform(r, 0.0, 0.0, r, 0.0, 0.0).ok()?;
    Some(ctx)
}

pub(super) fn ctx2d(c: &web_sys::HtmlCanvasElement) -> Option<web_sys::CanvasRenderingContext2d> {
    c.get_context("2d").ok()??.dyn_into().ok()
}

pub(super) fn draw_canvas(
    canvas: &web_sys::HtmlCanvasElement,
    draw: impl FnOnce(&DrawingArea<Backend<'_>, plotters::coord::Shift>) -> Result<Frame, String>,
) -> Option<Frame> {
    let ctx = ctx_css(canvas)?;
    let inner = CanvasBackend::with_canvas_object(canvas.clone())?;
    let root = Backend::canvas(HiDpi::new(inner, ctx, css_size(canvas))).into_drawing_area();
    let f = draw(&root);
    let _ = root.present();
    match f {
        Ok(f) => Some(f),
        Err(e) => {
            leptos::logging::error!("chart: {e}");
            None
        }
    }
}
