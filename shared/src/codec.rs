//! HdrHistogram V2 encoding (plain and DEFLATE-compressed), as used in interval logs, and
//! the older V0 and V1 encodings that logs of jHiccup 2.0.x and YCSB still hold (read only).
//!
//! The three encodings, as Java's `AbstractHistogram.decodeFromByteBuffer` reads them: V1
//! has V2's 40-byte header (cookie, payload length, normalizing offset, digits, lowest,
//! highest, integer-to-double ratio) and lists the counts as big-endian words of 2, 4 or 8
//! bytes, the size given in the cookie's bits 0x60 (`(cookie & 0xf0) >> 4 & 0xe`); V0 has
//! a 32-byte header (cookie, digits, lowest, highest, total count) and words of the cookie's
//! size up to the end of the data. Their compressed forms wrap header and counts in one
//! zlib stream, as V2's does. All three index the counts alike.
//!
//! Encoding uses the `hdrhistogram` crate's `V2DeflateSerializer`. Decoding is done here,
//! straight into the sparse [`Hist`]: the crate's `Deserializer` allocates a dense counts array
//! sized by the header's `high` value and a payload buffer sized by the header's length field,
//! both taken from the file before any check. For a log of thousands of windows that is slow,
//! and for a hostile file it is an out-of-memory crash. Here every length is checked against
//! the bytes actually present, decompression is bounded, and errors say what was wrong.
//! The decoder is tested against the crate's encoder.

use base64::Engine as _;
use hdrhistogram::serialization::{Serializer as _, V2DeflateSerializer};
use hdrhistogram::Histogram;

use crate::hist::{Hist, Layout, Scratch};

const V2_COOKIE: u32 = 0x1c84_9303;
const V2_COMPRESSED_COOKIE: u32 = 0x1c84_9304;
const V1_COOKIE: u32 = 0x1c84_9301;
const V1_COMPRESSED_COOKIE: u32 = 0x1c84_9302;
const V0_COOKIE: u32 = 0x1c84_9308;
const V0_COMPRESSED_COOKIE: u32 = 0x1c84_9309;
/// The V0 header: cookie, digits, low, high, total count.
const V0_HEADER_LEN: usize = 32;
/// The V2 header: cookie, payload length, offset, digits, low, high, ratio.
const V2_HEADER_LEN: usize = 40;
/// A decompressed histogram larger than this is refused (a full 5-digit histogram of the
/// whole 64-bit range encodes in well under 16 MiB).
const MAX_DECOMPRESSED: u64 = 64 << 20;

