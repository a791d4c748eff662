//! The one drawing backend every chart is drawn through: plotters' SVG backend (the exports,
//! the native tests) or, in the browser, the page's canvas.
//!
//! The chart functions are generic over plotters' `DrawingBackend`, and so is most of
//! plotters (chart builders, axes, series): each backend type a chart is drawn with gets its
//! own copy of all that code (Rust monomorphises generics, see "Generic Data Types" in The
//! Rust Programming Language, and `twiggy monos` lists the copies). Drawing the page on a
//! canvas and the exports as SVG with two backend types put two copies of every chart and of
//! plotters in the viewer's wasm. With this enum there is one type, so one copy; what a
//! drawing call costs is one `match` on the variant.

use plotters::element::{DashedPathElement, Drawable, PointCollection};
use plotters::prelude::*;
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind};

pub use crate::image::Image;

/// A backend: SVG into a string, or (wasm32 only) the page's canvas.
pub enum Backend<'a> {
    Svg(SVGBackend<'a>),
    #[cfg(target_arch = "wasm32")]
    Canvas(Canvas),
}

/// The page's canvas (the wrapper that draws it in CSS pixels and joins strokes).
#[cfg(target_arch = "wasm32")]
pub struct Canvas(crate::hidpi::HiDpi);

#[cfg(target_arch = "wasm32")]
impl Backend<'static> {
    pub(crate) fn canvas(c: crate::hidpi::HiDpi) -> Backend<'static> {
        Backend::Canvas(Canvas(c))
    }
}

/// A backend's error, as text (the charts report errors as text anyway).
#[derive(Debug)]
pub struct BackendError(String);

impl std::fmt::Display for BackendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BackendError {}

type Kind = DrawingErrorKind<BackendError>;

fn cast<E: std::error::Error + Send + Sync>(e: DrawingErrorKind<E>) -> Kind {
    match e {
        DrawingErrorKind::DrawingError(e) => DrawingErrorKind::DrawingError(BackendError(e.to_string())),
        DrawingErrorKind::FontError(e) => DrawingErrorKind::FontError(e),
    }
}

/// Calls the same method on whichever backend this is, with its error made a [`BackendError`].
macro_rules! each {
    ($self:expr, $b:ident => $call:expr) => {
        match $self {
            Backend::Svg($b) => $call.map_err(cast),
            #[cfg(target_arch = "wasm32")]
            Backend::Canvas(Canvas($b)) => $call.map_err(cast),
        }
    };
}

impl DrawingBackend for Backend<'_> {
    type ErrorType = BackendError;

    fn get_size(&self) -> (u32, u32) {
        match self {
            Backend::Svg(b) => b.get_size(),
            #[cfg(target_arch = "wasm32")]
            Backend::Canvas(Canvas(b)) => b.get_size(),
        }
    }
    fn ensure_prepared(&mut self) -> Result<(), Kind> {
        each!(self, b => b.ensure_prepared())
    }
    fn present(&mut self) -> Result<(), Kind> {
        each!(self, b => b.present())
    }
    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result<(), Kind> {
        each!(self, b => b.draw_pixel(point, color))
    }
    fn draw_line<S: BackendStyle>(&mut self, from: BackendCoord, to: BackendCoord, style: &S) -> Result<(), Kind> {
        each!(self, b => b.draw_line(from, to, style))
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), Kind> {
        each!(self, b => b.draw_rect(upper_left, bottom_right, style, fill))
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, path: I, style: &S) -> Result<(), Kind> {
        each!(self, b => b.draw_path(path, style))
    }
    fn draw_circle<S: BackendStyle>(&mut self, center: BackendCoord, radius: u32, style: &S, fill: bool) -> Result<(), Kind> {
        each!(self, b => b.draw_circle(center, radius, style, fill))
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, vert: I, style: &S) -> Result<(), Kind> {
        each!(self, b => b.fill_polygon(vert, style))
    }
    fn draw_text<T: BackendTextStyle>(&mut self, text: &str, style: &T, pos: BackendCoord) -> Result<(), Kind> {
        each!(self, b => b.draw_text(text, style, pos))
    }
    fn estimate_text_size<T: BackendTextStyle>(&self, text: &str, style: &T) -> Result<(u32, u32), Kind> {
        each!(self, b => b.estimate_text_size(text, style))
    }
    fn blit_bitmap(&mut self, pos: BackendCoord, size: (u32, u32), src: &[u8]) -> Result<(), Kind> {
        each!(self, b => b.blit_bitmap(pos, size, src))
    }
}

/// What a backend may draw natively, faster than plotters' generic code does it.
///
/// Dashed lines: plotters cuts a dashed line into one short path per dash
/// (`DashedPathElement`), which on a canvas costs a `moveTo` and a `lineTo` per dash and, for
/// 20 runs' dashed levels, a good part of a zoom step; a canvas dashes a path natively
/// (`setLineDash`, HTML Living Standard, "Line styles").
///
/// Images: a heatmap's cells as rectangles are thousands a zoom step, which the canvas fills
/// one by one; as one image (a pixel per column pixel and latency bin) they are one
/// `putImageData` and one scaled `drawImage` (HTML Living Standard, "Pixel manipulation"
/// and "Drawing images").
pub trait NativeDraw: DrawingBackend {
    /// Stroke the polyline `path` with `style`, dashed `dash` = (on, off) pixels; `Ok(false)`
    /// when this backend does not dash natively (the caller then cuts the dashes).
    fn dashed_path(
        &mut self,
        path: &[BackendCoord],
        style: &ShapeStyle,
        dash: (u32, u32),
    ) -> Result<bool, DrawingErrorKind<Self::ErrorType>>;

