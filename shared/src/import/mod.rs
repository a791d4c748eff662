//! Reading runs from any supported format, with detection.
//!
//! Every command that takes runs goes through [`read_any`], so a format added here is
//! available to `stats`, `report`, `site`, `compare` and the viewer at once.

use crate::archive::{self, ArchiveError};
use crate::run::Run;

/// Why a file could not be read as a run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LoadError {
    /// The file was recognised as an interval log but a line is bad.
    #[error(transparent)]
    Archive(#[from] ArchiveError),
    /// No reader recognised the file.
    #[error("{source_name}: format not recognised; tried: {tried}")]
    Unknown { source_name: String, tried: String },
}

/// The formats [`read_any`] tries, in order, for error messages.
pub const FORMATS: &[&str] = &["HdrHistogram interval log (.hlog)"];

/// Read a run from bytes, detecting the format. `source_name` names the file in messages.
pub fn read_any(source_name: &str, bytes: &[u8]) -> Result<Run, LoadError> {
    if archive::sniff(bytes) {
        return Ok(archive::read(source_name, bytes)?);
    }
    Err(LoadError::Unknown { source_name: source_name.to_string(), tried: FORMATS.join(", ") })
}