/// Why a histogram could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The text is not valid base64; the log line is damaged.
    #[error("histogram is not valid base64 ({0})")]
    Base64(String),
    /// The first four bytes are not an HdrHistogram cookie (V0, V1 or V2).
    #[error("histogram has cookie {0:#010x}, expected an HdrHistogram (V2: 0x1c849303 or 0x1c849304; V1: 0x1c849301 or 0x1c849302; V0: 0x1c849308 or 0x1c849309)")]
    Cookie(u32),
    /// Fewer bytes than the encoding announces; the data is cut.
    #[error("histogram is cut: {0}")]
    Truncated(&'static str),
    /// The DEFLATE stream is damaged.
    #[error("histogram's compressed data is damaged ({0})")]
    Deflate(String),
    /// A header field is outside what HdrHistogram allows.
    #[error("histogram header is invalid: {0}")]
    Header(String),
    /// A DoubleHistogram or a histogram with a normalizing offset; nines reads integer ones.
    #[error("histogram uses an unsupported feature: {0}")]
    Unsupported(&'static str),
    /// A count or skip lies outside the 64-bit value range.
    #[error("histogram payload is invalid: {0}")]
    Payload(&'static str),
}

fn be_u32(b: &[u8], at: usize) -> Option<u32> {
    b.get(at..at + 4).map(|s| u32::from_be_bytes(s.try_into().unwrap()))
}
fn be_u64(b: &[u8], at: usize) -> Option<u64> {
    b.get(at..at + 8).map(|s| u64::from_be_bytes(s.try_into().unwrap()))
}

/// Decode a base64 V2 histogram (as found in interval logs).
pub fn decode_base64(text: &str) -> Result<Hist, DecodeError> {
    Decoder::new().decode_base64(text)
}

/// Decode a binary V2 histogram, compressed or not.
pub fn decode(bytes: &[u8]) -> Result<Hist, DecodeError> {
    Decoder::new().decode(bytes)
}

/// Decodes many histograms, reusing its inflater and buffers: creating a DEFLATE state per
/// histogram costs more than decoding a typical window.
pub struct Decoder {
    #[cfg(any(not(target_arch = "wasm32"), feature = "wasm-zlib-rs"))]
    inflater: zlib_rs::Inflate,
    #[cfg(all(target_arch = "wasm32", not(feature = "wasm-zlib-rs")))]
    inflater: Box<miniz_oxide::inflate::core::DecompressorOxide>,
    raw: Vec<u8>,
    inflated: Vec<u8>,
    inflated_len: usize,
    scratch: Scratch,
}

impl Default for Decoder {
    fn default() -> Decoder {
        Decoder::new()
    }
}

impl Decoder {
    pub fn new() -> Decoder {
        #[cfg(any(not(target_arch = "wasm32"), feature = "wasm-zlib-rs"))]
        let inflater = zlib_rs::Inflate::new(true, 15);
        #[cfg(all(target_arch = "wasm32", not(feature = "wasm-zlib-rs")))]
        let inflater = Box::default();
        Decoder { inflater, raw: Vec::new(), inflated: Vec::new(), inflated_len: 0, scratch: Scratch::default() }
    }

    /// Decode a base64 V2 histogram.
    pub fn decode_base64(&mut self, text: &str) -> Result<Hist, DecodeError> {
        let mut raw = std::mem::take(&mut self.raw);
        raw.clear();
        let result = base64::engine::general_purpose::STANDARD
            .decode_vec(text.trim(), &mut raw)
            .map_err(|e| DecodeError::Base64(e.to_string()))
            .and_then(|()| self.decode(&raw));
        self.raw = raw;
        result
    }

    /// Decode a binary histogram (V2, V1 or V0), compressed or not.
    pub fn decode(&mut self, bytes: &[u8]) -> Result<Hist, DecodeError> {
        let cookie = be_u32(bytes, 0).ok_or(DecodeError::Truncated("fewer than 4 bytes"))?;
        // Java sets word-size bits (0x10 for 8 bytes) in the cookie; its reader masks them off.
        match cookie & !0xf0 {
            V2_COOKIE | V1_COOKIE | V0_COOKIE => decode_plain(bytes, &mut self.scratch),
            base @ (V2_COMPRESSED_COOKIE | V1_COMPRESSED_COOKIE | V0_COMPRESSED_COOKIE) => {
                let len = be_u32(bytes, 4).ok_or(DecodeError::Truncated("no compressed length"))?;
                let body = bytes.get(8..8 + len as usize).ok_or(DecodeError::Truncated("compressed length exceeds the data"))?;
                self.inflate(body, MAX_DECOMPRESSED as usize)?;
                let inflated = &self.inflated[..self.inflated_len];
                let inner = match base {
                    V2_COMPRESSED_COOKIE => V2_COOKIE,
                    V1_COMPRESSED_COOKIE => V1_COOKIE,
                    _ => V0_COOKIE,
                };
                match be_u32(inflated, 0) {
                    Some(c) if c & !0xf0 == inner => decode_plain(inflated, &mut self.scratch),
                    Some(c) => Err(DecodeError::Cookie(c)),
                    None => Err(DecodeError::Truncated("compressed body shorter than a cookie")),
                }
            }
            other => Err(DecodeError::Cookie(other)),
        }
    }

    /// Inflate a whole zlib stream (checksum verified) into a list of at most `limit` bytes.
    /// `size`, when the writer stated it, is the exact inflated size: the buffer is made that
    /// big at once (no doubling, no copy to shrink it), and a stream that inflates to more is
    /// an error.
    pub(crate) fn inflate_to_vec(&mut self, body: &[u8], limit: usize, size: Option<usize>) -> Result<Vec<u8>, DecodeError> {
        if let Some(n) = size {
            self.inflated = vec![0; n.min(limit)];
        }
        self.inflate(body, size.map_or(limit, |n| n.min(limit)))?;
        let mut out = std::mem::take(&mut self.inflated);
        out.truncate(self.inflated_len);
        out.shrink_to_fit();
        self.inflated_len = 0;
        Ok(out)
    }

    /// Inflate a zlib stream into `self.inflated`, bounded by `limit` bytes.
    /// zlib-rs (the pure-Rust zlib behind flate2's `zlib-rs` backend; it builds for wasm32)
    /// is used directly, one state reset for each histogram: on the one-hour bench log it
    /// inflates in about a fifth fewer instructions than miniz_oxide's core inflater did
    /// (callgrind: 558 M against 707 M). The output buffer is zeroed once and reused; with
    /// `Finish` and an output buffer that takes the whole result, zlib keeps no sliding
    /// window, so nothing is copied twice. The adler32 checksum is verified.
    #[cfg(any(not(target_arch = "wasm32"), feature = "wasm-zlib-rs"))]
    fn inflate(&mut self, body: &[u8], limit: usize) -> Result<(), DecodeError> {
        use zlib_rs::{InflateFlush, Status};
        self.inflater.reset(true);
        let want = (body.len() * 8 + 64).min(limit);
        if self.inflated.len() < want {
            self.inflated.resize(want, 0);
        }
        loop {
            let (in_pos, out_pos) = (self.inflater.total_in() as usize, self.inflater.total_out() as usize);
            let result = self.inflater.decompress(&body[in_pos..], &mut self.inflated[out_pos..], InflateFlush::Finish);
            let out_pos = self.inflater.total_out() as usize;
            match result {
                Ok(Status::StreamEnd) => {
                    self.inflated_len = out_pos;
                    return Ok(());
                }
                // not finished with the output buffer full: give it more room
                Ok(_) if out_pos == self.inflated.len() && out_pos < limit => {
                    let grown = (self.inflated.len() * 2).min(limit);
                    self.inflated.resize(grown, 0);
                }
                Ok(_) if out_pos == self.inflated.len() => {
                    return Err(DecodeError::Deflate(format!("decompresses to more than {} MiB", limit >> 20)));
                }
                Ok(_) => return Err(DecodeError::Truncated("compressed data ends before its end marker")),
                Err(e) => {
                    let why = self.inflater.error_message().unwrap_or(e.as_str());
                    return Err(DecodeError::Deflate(why.to_string()));
                }
            }
        }
    }

    /// The same in the viewer's page with miniz_oxide's core inflater (zlib-rs adds 14 KB of
    /// gzipped wasm for about a sixth of the decode time there; the workers' module, built
    /// with the `wasm-zlib-rs` feature, takes zlib-rs): the output buffer is the window
    /// (non-wrapping mode), zeroed once and reused; the adler32 checksum is verified.
    #[cfg(all(target_arch = "wasm32", not(feature = "wasm-zlib-rs")))]
    fn inflate(&mut self, body: &[u8], limit: usize) -> Result<(), DecodeError> {
        use miniz_oxide::inflate::core::{decompress, inflate_flags::*};
        use miniz_oxide::inflate::TINFLStatus;
        self.inflater.init();
        let flags = TINFL_FLAG_PARSE_ZLIB_HEADER | TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF | TINFL_FLAG_COMPUTE_ADLER32;
        let want = (body.len() * 8 + 64).min(limit);
        if self.inflated.len() < want {
            self.inflated.resize(want, 0);
        }
        let (mut in_pos, mut out_pos) = (0, 0);
        loop {
            let (status, read, written) = decompress(&mut self.inflater, &body[in_pos..], &mut self.inflated, out_pos, flags);
            in_pos += read;
            out_pos += written;
            match status {
                TINFLStatus::Done => {
                    self.inflated_len = out_pos;
                    return Ok(());
                }
                TINFLStatus::HasMoreOutput if self.inflated.len() < limit => {
                    let grown = (self.inflated.len() * 2).min(limit);
                    self.inflated.resize(grown, 0);
                }
                TINFLStatus::HasMoreOutput => return Err(DecodeError::Deflate(format!("decompresses to more than {} MiB", limit >> 20))),
                TINFLStatus::NeedsMoreInput | TINFLStatus::FailedCannotMakeProgress => {
                    return Err(DecodeError::Truncated("compressed data ends before its end marker"));
                }
                TINFLStatus::Adler32Mismatch => return Err(DecodeError::Deflate("incorrect data check".into())),
                other => return Err(DecodeError::Deflate(format!("{other:?}"))),
            }
        }
    }
}

/// Decode an uncompressed histogram of any of the three encodings.
fn decode_plain(b: &[u8], out: &mut Scratch) -> Result<Hist, DecodeError> {
    let cookie = be_u32(b, 0).ok_or(DecodeError::Truncated("fewer than 4 bytes"))?;
    match cookie & !0xf0 {
        V2_COOKIE => decode_v2(b, out),
        V1_COOKIE => {
            let (layout, payload) = v2_header(b)?;
            decode_words(payload, word_size(cookie)?, layout, out)
        }
        _ => {
            let digits = be_u32(b, 4).ok_or(DecodeError::Truncated("header"))?;
            let low = be_u64(b, 8).ok_or(DecodeError::Truncated("header"))?;
            let high = be_u64(b, 16).ok_or(DecodeError::Truncated("header"))?;
            let layout = checked_layout(digits, low, high)?;
            let payload = b.get(V0_HEADER_LEN..).ok_or(DecodeError::Truncated("header"))?;
            decode_words(payload, word_size(cookie)?, layout, out)
        }
    }
}

/// The size of a V0 or V1 count word, from the cookie's word-size bits.
fn word_size(cookie: u32) -> Result<usize, DecodeError> {
    match ((cookie & 0xf0) >> 4) & 0xe {
        w @ (2 | 4 | 8) => Ok(w as usize),
        w => Err(DecodeError::Header(format!("count words of {w} bytes (2, 4 or 8 in V0 and V1 histograms)"))),
    }
}

/// The layout of a header's digits, lowest and highest value, checked as HdrHistogram does.
fn checked_layout(digits: u32, low: u64, high: u64) -> Result<Layout, DecodeError> {
    if digits > 5 {
        return Err(DecodeError::Header(format!("{digits} significant digits (at most 5)")));
    }
    if high < low.max(1).saturating_mul(2) {
        return Err(DecodeError::Header(format!("highest value {high} below twice the lowest {low}")));
    }
    Layout::new(low.max(1), digits as u8).ok_or_else(|| DecodeError::Header(format!("lowest value {low} with {digits} digits")))
}

/// The layout and payload of a V1 or V2 histogram's 40-byte header.
fn v2_header(b: &[u8]) -> Result<(Layout, &[u8]), DecodeError> {
    let payload_len = be_u32(b, 4).ok_or(DecodeError::Truncated("no payload length"))? as usize;
    let offset = be_u32(b, 8).ok_or(DecodeError::Truncated("header"))?;
    let digits = be_u32(b, 12).ok_or(DecodeError::Truncated("header"))?;
    let low = be_u64(b, 16).ok_or(DecodeError::Truncated("header"))?;
    let high = be_u64(b, 24).ok_or(DecodeError::Truncated("header"))?;
    let ratio = be_u64(b, 32).ok_or(DecodeError::Truncated("header"))?;
    // hdr-histogram-js (3.x) writes the integers 1 and 1 into these two fields and ignores
    // them when reading; no other writer produces that pair (the ratio is a double, 1.0).
    let js_writer = offset == 1 && ratio == 1;
    if offset != 0 && !js_writer {
        return Err(DecodeError::Unsupported("normalizing index offset"));
    }
    if f64::from_bits(ratio) != 1.0 && !js_writer {
        return Err(DecodeError::Unsupported("integer-to-double ratio (a DoubleHistogram)"));
    }
    let layout = checked_layout(digits, low, high)?;
    let payload = b.get(V2_HEADER_LEN..V2_HEADER_LEN + payload_len).ok_or(DecodeError::Truncated("payload length exceeds the data"))?;
    Ok((layout, payload))
}

/// V0 and V1 counts: big-endian signed words of `word` bytes, one per counts-array index
/// from 0. A word past the layout's range must be zero, and no count may be negative.
fn decode_words(payload: &[u8], word: usize, layout: Layout, out: &mut Scratch) -> Result<Hist, DecodeError> {
    let limit = layout.index_limit();
    let words = payload.chunks_exact(word);
    if !words.remainder().is_empty() {
        return Err(DecodeError::Truncated("payload ends inside a count word"));
    }
    out.reset(layout, (payload.len() / word).min(limit));
    for (index, w) in words.enumerate() {
        let n = match word {
            2 => i64::from(i16::from_be_bytes([w[0], w[1]])),
            4 => i64::from(i32::from_be_bytes([w[0], w[1], w[2], w[3]])),
            _ => i64::from_be_bytes(w.try_into().expect("8-byte chunk")),
        };
        match n {
            0 => {}
            n if n < 0 => return Err(DecodeError::Payload("negative count")),
            _ if index >= limit => return Err(DecodeError::Payload("count past the 64-bit value range")),
            n => out.push(index as u32, n as u64),
        }
    }
    Ok(out.take())
}

fn decode_v2(b: &[u8], out: &mut Scratch) -> Result<Hist, DecodeError> {
    let (layout, payload) = v2_header(b)?;

    // V2 lists counts in index order, so buckets come out sorted: no dense array needed.
    // Each varint writes (and may keep) a bucket at the next free place of the scratch list.
    // Kept buckets are fewer than the payload bytes read and than the current index (each
    // has its own lower one), so room for the payload's length or the limit, whichever is
    // smaller, always has that place.
    let limit = layout.index_limit();
    out.reset(layout, payload.len().min(limit));
    let mut index: usize = 0;
    let mut pos = 0;
    // The hot loop runs while the index is below the limit, so a count may be stored at it and
    // adding a one-byte zero run (at most 64) cannot overflow.
    while index < limit {
        let Some(&byte) = payload.get(pos) else { break };
        if byte < 0x80 {
            // A one-byte varint (the usual case), without the general path's 64-bit ZigZag
            // arithmetic or branches: an even byte is a count (byte / 2, kept unless 0), an
            // odd one a zero run of byte / 2 + 1 buckets.
            pos += 1;
            let half = u32::from(byte >> 1);
            let odd = u32::from(byte & 1);
            // below the limit, so the index fits in 32 bits
            out.put(index as u32, half, byte != 0 && odd == 0);
            index += 1 + (odd * half) as usize;
            continue;
        }
        let zz = read_varint(payload, &mut pos)?;
        let n = ((zz >> 1) as i64) ^ -((zz & 1) as i64);
        if n < 0 {
            index = skip(index, n)?;
        } else {
            if n > 0 {
                out.push(index as u32, n as u64);
            }
            index += 1;
        }
    }
    // Past the end of the 64-bit range: only zero runs and zero counts may follow.
    while pos < payload.len() {
        let zz = read_varint(payload, &mut pos)?;
        let n = ((zz >> 1) as i64) ^ -((zz & 1) as i64);
        if n < 0 {
            index = skip(index, n)?;
        } else if n > 0 {
            return Err(DecodeError::Payload("count past the 64-bit value range"));
        } else {
            // saturating: zero counts after a run to the end of the range stay past it
            index = index.saturating_add(1);
        }
    }
    Ok(out.take())
}

/// The index after a zero run of `-n` buckets.
fn skip(index: usize, n: i64) -> Result<usize, DecodeError> {
    usize::try_from(n.unsigned_abs()).ok().and_then(|s| index.checked_add(s)).ok_or(DecodeError::Payload("zero run past the value range"))
}

/// HdrHistogram's LEB128 variant: up to 9 bytes, the 9th contributes all 8 bits. Hand-written
/// because varint crates implement plain LEB128 (10 bytes for 64 bits, 7 bits in every byte),
/// which reads this 9th byte differently; and because this is the innermost loop of decoding
/// (most counts take one byte, so that case comes first, then a bounds-check-free path while
/// 9 bytes remain, then the checked one near the end of the payload).
#[inline(always)]
fn read_varint(b: &[u8], pos: &mut usize) -> Result<u64, DecodeError> {
    let p = *pos;
    match b.get(p) {
        Some(&first) if first < 0x80 => {
            *pos = p + 1;
            Ok(u64::from(first))
        }
        _ => match b.get(p..p + 9) {
            Some(chunk) => {
                let chunk: &[u8; 9] = chunk.try_into().expect("9 bytes");
                let (v, used) = varint_9(chunk);
                *pos = p + used;
                Ok(v)
            }
            None => {
                let (v, used) = read_varint_checked(&b[p..])?;
                *pos = p + used;
                Ok(v)
            }
        },
    }
}

/// A varint from a slice that holds at least 9 bytes.
#[inline(always)]
fn varint_9(b: &[u8; 9]) -> (u64, usize) {
    let mut v: u64 = 0;
    for (i, &byte) in b[..8].iter().enumerate() {
        v |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return (v, i + 1);
        }
    }
    (v | u64::from(b[8]) << 56, 9)
}

/// A varint near the end of the payload, where it may be cut.
fn read_varint_checked(b: &[u8]) -> Result<(u64, usize), DecodeError> {
    let mut v: u64 = 0;
    for i in 0..9 {
        let byte = *b.get(i).ok_or(DecodeError::Truncated("varint cut at end of payload"))?;
        if i == 8 {
            v |= u64::from(byte) << 56;
            return Ok((v, 9));
        }
        v |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Ok((v, i + 1));
        }
    }
    unreachable!("loop returns by the ninth byte")
}