    /// Draw `image` stretched over `dest` (x, y, width, height in pixels; each pixel drawn
    /// as the nearest image pixel, no smoothing), clipped to the rectangle `clip`;
    /// `Ok(false)` when this backend cannot (the caller then draws the content otherwise).
    fn image(
        &mut self,
        image: &Image,
        dest: (f64, f64, f64, f64),
        clip: [BackendCoord; 2],
    ) -> Result<bool, DrawingErrorKind<Self::ErrorType>>;
}

impl NativeDraw for Backend<'_> {
    #[cfg_attr(not(target_arch = "wasm32"), allow(unused_variables))]
    fn dashed_path(&mut self, path: &[BackendCoord], style: &ShapeStyle, dash: (u32, u32)) -> Result<bool, Kind> {
        match self {
            Backend::Svg(_) => Ok(false),
            #[cfg(target_arch = "wasm32")]
            Backend::Canvas(Canvas(b)) => b.draw_dashed(path, style, dash).map(|()| true).map_err(cast),
        }
    }

    #[cfg_attr(not(target_arch = "wasm32"), allow(unused_variables))]
    fn image(&mut self, image: &Image, dest: (f64, f64, f64, f64), clip: [BackendCoord; 2]) -> Result<bool, Kind> {
        match self {
            // an SVG export keeps its cells as rectangles (vector output, sharp at any zoom)
            Backend::Svg(_) => Ok(false),
            #[cfg(target_arch = "wasm32")]
            Backend::Canvas(Canvas(b)) => Ok(b.draw_image(image, dest, clip)),
        }
    }
}

/// An image drawn over a rectangle ([`NativeDraw::image`]) where the backend can; whether it
/// was is in `drawn` once the element is drawn. Its points are the clip rectangle's corners
/// (so that the drawing area places it); `dest` is relative to the first corner.
pub struct ImageElement {
    pub image: Image,
    pub dest: (f64, f64, f64, f64),
    pub clip: [(i32, i32); 2],
    pub drawn: std::cell::Cell<bool>,
}

impl<'a> PointCollection<'a, (i32, i32)> for &'a ImageElement {
    type Point = &'a (i32, i32);
    type IntoIter = &'a [(i32, i32)];
    fn point_iter(self) -> Self::IntoIter {
        &self.clip
    }
}

impl<DB: NativeDraw> Drawable<DB> for ImageElement {
    fn draw<I: Iterator<Item = BackendCoord>>(
        &self,
        mut pos: I,
        backend: &mut DB,
        _: (u32, u32),
    ) -> Result<(), DrawingErrorKind<DB::ErrorType>> {
        let (Some(a), Some(b)) = (pos.next(), pos.next()) else { return Ok(()) };
        let (dx, dy, dw, dh) = self.dest;
        let dest = (f64::from(a.0) + dx, f64::from(a.1) + dy, dw, dh);
        self.drawn.set(backend.image(&self.image, dest, [a, b])?);
        Ok(())
    }
}

/// A polyline drawn dashed (`(on, off)` pixels): natively where the backend can
/// ([`NativeDraw`]), else cut into dashes by plotters.
pub struct DashedLine {
    pub points: Vec<(f64, f64)>,
    pub dash: (u32, u32),
    pub style: ShapeStyle,
}

impl<'a> PointCollection<'a, (f64, f64)> for &'a DashedLine {
    type Point = &'a (f64, f64);
    type IntoIter = &'a [(f64, f64)];
    fn point_iter(self) -> Self::IntoIter {
        &self.points
    }
}

impl<DB: NativeDraw> Drawable<DB> for DashedLine {
    fn draw<I: Iterator<Item = BackendCoord>>(
        &self,
        pos: I,
        backend: &mut DB,
        parent_dim: (u32, u32),
    ) -> Result<(), DrawingErrorKind<DB::ErrorType>> {
        let path: Vec<BackendCoord> = pos.collect();
        if backend.dashed_path(&path, &self.style, self.dash)? {
            return Ok(());
        }
        let (on, off) = (self.dash.0 as i32, self.dash.1 as i32);
        DashedPathElement::new(std::iter::empty::<BackendCoord>(), on, off, self.style).draw(path.into_iter(), backend, parent_dim)
    }
}

/// Draw into an SVG string of `width` x `height` pixels (the exports, tests).
pub fn svg<T>(
    width: u32,
    height: u32,
    draw: impl FnOnce(&DrawingArea<Backend<'_>, plotters::coord::Shift>) -> Result<T, String>,
) -> Result<(String, T), String> {
    let mut buf = String::new();
    let out;
    {
        let root = Backend::Svg(SVGBackend::with_string(&mut buf, (width, height))).into_drawing_area();
        out = draw(&root)?;
        root.present().map_err(|e| format!("{e:?}"))?;
    }
    Ok((buf, out))
}
