//! A tag's carried histograms: decoded, or V2 encodings decoded and checked when a range asks.

use std::borrow::Cow;
use std::sync::Arc;

use super::varint::Reader;
use super::FormError;
use super::{Encodings, Store, TagGroups, WriteError};
use crate::codec::{Decoder, Encoder};
use crate::hist::{Accumulator, Hist};
use crate::run::Window;
use crate::stats::tag_name;

impl Encodings {
    fn get(&self, i: usize) -> &[u8] {
        &self.body[self.at[i].0..self.at[i].1]
    }
}

impl TagGroups {
    pub(super) fn new(tag: Option<String>, windows: Vec<Window>) -> TagGroups {
        let spans = windows.iter().map(|w| (w.start_s, w.length_s, w.hist.count())).collect();
        TagGroups { tag, spans, store: Store::Decoded(windows.into_iter().map(|w| w.hist).collect()) }
    }

    /// The whole-run window of the tag: every group merged.
    pub(super) fn whole(&self, layout: Option<crate::hist::Layout>) -> Result<Option<Window>, FormError> {
        let (Some(first), Some(last)) = (self.spans.first(), self.spans.last()) else { return Ok(None) };
        let mut acc: Option<Accumulator> = None;
        for i in 0..self.spans.len() {
            let h = self.hist(i)?;
            acc.get_or_insert_with(|| Accumulator::new(layout.unwrap_or(h.layout()))).add(&h);
        }
        let hist = acc.map(Accumulator::finish).ok_or("no groups")?;
        Ok(Some(Window { start_s: first.0, length_s: last.0 + last.1 - first.0, tag: self.tag.clone(), hist }))
    }

    /// Group `i`, decoded; its count checked against its slots'.
    pub(super) fn hist(&self, i: usize) -> Result<Cow<'_, Hist>, FormError> {
        let h = match &self.store {
            Store::Decoded(h) => Cow::Borrowed(&h[i]),
            Store::Encoded(_) | Store::Packed { .. } => {
                let e = self.encoded_groups()?;
                Cow::Owned(
                    Decoder::new()
                        .decode(e.get(i))
                        .map_err(|e| format!("group {} of tag {}: {e}", i + 1, tag_name(self.tag.as_deref())))?,
                )
            }
        };
        if h.count() != self.spans[i].2 {
            return Err(format!(
                "group {} of tag {} holds {} I/Os; its slots hold {}",
                i + 1,
                tag_name(self.tag.as_deref()),
                h.count(),
                self.spans[i].2
            )
            .into());
        }
        Ok(h)
    }

    /// The encoded groups and where each is: `body[at[i].0..at[i].1]`.
    fn encoded_groups(&self) -> Result<&Encodings, FormError> {
        match &self.store {
            Store::Decoded(_) => Err("the groups are decoded".into()),
            Store::Encoded(e) => Ok(e),
            Store::Packed { packed, encoded } => {
                let packed = packed.get().ok_or_else(|| format!("the groups of tag {} are not loaded", tag_name(self.tag.as_deref())))?;
                let got = encoded.get_or_init(|| {
                    let body = packed.inflate()?;
                    let mut r = Reader { b: &body, at: 0 };
                    let n = r.len()?;
                    if n != self.spans.len() {
                        return Err(format!("{n} groups; its slots make {}", self.spans.len()).into());
                    }
                    let mut at = Vec::with_capacity(n);
                    for _ in 0..n {
                        let len = r.len()?;
                        at.push((r.at, r.at + len));
                        r.take(len)?;
                    }
                    if r.at != body.len() {
                        return Err(format!("{} bytes follow the last group", body.len() - r.at).into());
                    }
                    Ok(Encodings { body: Arc::new(body), at })
                });
                got.as_ref().map_err(|e| format!("the groups of tag {}: {e}", tag_name(self.tag.as_deref())).into())
            }
        }
    }

    /// The encoding of group `i`.
    pub(super) fn encoded(&self, i: usize, enc: &mut Encoder) -> Result<Cow<'_, [u8]>, WriteError> {
        match &self.store {
            Store::Decoded(h) => {
                enc.encode_plain(&h[i]).map(Cow::Owned).map_err(|e| WriteError(format!("group at {:.3} s: {e}", self.spans[i].0)))
            }
            _ => Ok(Cow::Borrowed(self.encoded_groups().map_err(|e| WriteError(e.0))?.get(i))),
        }
    }
}
