//! Versions 3 and 4: a head section, then each level's points and each tag's groups in
//! sections of their own, inflated when first needed.

use std::sync::{Arc, OnceLock};

use super::{finish, group_spans, read_direction, read_header, read_whole};
use crate::codec::Decoder;
use crate::compact::edges::read_index;
use crate::compact::varint::Reader;
use crate::compact::FormError;
use crate::compact::{dir_name, levels_for, sniff, Compact, CompactError, LevelPoints, Packed, Store, TagGroups, Trace, MAX_BODY};
use crate::series::Direction;

impl Packed {
    pub(in crate::compact) fn inflate(&self) -> Result<Vec<u8>, FormError> {
        let body = Decoder::new()
            .inflate_to_vec(&self.file[self.at..self.at + self.len], MAX_BODY, Some(self.size))
            .map_err(|e| format!("its compressed section (byte {} of the form) is damaged or cut ({e})", self.base + self.at))?;
        if body.len() != self.size {
            return Err(format!(
                "its section (byte {} of the form) inflates to {} bytes; the form states {}",
                self.base + self.at,
                body.len(),
                self.size
            )
            .into());
        }
        Ok(body)
    }
}

impl Compact {
    /// Bring the groups of a form read without them: `bytes` is the form's bytes from
    /// [`Compact::groups_at`] to its end, or the whole form (a server that does not answer
    /// range requests sends it). The two cannot be mistaken: the bytes from `groups_at` start
    /// with two varints and a zlib stream, whose first byte names its method (8, deflate) in
    /// its low four bits, so they never start with "nin". Each tag's section is checked when a
    /// range first decodes it, as in a form read whole.
    pub fn attach_groups(&self, bytes: &[u8]) -> Result<(), CompactError> {
        let at = self.groups_at.unwrap_or(0);
        let err = |offset: Option<usize>, message: String| CompactError { source_name: self.run.source.clone(), offset, message };
        let rest = if sniff(bytes) { bytes.get(at..).ok_or_else(|| err(None, "the form ends before its groups".into()))? } else { bytes };
        let file = Arc::new(rest.to_vec());
        let mut f = Reader { b: &file, at: 0 };
        let mut packs = Vec::with_capacity(self.groups.len());
        let mut budget = MAX_BODY;
        for g in &self.groups {
            let name = dir_name(&Direction::Tag(g.tag.clone()));
            let p = section(&mut f, &file, at, &mut budget).map_err(|m| err(None, format!("the groups of {name}: {m}")))?;
            packs.push(p);
        }
        self.read_windows_part(&mut f, &file, at, &mut budget, true).map_err(|m| err(None, m.0))?;
        if f.at != file.len() {
            return Err(err(None, format!("{} bytes follow the last section", file.len() - f.at)));
        }
        for (g, p) in self.groups.iter().zip(packs) {
            if let Store::Packed { packed, .. } = &g.store {
                let _ = packed.set(p);
            }
        }
        Ok(())
    }

    /// After the groups, when the form carries its recorded windows: the index, then (unless
    /// `may_end` and the bytes end there) each group's windows section. `file[0]` is byte
    /// `base` of the form.
    fn read_windows_part(
        &self,
        f: &mut Reader,
        file: &Arc<Vec<u8>>,
        base: usize,
        budget: &mut usize,
        may_end: bool,
    ) -> Result<(), FormError> {
        let Some(edges) = &self.edges else { return Ok(()) };
        let index = section(f, file, base, budget).and_then(|p| p.inflate()).map_err(|m| format!("the windows index: {m}"))?;
        let _ = self.windows_at.set(base + f.at);
        read_index(&index, edges, base + f.at).map_err(|m| format!("the windows index: {m}"))?;
        if may_end && f.at == file.len() {
            return Ok(());
        }
        for w in edges {
            for (i, g) in w.groups.iter().enumerate() {
                let p = section(f, file, base, budget)
                    .map_err(|m| format!("the windows of group {} of {}: {m}", i + 1, dir_name(&Direction::Tag(w.tag.clone()))))?;
                let _ = g.packed.set(p);
            }
        }
        Ok(())
    }
}

