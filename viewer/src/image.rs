//! An image a backend draws natively where it can ([`crate::backend::NativeDraw::image`]):
//! plain pixels, below both the backend and the canvas wrapper (`hidpi`, wasm32 only) that draw it.

/// An RGBA image: `width` x `height` pixels, rows top first, 4 bytes a pixel (alpha 0:
/// nothing drawn there).
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}
