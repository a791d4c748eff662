//! The reader of every version: the framing and the fields versions share (header,
//! directions, levels' points, whole-run histograms); versions 1 and 2 read one inflated body
//! ([`body`]), versions 3 and 4 a section at a time ([`sections`]).

mod body;
mod sections;

pub(super) use sections::section;

use std::sync::Arc;

use body::read_body;
use sections::read_sections;

use serde_json::Value;

use super::varint::{unzigzag, Reader};
use super::{levels_for, point_has_ios, sniff, Compact, CompactError, TagGroups, Trace, MAGIC, MAX_BODY, METRICS, VERSION};
use crate::codec::Decoder;
use crate::compact::FormError;
use crate::meta::RunMeta;
use crate::pyramid::Slot;
use crate::run::{is_direction, Run, Warning, Window};
use crate::series::Direction;
use crate::stats::tag_name;

impl Compact {
    /// Read a compact form written by [`Compact::write`] (any version).
    pub fn read(source_name: &str, bytes: &[u8]) -> Result<Compact, CompactError> {
        read_form(source_name, bytes, false)
    }

    /// [`Compact::read`], but a form of version 4 may also end where its groups begin (the
    /// bytes before [`Compact::groups_at`]): everything but the groups is read, and
    /// [`Compact::range`] fails until [`Compact::attach_groups`] brings them. A form that
    /// carries its recorded windows may also end where they begin ([`Compact::windows_at`]):
    /// [`Compact::attach_windows`] brings those a range needs.
    pub fn read_head(source_name: &str, bytes: &[u8]) -> Result<Compact, CompactError> {
        read_form(source_name, bytes, true)
    }
}

/// [`Compact::read`], and with `head_only` [`Compact::read_head`].
fn read_form(source_name: &str, bytes: &[u8], head_only: bool) -> Result<Compact, CompactError> {
    let err = |offset: Option<usize>, message: String| CompactError { source_name: source_name.to_string(), offset, message };
    if !sniff(bytes) {
        return Err(err(None, "does not start with \"nines-compact\"; expected a compact form written by nines".into()));
    }
    let mut head = Reader { b: &bytes[MAGIC.len()..], at: 0 };
    let version = head.varint().map_err(|m| err(None, m.0))?;
    if !(1..=VERSION).contains(&version) {
        return Err(err(None, format!("version {version}; this nines reads versions 1 to {VERSION}: use a newer nines")));
    }
    if version >= 3 {
        return read_sections(bytes, MAGIC.len() + head.at, version, head_only).map_err(|(offset, m)| err(offset, m.0));
    }
    // version 2 states the inflated size: the body is inflated into a buffer of that size
    let size = match version {
        1 => None,
        _ => Some(head.varint().map_err(|m| err(None, m.0))?).filter(|&n| n <= MAX_BODY as u64).map(|n| n as usize),
    };
    if version >= 2 && size.is_none() {
        return Err(err(None, format!("states a body of more than {} MiB", MAX_BODY >> 20)));
    }
    let body = Decoder::new()
        .inflate_to_vec(&bytes[MAGIC.len() + head.at..], MAX_BODY, size)
        .map_err(|e| err(None, format!("the compressed body is damaged or cut ({e})")))?;
    if let Some(n) = size.filter(|&n| n != body.len()) {
        return Err(err(None, format!("the body inflates to {} bytes; the form states {n}", body.len())));
    }
    let body = Arc::new(body);
    let mut r = Reader { b: &body, at: 0 };
    read_body(&mut r, &body, version).map_err(|m| err(Some(r.at), m.0))
}

/// The header's fields: name, source, start time, metadata, warnings, group, windows.
struct Header {
    name: String,
    source: String,
    start_time: Option<f64>,
    meta: RunMeta,
    warnings: Vec<Warning>,
    group: usize,
    windows: usize,
    /// The windows a context record spans, when the form carries context records.
    context: Option<usize>,
    /// The form carries its recorded windows (version 6).
    edges: bool,
}

