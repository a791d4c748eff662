//! Sharp charts on high-density screens: the canvas holds `devicePixelRatio` device pixels per
//! CSS pixel, its context is scaled by that ratio, and plotters is told the size in CSS pixels,
//! so every chart lays out in CSS pixels (the mouse's coordinates) and draws at the screen's
//! resolution. plotters-canvas takes the canvas element's own size as its drawing size, hence
//! this wrapper, which reports the CSS size and hands every call on.
//!
//! It also joins strokes: plotters draws a dashed line as one short polyline per dash, and
//! plotters-canvas strokes each polyline on its own (a colour string formatted, a
//! `beginPath`, a `stroke`), so a zoom step of 20 runs with dashed levels made some 20,000
//! strokes that the browser then rasterised one by one (and as many filled squares for the
//! max). Consecutive polylines and lines of one colour and width, and filled rectangles of
//! one colour, are collected into one path here and drawn once when the style changes or any
//! other drawing call comes (so the order of what is drawn is kept).
//!
//! Dashed lines come here whole (`backend::NativeDraw`) and are dashed by the canvas itself
//! (`setLineDash`), not cut into one short path per dash.

use plotters::prelude::*;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind, FontTransform};
use plotters_canvas::CanvasBackend;

pub(crate) struct HiDpi {
    inner: CanvasBackend,
    ctx: web_sys::CanvasRenderingContext2d,
    /// Size in CSS pixels.
    size: (u32, u32),
    /// What the path being collected is drawn with, if one is.
    open: Option<Pen>,
    /// The context's text state as this backend last set it (`None`: not known).
    text: std::cell::RefCell<TextState>,
}

/// The canvas's text state this backend set, so that a label drawn or measured with the same
/// font, alignment and baseline as the one before sets none of them again: each setter
/// passes a string from wasm to the browser, which parses it (a zoom step draws and measures
/// a few hundred labels in a handful of fonts).
#[derive(Default)]
struct TextState {
    font: Option<String>,
    align: Option<&'static str>,
    baseline: Option<&'static str>,
}

/// How a collected path is drawn: stroked with a colour, width and dash pattern ((on, off)
/// pixels, `(0, 0)` solid), or filled with a colour.
#[derive(Clone, Copy)]
struct Pen {
    fill: bool,
    color: BackendColor,
    width: u32,
    dash: (u32, u32),
}

impl Pen {
    fn same(&self, o: &Pen) -> bool {
        self.fill == o.fill
            && self.color.rgb == o.color.rgb
            && self.color.alpha == o.color.alpha
            && self.width == o.width
            && self.dash == o.dash
    }
}

impl HiDpi {
    pub(crate) fn new(inner: CanvasBackend, ctx: web_sys::CanvasRenderingContext2d, size: (u32, u32)) -> HiDpi {
        HiDpi { inner, ctx, size, open: None, text: Default::default() }
    }

    /// Draw the collected path, if any; a dashed one leaves the context solid again for
    /// whatever plotters-canvas draws next.
    fn flush(&mut self) {
        match self.open.take() {
            Some(Pen { fill: true, .. }) => self.ctx.fill(),
            Some(p) => {
                self.ctx.stroke();
                if p.dash.0 != 0 {
                    let _ = self.ctx.set_line_dash(&js_sys::Array::new());
                }
            }
            None => {}
        }
    }

    /// Start collecting a path drawn with this pen, or go on with the open one.
    fn join(&mut self, pen: Pen) {
        if self.open.is_some_and(|o| o.same(&pen)) {
            return;
        }
        self.flush();
        let (r, g, b) = pen.color.rgb;
        // the same colour string and width plotters-canvas sets
        let color = format!("rgba({r},{g},{b},{})", pen.color.alpha);
        if pen.fill {
            self.ctx.set_fill_style_str(&color);
        } else {
            self.ctx.set_stroke_style_str(&color);
            self.ctx.set_line_width(f64::from(pen.width));
            if pen.dash.0 != 0 {
                let pattern = js_sys::Array::of2(&f64::from(pen.dash.0).into(), &f64::from(pen.dash.1).into());
                let _ = self.ctx.set_line_dash(&pattern);
            }
        }
        self.ctx.begin_path();
        self.open = Some(pen);
    }

    fn stroke_pen<S: BackendStyle>(style: &S) -> Pen {
        Pen { fill: false, color: style.color(), width: style.stroke_width(), dash: (0, 0) }
    }

    /// Stroke a polyline dashed by the canvas itself (see `backend::NativeDraw`).
    pub(crate) fn draw_dashed<S: BackendStyle>(&mut self, path: &[BackendCoord], style: &S, dash: (u32, u32)) -> R {
        if style.color().alpha == 0.0 || path.len() < 2 {
            return Ok(());
        }
        self.join(Pen { dash, ..HiDpi::stroke_pen(style) });
        self.polyline(path.iter().copied());
        Ok(())
    }

