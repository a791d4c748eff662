//! The writer: the binary form of version 6, deflated or stored.

use std::io::Write as _;

use serde_json::{json, Value};

use super::varint::{column, put, zigzag};
use super::{point_has_ios, Compact, WriteError, MAGIC, METRICS, VERSION};
use crate::codec::Encoder;
use crate::hist::Hist;
use crate::series::Direction;
use crate::stats::tag_name;

impl Compact {
    /// The binary form (see the module's documentation), deflated at zlib's default level.
    pub fn write(&self) -> Result<Vec<u8>, WriteError> {
        self.write_sections(true, |b| {
            let mut z = flate2::write::ZlibEncoder::new(Vec::with_capacity(b.len() / 2 + 16), flate2::Compression::default());
            z.write_all(b).map_err(|e| WriteError(e.to_string()))?;
            z.finish().map_err(|e| WriteError(e.to_string()))
        })
    }

    /// The binary form with its sections stored, not deflated: for a form that only crosses
    /// memory, such as a viewer worker's answer to its page. (Its zlib streams are written
    /// here, not by flate2, so that the viewer's wasm carries no deflater.)
    pub fn write_stored(&self) -> Result<Vec<u8>, WriteError> {
        self.write_sections(false, |b| Ok(stored_zlib(b)))
    }

    /// The form with its sections packed by `pack`; with `budget`, the context records taken
    /// together until they fit their budget (`context::carried`), else every record as held.
    fn write_sections(&self, budget: bool, pack: impl Fn(&[u8]) -> Result<Vec<u8>, WriteError>) -> Result<Vec<u8>, WriteError> {
        let context = match &self.run.context[..] {
            [] => None,
            recs if budget => Some(super::context::carried(recs, self.hours(), &pack)?),
            recs => Some((1, super::context::encode(recs))),
        };
        let mut head = Vec::new();
        let warnings: Vec<Value> = self.run.warnings.iter().map(|w| json!([w.line, w.message])).collect();
        let mut header = json!({
            "name": self.run.name,
            "source": self.run.source,
            "start_time": self.run.start_time,
            "meta": Value::Object(self.run.meta.to_map()),
            "warnings": warnings,
            "group": self.group,
            "windows": self.windows,
        });
        if self.edges.is_some() {
            header["edges"] = json!(true);
        }
        if let Some((k, _)) = &context {
            // the records of a form read back already span `context_group` windows each
            header["context"] = json!(k * self.context_group.max(1));
        }
        let header = serde_json::to_vec(&header).map_err(|e| WriteError(e.to_string()))?;
        put(&mut head, header.len() as u64);
        head.extend_from_slice(&header);
        put(&mut head, self.traces.len() as u64);
        let mut enc = Encoder::new();
        let mut sections: Vec<Vec<u8>> = Vec::new();
        let mut group_sections: Vec<Vec<u8>> = Vec::new();
        for t in &self.traces {
            match &t.dir {
                Direction::All => put(&mut head, 0),
                Direction::Tag(None) => put(&mut head, 1),
                Direction::Tag(Some(s)) => {
                    put(&mut head, 2);
                    put(&mut head, s.len() as u64);
                    head.extend_from_slice(s.as_bytes());
                }
            }
            put(&mut head, t.slots.len() as u64);
            column(&mut head, t.slots.iter().map(|s| s.start_s));
            column(&mut head, t.slots.iter().map(|s| s.length_s));
            for s in &t.slots {
                put(&mut head, s.count);
            }
            put(&mut head, t.values.len() as u64);
            let mut prev = 0;
            for &v in &t.values {
                put(&mut head, v - prev);
                prev = v;
            }
            put(&mut head, t.levels.len() as u64);
            for k in 0..t.levels.len() {
                let level = t.level(k).map_err(|e| WriteError(e.0))?;
                let mut b = Vec::new();
                let mut prev = [0u32; METRICS];
                for (i, m) in level.chunks_exact(METRICS).enumerate() {
                    if !point_has_ios(&t.slots, k, i) {
                        continue;
                    }
                    for j in 0..METRICS {
                        put(&mut b, zigzag(i64::from(m[j]) - i64::from(prev[j])));
                        prev[j] = m[j];
                    }
                }
                sections.push(b);
            }
            if let Direction::Tag(tag) = &t.dir {
                let whole = match self.run.windows.iter().find(|w| w.tag == *tag) {
                    Some(w) => enc
                        .encode_plain(&w.hist)
                        .map_err(|e| WriteError(format!("the whole run of tag {}: {e}", tag_name(tag.as_deref()))))?,
                    None => enc.encode_plain(&Hist::empty(crate::hist::Layout::default_ns())).map_err(|e| WriteError(e.to_string()))?,
                };
                put(&mut head, whole.len() as u64);
                head.extend_from_slice(&whole);
                let g = self.groups.iter().find(|g| g.tag == *tag);
                let n = g.map_or(0, |g| g.spans.len());
                let mut b = Vec::new();
                put(&mut b, n as u64);
                for i in 0..n {
                    let bytes = g.expect("n > 0").encoded(i, &mut enc)?;
                    put(&mut b, bytes.len() as u64);
                    b.extend_from_slice(&bytes);
                }
                group_sections.push(b);
            }
        }
        // the windows, when carried: their index closes the groups part, then a section a group
        let (index, windows) = match &self.edges {
            Some(e) => {
                let (index, framed) = super::edges::write_parts(e, &mut enc, &pack)?;
                (Some(index), framed)
            }
            None => (None, Vec::new()),
        };
        let mut out = MAGIC.to_vec();
        put(&mut out, VERSION);
        let context = context.map(|(_, b)| b);
        for b in std::iter::once(&head).chain(&sections).chain(&context).chain(&group_sections).chain(&index) {
            let z = pack(b)?;
            put(&mut out, b.len() as u64);
            put(&mut out, z.len() as u64);
            out.extend_from_slice(&z);
        }
        for f in &windows {
            out.extend_from_slice(f);
        }
        Ok(out)
    }
}

impl Compact {
    /// The run's length in hours, from its first slot's start to its last slot's end.
    fn hours(&self) -> f64 {
        let slots = self.traces.iter().flat_map(|t| t.slots.first().into_iter().chain(t.slots.last()));
        let (lo, hi) = slots.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), s| (lo.min(s.start_s), hi.max(s.start_s + s.length_s)));
        if hi > lo {
            (hi - lo) / 3600.0
        } else {
            0.0
        }
    }
}

/// A zlib stream (RFC 1950) of `data` in stored blocks (RFC 1951 section 3.2.4: a header
/// byte, the length and its complement, then the bytes, at most 65,535 a block).
pub(super) fn stored_zlib(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + data.len() / 65_535 * 5 + 11);
    // CMF: deflate with a 32 KiB window; FLG: no dictionary, level 0, check bits for 31
    out.extend_from_slice(&[0x78, 0x01]);
    let mut blocks = data.chunks(65_535).peekable();
    if blocks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    }
    while let Some(block) = blocks.next() {
        out.push(u8::from(blocks.peek().is_none()));
        let n = block.len() as u16;
        out.extend_from_slice(&n.to_le_bytes());
        out.extend_from_slice(&(!n).to_le_bytes());
        out.extend_from_slice(block);
    }
    let mut a = adler2::Adler32::new();
    a.write_slice(data);
    out.extend_from_slice(&a.checksum().to_be_bytes());
    out
}