/// Why a histogram could not be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// A bucket count of 2^63 or more: the V2 encoding writes counts as ZigZag varints of
    /// signed 64-bit integers (HdrHistogram's "Histogram Serialization" format), so
    /// HdrHistogram logs hold counts up to 2^63-1.
    #[error("a bucket count is 2^63 or more; HdrHistogram logs hold counts up to 2^63-1 (9223372036854775807)")]
    Count,
    /// Any other failure of the encoder.
    #[error("histogram could not be encoded ({0})")]
    Other(String),
}

/// Encodes histograms as base64 V2 + DEFLATE, reusing buffers between calls.
#[derive(Default)]
pub struct Encoder {
    serializer: V2DeflateSerializer,
    buf: Vec<u8>,
}

impl Encoder {
    pub fn new() -> Encoder {
        Encoder::default()
    }

    /// Base64 text of a dense histogram.
    pub fn encode_hdr(&mut self, h: &Histogram<u64>) -> Result<String, EncodeError> {
        use hdrhistogram::serialization::{V2DeflateSerializeError, V2SerializeError};
        self.buf.clear();
        self.serializer.serialize(h, &mut self.buf).map_err(|e| match e {
            V2DeflateSerializeError::InternalSerializationError(V2SerializeError::CountNotSerializable) => EncodeError::Count,
            other => EncodeError::Other(other.to_string()),
        })?;
        Ok(base64::engine::general_purpose::STANDARD.encode(&self.buf))
    }

