//! The recorded windows a form may carry beside its groups (version 6), so that a range whose
//! edges cut a group is exact at any window edge: the groups wholly inside it, plus the
//! windows of the (at most two) groups it cuts that start in it, equal what the recorded run
//! gives for the same range (`nines stats --from --to`).
//!
//! Each tag's windows are kept a group to a section, after every tag's groups, with an index
//! of the sections' lengths as the last section of the groups part: a page that fetched the
//! groups knows where the windows of each group are in the file, and fetches only the two
//! groups a range cuts (an HTTP range request each, RFC 9110 section 14).

use std::sync::{Arc, OnceLock};

use super::varint::{put, Reader};
use super::{dir_name, Compact, CompactError, FormError, Packed, WriteError};
use crate::codec::{Decoder, Encoder};
use crate::hist::Hist;
use crate::pyramid::Slot;
use crate::run::Window;
use crate::series::Direction;
use crate::stats::tag_name;

/// A tag's recorded windows, a group to a section.
#[derive(Clone, Debug)]
pub(super) struct TagWindows {
    pub(super) tag: Option<String>,
    pub(super) groups: Vec<EdgeGroup>,
}

/// The recorded windows of one group: decoded (a form built here), or its section of the form
/// (inflated and checked when a range first needs it), or where that section is in the file
/// (a form read without it: [`Compact::attach_windows`] brings it).
#[derive(Clone, Debug, Default)]
pub(super) struct EdgeGroup {
    /// The section's bytes in the form, `(at, len)`: known once the index is read.
    pub(super) at: OnceLock<(usize, usize)>,
    pub(super) packed: OnceLock<Packed>,
    pub(super) hists: OnceLock<Result<Arc<Vec<Hist>>, FormError>>,
}

impl PartialEq for TagWindows {
    fn eq(&self, other: &TagWindows) -> bool {
        self.tag == other.tag
            && self.groups.len() == other.groups.len()
            && self.groups.iter().zip(&other.groups).all(|(a, b)| a.hists.get().is_none() || b.hists.get().is_none() || a.hists == b.hists)
    }
}

/// A windows section the form does not hold yet: tag `tag` (index among the carried tags),
/// group `group`, at bytes `bytes` of the form.
#[derive(Clone, Debug, PartialEq)]
pub struct EdgeFetch {
    pub tag: usize,
    pub group: usize,
    pub bytes: std::ops::Range<usize>,
}

impl EdgeGroup {
    pub(super) fn decoded(hists: Vec<Hist>) -> EdgeGroup {
        EdgeGroup { at: OnceLock::new(), packed: OnceLock::new(), hists: OnceLock::from(Ok(Arc::new(hists))) }
    }

    fn held(&self) -> bool {
        self.hists.get().is_some() || self.packed.get().is_some()
    }

    /// The group's windows, decoded and checked against its slots (`first` the first slot's
    /// index among the tag's).
    fn hists(&self, slots: &[Slot], what: &dyn Fn() -> String) -> Result<Arc<Vec<Hist>>, FormError> {
        let got = self.hists.get_or_init(|| {
            let packed = self.packed.get().ok_or("not loaded")?;
            let body = packed.inflate()?;
            let mut r = Reader { b: &body, at: 0 };
            let n = r.len()?;
            if n != slots.len() {
                return Err(format!("{n} windows; its slots make {}", slots.len()).into());
            }
            let mut dec = Decoder::new();
            let mut out = Vec::with_capacity(n);
            for (i, s) in slots.iter().enumerate() {
                let len = r.len()?;
                let at = r.at;
                let h = dec.decode(r.take(len)?).map_err(|e| format!("window {} (byte {at} of its section): {e}", i + 1))?;
                if h.count() != s.count {
                    return Err(format!("window {} holds {} I/Os; its slot holds {}", i + 1, h.count(), s.count).into());
                }
                out.push(h);
            }
            if r.at != body.len() {
                return Err(format!("{} bytes follow the last window", body.len() - r.at).into());
            }
            Ok(Arc::new(out))
        });
        got.clone().map_err(|e| format!("the windows of {}: {}", what(), e.0).into())
    }
}

impl Compact {
    /// Whether the form carries its recorded windows (a range is exact at any window edge).
    pub fn carries_windows(&self) -> bool {
        self.edges.is_some()
    }

    /// The recorded windows a range is made of, at its edges: 1 when the form carries its
    /// windows (or carries every window as a group), else its group (a range takes the
    /// groups that start in it). Pages snap a brushed range to these.
    pub fn range_group(&self) -> usize {
        if self.carries_windows() {
            1
        } else {
            self.group.max(1)
        }
    }

