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
//! A form may also carry every recorded window of each tag, a group to a section (version 6,
//! `edges.rs`): a range whose edges cut a group is then exact at any window edge, and a page
//! fetches only the windows of the (at most two) groups a range cuts.
//!
//! # Format (version 6)
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
//! then, when the header has "context" (the recorded windows a record spans), a section of
//!   the device's and the host's context records (`context.rs`);
//! then per tag, in the head's order, a section of its groups: varint ceil(nslots / group),
//!   then each histogram a varint length and an uncompressed HdrHistogram V2 encoding;
//!   histogram i merges slots i*group..
//! when the header has "edges": true, the windows index: per tag, in the head's order, varint
//!   ceil(nslots / group), then per group the byte length in the file of its windows section
//!   (framing included); the windows begin right after it ([`Compact::windows_at`]);
//! then per tag and group, in that order, its windows section: varint n (the group's slots),
//!   then per slot a varint length and an uncompressed V2 encoding of its window
//! a column:  byte 0 and ZigZag delta-coded varints of whole microseconds (when every number
//!            is one exactly), or byte 1 and 8 little-endian bytes a number (IEEE 754 bits)
//! ```
//!
//! Version 5 is the same without the windows (and no "edges" in the header); version 4 the
//! same as 5 without context records; version 3 the same as 4 with each tag's
//! groups section right after its levels' sections.
//! Version 2 is one zlib stream (after the version, the inflated size as a varint) of the
//! head's fields with, per direction, its levels' points after `levels` and, for tags, its
//! groups before `whole`; version 1 is the same without the size and without `whole`.
//!
//! Varints are LEB128. Counts, I/Os before a point and its length follow from the slots;
//! support of a level from the count (as in `nines stats`). Every reader check fails with an
//! error naming the source and the byte offset in the inflated head or body, or the level or
//! group and the offset in its section, never a panic.
//!
//! # Where things are
//!
//! This file holds the model ([`Compact`], [`Trace`] and what they carry) and the form's
//! public API. `builder.rs` makes forms of a run ([`Builder`]), from the points of every level
//! that `points.rs` computes; `write.rs` writes version 4; `read/` reads every version (the
//! fields they share in `read/mod.rs`, versions 1 and 2 in `read/body.rs`, 3 and 4 in
//! `read/sections.rs`); `trace.rs` and `groups.rs` decode a level's points and a tag's groups
//! the first time they are asked for; `varint.rs` holds the numbers' encodings.

mod builder;
mod context;
mod edges;
mod error;
mod groups;
mod points;
mod read;
#[cfg(test)]
mod tests;
mod trace;
mod varint;
mod write;

use std::sync::{Arc, OnceLock};

use crate::hist::{Accumulator, Hist};
use crate::pyramid::Slot;
use crate::run::{is_direction, Run, Window};
use crate::series::Direction;
use crate::stats::tag_name;

use builder::group_text;
pub use builder::Builder;
pub use edges::EdgeFetch;
pub use error::{CompactError, FormError, WriteError};

/// The first bytes of a compact form.
pub const MAGIC: &[u8; 14] = b"nines-compact\n";
/// The version this crate writes. Versions 1 (no whole-run histograms), 2 (one zlib stream
/// for everything), 3 (each tag's groups after its levels) and 4 (no context records) are
/// still read.
pub const VERSION: u64 = 6;
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
    decoded: OnceLock<Result<Vec<u32>, FormError>>,
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
    /// The recorded windows each of `run.context`'s records spans (1: every window's own;
    /// a form read back holds them to within 0.25%, see `context.rs`).
    pub context_group: usize,
    /// Per tag, its windows merged in groups of `group`.
    groups: Vec<TagGroups>,
    /// Where the groups begin in the bytes read (version 4).
    groups_at: Option<usize>,
    /// Per tag, its recorded windows a group to a section (version 6, when carried).
    edges: Option<Vec<edges::TagWindows>>,
    /// Where the windows begin in the bytes read, once the groups are read.
    windows_at: OnceLock<usize>,
}

/// Equal when they hold the same run, points and groups (where the groups were in the bytes
/// read does not count).
impl PartialEq for Compact {
    fn eq(&self, other: &Compact) -> bool {
        self.run == other.run
            && self.group == other.group
            && self.windows == other.windows
            && self.context_group == other.context_group
            && self.traces == other.traces
            && self.groups == other.groups
            && self.edges == other.edges
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
        encoded: OnceLock<Result<Encodings, FormError>>,
    },
}

/// V2 encodings of histograms in one buffer: histogram i is `body[at[i].0..at[i].1]`.
#[derive(Clone, Debug)]
struct Encodings {
    body: Arc<Vec<u8>>,
    at: Vec<(usize, usize)>,
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

fn levels_for(n: usize) -> usize {
    if n == 0 {
        0
    } else {
        (usize::BITS - (n - 1).leading_zeros()) as usize + 1
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

    /// The histograms of a time range `[from, to)` seconds (every group without bounds), as
    /// the windows of a run with this run's name and metadata: its statistics and merges. A
    /// form that carries its recorded windows gives the groups wholly in the range and the
    /// windows that start in it of the groups the range cuts: exact at any window edge, the
    /// same as the recorded run ([`Compact::windows_missing`] names the sections to bring
    /// first). Without them, the groups that start in the range. A form read from bytes
    /// decodes them here; a damaged one is an error naming the group.
    pub fn range(&self, from: Option<f64>, to: Option<f64>) -> Result<Run, CompactError> {
        let (lo, hi) = (from.unwrap_or(f64::NEG_INFINITY), to.unwrap_or(f64::INFINITY));
        let mut per_tag = Vec::with_capacity(self.groups.len());
        for (t, g) in self.groups.iter().enumerate() {
            let slots = self.slots_of(&g.tag);
            let mut ws = Vec::new();
            for (i, &(start_s, length_s, _)) in g.spans.iter().enumerate() {
                if self.edges.is_some() && edges::is_cut(slots, self.group, i, lo, hi) {
                    let missing = || {
                        Err(CompactError {
                            source_name: self.run.source.clone(),
                            offset: None,
                            message: format!("no windows of group {}", i + 1),
                        })
                    };
                    ws.extend(self.edge_windows(t, i, lo, hi).unwrap_or_else(missing)?);
                } else if start_s >= lo && start_s < hi {
                    let hist = g.hist(i).map_err(|e| CompactError { source_name: self.run.source.clone(), offset: None, message: e.0 })?;
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

fn point_has_ios(slots: &[Slot], k: usize, i: usize) -> bool {
    let g = 1usize << k;
    slots[i * g..((i + 1) * g).min(slots.len())].iter().any(|s| s.count > 0)
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
        context: Vec::new(),
    }
}