    /// The plain (uncompressed) V2 bytes of a sparse histogram, for containers that compress
    /// many histograms as one stream ([`crate::compact`]).
    pub fn encode_plain(&mut self, h: &Hist) -> Result<Vec<u8>, EncodeError> {
        use hdrhistogram::serialization::{V2SerializeError, V2Serializer};
        if h.buckets().any(|(_, c)| c > crate::hist::MAX_COUNT) {
            return Err(EncodeError::Count);
        }
        let mut out = Vec::new();
        V2Serializer::new().serialize(&h.to_hdr(), &mut out).map_err(|e| match e {
            V2SerializeError::CountNotSerializable => EncodeError::Count,
            other => EncodeError::Other(format!("{other:?}")),
        })?;
        Ok(out)
    }

    /// Base64 text of a sparse histogram.
    pub fn encode(&mut self, h: &Hist) -> Result<String, EncodeError> {
        // checked here, before a dense copy is made for nothing
        if h.buckets().any(|(_, c)| c > crate::hist::MAX_COUNT) {
            return Err(EncodeError::Count);
        }
        self.encode_hdr(&h.to_hdr())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hdrhistogram::serialization::V2Serializer;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn decodes_what_the_crate_encodes(values in proptest::collection::vec(0u64..(1u64 << 45), 0..400),
                                          sigfig in 1u8..=5, compressed in any::<bool>()) {
            let mut h = Histogram::<u64>::new_with_bounds(1, 1u64 << 46, sigfig).unwrap();
            for &v in &values { h.record(v).unwrap(); }
            let mut buf = Vec::new();
            if compressed {
                V2DeflateSerializer::new().serialize(&h, &mut buf).unwrap();
            } else {
                V2Serializer::new().serialize(&h, &mut buf).unwrap();
            }
            prop_assert_eq!(decode(&buf).unwrap(), Hist::from_hdr(&h));
        }

        #[test]
        fn decodes_counts_of_every_size(entries in proptest::collection::vec((0u64..(1u64 << 40), 0u32..62), 0..300),
                                        compressed in any::<bool>()) {
            // counts from 1 to 2^63 (one-byte, multi-byte and beyond 32 bits), runs of any length
            let mut h = Histogram::<u64>::new_with_bounds(1, 1u64 << 41, 3).unwrap();
            for &(v, bits) in &entries { h.record_n(v, (1u64 << bits) | u64::from(bits)).unwrap(); }
            let mut buf = Vec::new();
            if compressed {
                V2DeflateSerializer::new().serialize(&h, &mut buf).unwrap();
            } else {
                V2Serializer::new().serialize(&h, &mut buf).unwrap();
            }
            let mut decoder = Decoder::new();
            let want = Hist::from_hdr(&h);
            prop_assert_eq!(decoder.decode(&buf).unwrap(), want.clone());
            // a reused decoder gives the same
            prop_assert_eq!(decoder.decode(&buf).unwrap(), want);
        }

        #[test]
        fn varint_paths_agree(v in any::<u64>(), pad in 0usize..10) {
            // HdrHistogram's encoding of v, then `pad` more bytes
            let mut bytes = Vec::new();
            let mut x = v;
            while bytes.len() < 8 && x >= 0x80 {
                bytes.push((x as u8 & 0x7f) | 0x80);
                x >>= 7;
            }
            bytes.push(x as u8);
            let len = bytes.len();
            bytes.extend(std::iter::repeat_n(0xff, pad));
            let mut pos = 0;
            prop_assert_eq!(read_varint(&bytes, &mut pos).unwrap(), v);
            prop_assert_eq!(pos, len);
            prop_assert_eq!(read_varint_checked(&bytes).unwrap(), (v, len));
            prop_assert!(read_varint(&bytes[..len - 1], &mut 0).is_err());
        }

        #[test]
        fn damaged_histograms_never_panic(values in proptest::collection::vec(0u64..(1u64 << 40), 1..300),
                                          damage in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..4),
                                          cut in any::<usize>(), compressed in any::<bool>()) {
            let mut h = Histogram::<u64>::new(3).unwrap();
            for &v in &values { h.record(v).unwrap(); }
            let mut buf = Vec::new();
            if compressed {
                V2DeflateSerializer::new().serialize(&h, &mut buf).unwrap();
            } else {
                V2Serializer::new().serialize(&h, &mut buf).unwrap();
            }
            for (at, x) in damage {
                let i = at % buf.len();
                buf[i] ^= x;
            }
            buf.truncate(cut % (buf.len() + 1));
            let _ = decode(&buf);
        }

