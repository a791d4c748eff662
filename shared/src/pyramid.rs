//! The runtime view's zoom structure: a run's windows of one direction at every power-of-two
//! exact merge, so that a chart of any stretch of a run, on a time or an I/O axis, is a few
//! merged histograms per pixel and never loses the tail (the runtime QoS of the SDC talk "Latency is more than just a number").

use std::borrow::Cow;

use crate::hist::{Accumulator, Hist};
use crate::quantile::{Level, Support};
use crate::run::Run;
use crate::series::{Direction, SeriesPoint};

/// Which x axis the runtime view uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    /// Seconds from the run's start.
    Time,
    /// I/Os completed before the window (runtime QoS by sample count, as in the SDC talk "Latency is more than just a number").
    Ios,
}

/// A recorded window of one direction, or for [`Direction::All`] the windows of every
/// direction that start together: where it lies, and which of the run's windows it holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Slot {
    pub start_s: f64,
    pub length_s: f64,
    /// I/Os completed before it in the direction.
    pub ios_before: u64,
    pub count: u64,
    /// Indices into `run.windows`.
    pub windows: Vec<usize>,
}

impl Slot {
    /// Start and end on an axis.
    pub fn extent(&self, axis: Axis) -> (f64, f64) {
        match axis {
            Axis::Time => (self.start_s, self.start_s + self.length_s),
            Axis::Ios => (self.ios_before as f64, (self.ios_before + self.count) as f64),
        }
    }
}

/// A point of a zoomed view: an exact merge of consecutive slots.
#[derive(Clone, Debug, PartialEq)]
pub struct Span<'a> {
    pub start_s: f64,
    pub length_s: f64,
    pub ios_before: u64,
    pub hist: Cow<'a, Hist>,
}

impl Span<'_> {
    /// Start and end on an axis.
    pub fn extent(&self, axis: Axis) -> (f64, f64) {
        match axis {
            Axis::Time => (self.start_s, self.start_s + self.length_s),
            Axis::Ios => (self.ios_before as f64, (self.ios_before + self.hist.count()) as f64),
        }
    }
}

/// Levels finer than this are merged from the run's windows when a view needs them; from
/// this level on (groups of 2^3 = 8 windows) merges are kept. This keeps the memory of a
/// pyramid small next to the run itself while a redraw merges at most 8 windows a point.
const STORED_FROM: u32 = 3;

/// The windows of one direction of a run at every power-of-two merge: level k holds exact
/// merges (histogram sums) of 2^k adjacent windows. A zoomed view takes the finest level that
/// still fits the pixels, so a redraw costs a pass over a few points per pixel whatever the
/// run length, and never loses the tail. Levels from 2^3 windows on are stored; finer ones are
/// merged from the run on demand, so the run passed to the methods must be the one the pyramid
/// was built from. Every merge is of windows of that one run, whose counts add up to at most
/// 2^63 - 1 ([`crate::run::Run::check_counts`]): exact, no count can overflow.
#[derive(Clone, Debug, Default)]
pub struct Pyramid {
    slots: Vec<Slot>,
    /// Stored levels: `stored[j]` is level `STORED_FROM + j`.
    stored: Vec<Vec<(f64, f64, u64, Hist)>>,
}

fn merge_indices(run: &Run, idx: impl IntoIterator<Item = usize>) -> Option<Hist> {
    let idx: Vec<usize> = idx.into_iter().collect();
    let first = *idx.first()?;
    if idx.len() <= 32 {
        // A few windows: sparse merges cost their buckets; a dense accumulator would cost the
        // whole value range per point of a view.
        let mut h = run.windows[first].hist.clone();
        for &i in &idx[1..] {
            h = h.merge(&run.windows[i].hist);
        }
        return Some(h);
    }
    let mut acc = Accumulator::new(run.windows[first].hist.layout());
    for i in idx {
        acc.add(&run.windows[i].hist);
    }
    Some(acc.finish())
}

impl Pyramid {
    /// Build for one direction of a run.
    pub fn new(run: &Run, dir: &Direction) -> Pyramid {
        let slots = slots_of(run, dir);
        let stored = stored_levels(run, &slots);
        Pyramid { slots, stored }
    }

    /// A pyramid without stored levels: every point is merged from the run when asked for
    /// (for one pass over the groups of a level, as a compact form's writer makes).
    pub fn unstored(run: &Run, dir: &Direction) -> Pyramid {
        Pyramid { slots: slots_of(run, dir), stored: Vec::new() }
    }

