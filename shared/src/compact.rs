//! The compact form of a run: what the charts of a report, a site or the viewer draw, exactly,
//! in a size that does not grow with the I/O rate, and windows merged in groups of a chosen
//! size for everything that needs histograms of a time range.
//!
//! A recorded run is one latency histogram per window and direction. A chart never needs them
//! all: the runtime QoS chart of the SDC talk "Latency is more than just a number" draws per
//! point the median, some levels of nines, the max and the count of a group of adjacent
//! windows. Those numbers are computed here, exactly (from merged histograms, as
//! [`crate::pyramid::Pyramid`] merges them), for every power-of-two group of windows of every
//! direction, so that every point the runtime and rate charts can draw at any zoom is stored
//! and equals what the full run gives. Histograms are kept only per group of `group` adjacent
//! windows of each tag: they give the 1-CDF, the latency histogram and the stats of the whole
//! run exactly, and of any range whose edges fall on group edges.
//!
//! A reader inflates and decodes only the head (slots, values and whole-run histograms): each
//! level's points and each tag's groups are sections of their own, inflated the first time
//! they are asked for ([`Trace::point`], [`Compact::range`]), so a day-long run opens in the
//! time and memory of the points on screen, not of its thousands of points and histograms.
//! The groups come last (version 4): a page can fetch the bytes before them
//! ([`Compact::groups_at`], an HTTP range request, RFC 9110 section 14), draw every chart and
//! the whole run's table from them ([`Compact::read_head`]), and fetch the groups when a
//! range first needs them ([`Compact::attach_groups`]).
//!
//! # Format (version 4)
//!
//! ```text
//! "nines-compact\n"  (14 bytes)   then the version as a varint (3), then sections: each the
//!                                 inflated size (varint), the compressed length (varint)
//!                                 and a zlib stream (RFC 1950)
//! section 1, the head:
//!   header    varint length + UTF-8 JSON {"name","source","start_time","meta","warnings",
//!             "group","windows"}: group is the windows a carried histogram merges
//!   ndirs     varint; then per direction (each tag in order of first appearance, then "all"
//!             when the run has direction tags):
//!     kind      0 = all, 1 = untagged, 2 = tag (varint length + UTF-8 name)
//!     nslots    varint: the recorded windows of the direction (for "all": windows of every
//!               direction starting together count as one)
//!     starts    seconds: a column of nslots numbers (see below)
//!     lengths   seconds: a column of nslots numbers
//!     counts    nslots varints (I/Os per slot)
//!     values    varint n, then n varints: distinct latencies (ns), ascending, delta-coded
//!     levels    varint: the number of levels, ceil(log2(nslots)) + 1
//!     whole     only for tags: the merge of every slot, a varint length and a V2 encoding
//! then per direction, in the head's order: one section per level k (ceil(nslots / 2^k)
//!   points, point i the exact merge of slots i*2^k..): for each non-empty point, in order,
//!   11 indices into `values` (median, 1 to 9 nines, max), each ZigZag delta-coded against
//!   the same metric of the previous non-empty point of the level;
//! then per tag, in the head's order, a section of its groups: varint ceil(nslots / group),
//!   then each histogram a varint length and an uncompressed HdrHistogram V2 encoding;
//!   histogram i merges slots i*group..
//! a column:  byte 0 and ZigZag delta-coded varints of whole microseconds (when every number
//!            is one exactly), or byte 1 and 8 little-endian bytes a number (IEEE 754 bits)
//! ```
//!
//! Version 3 is the same with each tag's groups section right after its levels' sections.
//! Version 2 is one zlib stream (after the version, the inflated size as a varint) of the
//! head's fields with, per direction, its levels' points after `levels` and, for tags, its
//! groups before `whole`; version 1 is the same without the size and without `whole`.
//!
//! Varints are LEB128. Counts, I/Os before a point and its length follow from the slots;
//! support of a level from the count (as in `nines stats`). Every reader check fails with an
//! error naming the source and the byte offset in the inflated head or body, or the level or
//! group and the offset in its section, never a panic.

use std::borrow::Cow;
use std::io::Write as _;
use std::sync::{Arc, OnceLock};

use serde_json::{json, Value};

use crate::codec::{Decoder, Encoder};
use crate::hist::{Accumulator, Hist};
use crate::meta::RunMeta;
use crate::pyramid::{Axis, Pyramid, Slot};
use crate::quantile::{Level, Support};
use crate::run::{is_direction, Run, Warning, Window};
use crate::series::{Direction, SeriesPoint};
use crate::stats::tag_name;

/// The first bytes of a compact form.
pub const MAGIC: &[u8; 14] = b"nines-compact\n";
/// The version this crate writes. Versions 1 (no whole-run histograms), 2 (one zlib stream
/// for everything) and 3 (each tag's groups after its levels) are still read.
pub const VERSION: u64 = 4;
/// Metrics per point: median, 1 to 9 nines, max.
pub const METRICS: usize = 11;
/// The most the body of a compact form inflates to (a 24-hour run of 1 s windows is some tens
/// of megabytes).
pub const MAX_BODY: usize = 1 << 30;

/// Is this a compact form (by its first bytes)?
pub fn sniff(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// One direction's slots and its points at every power-of-two grouping.
#[derive(Clone, Debug)]
pub struct Trace {
    pub dir: Direction,
    /// The direction's recorded windows (for "all", the windows that start together merged).
    /// `windows` of each slot is empty: a compact form has no per-window histograms.
    slots: Vec<Slot>,
    /// Distinct latencies, ascending.
    values: Vec<u64>,
    /// Per level: METRICS indices into `values` per point (zeros for empty points).
    levels: Vec<LevelPoints>,
}

/// Equal when they hold the same points, decoded or not.
impl PartialEq for Trace {
    fn eq(&self, other: &Trace) -> bool {
        self.dir == other.dir
            && self.slots == other.slots
            && self.values == other.values
            && self.levels.len() == other.levels.len()
            && (0..self.levels.len()).all(|k| self.level(k) == other.level(k))
    }
}

/// A level's points: decoded, or (read from version 3 on) its section of the form, inflated
/// and checked the first time a point of it is asked for. A page opening a long run decodes
/// the coarse levels it draws, not the per-window points of every direction.
#[derive(Clone, Debug)]
struct LevelPoints {
    decoded: OnceLock<Result<Vec<u32>, String>>,
    packed: Option<Packed>,
}

impl LevelPoints {
    fn decoded(points: Vec<u32>) -> LevelPoints {
        LevelPoints { decoded: OnceLock::from(Ok(points)), packed: None }
    }
}

/// A section of a form of version 3 on: a zlib stream at `file[at..at + len]` that inflates
/// to `size` bytes; `file[0]` is byte `base` of the form.
#[derive(Clone, Debug)]
struct Packed {
    file: Arc<Vec<u8>>,
    at: usize,
    len: usize,
    size: usize,
    base: usize,
}

impl Packed {
    fn inflate(&self) -> Result<Vec<u8>, String> {
        let body = Decoder::new()
            .inflate_to_vec(&self.file[self.at..self.at + self.len], MAX_BODY, Some(self.size))
            .map_err(|e| format!("its compressed section (byte {} of the form) is damaged or cut ({e})", self.base + self.at))?;
        if body.len() != self.size {
            return Err(format!(
                "its section (byte {} of the form) inflates to {} bytes; the form states {}",
                self.base + self.at,
                body.len(),
                self.size
            ));
        }
        Ok(body)
    }
}

/// A run in compact form.
#[derive(Clone, Debug)]
pub struct Compact {
    /// Name, source, start time, metadata and warnings of the run, with one window per tag:
    /// the merge of all its windows, spanning the run (its whole-run statistics, 1-CDF and
    /// histogram). The carried groups are [`Compact::range`]'s.
    pub run: Run,
    /// The recorded windows (of a tag) a carried histogram merges.
    pub group: usize,
    /// Windows the run recorded (all tags).
    pub windows: usize,
    pub traces: Vec<Trace>,
    /// Per tag, its windows merged in groups of `group`.
    groups: Vec<TagGroups>,
    /// Where the groups begin in the bytes read (version 4).
    groups_at: Option<usize>,
}

/// Equal when they hold the same run, points and groups (where the groups were in the bytes
/// read does not count).
impl PartialEq for Compact {
    fn eq(&self, other: &Compact) -> bool {
        self.run == other.run
            && self.group == other.group
            && self.windows == other.windows
            && self.traces == other.traces
            && self.groups == other.groups
    }
}

/// A tag's carried histograms.
#[derive(Clone, Debug)]
struct TagGroups {
    tag: Option<String>,
    /// Start, length (seconds) and I/Os of each group.
    spans: Vec<(f64, f64, u64)>,
    store: Store,
}

/// Histograms decoded (a form built here, or one of version 1), or as read: V2 encodings
/// in the inflated body (shared by every tag, not copied), group i at `body[at[i].0..at[i].1]`.
#[derive(Clone, Debug)]
enum Store {
    Decoded(Vec<Hist>),
    Encoded(Encodings),
    /// Version 3 on: the tag's groups section, inflated and split the first time a group is
    /// asked for; not there yet when only the bytes before the groups were read.
    Packed {
        packed: OnceLock<Packed>,
        encoded: OnceLock<Result<Encodings, String>>,
    },
}

/// V2 encodings of histograms in one buffer: histogram i is `body[at[i].0..at[i].1]`.
#[derive(Clone, Debug)]
struct Encodings {
    body: Arc<Vec<u8>>,
    at: Vec<(usize, usize)>,
}

impl Encodings {
    fn get(&self, i: usize) -> &[u8] {
        &self.body[self.at[i].0..self.at[i].1]
    }
}

/// Equal when they hold the same histograms, decoded or not.
impl PartialEq for TagGroups {
    fn eq(&self, other: &TagGroups) -> bool {
        self.tag == other.tag
            && self.spans == other.spans
            && (0..self.spans.len()).all(|i| match (self.hist(i), other.hist(i)) {
                (Ok(a), Ok(b)) => a == b,
                (Err(a), Err(b)) => a == b,
                _ => false,
            })
    }
}

impl TagGroups {
    fn new(tag: Option<String>, windows: Vec<Window>) -> TagGroups {
        let spans = windows.iter().map(|w| (w.start_s, w.length_s, w.hist.count())).collect();
        TagGroups { tag, spans, store: Store::Decoded(windows.into_iter().map(|w| w.hist).collect()) }
    }

    /// The whole-run window of the tag: every group merged.
    fn whole(&self, layout: Option<crate::hist::Layout>) -> Result<Option<Window>, String> {
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
    fn hist(&self, i: usize) -> Result<Cow<'_, Hist>, String> {
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
            ));
        }
        Ok(h)
    }

    /// The encoded groups and where each is: `body[at[i].0..at[i].1]`.
    fn encoded_groups(&self) -> Result<&Encodings, String> {
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
                        return Err(format!("{n} groups; its slots make {}", self.spans.len()));
                    }
                    let mut at = Vec::with_capacity(n);
                    for _ in 0..n {
                        let len = r.len()?;
                        at.push((r.at, r.at + len));
                        r.take(len)?;
                    }
                    if r.at != body.len() {
                        return Err(format!("{} bytes follow the last group", body.len() - r.at));
                    }
                    Ok(Encodings { body: Arc::new(body), at })
                });
                got.as_ref().map_err(|e| format!("the groups of tag {}: {e}", tag_name(self.tag.as_deref())))
            }
        }
    }

    /// The encoding of group `i`.
    fn encoded(&self, i: usize, enc: &mut Encoder) -> Result<Cow<'_, [u8]>, WriteError> {
        match &self.store {
            Store::Decoded(h) => {
                enc.encode_plain(&h[i]).map(Cow::Owned).map_err(|e| WriteError(format!("group at {:.3} s: {e}", self.spans[i].0)))
            }
            _ => Ok(Cow::Borrowed(self.encoded_groups().map_err(WriteError)?.get(i))),
        }
    }
}

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
pub struct WriteError(String);