        #[test]
        fn garbage_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = decode(&bytes);
        }
    }

    fn compressed(h: &Histogram<u64>) -> Vec<u8> {
        let mut buf = Vec::new();
        V2DeflateSerializer::new().serialize(h, &mut buf).unwrap();
        buf
    }

    #[test]
    fn damaged_compressed_data_is_an_error() {
        let mut h = Histogram::<u64>::new(3).unwrap();
        for v in 1..5000u64 {
            h.record(v * 37).unwrap();
        }
        let good = compressed(&h);
        assert_eq!(decode(&good).unwrap(), Hist::from_hdr(&h));
        // the zlib stream cut (its length field says so too)
        for keep in [1, 2, 10, good.len() - 8 - 5, good.len() - 8 - 1] {
            let mut cut = good[..8 + keep].to_vec();
            cut[4..8].copy_from_slice(&(keep as u32).to_be_bytes());
            let err = decode(&cut).unwrap_err();
            assert!(matches!(err, DecodeError::Truncated(_) | DecodeError::Deflate(_)), "{keep}: {err}");
        }
        // a wrong adler32 checksum (the last four bytes of the zlib stream)
        let mut bad = good.clone();
        *bad.last_mut().unwrap() ^= 1;
        assert!(matches!(decode(&bad), Err(DecodeError::Deflate(_))), "{:?}", decode(&bad));
        // not DEFLATE at all
        let mut junk = good[..8].to_vec();
        junk.extend_from_slice(&[0x78, 0x9c, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
        assert!(decode(&junk).is_err());
    }

    #[test]
    fn decompression_is_bounded() {
        // 65 MiB of zeros compress to about 65 KB; inflating stops at 64 MiB
        let zeros = vec![0u8; 65 << 20];
        let mut z = vec![0u8; zlib_rs::compress_bound(zeros.len())];
        let (stream, rc) = zlib_rs::compress_slice(&mut z, &zeros, zlib_rs::DeflateConfig::default());
        assert_eq!(rc, zlib_rs::ReturnCode::Ok);
        let mut bytes = 0x1c84_9314u32.to_be_bytes().to_vec();
        bytes.extend_from_slice(&(stream.len() as u32).to_be_bytes());
        bytes.extend_from_slice(stream);
        let err = decode(&bytes).unwrap_err();
        assert_eq!(err.to_string(), "histogram's compressed data is damaged (decompresses to more than 64 MiB)");
    }

    #[test]
    fn roundtrip_through_base64() {
        let h = Hist::from_values(Layout::default_ns(), [1, 5, 1000, 123_456, 9_999_999]);
        let text = Encoder::new().encode(&h).unwrap();
        assert!(text.starts_with("HISTF"), "{text}");
        assert_eq!(decode_base64(&text).unwrap(), h);
    }

    #[test]
    fn extreme_values_roundtrip() {
        for layout in [Layout::default_ns(), Layout::new(1 << 40, 5).unwrap(), Layout::new(1, 0).unwrap()] {
            let h = Hist::from_values(layout, [0, 1, 1 << 62, u64::MAX / 2, u64::MAX - 1, u64::MAX]);
            let text = Encoder::new().encode(&h).unwrap();
            assert_eq!(decode_base64(&text).unwrap(), h, "{layout:?}");
        }
    }

    #[test]
    fn cut_and_bad_inputs_have_clear_errors() {
        let h = Hist::from_values(Layout::default_ns(), [10, 20, 30]);
        let text = Encoder::new().encode(&h).unwrap();
        let err = decode_base64(&text[..text.len() / 2]).unwrap_err();
        assert!(matches!(err, DecodeError::Base64(_) | DecodeError::Truncated(_)), "{err}");
        assert!(matches!(decode(&[0, 1, 2, 3, 4]), Err(DecodeError::Cookie(0x00010203))));
        assert!(matches!(decode_base64("!!!"), Err(DecodeError::Base64(_))));
    }
}

/// Logs in the V0 and V1 encodings, checked against what HdrHistogram's own
/// `HistogramLogReaderWriterTest` asserts for the same files (its test resources).
#[cfg(test)]
mod older_encodings {
    use crate::hist::{Accumulator, Layout};

    /// (windows, total count, Java's getValueAtPercentile(99.9), Java's getMaxValue) of the
    /// windows added into a `new Histogram(3)`, as the Java test does: Java's `add` records
    /// each bucket's lowest equivalent value into the 3-digit layout of lowest value 1.
    fn whole(name: &str, bytes: &[u8]) -> (usize, u64, u64, u64) {
        let run = crate::archive::read(name, bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let layout = Layout::new(1, 3).unwrap();
        let mut acc = Accumulator::new(layout);
        for w in &run.windows {
            for (value, count) in w.hist.buckets() {
                acc.record_n(value, count);
            }
        }
        let all = acc.finish();
        // Java: the highest value equivalent to the bucket holding the ceil(0.999 * n)-th
        // value, and to the largest recorded value
        let rank = ((0.999 * all.count() as f64).ceil() as u64).max(1);
        let p999 = layout.highest_equivalent(all.bucket_at_rank(rank).unwrap());
        (run.windows.len(), all.count(), p999, layout.highest_equivalent(all.max()))
    }

    #[test]
    fn jhiccup_2_0_1_v0() {
        let f = include_bytes!("../../tests/data/hdrhistogram-java/jHiccup-2.0.1.logV0.hlog");
        assert_eq!(whole("jHiccup-2.0.1.logV0.hlog", f), (81, 61256, 1510998015, 1569718271));
    }

    #[test]
    fn jhiccup_2_0_6_v1() {
        let f = include_bytes!("../../tests/data/hdrhistogram-java/jHiccup-2.0.6.logV1.hlog");
        assert_eq!(whole("jHiccup-2.0.6.logV1.hlog", f), (88, 65964, 1829765119, 1888485375));
    }

    #[test]
    fn ycsb_v1() {
        let f = include_bytes!("../../tests/data/hdrhistogram-java/ycsb.logV1.hlog");
        assert_eq!(whole("ycsb.logV1.hlog", f), (602, 300056, 1214463, 1546239));
    }

    /// A V1 (40-byte header) or V0 (32-byte header) histogram by hand: lowest 1, 2 digits,
    /// highest 10^6, `counts` as words of `word` bytes.
    fn by_hand(v0: bool, word: u32, counts: &[i64]) -> Vec<u8> {
        let mut b = Vec::new();
        let base: u32 = if v0 { super::V0_COOKIE } else { super::V1_COOKIE };
        b.extend((base | (word << 4)).to_be_bytes());
        let mut payload = Vec::new();
        for &c in counts {
            match word {
                2 => payload.extend((c as i16).to_be_bytes()),
                4 => payload.extend((c as i32).to_be_bytes()),
                _ => payload.extend(c.to_be_bytes()),
            }
        }
        if v0 {
            b.extend(2u32.to_be_bytes());
            b.extend(1u64.to_be_bytes());
            b.extend(1_000_000u64.to_be_bytes());
            b.extend((counts.iter().sum::<i64>() as u64).to_be_bytes());
        } else {
            b.extend((payload.len() as u32).to_be_bytes());
            b.extend(0u32.to_be_bytes());
            b.extend(2u32.to_be_bytes());
            b.extend(1u64.to_be_bytes());
            b.extend(1_000_000u64.to_be_bytes());
            b.extend(1.0f64.to_bits().to_be_bytes());
        }
        b.extend(payload);
        b
    }

    fn compressed(inner: &[u8], cookie: u32) -> Vec<u8> {
        use std::io::Write;
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(inner).unwrap();
        let body = z.finish().unwrap();
        let mut b = cookie.to_be_bytes().to_vec();
        b.extend((body.len() as u32).to_be_bytes());
        b.extend(body);
        b
    }

    #[test]
    fn every_word_size_plain_and_compressed() {
        // indexes 0..5 hold the values 0..5 at 2 digits (sub-buckets of one)
        let counts = [0, 3, 0, 7, 1, 0];
        for v0 in [false, true] {
            for word in [2, 4, 8] {
                let plain = by_hand(v0, word, &counts);
                let cookie = if v0 { super::V0_COMPRESSED_COOKIE } else { super::V1_COMPRESSED_COOKIE };
                for bytes in [plain.clone(), compressed(&plain, cookie | (word << 4))] {
                    let h = super::decode(&bytes).unwrap_or_else(|e| panic!("v0 {v0} word {word}: {e}"));
                    assert_eq!(h.buckets().collect::<Vec<_>>(), vec![(1, 3), (3, 7), (4, 1)], "v0 {v0} word {word}");
                }
            }
        }
    }

    #[test]
    fn damaged_older_histograms_are_errors() {
        let e = super::decode(&by_hand(false, 4, &[1, -2])).unwrap_err();
        assert_eq!(e.to_string(), "histogram payload is invalid: negative count");
        let e = super::decode(&by_hand(true, 6, &[1, 2])).unwrap_err();
        assert!(e.to_string().contains("count words of 6 bytes"), "{e}");
        let mut cut = by_hand(true, 4, &[1, 2]);
        cut.pop();
        assert!(super::decode(&cut).unwrap_err().to_string().contains("inside a count word"));
        let e = super::decode(&[0x1c, 0x84, 0x93, 0x07]).unwrap_err();
        assert!(e.to_string().contains("V0: 0x1c849308"), "{e}");
    }
}