    /// The recorded windows (slots), in time order.
    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }

    /// Extent of the whole direction on an axis.
    pub fn extent(&self, axis: Axis) -> Option<(f64, f64)> {
        Some((self.slots.first()?.extent(axis).0, self.slots.last()?.extent(axis).1))
    }

    /// Which points a view of `[from, to)` on `axis` has: the finest level k whose groups of
    /// 2^k slots give at most `max_points`, and the range of group indices. Groups are aligned
    /// to the level (panning does not change them), so a point can be cached by `(k, index)`.
    pub fn view_keys(&self, axis: Axis, from: f64, to: f64, max_points: usize) -> (u32, std::ops::Range<usize>) {
        let top = if self.stored.is_empty() { 0 } else { STORED_FROM + self.stored.len() as u32 - 1 };
        view_keys(&self.slots, top.max(usize::BITS - self.slots.len().leading_zeros()), axis, from, to, max_points)
    }

    /// Point `index` of level `k`: the exact merge of slots `index * 2^k ..` (stored from level
    /// 3 on, merged from the run below). `None` past the end.
    pub fn span<'a>(&'a self, run: &'a Run, k: u32, index: usize) -> Option<Span<'a>> {
        if k >= STORED_FROM && !self.stored.is_empty() {
            let level = self.stored.get((k - STORED_FROM) as usize)?;
            let (s, l, b, h) = level.get(index)?;
            return Some(Span { start_s: *s, length_s: *l, ios_before: *b, hist: Cow::Borrowed(h) });
        }
        let g = 1usize << k;
        let group = self.slots.get(index * g..((index + 1) * g).min(self.slots.len()))?;
        let first = group.first()?;
        let last = group.last()?;
        let hist = if group.len() == 1 && first.windows.len() == 1 {
            Cow::Borrowed(&run.windows[first.windows[0]].hist)
        } else {
            Cow::Owned(merge_indices(run, group.iter().flat_map(|s| s.windows.iter().copied()))?)
        };
        Some(Span { start_s: first.start_s, length_s: last.start_s + last.length_s - first.start_s, ios_before: first.ios_before, hist })
    }

    /// The exact merge of `n` slots from slot `first` (a stored level when they are one of
    /// its groups).
    pub fn group<'a>(&'a self, run: &'a Run, first: usize, n: usize) -> Option<Span<'a>> {
        if n.is_power_of_two() && first.is_multiple_of(n) {
            if let Some(s) = self.span(run, n.trailing_zeros(), first / n) {
                return Some(s);
            }
        }
        let group = self.slots.get(first..first.checked_add(n)?.min(self.slots.len()))?;
        let (a, b) = (group.first()?, group.last()?);
        let hist = merge_indices(run, group.iter().flat_map(|s| s.windows.iter().copied()))?;
        Some(Span { start_s: a.start_s, length_s: b.start_s + b.length_s - a.start_s, ios_before: a.ios_before, hist: Cow::Owned(hist) })
    }

    /// The points of a view of `[from, to)` on `axis` (see [`Pyramid::view_keys`]); merged
    /// points at the edges may reach outside the range.
    pub fn view<'a>(&'a self, run: &'a Run, axis: Axis, from: f64, to: f64, max_points: usize) -> Vec<Span<'a>> {
        let (k, range) = self.view_keys(axis, from, to, max_points);
        range.filter_map(|i| self.span(run, k, i)).collect()
    }

    /// The exact merge of the slots that start in `[from, to)` seconds (the same rule as
    /// [`Run::slice`] and `nines stats --from/--to`); everything when both are `None`.
    pub fn merged(&self, run: &Run, from: Option<f64>, to: Option<f64>) -> Option<Hist> {
        if from.is_none() && to.is_none() {
            // the top stored level is the whole direction, merged once already
            if let Some([(_, _, _, h)]) = self.stored.last().map(|l| l.as_slice()) {
                return Some(h.clone());
            }
        }
        let (from, to) = (from.unwrap_or(f64::NEG_INFINITY), to.unwrap_or(f64::INFINITY));
        merge_indices(run, self.slots.iter().filter(|s| s.start_s >= from && s.start_s < to).flat_map(|s| s.windows.iter().copied()))
    }
}

/// The slots of a direction: its windows in time order (for [`Direction::All`], the windows
/// of every direction that start together are one slot).
fn slots_of(run: &Run, dir: &Direction) -> Vec<Slot> {
    let mut idx: Vec<usize> = (0..run.windows.len())
        .filter(|&i| {
            let w = &run.windows[i];
            match dir {
                Direction::Tag(t) => w.tag == *t,
                Direction::All => crate::run::is_direction(w.tag.as_deref()),
            }
        })
        .collect();
    crate::sort::sort_by_f64(&mut idx, |&a| run.windows[a].start_s);
    let mut slots: Vec<Slot> = Vec::new();
    let mut cum = 0;
    for i in idx {
        let w = &run.windows[i];
        let n = w.hist.count();
        match slots.last_mut() {
            Some(s) if matches!(dir, Direction::All) && (w.start_s - s.start_s).abs() < 1e-6 => {
                s.length_s = s.length_s.max(w.length_s);
                s.count += n;
                s.windows.push(i);
            }
            _ => slots.push(Slot { start_s: w.start_s, length_s: w.length_s, ios_before: cum, count: n, windows: vec![i] }),
        }
        cum += n;
    }
    slots
}