    /// Where the windows begin in the bytes this form was read from, once known (the groups
    /// read): a page fetches the groups up to here, and each window section on its own.
    pub fn windows_at(&self) -> Option<usize> {
        self.windows_at.get().copied()
    }

    /// The form without its recorded windows (ranges then count the groups that start in
    /// them).
    pub fn without_windows(mut self) -> Compact {
        self.edges = None;
        self
    }

    /// The form with its run's recorded windows beside the groups (see the module's
    /// documentation): `run` is the run the form was built from.
    pub(super) fn with_windows_of(mut self, hists: Vec<(Option<String>, Vec<Hist>)>) -> Compact {
        let group = self.group;
        self.edges = Some(
            hists
                .into_iter()
                .map(|(tag, hs)| {
                    let mut it = hs.into_iter();
                    let mut groups = Vec::new();
                    loop {
                        let part: Vec<Hist> = it.by_ref().take(group).collect();
                        if part.is_empty() {
                            break;
                        }
                        groups.push(EdgeGroup::decoded(part));
                    }
                    TagWindows { tag, groups }
                })
                .collect(),
        );
        self
    }

    /// The window sections a range of `[from, to)` seconds needs to be exact and the form
    /// does not hold yet (none when it carries no windows: the range then counts groups).
    pub fn windows_missing(&self, from: Option<f64>, to: Option<f64>) -> Vec<EdgeFetch> {
        let Some(edges) = &self.edges else { return Vec::new() };
        let mut out = Vec::new();
        for (t, (g, w)) in self.groups.iter().zip(edges).enumerate() {
            for i in cut_groups(&g.spans, self.slots_of(&g.tag), self.group, from, to) {
                let Some(e) = w.groups.get(i) else { continue };
                if !e.held() {
                    if let Some(&(at, len)) = e.at.get() {
                        out.push(EdgeFetch { tag: t, group: i, bytes: at..at + len });
                    }
                }
            }
        }
        out
    }

    /// Bring a window section [`Compact::windows_missing`] named: `bytes` are its bytes.
    pub fn attach_windows(&self, fetch: &EdgeFetch, bytes: &[u8]) -> Result<(), CompactError> {
        let err = |message: String| CompactError { source_name: self.run.source.clone(), offset: None, message };
        let e = self.edges.as_ref().and_then(|w| w.get(fetch.tag)).and_then(|w| w.groups.get(fetch.group));
        let e = e.ok_or_else(|| err(format!("no windows section {} of tag {}", fetch.group + 1, fetch.tag + 1)))?;
        // a server that does not answer range requests sends the whole form
        let bytes = match bytes.get(fetch.bytes.clone()) {
            Some(part) if super::sniff(bytes) => part,
            _ => bytes,
        };
        let file = Arc::new(bytes.to_vec());
        let mut f = Reader { b: &file, at: 0 };
        let mut budget = super::MAX_BODY;
        let p = super::read::section(&mut f, &file, fetch.bytes.start, &mut budget)
            .map_err(|m| err(format!("the windows of group {}: {}", fetch.group + 1, m.0)))?;
        if f.at != file.len() {
            return Err(err(format!("{} bytes follow the windows of group {}", file.len() - f.at, fetch.group + 1)));
        }
        let _ = e.packed.set(p);
        Ok(())
    }

    /// The slots of a tag's trace.
    pub(super) fn slots_of(&self, tag: &Option<String>) -> &[Slot] {
        self.traces.iter().find(|t| t.dir == Direction::Tag(tag.clone())).map_or(&[], |t| &t.slots[..])
    }

    /// Tag `t`'s windows of group `i` that start in `[lo, hi)`, when the form carries them.
    pub(super) fn edge_windows(&self, t: usize, i: usize, lo: f64, hi: f64) -> Option<Result<Vec<Window>, CompactError>> {
        let w = self.edges.as_ref()?.get(t)?;
        let g = &self.groups[t];
        let slots = self.slots_of(&g.tag);
        let part = &slots[(i * self.group).min(slots.len())..((i + 1) * self.group).min(slots.len())];
        let what = || format!("group {} of {}", i + 1, dir_name(&Direction::Tag(g.tag.clone())));
        let hists = match w.groups.get(i)?.hists(part, &what) {
            Ok(h) => h,
            Err(e) => return Some(Err(CompactError { source_name: self.run.source.clone(), offset: None, message: e.0 })),
        };
        Some(Ok(part
            .iter()
            .zip(hists.iter())
            .filter(|(s, _)| s.start_s >= lo && s.start_s < hi)
            .map(|(s, h)| Window { start_s: s.start_s, length_s: s.length_s, tag: g.tag.clone(), hist: h.clone() })
            .collect()))
    }
}