fn levels_for(n: usize) -> usize {
    if n == 0 {
        0
    } else {
        (usize::BITS - (n - 1).leading_zeros()) as usize + 1
    }
}

/// Median, 1 to 9 nines and max of a histogram, in one pass over its buckets.
fn metrics(h: &Hist) -> [u64; METRICS] {
    let layout = h.layout();
    match h.small_buckets() {
        // the usual case: bucket indexes walked, only the hits turned into values
        Some(b) => metrics_of(h.count(), h.max(), b, |i| index_top(layout, i)),
        None => {
            let b: Vec<(u64, u64)> = h.buckets().collect();
            metrics_of(h.count(), h.max(), b.into_iter(), |v| layout.highest_equivalent(v))
        }
    }
}

/// The highest value of the bucket at counts-array index `i`.
fn index_top(layout: crate::hist::Layout, i: u32) -> u64 {
    layout.value_of_index(i as usize).map_or(u64::MAX, |v| layout.highest_equivalent(v))
}

/// [`metrics`] of the sum of two histograms, written into `spare` (its bucket list reused).
/// Writing the sum with the branch-free merge and walking it costs less than walking the two
/// lists in step without writing it (about a tenth of the points' time on a one-hour run).
fn metrics_of_sum(a: &Hist, b: &Hist, spare: &mut Hist) -> [u64; METRICS] {
    let n = a.count() + b.count();
    if n == 0 {
        return [0; METRICS];
    }
    a.merge_into(b, spare);
    metrics(spare)
}

/// [`metrics`] over the buckets of a histogram of `n` I/Os whose largest is `max`, given as
/// `(key, count)`, ascending, `top(key)` being the highest value of a key's bucket.
fn metrics_of<K: Copy>(
    n: u64,
    max: u64,
    buckets: impl DoubleEndedIterator<Item = (K, u64)> + Clone,
    top: impl Fn(K) -> u64,
) -> [u64; METRICS] {
    let mut out = [0u64; METRICS];
    out[METRICS - 1] = max;
    if n == 0 {
        return out;
    }
    // the ranks of Level::rank (ceil(q * n), at least 1) without building the levels' labels
    // (in 64 bits while the product fits, as it does below 2^34 I/Os: 128-bit division is a
    // library call in wasm)
    let rank = |num: u64, den: u64| {
        let r = match n.checked_mul(num) {
            Some(p) => p.div_ceil(den),
            None => (u128::from(n) * u128::from(num)).div_ceil(u128::from(den)) as u64,
        };
        r.max(1)
    };
    // the median walking up from the lowest bucket...
    let r = rank(1, 2);
    let mut cum = 0u64;
    for (v, c) in buckets.clone() {
        cum += c;
        if cum >= r {
            out[0] = top(v);
            break;
        }
    }
    // ...and the nines walking down from the highest, deepest first: the I/O of rank r is in
    // the first bucket from the top whose count with those above it exceeds n - r
    let mut beyond = [0u64; 10];
    for (k, b) in beyond.iter_mut().enumerate().skip(1) {
        let den = 10u64.pow(k as u32);
        *b = n - rank(den - 1, den);
    }
    let mut k = 9usize;
    let mut above = 0u64;
    for (v, c) in buckets.rev() {
        above += c;
        while k >= 1 && above > beyond[k] {
            out[k] = top(v);
            k -= 1;
        }
        if k == 0 {
            break;
        }
    }
    out
}

impl Trace {
    /// The trace of a direction from its levels' metrics (see [`Merges`]).
    fn of_levels(dir: Direction, p: &Pyramid, raw: Vec<Vec<[u64; METRICS]>>) -> Trace {
        let mut values: Vec<u64> = raw.iter().flatten().flatten().copied().collect();
        values.sort_unstable();
        values.dedup();
        let levels = raw
            .iter()
            .map(|l| LevelPoints::decoded(l.iter().flatten().map(|v| values.binary_search(v).expect("value listed") as u32).collect()))
            .collect();
        let slots = p.slots().iter().map(|s| Slot { windows: Vec::new(), ..s.clone() }).collect();
        Trace { dir, slots, values, levels }
    }

    /// The direction's slots (recorded windows), in time order.
    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }

    /// Extent of the direction on an axis.
    pub fn extent(&self, axis: Axis) -> Option<(f64, f64)> {
        Some((self.slots.first()?.extent(axis).0, self.slots.last()?.extent(axis).1))
    }

    /// Levels stored (level k: groups of 2^k slots).
    pub fn level_count(&self) -> usize {
        self.levels.len()
    }

    /// Which points a view of `[from, to)` on `axis` has: the finest level whose groups give
    /// at most `max_points` (the same rule as [`Pyramid::view_keys`]).
    pub fn view_keys(&self, axis: Axis, from: f64, to: f64, max_points: usize) -> (u32, std::ops::Range<usize>) {
        crate::pyramid::view_keys(&self.slots, self.levels.len().saturating_sub(1) as u32, axis, from, to, max_points)
    }

    /// Level `k`'s points (METRICS indices into `values` a point), decoded the first time
    /// they are asked for; an error names the level and what is wrong with it.
    fn level(&self, k: usize) -> Result<&[u32], String> {
        let l = &self.levels[k];
        let got = l.decoded.get_or_init(|| {
            let packed = l.packed.as_ref().ok_or("a level without points")?;
            let body = packed.inflate()?;
            let mut r = Reader { b: &body, at: 0 };
            let points = read_level(&mut r, &self.slots, self.values.len(), k).map_err(|m| format!("byte {} of its section: {m}", r.at))?;
            if r.at != body.len() {
                return Err(format!("{} bytes follow its last point", body.len() - r.at));
            }
            Ok(points)
        });
        got.as_deref().map_err(|e| format!("level {k} of {}: {e}", dir_name(&self.dir)))
    }

    /// Decode level `k`'s points now, if it has not been (a viewer reads the next finer level
    /// ahead of a zoom step in idle time); past the last level, nothing.
    pub fn read_level(&self, k: u32) -> Result<(), String> {
        if (k as usize) < self.levels.len() {
            self.level(k as usize)?;
        }
        Ok(())
    }

    /// Point `index` of level `k` with the given levels of nines (1 to 9), and the I/Os
    /// before it; the same numbers as [`crate::pyramid::series_points`] of the exact merge.
    /// `None` past the last point; an error when the level's section is damaged.
    pub fn point(&self, k: u32, index: usize, nines: &[u32]) -> Result<Option<(SeriesPoint, u64)>, String> {
        if k as usize >= self.levels.len() {
            return Ok(None);
        }
        let level = self.level(k as usize)?;
        Ok(self.point_of(level, k, index, nines))
    }

    fn point_of(&self, level: &[u32], k: u32, index: usize, nines: &[u32]) -> Option<(SeriesPoint, u64)> {
        let g = 1usize << k;
        let group = self.slots.get(index.checked_mul(g)?..((index + 1) * g).min(self.slots.len()))?;
        let (first, last) = (group.first()?, group.last()?);
        let n: u64 = group.iter().map(|s| s.count).sum();
        let length_s = last.start_s + last.length_s - first.start_s;
        let m = &level[index * METRICS..(index + 1) * METRICS];
        let v = |i: usize| (n > 0).then(|| self.values[m[i] as usize]);
        let levels = nines
            .iter()
            .map(|&k| {
                let support = if n == 0 { Support::None } else { Support::of(n.saturating_sub(Level::nines_rank(k, n))) };
                match support {
                    Support::None => (None, support),
                    _ => (v(k.clamp(1, 9) as usize), support),
                }
            })
            .collect();
        let p = SeriesPoint {
            start_s: first.start_s,
            length_s,
            count: n,
            iops: if length_s > 0.0 { n as f64 / length_s } else { 0.0 },
            p50_ns: v(0),
            levels,
            max_ns: v(METRICS - 1),
        };
        Some((p, first.ios_before))
    }
}

