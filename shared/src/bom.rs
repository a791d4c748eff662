//! The UTF-8 byte-order mark some editors and Windows tools put at the start of a text file.
//! Every reader's entry point (the archive's and each importer's) starts with [`without_bom`],
//! so a file saved with a mark reads as the same file without.

/// The UTF-8 byte-order mark.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The bytes after a leading UTF-8 byte-order mark, if there is one.
pub fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(BOM).unwrap_or(bytes)
}