/// The stored levels of a pyramid of `slots` (see [`STORED_FROM`]).
fn stored_levels(run: &Run, slots: &[Slot]) -> Vec<Vec<(f64, f64, u64, Hist)>> {
    let mut stored: Vec<Vec<(f64, f64, u64, Hist)>> = Vec::new();
    let group = 1usize << STORED_FROM;
    if slots.len() > group {
        // One dense accumulator for every group: each window's buckets are added once,
        // where merging sparse lists would copy them once per merge.
        let layout = slots.first().and_then(|s| s.windows.first()).map(|&i| run.windows[i].hist.layout());
        let mut acc = layout.map(Accumulator::new);
        stored.push(
            slots
                .chunks(group)
                .filter_map(|c| {
                    let last = c.last()?;
                    let idx = c.iter().flat_map(|s| s.windows.iter().copied());
                    let h = match acc.as_mut() {
                        Some(acc) if c.iter().flat_map(|s| &s.windows).all(|&i| Some(run.windows[i].hist.layout()) == layout) => {
                            for i in idx {
                                acc.add(&run.windows[i].hist);
                            }
                            acc.take()
                        }
                        _ => merge_indices(run, idx)?,
                    };
                    Some((c[0].start_s, last.start_s + last.length_s - c[0].start_s, c[0].ios_before, h))
                })
                .collect(),
        );
        while stored.last().is_some_and(|l| l.len() > 1) {
            let prev = stored.last().unwrap();
            let next = prev
                .chunks(2)
                .map(|p| match p {
                    [a, b] => (a.0, b.0 + b.1 - a.0, a.2, a.3.merge(&b.3)),
                    [a] => a.clone(),
                    _ => unreachable!(),
                })
                .collect();
            stored.push(next);
        }
    }
    stored
}

/// [`Pyramid::view_keys`] over `slots`, with levels up to `top`: the finest level k whose
/// groups of 2^k slots in `[from, to)` on `axis` are at most `max_points`, and their indices.
pub fn view_keys(slots: &[Slot], top: u32, axis: Axis, from: f64, to: f64, max_points: usize) -> (u32, std::ops::Range<usize>) {
    let lo = slots.partition_point(|s| s.extent(axis).1 <= from);
    let hi = slots.partition_point(|s| s.extent(axis).0 < to);
    if hi <= lo {
        return (0, 0..0);
    }
    let max_points = max_points.max(1);
    let mut k = 0u32;
    loop {
        let g = 1usize << k;
        let (glo, ghi) = (lo / g, (hi - 1) / g + 1);
        if ghi - glo <= max_points || k >= top {
            return (k, glo..ghi);
        }
        k += 1;
    }
}

/// Runtime-series points of the spans of a view: count, IOPS, median, the given levels and
/// the max of each (the same definitions as [`crate::series::runtime_series`]).
pub fn series_points<'a>(spans: impl IntoIterator<Item = &'a Span<'a>>, levels: &[Level]) -> Vec<SeriesPoint> {
    let median = Level { label: "p50".into(), num: 1, den: 2 };
    spans
        .into_iter()
        .map(|w| {
            let h: &Hist = &w.hist;
            let n = h.count();
            // every level in one pass over the buckets (ranks ascending), as value_at would
            // find them one by one
            let mut wanted: Vec<(u64, usize)> = std::iter::once(&median).chain(levels).map(|l| l.rank(n)).zip(0..).collect();
            wanted.sort_unstable();
            let mut values = vec![None; wanted.len()];
            let (mut cum, mut next) = (0u64, 0usize);
            for (v, c) in h.buckets() {
                cum += c;
                while next < wanted.len() && wanted[next].0 <= cum {
                    values[wanted[next].1] = Some(h.layout().highest_equivalent(v));
                    next += 1;
                }
                if next == wanted.len() {
                    break;
                }
            }
            let level = |(i, l): (usize, &Level)| {
                let support = if n == 0 { Support::None } else { Support::of(n.saturating_sub(l.rank(n))) };
                match support {
                    Support::None => (None, support),
                    _ => (values[i + 1], support),
                }
            };
            SeriesPoint {
                start_s: w.start_s,
                length_s: w.length_s,
                count: n,
                iops: if w.length_s > 0.0 { n as f64 / w.length_s } else { 0.0 },
                p50_ns: if n == 0 { None } else { values[0] },
                levels: levels.iter().enumerate().map(level).collect(),
                max_ns: if n == 0 { None } else { Some(h.max()) },
            }
        })
        .collect()
}