/// The metrics of every level of one or more traces with the same slots, merged bottom up:
/// level k + 1's groups are sums of two of level k's, so every bucket of a level is merged
/// once (the pyramid's own points merge up to 2^k windows each below its stored levels).
///
/// The merges go depth first: a group is merged (and its metrics taken) as soon as its two
/// halves are, and each half is dropped then, so at most one group per level waits for its
/// sibling. Made level by level instead, each level of an hour of windows is megabytes of
/// buckets, written by one pass and read again by the next from main memory; depth first, a
/// merge reads what the last ones wrote, still in cache, and the bucket lists of merged groups
/// are reused rather than allocated and freed one per merge. The groups, the merge of each and
/// so every number are the same either way.
///
/// The traces are columns merged in step. With `sum`, the metrics of the sum of the columns'
/// groups are taken too: those of "all" when the columns are the two directions and each
/// of its slots is one window of each (a group of "all" is then the sum of the directions'
/// groups of the same slots), so "all" needs no merges of its own.
struct Merges<'a> {
    /// Slots of each trace.
    n: usize,
    /// Per column, per level, the metrics of its groups.
    raw: Vec<Vec<Vec<[u64; METRICS]>>>,
    /// Per level, the metrics of the sums of the columns' groups (with `sum`).
    sum: Option<Vec<Vec<[u64; METRICS]>>>,
    /// Per level, its last groups (one a column) while they wait for their siblings.
    pending: Vec<Option<Vec<Cow<'a, Hist>>>>,
    /// Histograms whose bucket lists can be reused.
    spare: Vec<Hist>,
}

impl<'a> Merges<'a> {
    fn new(columns: usize, n: usize, sum: bool) -> Merges<'a> {
        let levels = levels_for(n);
        let level = || (0..levels).map(|k| Vec::with_capacity(n.div_ceil(1 << k))).collect::<Vec<_>>();
        Merges { n, raw: (0..columns).map(|_| level()).collect(), sum: sum.then(level), pending: vec![None; levels], spare: Vec::new() }
    }

    fn spare(&mut self) -> Hist {
        self.spare.pop().unwrap_or_else(|| Hist::empty(crate::hist::Layout::default_ns()))
    }

    fn recycle(&mut self, h: Cow<'a, Hist>) {
        if let Cow::Owned(h) = h {
            self.spare.push(h);
        }
    }

    /// The metrics of groups `hs` (one a column) into level `k`.
    fn push(&mut self, k: usize, hs: &[Cow<'a, Hist>]) {
        let point = |h: &Hist| if h.count() > 0 { metrics(h) } else { [0; METRICS] };
        for (c, h) in hs.iter().enumerate() {
            let m = point(h);
            self.raw[c][k].push(m);
        }
        if self.sum.is_some() {
            let m = match hs {
                [a, b] => {
                    let mut spare = self.spare();
                    let m = metrics_of_sum(a, b, &mut spare);
                    self.spare.push(spare);
                    m
                }
                // sums of two columns only (see Builder::new)
                _ => unreachable!("the sum of {} columns", hs.len()),
            };
            if let Some(sum) = &mut self.sum {
                sum[k].push(m);
            }
        }
    }

    /// Slot `i` of level 0 (of `n`), one histogram a column: its metrics, and those of every
    /// group it completes.
    fn add(&mut self, mut i: usize, mut hs: Vec<Cow<'a, Hist>>) {
        let levels = self.pending.len();
        for k in 0..levels {
            self.push(k, &hs);
            if k + 1 == levels {
                break;
            }
            if i % 2 == 1 {
                let left = self.pending[k].take().expect("an odd group's sibling waits");
                for (c, l) in left.into_iter().enumerate() {
                    let mut out = self.spare();
                    l.merge_into(&hs[c], &mut out);
                    self.recycle(l);
                    let right = std::mem::replace(&mut hs[c], Cow::Owned(out));
                    self.recycle(right);
                }
            } else if i + 1 < self.n.div_ceil(1 << k) {
                self.pending[k] = Some(hs);
                return;
            } else {
                // the last group of a level with an odd count: the next level's as it is
                // (its metrics are taken again there, the same)
            }
            i /= 2;
        }
        for h in hs {
            self.recycle(h);
        }
    }
}

/// The traces of `dirs` (each with its pyramid), in order. Where "all" is the sum of two
/// directions slot by slot (each of its slots one window of each, as nines records reads and
/// writes), the two are merged in step and "all" from their groups; otherwise each direction
/// on its own, "all" from its slots (the windows that start together merged).
fn traces_of(run: &Run, pyramids: &[(Direction, Pyramid)]) -> Vec<Trace> {
    let all = pyramids.iter().position(|(d, _)| matches!(d, Direction::All));
    let parts: Vec<usize> = pyramids
        .iter()
        .enumerate()
        .filter(|(_, (d, _))| matches!(d, Direction::Tag(t) if is_direction(t.as_deref())))
        .map(|(i, _)| i)
        .collect();
    let in_step = all.filter(|&a| {
        let slots = pyramids[a].1.slots();
        parts.len() == 2
            && parts.iter().all(|&p| pyramids[p].1.slots().len() == slots.len())
            && slots.iter().enumerate().all(|(j, s)| {
                s.windows.len() == 2
                    && parts.iter().all(|&p| pyramids[p].1.slots()[j].windows.first().is_some_and(|w| s.windows.contains(w)))
            })
    });
    let mut out: Vec<Option<Trace>> = vec![None; pyramids.len()];
    if let Some(a) = in_step {
        let p = &pyramids[a].1;
        let n = p.slots().len();
        let mut m = Merges::new(2, n, true);
        for i in 0..n {
            m.add(i, parts.iter().map(|&c| Cow::Borrowed(&run.windows[pyramids[c].1.slots()[i].windows[0]].hist)).collect());
        }
        let Merges { raw, sum, .. } = m;
        for (&c, raw) in parts.iter().zip(raw) {
            out[c] = Some(Trace::of_levels(pyramids[c].0.clone(), &pyramids[c].1, raw));
        }
        out[a] = Some(Trace::of_levels(Direction::All, p, sum.expect("the sum's levels")));
    }
    for (o, (d, p)) in out.iter_mut().zip(pyramids) {
        if o.is_none() {
            *o = Some(trace_alone(run, d.clone(), p));
        }
    }
    out.into_iter().flatten().collect()
}

/// The trace of one direction from its own pyramid's slots.
fn trace_alone(run: &Run, dir: Direction, p: &Pyramid) -> Trace {
    let n = p.slots().len();
    let mut merges = Merges::new(1, n, false);
    for (i, s) in p.slots().iter().enumerate() {
        let h = match s.windows.as_slice() {
            [w] => Cow::Borrowed(&run.windows[*w].hist),
            ws => {
                // the windows of every direction that start together, merged left to right
                let mut h = Cow::Borrowed(&run.windows[ws[0]].hist);
                for &w in &ws[1..] {
                    let mut out = merges.spare();
                    h.merge_into(&run.windows[w].hist, &mut out);
                    merges.recycle(std::mem::replace(&mut h, Cow::Owned(out)));
                }
                h
            }
        };
        merges.add(i, vec![h]);
    }
    let raw = merges.raw.pop().expect("one column");
    Trace::of_levels(dir, p, raw)
}