    /// Draw an RGBA image stretched over `dest`, nearest pixel, clipped to `clip` (see
    /// `backend::NativeDraw::image`): put into a scratch canvas, then drawn scaled from it.
    /// Whether it was drawn (the caller draws the content otherwise).
    pub(crate) fn draw_image(&mut self, image: &crate::image::Image, dest: (f64, f64, f64, f64), clip: [BackendCoord; 2]) -> bool {
        self.flush();
        if image.width == 0 || image.height == 0 {
            return true;
        }
        let Ok(data) = web_sys::ImageData::new_with_u8_clamped_array_and_sh(wasm_bindgen::Clamped(&image.rgba), image.width, image.height)
        else {
            return false;
        };
        let Some((canvas, ctx)) = scratch() else { return false };
        // grown, never shrunk: a canvas resized is a canvas allocated again, and the rows of a
        // heatmap differ in height; only the image's corner of it is drawn
        if canvas.width() < image.width || canvas.height() < image.height {
            canvas.set_width(canvas.width().max(image.width));
            canvas.set_height(canvas.height().max(image.height));
        }
        if ctx.put_image_data(&data, 0.0, 0.0).is_err() {
            return false;
        }
        let c = &self.ctx;
        c.save();
        c.begin_path();
        let ((x0, y0), (x1, y1)) = (clip[0], clip[1]);
        c.rect(f64::from(x0), f64::from(y0), f64::from(x1 - x0), f64::from(y1 - y0));
        c.clip();
        c.set_image_smoothing_enabled(false);
        let (w, h) = (f64::from(image.width), f64::from(image.height));
        let drawn = c.draw_image_with_html_canvas_element_and_sw_and_sh_and_dx_and_dy_and_dw_and_dh(
            &canvas, 0.0, 0.0, w, h, dest.0, dest.1, dest.2, dest.3,
        );
        c.restore();
        drawn.is_ok()
    }

    /// Set the canvas font unless it is the one set last.
    fn set_font(&self, font: &str) {
        let mut t = self.text.borrow_mut();
        if t.font.as_deref() != Some(font) {
            self.ctx.set_font(font);
            t.font = Some(font.to_owned());
        }
    }

    /// Add a polyline to the open path.
    fn polyline(&mut self, mut path: impl Iterator<Item = BackendCoord>) {
        let Some(first) = path.next() else { return };
        self.ctx.move_to(f64::from(first.0), f64::from(first.1));
        let mut last = first;
        for p in path {
            // a point on the one before it draws nothing
            if p != last {
                self.ctx.line_to(f64::from(p.0), f64::from(p.1));
                last = p;
            }
        }
    }
}

type R = Result<(), DrawingErrorKind<<CanvasBackend as DrawingBackend>::ErrorType>>;

