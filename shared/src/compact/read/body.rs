//! Versions 1 and 2: one zlib stream holding everything.

use std::borrow::Cow;
use std::sync::Arc;

use super::{finish, group_spans, read_direction, read_header, read_level, read_whole};
use crate::codec::Decoder;
use crate::compact::varint::Reader;
use crate::compact::FormError;
use crate::compact::{levels_for, Compact, Encodings, LevelPoints, Store, TagGroups, Trace};
use crate::run::Window;
use crate::series::Direction;

/// Versions 1 and 2: one inflated body holding everything.
pub(super) fn read_body(r: &mut Reader, body: &Arc<Vec<u8>>, version: u64) -> Result<Compact, FormError> {
    let h = read_header(r)?;
    let ndirs = r.len()?;
    let mut traces = Vec::with_capacity(ndirs);
    let mut groups: Vec<TagGroups> = Vec::new();
    let mut whole: Vec<Window> = Vec::new();
    let mut total = 0u64;
    let mut dec = Decoder::new();
    for _ in 0..ndirs {
        let (dir, slots, values) = read_direction(r, &traces, &mut total)?;
        let n = slots.len();
        let levels =
            (0..levels_for(n)).map(|k| read_level(r, &slots, values.len(), k).map(LevelPoints::decoded)).collect::<Result<Vec<_>, _>>()?;
        if let Direction::Tag(tag) = &dir {
            let ng = r.varint()?;
            let g = h.group;
            if ng != n.div_ceil(g) as u64 {
                return Err(format!("{ng} groups for {n} slots; expected {} in groups of {g}", n.div_ceil(g)).into());
            }
            let mut at = Vec::with_capacity(n.div_ceil(g));
            for _ in 0..n.div_ceil(g) {
                let len = r.len()?;
                at.push((r.at, r.at + len));
                r.take(len)?;
            }
            let mut tg =
                TagGroups { tag: tag.clone(), spans: group_spans(&slots, g), store: Store::Encoded(Encodings { body: body.clone(), at }) };
            if version >= 2 {
                whole.extend(read_whole(r, &mut dec, tag, &slots)?);
            } else {
                // version 1 has no whole-run histograms: decode the groups (and check them) now
                let hists = (0..tg.spans.len()).map(|i| tg.hist(i).map(Cow::into_owned)).collect::<Result<Vec<_>, _>>()?;
                tg.store = Store::Decoded(hists);
                whole.extend(tg.whole(None)?);
            }
            groups.push(tg);
        }
        traces.push(Trace { dir, slots, values, levels });
    }
    if r.at != r.b.len() {
        return Err(format!("{} bytes follow the last direction", r.b.len() - r.at).into());
    }
    finish(h, traces, groups, whole, Vec::new())
}
