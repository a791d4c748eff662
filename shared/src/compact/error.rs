//! The compact form's errors: [`CompactError`] (reading, named by source), [`FormError`]
//! (what is wrong with the bytes, and where in the form), [`WriteError`].

/// Why a compact form could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{source_name}: compact form: {}{message}", .offset.map(|o| format!("byte {o} of the inflated body: ")).unwrap_or_default())]
pub struct CompactError {
    pub source_name: String,
    pub offset: Option<usize>,
    pub message: String,
}

/// Why a compact form could not be written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct WriteError(pub(super) String);

/// What is wrong with the bytes of a compact form, in words: the check that failed, after the
/// parts of the form it is in ("level 3 of tag read: byte 12 of its section: a number is
/// longer than 64 bits"). [`super::Trace::point`] can return one too: a level's points are
/// read when first asked for.
///
/// A message rather than an enum of the reader's fifty checks: the viewer's page carries this
/// reader, and such an enum (its variants' fields, their clones, comparisons and drops) made
/// the page's wasm 2.3 KB larger gzipped (measured before wasm-opt), where the page is within
/// a few hundred bytes of its budget (BENCHMARKS.md).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct FormError(pub(super) String);

impl From<String> for FormError {
    fn from(message: String) -> FormError {
        FormError(message)
    }
}

impl From<&str> for FormError {
    fn from(message: &str) -> FormError {
        FormError(message.to_string())
    }
}