/// The directions of a run a compact form carries: every tag in order of first appearance,
/// then "all" when the run has direction tags.
fn directions(run: &Run) -> Vec<Direction> {
    let tags = run.tags();
    let any_direction = tags.iter().any(|t| is_direction(t.as_deref()));
    let mut out: Vec<Direction> = tags.into_iter().map(Direction::Tag).collect();
    if any_direction {
        out.push(Direction::All);
    }
    out
}

fn group_text(traces: &[Trace], group: usize) -> String {
    let length = traces.iter().find(|t| matches!(t.dir, Direction::Tag(_))).and_then(|t| t.slots.first()).map_or(0.0, |s| s.length_s);
    let secs = crate::units::format_duration((length * group as f64 * 1e9).round() as u64);
    if group == 1 {
        format!("every window ({secs})")
    } else {
        format!("{secs} (groups of {group} windows)")
    }
}

/// Group sizes offered, in windows: with 1 s windows the round durations of 1 s to a day,
/// then doublings, up to the first that holds every window.
fn group_sizes(windows: usize) -> Vec<usize> {
    const ROUND: [usize; 17] = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14_400, 28_800, 86_400];
    let mut out: Vec<usize> = Vec::new();
    for g in ROUND.into_iter().chain((0..).map(|k| 172_800usize.saturating_mul(1 << k.min(40)))) {
        out.push(g);
        if g >= windows || g == usize::MAX {
            break;
        }
    }
    out
}

/// Builds compact forms of one run at several groupings, computing its points once.
pub struct Builder<'a> {
    run: &'a Run,
    pyramids: Vec<(Direction, Pyramid)>,
    traces: Vec<Trace>,
}

impl<'a> Builder<'a> {
    pub fn new(run: &'a Run) -> Builder<'a> {
        // build() merges each group once: no stored levels needed
        let pyramids: Vec<(Direction, Pyramid)> = directions(run).into_iter().map(|d| (d.clone(), Pyramid::unstored(run, &d))).collect();
        let traces = traces_of(run, &pyramids);
        Builder { run, pyramids, traces }
    }

    /// The group sizes worth offering, finest first; the last holds every window of a tag.
    pub fn group_sizes(&self) -> Vec<usize> {
        group_sizes(self.pyramids.iter().map(|(_, p)| p.slots().len()).max().unwrap_or(0))
    }

    /// The length of a tag's first window, in seconds (0 without windows).
    pub fn window_s(&self) -> f64 {
        self.traces.iter().find(|t| matches!(t.dir, Direction::Tag(_))).and_then(|t| t.slots.first()).map_or(0.0, |s| s.length_s)
    }

    /// The coarsest group size of [`Builder::group_sizes`] whose groups cover at most
    /// `seconds` (1: every window, when even one window is longer).
    pub fn group_within(&self, seconds: f64) -> usize {
        let w = self.window_s();
        self.group_sizes().into_iter().filter(|&g| g == 1 || w * g as f64 <= seconds).max().unwrap_or(1)
    }

    /// [`Compact::group_text`] of a group size.
    pub fn group_text(&self, group: usize) -> String {
        group_text(&self.traces, group.max(1))
    }

    /// The compact form with windows merged in groups of `group` per tag.
    pub fn build(&self, group: usize) -> Compact {
        let group = group.max(1);
        let run = self.run;
        let mut acc = None;
        let per_tag: Vec<Vec<Window>> = self
            .pyramids
            .iter()
            .filter_map(|(d, p)| match d {
                Direction::Tag(t) => Some(
                    (0..p.slots().len().div_ceil(group))
                        .filter_map(|i| {
                            let s = group_of(run, p, i * group, group, &mut acc)?;
                            Some(Window { start_s: s.start_s, length_s: s.length_s, tag: t.clone(), hist: s.hist.into_owned() })
                        })
                        .collect(),
                ),
                Direction::All => None,
            })
            .collect();
        let tags: Vec<Option<String>> = self
            .pyramids
            .iter()
            .filter_map(|(d, _)| match d {
                Direction::Tag(t) => Some(t.clone()),
                Direction::All => None,
            })
            .collect();
        let groups: Vec<TagGroups> = tags.into_iter().zip(per_tag).map(|(t, w)| TagGroups::new(t, w)).collect();
        // decoded groups cannot fail to merge
        let whole: Vec<Window> = groups.iter().filter_map(|g| g.whole(None).ok().flatten()).collect();
        Compact {
            run: Run { windows: whole, ..without_windows(run) },
            group,
            windows: run.windows.len(),
            traces: self.traces.clone(),
            groups,
            groups_at: None,
        }
    }
}

/// [`Pyramid::group`]: the exact merge of `n` slots of `p` from slot `first`, with the counters
/// of `acc` reused from group to group when the windows share a layout (the same sums).
fn group_of<'a>(run: &'a Run, p: &'a Pyramid, first: usize, n: usize, acc: &mut Option<Accumulator>) -> Option<crate::pyramid::Span<'a>> {
    let slots = p.slots().get(first..first.checked_add(n)?.min(p.slots().len()))?;
    let (a, b) = (slots.first()?, slots.last()?);
    let layout = run.windows[*a.windows.first()?].hist.layout();
    let windows = slots.iter().flat_map(|s| &s.windows).map(|&i| &run.windows[i].hist);
    if n == 1 || !windows.clone().all(|h| h.layout() == layout) {
        return p.group(run, first, n);
    }
    let acc = match acc {
        Some(acc) if acc.layout() == layout => acc,
        _ => acc.insert(Accumulator::new(layout)),
    };
    windows.for_each(|h| acc.add(h));
    let hist = Cow::Owned(acc.take());
    Some(crate::pyramid::Span { start_s: a.start_s, length_s: b.start_s + b.length_s - a.start_s, ios_before: a.ios_before, hist })
}

/// Each tag's windows, group by group, tags in order: the grouped run lists its tags in the
/// same order as the recorded one, so tables list them alike.
fn interleave(per_tag: Vec<Vec<Window>>) -> Vec<Window> {
    let most = per_tag.iter().map(Vec::len).max().unwrap_or(0);
    let mut windows = Vec::with_capacity(per_tag.iter().map(Vec::len).sum());
    let mut its: Vec<_> = per_tag.into_iter().map(Vec::into_iter).collect();
    for _ in 0..most {
        for it in &mut its {
            windows.extend(it.next());
        }
    }
    windows
}

/// A copy of a run without its windows.
fn without_windows(run: &Run) -> Run {
    Run {
        name: run.name.clone(),
        source: run.source.clone(),
        start_time: run.start_time,
        meta: run.meta.clone(),
        windows: Vec::new(),
        warnings: run.warnings.clone(),
    }
}

impl Compact {
    /// The compact form of a run with windows merged in groups of `group`.
    pub fn of(run: &Run, group: usize) -> Compact {
        Builder::new(run).build(group)
    }

    /// The trace of a direction.
    pub fn trace(&self, dir: &Direction) -> Option<&Trace> {
        self.traces.iter().find(|t| t.dir == *dir)
    }

    /// The run's verdicts against `spec`, the same as [`crate::spec::check_run`] of the
    /// recorded run: the levels, max and mean come from each direction's whole-run histogram,
    /// and the IOPS interval from every recorded window's count (the traces' slots), never
    /// from the carried groups, whose rates vary less than the windows' do.
    pub fn check(&self, spec: &crate::spec::Spec) -> crate::spec::RunCheck {
        self.check_whole(&self.run, spec)
    }

    /// [`Compact::check`] with the form's run, its whole-run windows, held apart from the
    /// form (a page keeps them in its own model).
    pub fn check_whole(&self, whole: &Run, spec: &crate::spec::Spec) -> crate::spec::RunCheck {
        let untagged_only = whole.windows.iter().all(|w| w.tag.is_none());
        crate::spec::check_run_with(whole, spec, |key| {
            let t = self.traces.iter().find(|t| match &t.dir {
                Direction::All => key == crate::run::ALL,
                // a log without tags: its one direction is judged as `all`
                Direction::Tag(None) if untagged_only => key == crate::run::ALL,
                Direction::Tag(tag) => tag_name(tag.as_deref()) == key,
            })?;
            Some(t.slots.iter().map(|s| (s.start_s, s.length_s, s.count)).collect())
        })
    }

    /// What a carried histogram covers, as a sentence part ("every window (1s)", "1m (groups
    /// of 60 windows)"), for pages to state.
    pub fn group_text(&self) -> String {
        group_text(&self.traces, self.group)
    }

    /// The binary form (see the module's documentation), deflated at zlib's default level.
    pub fn write(&self) -> Result<Vec<u8>, WriteError> {
        self.write_sections(|b| {
            let mut z = flate2::write::ZlibEncoder::new(Vec::with_capacity(b.len() / 2 + 16), flate2::Compression::default());
            z.write_all(b).map_err(|e| WriteError(e.to_string()))?;
            z.finish().map_err(|e| WriteError(e.to_string()))
        })
    }

    /// The binary form with its sections stored, not deflated: for a form that only crosses
    /// memory, such as a viewer worker's answer to its page. (Its zlib streams are written
    /// here, not by flate2, so that the viewer's wasm carries no deflater.)
    pub fn write_stored(&self) -> Result<Vec<u8>, WriteError> {
        self.write_sections(|b| Ok(stored_zlib(b)))
    }