/// The groups a range `[from, to)` cuts: some of their slots start in it, some not.
fn cut_groups(spans: &[(f64, f64, u64)], slots: &[Slot], group: usize, from: Option<f64>, to: Option<f64>) -> Vec<usize> {
    let (lo, hi) = (from.unwrap_or(f64::NEG_INFINITY), to.unwrap_or(f64::INFINITY));
    (0..spans.len()).filter(|&i| is_cut(slots, group, i, lo, hi)).collect()
}

/// Whether group `i` of a tag is cut by `[lo, hi)` (see [`cut_groups`]).
pub(super) fn is_cut(slots: &[Slot], group: usize, i: usize, lo: f64, hi: f64) -> bool {
    let part = &slots[(i * group).min(slots.len())..((i + 1) * group).min(slots.len())];
    let inside = part.iter().filter(|s| s.start_s >= lo && s.start_s < hi).count();
    inside > 0 && inside < part.len()
}

/// The windows part of a form: the index section's body (per tag, its number of groups and
/// each group's section length in the file), and each group's section body, in order.
pub(super) fn write_parts(
    edges: &[TagWindows],
    enc: &mut Encoder,
    pack: &impl Fn(&[u8]) -> Result<Vec<u8>, WriteError>,
) -> Result<(Vec<u8>, Vec<Vec<u8>>), WriteError> {
    let mut index = Vec::new();
    let mut framed = Vec::new();
    for w in edges {
        put(&mut index, w.groups.len() as u64);
        for (i, g) in w.groups.iter().enumerate() {
            let body = match g.hists.get() {
                Some(Ok(hs)) => {
                    let mut b = Vec::new();
                    put(&mut b, hs.len() as u64);
                    for h in hs.iter() {
                        let e =
                            enc.encode_plain(h).map_err(|e| WriteError(format!("window of tag {}: {e}", tag_name(w.tag.as_deref()))))?;
                        put(&mut b, e.len() as u64);
                        b.extend_from_slice(&e);
                    }
                    b
                }
                Some(Err(e)) => return Err(WriteError(e.0.clone())),
                None => match g.packed.get() {
                    Some(p) => p.inflate().map_err(|e| WriteError(e.0))?,
                    None => {
                        return Err(WriteError(format!(
                            "the windows of group {} of tag {} are not loaded",
                            i + 1,
                            tag_name(w.tag.as_deref())
                        )))
                    }
                },
            };
            let z = pack(&body)?;
            let mut f = Vec::with_capacity(z.len() + 12);
            put(&mut f, body.len() as u64);
            put(&mut f, z.len() as u64);
            f.extend_from_slice(&z);
            put(&mut index, f.len() as u64);
            framed.push(f);
        }
    }
    Ok((index, framed))
}

/// Each tag's windows groups, not yet located (a form's head read: `spans` per tag).
pub(super) fn unlocated(spans: &[Vec<(f64, f64, u64)>], tags: &[Option<String>]) -> Vec<TagWindows> {
    spans
        .iter()
        .zip(tags)
        .map(|(s, tag)| TagWindows { tag: tag.clone(), groups: (0..s.len()).map(|_| EdgeGroup::default()).collect() })
        .collect()
}

/// Read the index section's body into `edges`: where each group's windows section is, from
/// byte `at` of the form on (where the windows begin). Returns where they end.
pub(super) fn read_index(body: &[u8], edges: &[TagWindows], mut at: usize) -> Result<usize, FormError> {
    let mut r = Reader { b: body, at: 0 };
    for w in edges {
        let n = r.len()?;
        if n != w.groups.len() {
            return Err(
                format!("the windows index lists {n} groups of tag {}; it has {}", tag_name(w.tag.as_deref()), w.groups.len()).into()
            );
        }
        for g in &w.groups {
            // the length of a section further on in the file, not in this body
            let len = usize::try_from(r.varint()?).map_err(|_| "a windows section is longer than memory")?;
            let _ = g.at.set((at, len));
            at = at.checked_add(len).ok_or("the windows index is past any file")?;
        }
    }
    if r.at != body.len() {
        return Err(format!("{} bytes follow the windows index", body.len() - r.at).into());
    }
    Ok(at)
}