fn read_header(r: &mut Reader) -> Result<Header, FormError> {
    let hlen = r.len()?;
    let header: Value = serde_json::from_slice(r.take(hlen)?).map_err(|e| format!("header is not JSON ({e})"))?;
    let field = |k: &str| header.get(k).ok_or_else(|| format!("header has no \"{k}\""));
    let text = |k: &str| field(k)?.as_str().map(str::to_string).ok_or_else(|| format!("header \"{k}\" is not text"));
    let name = text("name")?;
    let source = text("source")?;
    let start_time = match field("start_time")? {
        Value::Null => None,
        v => Some(v.as_f64().filter(|t| t.is_finite()).ok_or("header \"start_time\" is not a number")?),
    };
    let meta = field("meta")?.as_object().cloned().ok_or("header \"meta\" is not an object")?;
    let meta = RunMeta::from_map(meta).map_err(|e| format!("header \"meta\": {}", e.0))?;
    let warnings = field("warnings")?
        .as_array()
        .ok_or("header \"warnings\" is not a list")?
        .iter()
        .map(|w| match w.as_array().map(Vec::as_slice) {
            Some([l, Value::String(m)]) if l.is_null() || l.is_u64() => {
                Ok(Warning { line: l.as_u64().map(|l| l as usize), message: m.clone() })
            }
            _ => Err("header \"warnings\" has an entry that is not [line, text]".to_string()),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let group = field("group")?
        .as_u64()
        .filter(|&g| g >= 1 && g <= u64::from(u32::MAX))
        .ok_or("header \"group\" is not a count of windows from 1 to 2^32-1")? as usize;
    let windows = field("windows")?.as_u64().ok_or("header \"windows\" is not a count")? as usize;
    let context = match header.get("context") {
        None => None,
        Some(v) => Some(
            v.as_u64()
                .filter(|&k| k >= 1 && k <= u64::from(u32::MAX))
                .ok_or("header \"context\" is not a count of windows from 1 to 2^32-1")? as usize,
        ),
    };
    let edges = match header.get("edges") {
        None => false,
        Some(v) => v.as_bool().ok_or("header \"edges\" is not true or false")?,
    };
    Ok(Header { name, source, start_time, meta, warnings, group, windows, context, edges })
}

/// A direction's kind, slots, values and level count, checked; `total` gains a tag's I/Os.
fn read_direction(r: &mut Reader, traces: &[Trace], total: &mut u64) -> Result<(Direction, Vec<Slot>, Vec<u64>), FormError> {
    let dir = match r.varint()? {
        0 => Direction::All,
        1 => Direction::Tag(None),
        2 => {
            let n = r.len()?;
            let s = std::str::from_utf8(r.take(n)?).map_err(|_| "a tag is not UTF-8".to_string())?;
            if !crate::archive::valid_tag(s) {
                return Err(format!("tag {s:?} is not a valid tag").into());
            }
            Direction::Tag(Some(s.to_string()))
        }
        k => return Err(format!("direction kind {k}; expected 0, 1 or 2").into()),
    };
    if traces.iter().any(|t: &Trace| t.dir == dir) {
        return Err("a direction is listed twice".into());
    }
    let n = r.len()?;
    let starts = r.column(n)?;
    let lengths = r.column(n)?;
    let mut slots = Vec::with_capacity(n);
    let mut cum = 0u64;
    for (i, (s, l)) in starts.into_iter().zip(lengths).enumerate() {
        let count = r.varint()?;
        if !s.is_finite() || !l.is_finite() || l < 0.0 {
            return Err(format!("slot {} has start {s} and length {l}; expected finite numbers, length >= 0", i + 1).into());
        }
        if slots.last().is_some_and(|p: &Slot| p.start_s > s) {
            return Err(format!("slot {} starts before the one before it", i + 1).into());
        }
        slots.push(Slot { start_s: s, length_s: l, ios_before: cum, count, windows: Vec::new() });
        cum = crate::hist::add_counts(cum, count).map_err(|_| "the slots' I/O counts add up to more than 2^63-1".to_string())?;
    }
    if matches!(dir, Direction::Tag(_)) {
        *total = crate::hist::add_counts(*total, cum).map_err(|_| "the run's I/O counts add up to more than 2^63-1".to_string())?;
    }
    let nv = r.len()?;
    let mut values = Vec::with_capacity(nv);
    let mut prev = 0u64;
    for _ in 0..nv {
        let d = r.varint()?;
        if !values.is_empty() && d == 0 {
            return Err("latency values repeat; expected them ascending".into());
        }
        prev = prev.checked_add(d).ok_or("a latency value is past 2^64")?;
        values.push(prev);
    }
    let nl = r.varint()?;
    if nl != levels_for(n) as u64 {
        return Err(format!("{nl} levels for {n} slots; expected {}", levels_for(n)).into());
    }
    Ok((dir, slots, values))
}

/// Level `k`'s points: for each point with I/Os, METRICS ZigZag deltas of indices into the
/// `nv` values, checked (within the values, ascending from median to max).
pub(super) fn read_level(r: &mut Reader, slots: &[Slot], nv: usize, k: usize) -> Result<Vec<u32>, FormError> {
    let points = slots.len().div_ceil(1 << k);
    let mut level = vec![0u32; points * METRICS];
    let mut prev = [0i64; METRICS];
    for i in 0..points {
        if !point_has_ios(slots, k, i) {
            continue;
        }
        let m = &mut level[i * METRICS..(i + 1) * METRICS];
        for j in 0..METRICS {
            let d = unzigzag(r.varint()?);
            let v = prev[j]
                .checked_add(d)
                .filter(|v| (0..nv as i64).contains(v))
                .ok_or_else(|| format!("level {k} point {}: a latency index outside the {nv} values", i + 1))?;
            prev[j] = v;
            m[j] = v as u32;
        }
        if m.windows(2).any(|p| p[0] > p[1]) {
            return Err(format!("level {k} point {}: median, levels and max are not in ascending order", i + 1).into());
        }
    }
    Ok(level)
}

/// Start, length and I/Os of each group of `g` slots.
fn group_spans(slots: &[Slot], g: usize) -> Vec<(f64, f64, u64)> {
    slots
        .chunks(g)
        .map(|part| {
            let (first, last) = (&part[0], &part[part.len() - 1]);
            (first.start_s, last.start_s + last.length_s - first.start_s, part.iter().map(|s| s.count).sum())
        })
        .collect()
}

/// A tag's whole-run histogram (V2, length first), checked against its slots.
fn read_whole(r: &mut Reader, dec: &mut Decoder, tag: &Option<String>, slots: &[Slot]) -> Result<Option<Window>, FormError> {
    let len = r.len()?;
    let at = r.at;
    let hist = dec.decode(r.take(len)?).map_err(|e| format!("the whole run of tag {} (byte {at}): {e}", tag_name(tag.as_deref())))?;
    let cum: u64 = slots.iter().map(|s| s.count).sum();
    if hist.count() != cum {
        return Err(format!("the whole run of tag {} holds {} I/Os; its slots hold {cum}", tag_name(tag.as_deref()), hist.count()).into());
    }
    Ok(match (slots.first(), slots.last()) {
        (Some(a), Some(b)) => Some(Window { start_s: a.start_s, length_s: b.start_s + b.length_s - a.start_s, tag: tag.clone(), hist }),
        _ => None,
    })
}

/// The checks across directions, then the form.
fn finish(
    h: Header,
    traces: Vec<Trace>,
    groups: Vec<TagGroups>,
    whole: Vec<Window>,
    context: Vec<crate::context::WindowContext>,
) -> Result<Compact, FormError> {
    if let Some(all) = traces.iter().find(|t| t.dir == Direction::All) {
        let dirs: u64 = traces
            .iter()
            .filter(|t| matches!(&t.dir, Direction::Tag(x) if is_direction(x.as_deref())))
            .map(|t| t.slots.iter().map(|s| s.count).sum::<u64>())
            .sum();
        let n: u64 = all.slots.iter().map(|s| s.count).sum();
        if n != dirs {
            return Err(format!("\"all\" holds {n} I/Os; its directions hold {dirs}").into());
        }
    }
    let run = Run { name: h.name, source: h.source, start_time: h.start_time, meta: h.meta, windows: whole, warnings: h.warnings, context };
    let context_group = h.context.unwrap_or(1);
    let edges = h.edges.then(|| {
        let spans: Vec<_> = groups.iter().map(|g| g.spans.clone()).collect();
        let tags: Vec<_> = groups.iter().map(|g| g.tag.clone()).collect();
        super::edges::unlocated(&spans, &tags)
    });
    Ok(Compact {
        run,
        group: h.group,
        windows: h.windows,
        context_group,
        traces,
        groups,
        groups_at: None,
        edges,
        windows_at: std::sync::OnceLock::new(),
    })
}