    fn write_sections(&self, pack: impl Fn(&[u8]) -> Result<Vec<u8>, WriteError>) -> Result<Vec<u8>, WriteError> {
        let mut head = Vec::new();
        let warnings: Vec<Value> = self.run.warnings.iter().map(|w| json!([w.line, w.message])).collect();
        let header = json!({
            "name": self.run.name,
            "source": self.run.source,
            "start_time": self.run.start_time,
            "meta": Value::Object(self.run.meta.to_map()),
            "warnings": warnings,
            "group": self.group,
            "windows": self.windows,
        });
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
                let level = t.level(k).map_err(WriteError)?;
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
        let mut out = MAGIC.to_vec();
        put(&mut out, VERSION);
        for b in std::iter::once(&head).chain(&sections).chain(&group_sections) {
            let z = pack(b)?;
            put(&mut out, b.len() as u64);
            put(&mut out, z.len() as u64);
            out.extend_from_slice(&z);
        }
        Ok(out)
    }

    /// Read a compact form written by [`Compact::write`] (any version).
    pub fn read(source_name: &str, bytes: &[u8]) -> Result<Compact, CompactError> {
        read_form(source_name, bytes, false)
    }

    /// [`Compact::read`], but a form of version 4 may also end where its groups begin (the
    /// bytes before [`Compact::groups_at`]): everything but the groups is read, and
    /// [`Compact::range`] fails until [`Compact::attach_groups`] brings them.
    pub fn read_head(source_name: &str, bytes: &[u8]) -> Result<Compact, CompactError> {
        read_form(source_name, bytes, true)
    }

    /// Where the groups begin in the bytes this form was read from (version 4 on): the bytes
    /// before are all a chart or the whole run's statistics need.
    pub fn groups_at(&self) -> Option<usize> {
        self.groups_at
    }

    /// Whether the groups are here (a form read by [`Compact::read_head`] from the bytes
    /// before its groups has none until [`Compact::attach_groups`]).
    pub fn has_groups(&self) -> bool {
        self.groups.iter().all(|g| !matches!(&g.store, Store::Packed { packed, .. } if packed.get().is_none()))
    }

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

    /// The carried histograms of the groups that start in `[from, to)` seconds (every group
    /// without bounds), as the windows of a run with this run's name and metadata: the
    /// statistics and merges of a time range. A form read from bytes decodes them here; a
    /// damaged one is an error naming the group.
    pub fn range(&self, from: Option<f64>, to: Option<f64>) -> Result<Run, CompactError> {
        let (lo, hi) = (from.unwrap_or(f64::NEG_INFINITY), to.unwrap_or(f64::INFINITY));
        let mut per_tag = Vec::with_capacity(self.groups.len());
        for g in &self.groups {
            let mut ws = Vec::new();
            for (i, &(start_s, length_s, _)) in g.spans.iter().enumerate() {
                if start_s >= lo && start_s < hi {
                    let hist = g.hist(i).map_err(|message| CompactError { source_name: self.run.source.clone(), offset: None, message })?;
                    ws.push(Window { start_s, length_s, tag: g.tag.clone(), hist: hist.into_owned() });
                }
            }
            per_tag.push(ws);
        }
        Ok(Run { windows: interleave(per_tag), ..without_windows(&self.run) })
    }