/// Time range `[from, to)` in seconds covering the slots whose I/O range overlaps `[a, b)`
/// I/Os (to turn a selection on the I/O axis into the time range the stats use).
pub fn time_range_of_ios(slots: &[Slot], a: f64, b: f64) -> Option<(f64, f64)> {
    let sel: Vec<&Slot> = slots
        .iter()
        .filter(|s| {
            let (x0, x1) = s.extent(Axis::Ios);
            x1 > a && x0 < b
        })
        .collect();
    let last = sel.last()?;
    Some((sel.first()?.start_s, last.start_s + last.length_s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::series::{runtime_series, Grouping};
    use crate::stats::{merge_windows, run_stats, Options};

    use crate::run::test_runs::two_directions as run;

    #[test]
    fn pyramid_views_are_exact_merges() {
        let r = run(37);
        let read = Direction::Tag(Some("read".into()));
        let reads = crate::series::direction_windows(&r, &read);
        let total = merge_windows(reads.iter()).unwrap();
        let p = Pyramid::new(&r, &read);
        assert_eq!(p.slots().len(), 37);
        assert_eq!(p.extent(Axis::Time), Some((0.0, 37.0)));
        assert_eq!(p.extent(Axis::Ios), Some((0.0, 37.0 * 700.0)));
        let sum = |v: &[Span]| v.iter().map(|s| s.hist.clone().into_owned()).reduce(|a, b| a.merge(&b)).unwrap();
        for max in [1, 3, 5, 10, 20, 37, 100] {
            let v = p.view(&r, Axis::Time, 0.0, 37.0, max);
            assert!(v.len() <= max.max(1) || max < 5, "{max}: {}", v.len());
            assert_eq!(sum(&v), total, "max {max}");
            // each point covers whole windows, in order, without gaps
            assert!(v.windows(2).all(|w| (w[0].start_s + w[0].length_s - w[1].start_s).abs() < 1e-9));
        }
        // each stored point (groups of 8 windows, one accumulator reused) is exactly its windows
        for sp in p.view(&r, Axis::Time, 0.0, 37.0, 5) {
            let own: Vec<_> = reads.iter().filter(|w| w.start_s >= sp.start_s && w.start_s < sp.start_s + sp.length_s).collect();
            assert_eq!(*sp.hist, merge_windows(own.into_iter()).unwrap(), "point at {}", sp.start_s);
        }
        // a zoomed range at native resolution is exactly the recorded windows
        let v = p.view(&r, Axis::Time, 10.0, 20.0, 100);
        assert_eq!(v.len(), 10);
        assert_eq!(*v[0].hist, reads[10].hist);
        // the I/O axis selects the same windows
        let v2 = p.view(&r, Axis::Ios, 7_000.0, 14_000.0, 100);
        assert_eq!(*v2[0].hist, reads[10].hist);
        assert_eq!(time_range_of_ios(p.slots(), 7_000.0, 14_000.0), Some((10.0, 20.0)));
        // merged ranges follow the stats' slicing rule
        let sliced = run_stats(&r, &Options { tag: Some("read".into()), from: Some(10.0), to: Some(20.0), ..Options::default() });
        let m = p.merged(&r, Some(10.0), Some(20.0)).unwrap();
        assert_eq!(m.count(), sliced.tags["read"].count);
        assert_eq!(m.max(), sliced.tags["read"].max_ns);
        assert_eq!(p.merged(&r, None, None).unwrap(), total);
        assert_eq!(p.merged(&r, Some(100.0), None), None);
        // points match the core's runtime series
        let native = p.view(&r, Axis::Time, 0.0, 37.0, 1000);
        let pts = series_points(native.iter(), &[Level::nines(2)]);
        let core = runtime_series(&r, &read, &[Level::nines(2)], Grouping::Native);
        assert_eq!(pts, core);
        // all directions: slots merge the windows that start together
        let all = Pyramid::new(&r, &Direction::All);
        assert_eq!(all.slots().len(), 37);
        assert_eq!(all.slots()[0].count, 1000);
        let av = all.view(&r, Axis::Time, 0.0, 37.0, 1000);
        let core_all = crate::series::direction_windows(&r, &Direction::All);
        assert!(av.iter().zip(&core_all).all(|(a, b)| *a.hist == b.hist));
        let coarse = all.view(&r, Axis::Time, 0.0, 37.0, 4);
        assert_eq!(sum(&coarse), merge_windows(core_all.iter()).unwrap());
    }
}