impl DrawingBackend for HiDpi {
    type ErrorType = <CanvasBackend as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }
    fn ensure_prepared(&mut self) -> R {
        self.inner.ensure_prepared()
    }
    fn present(&mut self) -> R {
        self.flush();
        self.inner.present()
    }
    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> R {
        self.flush();
        self.inner.draw_pixel(point, color)
    }
    fn draw_line<S: BackendStyle>(&mut self, from: BackendCoord, to: BackendCoord, style: &S) -> R {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        self.join(HiDpi::stroke_pen(style));
        // plotters-canvas moves a horizontal or vertical line half a pixel onto the pixel grid
        let (mut a, mut b) = ((f64::from(from.0), f64::from(from.1)), (f64::from(to.0), f64::from(to.1)));
        if from.0 == to.0 {
            a.0 -= 0.5;
            b.0 -= 0.5;
        }
        if from.1 == to.1 {
            a.1 -= 0.5;
            b.1 -= 0.5;
        }
        self.ctx.move_to(a.0, a.1);
        self.ctx.line_to(b.0, b.1);
        Ok(())
    }
    fn draw_rect<S: BackendStyle>(&mut self, upper_left: BackendCoord, bottom_right: BackendCoord, style: &S, fill: bool) -> R {
        if !fill {
            self.flush();
            return self.inner.draw_rect(upper_left, bottom_right, style, fill);
        }
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        // the max's squares of a runtime chart: thousands of one colour
        self.join(Pen { fill: true, color: style.color(), width: 0, dash: (0, 0) });
        let (x, y) = (f64::from(upper_left.0), f64::from(upper_left.1));
        self.ctx.rect(x, y, f64::from(bottom_right.0) - x, f64::from(bottom_right.1) - y);
        Ok(())
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, path: I, style: &S) -> R {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        let mut path = path.into_iter().peekable();
        if path.peek().is_none() {
            return Ok(());
        }
        self.join(HiDpi::stroke_pen(style));
        self.polyline(path);
        Ok(())
    }
    fn draw_circle<S: BackendStyle>(&mut self, center: BackendCoord, radius: u32, style: &S, fill: bool) -> R {
        self.flush();
        self.inner.draw_circle(center, radius, style, fill)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, vert: I, style: &S) -> R {
        self.flush();
        self.inner.fill_polygon(vert, style)
    }
    /// What plotters-canvas draws (the same font string, anchor and colour), with the text
    /// state set only where it changed (see `TextState`); rotated text is left to it.
    fn draw_text<T: BackendTextStyle>(&mut self, text: &str, style: &T, pos: BackendCoord) -> R {
        self.flush();
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        if !matches!(style.transform(), FontTransform::None) {
            // it sets the font, alignment and baseline its own way
            *self.text.borrow_mut() = TextState::default();
            return self.inner.draw_text(text, style, pos);
        }
        let anchor = style.anchor();
        let baseline = match anchor.v_pos {
            VPos::Top => "top",
            VPos::Center => "middle",
            VPos::Bottom => "bottom",
        };
        let align = match anchor.h_pos {
            HPos::Left => "start",
            HPos::Right => "end",
            HPos::Center => "center",
        };
        {
            let mut t = self.text.borrow_mut();
            if t.baseline != Some(baseline) {
                self.ctx.set_text_baseline(baseline);
                t.baseline = Some(baseline);
            }
            if t.align != Some(align) {
                self.ctx.set_text_align(align);
                t.align = Some(align);
            }
        }
        // the fill style is shared with every filled shape: always set
        let (r, g, b) = color.rgb;
        self.ctx.set_fill_style_str(&format!("rgba({r},{g},{b},{})", color.alpha));
        self.set_font(&font_of(style));
        if self.ctx.fill_text(text, f64::from(pos.0), f64::from(pos.1)).is_err() {
            // drawn again by plotters-canvas, which reports the error in its own type
            *self.text.borrow_mut() = TextState::default();
            return self.inner.draw_text(text, style, pos);
        }
        Ok(())
    }
    /// plotters' font code for the web measures text by adding a `<span>` to the page and
    /// reading its `offsetWidth` and `offsetHeight`, which makes the browser lay out the whole
    /// page again for every label (a "forced synchronous layout": web.dev, "Avoid large,
    /// complex layouts and layout thrashing"); a zoom step of 20 runs spent more time there
    /// than in drawing. The canvas measures a text's width without layout
    /// (`CanvasRenderingContext2D.measureText`, HTML Living Standard), with the very font
    /// string plotters-canvas draws it with; the height of a line depends on the font alone,
    /// so it is measured the old way once per font and kept.
    fn estimate_text_size<T: BackendTextStyle>(&self, text: &str, style: &T) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        let font = font_of(style);
        let height = match LINE_HEIGHT.with(|h| h.borrow().get(&font).copied()) {
            Some(h) => h,
            None => {
                let h = self.inner.estimate_text_size("Mg", style)?.1;
                LINE_HEIGHT.with(|m| m.borrow_mut().insert(font.clone(), h));
                h
            }
        };
        if text.is_empty() {
            return Ok((0, height));
        }
        // a zoom step measures mostly the labels the step before measured
        let key = (font, text.to_owned());
        if let Some(w) = WIDTHS.with(|m| m.borrow().get(&key).copied()) {
            return Ok((w, height));
        }
        self.set_font(&key.0);
        match self.ctx.measure_text(text).map(|m| m.width().round() as u32) {
            Ok(w) => {
                WIDTHS.with(|m| {
                    let mut m = m.borrow_mut();
                    // a bound on what zooming and panning for long can keep
                    if m.len() >= 4096 {
                        m.clear();
                    }
                    m.insert(key, w);
                });
                Ok((w, height))
            }
            Err(_) => self.inner.estimate_text_size(text, style),
        }
    }
}

/// The canvas font string of a text style, as plotters-canvas writes it.
fn font_of<T: BackendTextStyle>(style: &T) -> String {
    format!("{} {}px {}", style.style().as_str(), style.size(), style.family().as_str())
}

// Pure caches of text measures, not page state.
thread_local! {
    /// Line height in CSS pixels by canvas font string (see `estimate_text_size`).
    static LINE_HEIGHT: std::cell::RefCell<std::collections::HashMap<String, u32>> = Default::default();
    /// Width in CSS pixels by canvas font string and text (see `estimate_text_size`).
    static WIDTHS: std::cell::RefCell<std::collections::HashMap<(String, String), u32>> = Default::default();
}

/// The canvas images are put on before they are drawn scaled (one for the page, kept).
fn scratch() -> Option<(web_sys::HtmlCanvasElement, web_sys::CanvasRenderingContext2d)> {
    use wasm_bindgen::JsCast;
    // a canvas reused for every image (a cache, not page state)
    thread_local! {
        static SCRATCH: std::cell::RefCell<Option<(web_sys::HtmlCanvasElement, web_sys::CanvasRenderingContext2d)>> = const { std::cell::RefCell::new(None) };
    }
    SCRATCH.with(|s| {
        if s.borrow().is_none() {
            let canvas: web_sys::HtmlCanvasElement = web_sys::window()?.document()?.create_element("canvas").ok()?.dyn_into().ok()?;
            let ctx = canvas.get_context("2d").ok()??.dyn_into().ok()?;
            *s.borrow_mut() = Some((canvas, ctx));
        }
        s.borrow().clone()
    })
}

/// Device pixels per CSS pixel (1 to 4).
pub(crate) fn ratio() -> f64 {
    web_sys::window().map_or(1.0, |w| w.device_pixel_ratio()).clamp(1.0, 4.0)
}