    /// The run with its carried groups as windows (see [`Compact::range`]).
    pub fn into_run(self) -> Result<Run, CompactError> {
        self.range(None, None)
    }
}

/// [`Compact::read`], and with `head_only` [`Compact::read_head`].
fn read_form(source_name: &str, bytes: &[u8], head_only: bool) -> Result<Compact, CompactError> {
    let err = |offset: Option<usize>, message: String| CompactError { source_name: source_name.to_string(), offset, message };
    if !sniff(bytes) {
        return Err(err(None, "does not start with \"nines-compact\"; expected a compact form written by nines".into()));
    }
    let mut head = Reader { b: &bytes[MAGIC.len()..], at: 0 };
    let version = head.varint().map_err(|m| err(None, m))?;
    if !(1..=VERSION).contains(&version) {
        return Err(err(None, format!("version {version}; this nines reads versions 1 to {VERSION}: use a newer nines")));
    }
    if version >= 3 {
        return read_sections(bytes, MAGIC.len() + head.at, version, head_only).map_err(|(offset, m)| err(offset, m));
    }
    // version 2 states the inflated size: the body is inflated into a buffer of that size
    let size = match version {
        1 => None,
        _ => Some(head.varint().map_err(|m| err(None, m))?).filter(|&n| n <= MAX_BODY as u64).map(|n| n as usize),
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
    read_body(&mut r, &body, version).map_err(|m| err(Some(r.at), m))
}

fn point_has_ios(slots: &[Slot], k: usize, i: usize) -> bool {
    let g = 1usize << k;
    slots[i * g..((i + 1) * g).min(slots.len())].iter().any(|s| s.count > 0)
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
}

fn read_header(r: &mut Reader) -> Result<Header, String> {
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
    let meta = RunMeta::from_map(meta).map_err(|e| format!("header \"meta\": {e}"))?;
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
    Ok(Header { name, source, start_time, meta, warnings, group, windows })
}

/// A direction's kind, slots, values and level count, checked; `total` gains a tag's I/Os.
fn read_direction(r: &mut Reader, traces: &[Trace], total: &mut u64) -> Result<(Direction, Vec<Slot>, Vec<u64>), String> {
    let dir = match r.varint()? {
        0 => Direction::All,
        1 => Direction::Tag(None),
        2 => {
            let n = r.len()?;
            let s = std::str::from_utf8(r.take(n)?).map_err(|_| "a tag is not UTF-8".to_string())?;
            if !crate::archive::valid_tag(s) {
                return Err(format!("tag {s:?} is not a valid tag"));
            }
            Direction::Tag(Some(s.to_string()))
        }
        k => return Err(format!("direction kind {k}; expected 0, 1 or 2")),
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
            return Err(format!("slot {} has start {s} and length {l}; expected finite numbers, length >= 0", i + 1));
        }
        if slots.last().is_some_and(|p: &Slot| p.start_s > s) {
            return Err(format!("slot {} starts before the one before it", i + 1));
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
        return Err(format!("{nl} levels for {n} slots; expected {}", levels_for(n)));
    }
    Ok((dir, slots, values))
}

/// Level `k`'s points: for each point with I/Os, METRICS ZigZag deltas of indices into the
/// `nv` values, checked (within the values, ascending from median to max).
fn read_level(r: &mut Reader, slots: &[Slot], nv: usize, k: usize) -> Result<Vec<u32>, String> {
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
            return Err(format!("level {k} point {}: median, levels and max are not in ascending order", i + 1));
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
fn read_whole(r: &mut Reader, dec: &mut Decoder, tag: &Option<String>, slots: &[Slot]) -> Result<Option<Window>, String> {
    let len = r.len()?;
    let at = r.at;
    let hist = dec.decode(r.take(len)?).map_err(|e| format!("the whole run of tag {} (byte {at}): {e}", tag_name(tag.as_deref())))?;
    let cum: u64 = slots.iter().map(|s| s.count).sum();
    if hist.count() != cum {
        return Err(format!("the whole run of tag {} holds {} I/Os; its slots hold {cum}", tag_name(tag.as_deref()), hist.count()));
    }
    Ok(match (slots.first(), slots.last()) {
        (Some(a), Some(b)) => Some(Window { start_s: a.start_s, length_s: b.start_s + b.length_s - a.start_s, tag: tag.clone(), hist }),
        _ => None,
    })
}

/// The checks across directions, then the form.
fn finish(h: Header, traces: Vec<Trace>, groups: Vec<TagGroups>, whole: Vec<Window>) -> Result<Compact, String> {
    if let Some(all) = traces.iter().find(|t| t.dir == Direction::All) {
        let dirs: u64 = traces
            .iter()
            .filter(|t| matches!(&t.dir, Direction::Tag(x) if is_direction(x.as_deref())))
            .map(|t| t.slots.iter().map(|s| s.count).sum::<u64>())
            .sum();
        let n: u64 = all.slots.iter().map(|s| s.count).sum();
        if n != dirs {
            return Err(format!("\"all\" holds {n} I/Os; its directions hold {dirs}"));
        }
    }
    let run = Run { name: h.name, source: h.source, start_time: h.start_time, meta: h.meta, windows: whole, warnings: h.warnings };
    Ok(Compact { run, group: h.group, windows: h.windows, traces, groups, groups_at: None })
}

/// Versions 1 and 2: one inflated body holding everything.
fn read_body(r: &mut Reader, body: &Arc<Vec<u8>>, version: u64) -> Result<Compact, String> {
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
                return Err(format!("{ng} groups for {n} slots; expected {} in groups of {g}", n.div_ceil(g)));
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
        return Err(format!("{} bytes follow the last direction", r.b.len() - r.at));
    }
    finish(h, traces, groups, whole)
}

/// Version 3: a head section (header, every direction's slots, values and whole-run
/// histogram), then a section per level of each direction and one of each tag's groups,
/// each its own zlib stream, inflated when first needed. Errors carry the byte offset in the
/// inflated head, or none when the sections' framing is what is wrong.
fn read_sections(bytes: &[u8], start: usize, version: u64, head_only: bool) -> Result<Compact, (Option<usize>, String)> {
    let file = Arc::new(bytes.to_vec());
    let mut f = Reader { b: &file, at: start };
    let mut budget = MAX_BODY;
    let mut section = |f: &mut Reader| section(f, &file, 0, &mut budget);
    let head = section(&mut f).and_then(|p| p.inflate()).map_err(|m| (None, format!("head: {m}")))?;
    let mut r = Reader { b: &head, at: 0 };
    let mut read_head = || -> Result<_, String> {
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
            return Err(format!("{} bytes follow the last direction", r.b.len() - r.at));
        }
        Ok((h, traces, whole))
    };
    let (h, mut traces, whole) = read_head().map_err(|m| (Some(r.at), m))?;
    let mut groups = Vec::new();
    let mut groups_at = None;
    // version 3: each tag's groups after its levels; 4: every tag's after every level
    let mut cut = false;
    for pass in [0, 1] {
        if pass == 1 && version >= 4 {
            groups_at = Some(f.at);
            // read without its groups: each tag's come with `attach_groups`
            cut = head_only && f.at == f.b.len();
        }
        for t in &mut traces {
            let name = dir_name(&t.dir);
            if pass == 0 {
                for k in 0..levels_for(t.slots.len()) {
                    let packed = section(&mut f).map_err(|m| (None, format!("level {k} of {name}: {m}")))?;
                    t.levels.push(LevelPoints { decoded: OnceLock::new(), packed: Some(packed) });
                }
            }
            if let Direction::Tag(tag) = &t.dir {
                if (pass == 0) == (version == 3) {
                    let packed = OnceLock::new();
                    if !cut {
                        let _ = packed.set(section(&mut f).map_err(|m| (None, format!("the groups of {name}: {m}")))?);
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
    if f.at != f.b.len() {
        return Err((None, format!("{} bytes follow the last section", f.b.len() - f.at)));
    }
    let mut c = finish(h, traces, groups, whole).map_err(|m| (None, m))?;
    c.groups_at = groups_at;
    Ok(c)
}

/// The next section's framing at `f`, its stream taken (not inflated): the inflated size
/// (within what is left of `budget`), the compressed length and the stream. `file[0]` is byte
/// `base` of the form.
fn section(f: &mut Reader, file: &Arc<Vec<u8>>, base: usize, budget: &mut usize) -> Result<Packed, String> {
    let size = f.varint()?;
    if size > *budget as u64 {
        return Err(format!("its sections inflate to more than {} MiB", MAX_BODY >> 20));
    }
    *budget -= size as usize;
    let len = f.len()?;
    let at = f.at;
    f.take(len)?;
    Ok(Packed { file: file.clone(), at, len, size: size as usize, base })
}

/// A direction as pages and errors name it: "tag read", "untagged windows", "all".
fn dir_name(dir: &Direction) -> String {
    match dir {
        Direction::All => "all".into(),
        Direction::Tag(t) => format!("tag {}", tag_name(t.as_deref())),
    }
}

/// The whole-run merge of a tag's carried windows (its 1-CDF and histogram), or of every
/// direction for [`Direction::All`].
pub fn merged(run: &Run, dir: &Direction, from: Option<f64>, to: Option<f64>) -> Option<Hist> {
    let (from, to) = (from.unwrap_or(f64::NEG_INFINITY), to.unwrap_or(f64::INFINITY));
    let mut ws = run
        .windows
        .iter()
        .filter(|w| w.start_s >= from && w.start_s < to)
        .filter(|w| match dir {
            Direction::Tag(t) => w.tag == *t,
            Direction::All => is_direction(w.tag.as_deref()),
        })
        .peekable();
    let first = ws.next()?;
    // the whole run of one direction is one carried window: nothing to merge
    if ws.peek().is_none() {
        return Some(first.hist.clone());
    }
    let mut acc = Accumulator::new(first.hist.layout());
    acc.add(&first.hist);
    for w in ws {
        if w.hist.layout() == first.hist.layout() {
            acc.add(&w.hist);
        } else {
            let h = acc.take().merge(&w.hist);
            acc = Accumulator::new(h.layout());
            acc.add(&h);
        }
    }
    Some(acc.finish())
}

/// A zlib stream (RFC 1950) of `data` in stored blocks (RFC 1951 section 3.2.4: a header
/// byte, the length and its complement, then the bytes, at most 65,535 a block).
fn stored_zlib(data: &[u8]) -> Vec<u8> {
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

fn put(b: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        b.push((v as u8) | 0x80);
        v >>= 7;
    }
    b.push(v as u8);
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

fn micros(v: f64) -> Option<i64> {
    let m = (v * 1e6).round();
    (m.abs() < (1u64 << 53) as f64 && m / 1e6 == v).then_some(m as i64)
}

fn column(b: &mut Vec<u8>, values: impl Iterator<Item = f64> + Clone) {
    if values.clone().all(|v| micros(v).is_some()) {
        b.push(0);
        let mut prev = 0i64;
        for v in values {
            let m = micros(v).expect("checked");
            put(b, zigzag(m.wrapping_sub(prev)));
            prev = m;
        }
    } else {
        b.push(1);
        for v in values {
            b.extend_from_slice(&v.to_bits().to_le_bytes());
        }
    }
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn varint(&mut self) -> Result<u64, String> {
        let mut v = 0u64;
        for i in 0..10 {
            let byte = *self.b.get(self.at).ok_or("the body ends inside a number")?;
            self.at += 1;
            if i == 9 && byte > 1 {
                return Err("a number is longer than 64 bits".into());
            }
            v |= u64::from(byte & 0x7f) << (7 * i);
            if byte & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("a number is longer than 64 bits".into())
    }

    /// A length or count: at most the bytes left (every listed item takes at least a byte),
    /// so a damaged number cannot ask for more memory than the body has.
    fn len(&mut self) -> Result<usize, String> {
        let v = self.varint()?;
        let left = self.b.len() - self.at;
        if v > left as u64 {
            return Err(format!("a length of {v} with {left} bytes left"));
        }
        Ok(v as usize)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let s = self.b.get(self.at..self.at + n).ok_or("the body ends inside a field")?;
        self.at += n;
        Ok(s)
    }

    fn column(&mut self, n: usize) -> Result<Vec<f64>, String> {
        match self.varint()? {
            0 => {
                // a plain loop into a list of its size (`n` is at most the bytes left)
                let mut out = Vec::with_capacity(n);
                let mut prev = 0i64;
                for _ in 0..n {
                    prev = prev.wrapping_add(unzigzag(self.varint()?));
                    if prev.unsigned_abs() >= 1 << 53 {
                        return Err("a time is out of range".to_string());
                    }
                    out.push(prev as f64 / 1e6);
                }
                Ok(out)
            }
            1 => (0..n).map(|_| Ok(f64::from_bits(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes"))))).collect(),
            k => Err(format!("column kind {k}; expected 0 or 1")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pyramid::series_points;
    use crate::run::test_runs::two_directions as run;
    use crate::stats::{run_stats, Options};

    fn all_nines() -> Vec<u32> {
        (1..=9).collect()
    }

    /// Every point at every level equals the exact merge of the full run's windows.
    fn assert_exact(full: &Run, c: &Compact) {
        for t in &c.traces {
            let p = Pyramid::new(full, &t.dir);
            assert_eq!(t.slots.len(), p.slots().len());
            let levels: Vec<Level> = all_nines().into_iter().map(Level::nines).collect();
            for k in 0..t.level_count() as u32 {
                for i in 0..t.slots.len().div_ceil(1 << k) {
                    let span = p.span(full, k, i).unwrap();
                    let want = series_points(std::iter::once(&span), &levels).pop().unwrap();
                    let (got, before) = t.point(k, i, &all_nines()).unwrap().unwrap();
                    assert_eq!(got, want, "{:?} level {k} point {i}", t.dir);
                    assert_eq!(before, span.ios_before);
                }
            }
            assert_eq!(t.point(t.level_count() as u32, 0, &[3]), Ok(None));
        }
    }

    #[test]
    fn verdicts_of_a_compact_form_are_those_of_the_recorded_run() {
        let spec = crate::spec::Spec::parse(
            "t.spec",
            "read p99 <= 1ms\nwrite p99.9 <= 2ms\nall max <= 50ms\nall mean <= 200us\nread iops >= 1\nwrite iops >= 10k\nall iops >= 100\n",
        )
        .unwrap();
        let fixture = crate::archive::read("v1-randrw.hlog", include_bytes!("../../tests/data/v1-randrw.hlog")).unwrap();
        let java = crate::archive::read("java-rw.hlog", include_bytes!("../../tests/data/java-rw.hlog")).unwrap();
        for r in [run(37), fixture, java] {
            let want = crate::spec::json(&[crate::spec::check_run(&r, &spec, None, None)]);
            assert!(want.contains("\"interval\""), "{want}");
            for g in [1, 2, 7, 60] {
                let c = Compact::of(&r, g);
                let back = Compact::read("x.compact", &c.write().unwrap()).unwrap();
                assert_eq!(crate::spec::json(&[back.check(&spec)]), want, "{} grouping {g}", r.source);
            }
        }
    }

    #[test]
    fn points_and_groups_are_exact_merges_for_any_count_of_windows() {
        // levels merged depth first (odd counts carry a level's last group up as it is), and
        // groups made by one reused accumulator, against the pyramid's own merges
        for n in [1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 33, 64, 65] {
            let r = run(n);
            for g in [1, 3, 4, 60] {
                let c = Compact::of(&r, g);
                assert_exact(&r, &c);
                for tg in &c.groups {
                    let p = Pyramid::new(&r, &Direction::Tag(tg.tag.clone()));
                    for i in 0..tg.spans.len() {
                        assert_eq!(*tg.hist(i).unwrap(), *p.group(&r, i * g, g).unwrap().hist, "{n} windows, groups of {g}, group {i}");
                    }
                }
            }
        }
    }

    #[test]
    fn every_point_of_every_level_is_exact_and_survives_the_round_trip() {
        let r = run(37);
        for g in [1, 2, 5, 8, 37, 100] {
            let c = Compact::of(&r, g);
            assert_eq!(c.group, g);
            assert_exact(&r, &c);
            let bytes = c.write().unwrap();
            let back = Compact::read("x.compact", &bytes).unwrap();
            assert_eq!(back, c, "grouping {g}");
            // the whole-run windows alone give the whole run's stats
            let (a, b) = (run_stats(&r, &Options::default()), run_stats(&back.run, &Options::default()));
            assert_eq!(a.duration_s, b.duration_s);
            for ((ta, sa), (tb, sb)) in a.tags.0.iter().zip(b.tags.0.iter()) {
                assert_eq!(
                    (ta, sa.count, sa.min_ns, sa.max_ns, &sa.levels, sa.mean_ns),
                    (tb, sb.count, sb.min_ns, sb.max_ns, &sb.levels, sb.mean_ns)
                );
            }
            // stats of the whole run, and of ranges on group edges, equal the full run's
            let edge = g.min(37) as f64;
            for (from, to) in [(None, None), (Some(edge), None), (Some(0.0), Some(edge * 2.0))] {
                let o = Options { from, to, ..Options::default() };
                let (a, b) = (run_stats(&r, &o), run_stats(&back.range(None, None).unwrap(), &o));
                assert_eq!(a.tags.0.len(), b.tags.0.len());
                for ((ta, sa), (tb, sb)) in a.tags.0.iter().zip(b.tags.0.iter()) {
                    assert_eq!(ta, tb);
                    assert_eq!((sa.count, sa.min_ns, sa.max_ns, &sa.levels), (sb.count, sb.min_ns, sb.max_ns, &sb.levels), "{g} {from:?}");
                    assert!((sa.iops - sb.iops).abs() <= 1e-9 * sa.iops);
                }
            }
        }
    }

    #[test]
    fn metrics_walking_from_both_ends_equal_the_ranks_of_each_level() {
        use crate::hist::Layout;
        let l = Layout::default_ns();
        // counts from 1 I/O up, with repeated values, one bucket, and a count past 2^32
        let mut hists: Vec<Hist> = (1..300u64).map(|n| Hist::from_values(l, (0..n).map(|i| 1_000 + (i * i * 37) % 50_000))).collect();
        hists.push(Hist::from_values(l, [7; 5]));
        let mut big = Hist::from_values(l, [10_000, 20_000]);
        for _ in 0..33 {
            big = big.merge(&big);
        }
        hists.push(big.merge(&Hist::from_values(l, [1, 99_000_000])));
        for h in &hists {
            let n = h.count();
            let m = metrics(h);
            let mut levels = vec![Level { label: String::new(), num: 1, den: 2 }];
            levels.extend((1..=9).map(Level::nines));
            for (i, level) in levels.iter().enumerate() {
                let r = level.rank(n);
                let mut cum = 0;
                let want = h.buckets().find(|&(_, c)| {
                    cum += c;
                    cum >= r
                });
                assert_eq!(m[i], l.highest_equivalent(want.unwrap().0), "n {n} level {i}");
            }
            assert_eq!(m[METRICS - 1], h.max());
        }
    }

    #[test]
    fn odd_times_and_gaps_round_trip() {
        let mut r = run(5);
        r.windows[0].start_s = 0.1 + 0.2; // not a whole number of microseconds
        r.windows.retain(|w| w.start_s != 2.0);
        r.start_time = Some(1.7e9);
        r.warnings.push(Warning { line: Some(3), message: "cut".into() });
        let c = Compact::of(&r, 2);
        assert_exact(&r, &c);
        assert_eq!(Compact::read("x", &c.write().unwrap()).unwrap(), c);
    }

    #[test]
    fn damaged_or_hostile_bytes_are_errors() {
        let r = run(9);
        let bytes = Compact::of(&r, 2).write().unwrap();
        // cut anywhere
        for n in [0, 5, 14, 15, 20, bytes.len() / 2, bytes.len() - 1] {
            let e = Compact::read("cut.compact", &bytes[..n]).unwrap_err();
            assert!(e.to_string().starts_with("cut.compact: compact form: "), "{e}");
        }
        // a flipped bit in the compressed head (the sections are tried in the next test)
        let mut bad = bytes.clone();
        bad[MAGIC.len() + 5] ^= 0x10;
        assert!(Compact::read("bad", &bad).is_err());
        // a version 2 body that is well compressed but lies (version 3 reads the same fields
        // from its head)
        let lie = |body: &[u8]| {
            let mut out = MAGIC.to_vec();
            put(&mut out, 2);
            put(&mut out, body.len() as u64);
            let mut z = flate2::write::ZlibEncoder::new(out, flate2::Compression::fast());
            z.write_all(body).unwrap();
            Compact::read("lie", &z.finish().unwrap()).unwrap_err().to_string()
        };
        assert!(lie(&[0xff, 0x7f, 0, 0]).contains("a length of 16383 with 2 bytes left"), "{}", lie(&[0xff, 0x7f, 0, 0]));
        assert!(lie(&[0xff; 20]).contains("longer than 64 bits"));
        // a body of another size than the form states
        let mut short = MAGIC.to_vec();
        put(&mut short, 2);
        put(&mut short, 99);
        let mut z = flate2::write::ZlibEncoder::new(short, flate2::Compression::fast());
        z.write_all(&[1, 2, 3]).unwrap();
        let e = Compact::read("size", &z.finish().unwrap()).unwrap_err().to_string();
        assert!(e.contains("the body inflates to 3 bytes; the form states 99"), "{e}");
        let head = br#"{"name":"a","source":"a","start_time":null,"meta":{},"warnings":[],"group":1,"windows":1}"#;
        let mut b = Vec::new();
        put(&mut b, head.len() as u64);
        b.extend_from_slice(head);
        b.extend_from_slice(&[1, 1, 1, 0, 0, 0, 0, 5, 1, 7]); // one untagged slot of 5 I/Os, one value
        let mut more = b.clone();
        more.extend_from_slice(&[2]); // level count 2 for one slot
        assert!(lie(&more).contains("2 levels for 1 slots"), "{}", lie(&more));
        let mut idx = b.clone();
        idx.extend_from_slice(&[1, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]); // index 2 of 1 value
        assert!(lie(&idx).contains("outside the 1 values"), "{}", lie(&idx));
        let mut groups = b.clone();
        groups.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]); // no groups
        assert!(lie(&groups).contains("0 groups for 1 slots"), "{}", lie(&groups));
        assert!(Compact::read("v", b"nines-compact\n\x07").unwrap_err().to_string().contains("version 7"));
        // version 3: a head section that states another size, and sections past the end
        let mut v3 = MAGIC.to_vec();
        put(&mut v3, 3);
        put(&mut v3, 99);
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        z.write_all(&[1, 2, 3]).unwrap();
        let z = z.finish().unwrap();
        put(&mut v3, z.len() as u64);
        v3.extend_from_slice(&z);
        let e = Compact::read("v3", &v3).unwrap_err().to_string();
        assert!(e.contains("head: its section (byte 17 of the form) inflates to 3 bytes; the form states 99"), "{e}");
        let mut long = bytes.clone();
        long.push(0);
        let e = Compact::read("long", &long).unwrap_err().to_string();
        assert!(e.contains("1 bytes follow the last section"), "{e}");
        assert!(Compact::read("v", b"#[StartTime: 1]").unwrap_err().to_string().contains("does not start with"));
    }

    #[test]
    fn stays_small_next_to_the_run() {
        // 3,600 one-second windows x 2 directions: points of every level plus 60 s groups
        let r = run(3600);
        let full = crate::archive::write(Vec::new(), &r).unwrap().len();
        let c = Compact::of(&r, 60).write().unwrap().len();
        assert!(c * 4 < full, "compact {c} B, archive {full} B");
    }

    #[test]
    fn version_1_forms_still_read_with_the_same_numbers() {
        // written by nines before version 2 (`nines site` of the archive beside it)
        let v1 = include_bytes!("../../tests/data/v1-randrw.compact");
        let full = crate::archive::read("v1-randrw.hlog", include_bytes!("../../tests/data/v1-randrw.hlog")).unwrap();
        let c = Compact::read("v1-randrw.compact", v1).unwrap();
        assert_exact(&full, &c);
        let (a, b) = (run_stats(&full, &Options::default()), run_stats(&c.run, &Options::default()));
        assert_eq!(a.tags, b.tags);
        let again = Compact::read("again", &c.write().unwrap()).unwrap();
        assert_eq!(again, c);
    }

    #[test]
    fn a_stored_form_reads_as_the_deflated_one() {
        let r = run(300);
        let c = Compact::of(&r, 16);
        let (z, stored) = (c.write().unwrap(), c.write_stored().unwrap());
        assert!(stored.len() > z.len());
        assert_eq!(Compact::read("stored", &stored).unwrap(), Compact::read("z", &z).unwrap());
        // flate2 inflates the streams too: blocks of 65,535 bytes, an empty stream, a bad sum
        for n in [0, 1, 65_535, 65_536, 200_000] {
            let data: Vec<u8> = (0..n).map(|i| (i * 7 % 251) as u8).collect();
            let mut back = Vec::new();
            std::io::Read::read_to_end(&mut flate2::read::ZlibDecoder::new(&stored_zlib(&data)[..]), &mut back).unwrap();
            assert_eq!(back, data, "{n} bytes");
        }
        let mut bad = stored_zlib(b"abc");
        *bad.last_mut().unwrap() ^= 1;
        assert!(Decoder::new().inflate_to_vec(&bad, 10, Some(3)).is_err());
    }

    #[test]
    fn version_2_forms_still_read_with_the_same_numbers() {
        // written by nines before version 3 (`nines site` of the archive beside it)
        let v2 = include_bytes!("../../tests/data/v2-randrw.compact");
        assert_eq!(v2[MAGIC.len()], 2);
        let full = crate::archive::read("v1-randrw.hlog", include_bytes!("../../tests/data/v1-randrw.hlog")).unwrap();
        let c = Compact::read("v2-randrw.compact", v2).unwrap();
        assert_exact(&full, &c);
        let (a, b) = (run_stats(&full, &Options::default()), run_stats(&c.run, &Options::default()));
        assert_eq!(a.tags, b.tags);
        let again = c.write().unwrap();
        assert_eq!(again[MAGIC.len()], VERSION as u8);
        assert_eq!(Compact::read("again", &again).unwrap(), c);
    }

    #[test]
    fn version_3_forms_still_read_with_the_same_numbers_and_groups() {
        // written by nines before version 4 (`nines site` of the archive beside it): each
        // tag's groups right after its levels
        let v3 = include_bytes!("../../tests/data/v3-randrw.compact");
        assert_eq!(v3[MAGIC.len()], 3);
        let full = crate::archive::read("v1-randrw.hlog", include_bytes!("../../tests/data/v1-randrw.hlog")).unwrap();
        let c = Compact::read("v3-randrw.compact", v3).unwrap();
        assert_exact(&full, &c);
        assert_eq!(c.groups_at(), None);
        assert!(c.has_groups());
        let again = Compact::read("again", &c.write().unwrap()).unwrap();
        assert_eq!(again, c);
        assert_eq!(again.range(Some(1.0), Some(2.0)).unwrap(), c.range(Some(1.0), Some(2.0)).unwrap());
        // a version 3 form has no place to cut it at: read whole by read_head too
        assert_eq!(Compact::read_head("v3", v3).unwrap(), c);
    }

    #[test]
    fn the_bytes_before_the_groups_draw_everything_and_the_groups_come_later() {
        let r = run(40);
        let c = Compact::of(&r, 4);
        let bytes = c.write().unwrap();
        let whole = Compact::read("w.compact", &bytes).unwrap();
        let at = whole.groups_at().unwrap();
        assert!(at < bytes.len() && whole.has_groups());
        let head = Compact::read_head("w.compact", &bytes[..at]).unwrap();
        assert!(!head.has_groups());
        assert_eq!(head.groups_at(), Some(at));
        // every point and the whole run's numbers, without the groups
        assert_exact(&r, &head);
        assert_eq!(run_stats(&head.run, &Options::default()).tags, run_stats(&whole.run, &Options::default()).tags);
        let e = head.range(Some(0.0), Some(8.0)).unwrap_err().to_string();
        assert!(e.contains(&r.source) && e.contains("not loaded"), "{e}");
        // read() wants the whole form: the same bytes are a form cut short
        let e = Compact::read("w.compact", &bytes[..at]).unwrap_err().to_string();
        assert!(e.contains("the groups of tag read"), "{e}");
        // a cut or padded rest is an error naming the groups and leaves them out
        let e = head.attach_groups(&bytes[at..bytes.len() - 1]).unwrap_err().to_string();
        assert!(e.contains(&r.source) && e.contains("the groups of tag"), "{e}");
        let mut padded = bytes[at..].to_vec();
        padded.push(0);
        assert!(head.attach_groups(&padded).unwrap_err().to_string().contains("1 bytes follow the last section"));
        assert!(!head.has_groups());
        head.attach_groups(&bytes[at..]).unwrap();
        assert!(head.has_groups());
        assert_eq!(head, whole);
        for (a, b) in [(None, None), (Some(4.0), Some(20.0))] {
            assert_eq!(head.range(a, b).unwrap(), whole.range(a, b).unwrap());
        }
        // the whole form, given to read_head, is read whole; given to attach_groups (a server
        // that ignores range requests sends it), its groups are taken
        assert_eq!(Compact::read_head("w.compact", &bytes).unwrap(), whole);
        let again = Compact::read_head("w.compact", &bytes[..at]).unwrap();
        again.attach_groups(&bytes).unwrap();
        assert_eq!(again, whole);
        assert!(Compact::read_head("w.compact", &bytes[..at]).unwrap().attach_groups(&bytes[..at - 1]).is_err());
        // a damaged group inside an attached section is an error naming it when a range asks
        let later = Compact::read_head("w.compact", &bytes[..at]).unwrap();
        let mut rest = bytes[at..].to_vec();
        let n = rest.len();
        rest[n - 3] ^= 0xff;
        let e = later.attach_groups(&rest).and_then(|()| later.range(None, None).map(|_| ())).unwrap_err().to_string();
        assert!(e.contains(&r.source) && e.contains("groups of tag"), "{e}");
    }

    #[test]
    fn a_level_is_inflated_when_first_asked_for_and_a_damaged_one_is_an_error_naming_it() {
        let r = run(40);
        let c = Compact::of(&r, 4);
        let bytes = c.write().unwrap();
        let back = Compact::read("lazy.compact", &bytes).unwrap();
        let t = &back.traces[0];
        assert!(t.levels.iter().all(|l| l.decoded.get().is_none()), "nothing decoded on reading");
        assert!(t.point(3, 0, &[3]).unwrap().is_some());
        assert_eq!(t.levels.iter().filter(|l| l.decoded.get().is_some()).count(), 1, "only the level asked for");
        // every byte of the form flipped in turn: an error on reading, on a level's points or
        // on the groups, never a panic, and a form that reads in full is the same form
        let mut caught = 0;
        for at in (MAGIC.len() + 1..bytes.len()).step_by(7) {
            let mut bad = bytes.clone();
            bad[at] ^= 0x04;
            let Ok(b) = Compact::read("bad.compact", &bad) else {
                caught += 1;
                continue;
            };
            let points = b.traces.iter().all(|t| (0..t.level_count()).all(|k| t.point(k as u32, 0, &[3]).is_ok()));
            if !points || b.range(None, None).is_err() {
                caught += 1;
            } else {
                assert_eq!(b, back, "byte {at} flipped reads as another form");
            }
        }
        assert!(caught > 0);
        // a level section swapped for one of another length
        let first = &back.traces[0].levels[0];
        let p = first.packed.as_ref().unwrap();
        let mut bad = bytes.clone();
        bad[p.at + 2] ^= 0xff;
        let b = Compact::read("bad.compact", &bad).unwrap();
        let e = b.traces[0].point(0, 0, &[3]).unwrap_err();
        assert!(e.starts_with("level 0 of tag read: its compressed section (byte"), "{e}");
        assert!(b.traces[0].point(1, 0, &[3]).is_ok(), "the other levels are sound");
    }

    #[test]
    fn a_damaged_group_is_an_error_when_its_range_is_asked_for() {
        let r = run(8);
        let mut c = Compact::of(&r, 2);
        // group 2 of the first tag swapped for a histogram of another count
        if let Store::Decoded(h) = &mut c.groups[0].store {
            h[1] = Hist::from_values(crate::hist::Layout::default_ns(), [5_000]);
        }
        let back = Compact::read("bad.compact", &c.write().unwrap()).expect("the whole-run histograms are sound");
        assert!(back.range(Some(0.0), Some(2.0)).is_ok(), "group 1 is sound");
        let e = back.range(Some(2.0), None).unwrap_err().to_string();
        // named by the run it holds
        assert!(e.starts_with("r.hlog: compact form: group 2 of tag read holds 1 I/Os"), "{e}");
    }
}