/// Version 3: a head section (header, every direction's slots, values and whole-run
/// histogram), then a section per level of each direction and one of each tag's groups,
/// each its own zlib stream, inflated when first needed. Errors carry the byte offset in the
/// inflated head, or none when the sections' framing is what is wrong.
pub(super) fn read_sections(bytes: &[u8], start: usize, version: u64, head_only: bool) -> Result<Compact, (Option<usize>, FormError)> {
    let file = Arc::new(bytes.to_vec());
    let mut f = Reader { b: &file, at: start };
    let mut budget = MAX_BODY;
    let mut section = |f: &mut Reader| section(f, &file, 0, &mut budget);
    let head = section(&mut f).and_then(|p| p.inflate()).map_err(|m| (None, format!("head: {m}").into()))?;
    let mut r = Reader { b: &head, at: 0 };
    let mut read_head = || -> Result<_, FormError> {
        let h = read_header(&mut r)?;
        let ndirs = r.len()?;
        let mut traces: Vec<Trace> = Vec::with_capacity(ndirs);
        let mut whole = Vec::new();
        let mut total = 0u64;
        let mut dec = Decoder::new();
        for _ in 0..ndirs {
            let (dir, slots, values) = read_direction(&mut r, &traces, &mut total)?;
            if let Direction::Tag(tag) = &dir {
                whole.extend(read_whole(&mut r, &mut dec, tag, &slots)?);
            }
            traces.push(Trace { dir, slots, values, levels: Vec::new() });
        }
        if r.at != r.b.len() {
            return Err(format!("{} bytes follow the last direction", r.b.len() - r.at).into());
        }
        Ok((h, traces, whole))
    };
    let (h, mut traces, whole) = read_head().map_err(|m| (Some(r.at), m))?;
    let mut groups = Vec::new();
    let mut groups_at = None;
    // version 3: each tag's groups after its levels; 4: every tag's after every level
    let mut cut = false;
    let mut context = Vec::new();
    for pass in [0, 1] {
        if pass == 1 && version >= 5 && h.context.is_some() {
            let body = section(&mut f).and_then(|p| p.inflate()).map_err(|m| (None, format!("the context records: {m}").into()))?;
            context = crate::compact::context::decode(&body, &h.meta.context_devices)
                .map_err(|m| (None, format!("the context records: {}", m.0).into()))?;
        }
        if pass == 1 && version >= 4 {
            groups_at = Some(f.at);
            // read without its groups: each tag's come with `attach_groups`
            cut = head_only && f.at == f.b.len();
        }
        for t in &mut traces {
            let name = dir_name(&t.dir);
            if pass == 0 {
                for k in 0..levels_for(t.slots.len()) {
                    let packed = section(&mut f).map_err(|m| (None, format!("level {k} of {name}: {m}").into()))?;
                    t.levels.push(LevelPoints { decoded: OnceLock::new(), packed: Some(packed) });
                }
            }
            if let Direction::Tag(tag) = &t.dir {
                if (pass == 0) == (version == 3) {
                    let packed = OnceLock::new();
                    if !cut {
                        let _ = packed.set(section(&mut f).map_err(|m| (None, format!("the groups of {name}: {m}").into()))?);
                    }
                    groups.push(TagGroups {
                        tag: tag.clone(),
                        spans: group_spans(&t.slots, h.group),
                        store: Store::Packed { packed, encoded: OnceLock::new() },
                    });
                }
            }
        }
    }
    let mut c = finish(h, traces, groups, whole, context).map_err(|m| (None, m))?;
    c.groups_at = groups_at;
    if !cut {
        c.read_windows_part(&mut f, &file, 0, &mut budget, head_only).map_err(|m| (None, m))?;
    }
    if f.at != f.b.len() {
        return Err((None, format!("{} bytes follow the last section", f.b.len() - f.at).into()));
    }
    Ok(c)
}

/// The next section's framing at `f`, its stream taken (not inflated): the inflated size
/// (within what is left of `budget`), the compressed length and the stream. `file[0]` is byte
/// `base` of the form.
pub(in crate::compact) fn section(f: &mut Reader, file: &Arc<Vec<u8>>, base: usize, budget: &mut usize) -> Result<Packed, FormError> {
    let size = f.varint()?;
    if size > *budget as u64 {
        return Err(format!("its sections inflate to more than {} MiB", MAX_BODY >> 20).into());
    }
    *budget -= size as usize;
    let len = f.len()?;
    let at = f.at;
    f.take(len)?;
    Ok(Packed { file: file.clone(), at, len, size: size as usize, base })
}
