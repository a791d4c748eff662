//! A direction's slots and points: the levels' points decoded when first asked for.

use super::read::read_level;
use super::varint::Reader;
use super::FormError;
use super::{dir_name, LevelPoints, Trace, METRICS};
use crate::pyramid::{Axis, Pyramid, Slot};
use crate::quantile::{Level, Support};
use crate::series::{Direction, SeriesPoint};

impl Trace {
    /// The trace of a direction from its levels' metrics (see [`Merges`](super::points::Merges)).
    pub(super) fn of_levels(dir: Direction, p: &Pyramid, raw: Vec<Vec<[u64; METRICS]>>) -> Trace {
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
    pub(super) fn level(&self, k: usize) -> Result<&[u32], FormError> {
        let l = &self.levels[k];
        let got = l.decoded.get_or_init(|| {
            let packed = l.packed.as_ref().ok_or("a level without points")?;
            let body = packed.inflate()?;
            let mut r = Reader { b: &body, at: 0 };
            let points = read_level(&mut r, &self.slots, self.values.len(), k).map_err(|m| format!("byte {} of its section: {m}", r.at))?;
            if r.at != body.len() {
                return Err(format!("{} bytes follow its last point", body.len() - r.at).into());
            }
            Ok(points)
        });
        got.as_deref().map_err(|e| format!("level {k} of {}: {e}", dir_name(&self.dir)).into())
    }

    /// Decode level `k`'s points now, if it has not been (a viewer reads the next finer level
    /// ahead of a zoom step in idle time); past the last level, nothing.
    pub fn read_level(&self, k: u32) -> Result<(), FormError> {
        if (k as usize) < self.levels.len() {
            self.level(k as usize)?;
        }
        Ok(())
    }

    /// Point `index` of level `k` with the given levels of nines (1 to 9), and the I/Os
    /// before it; the same numbers as [`crate::pyramid::series_points`] of the exact merge.
    /// `None` past the last point; an error when the level's section is damaged.
    pub fn point(&self, k: u32, index: usize, nines: &[u32]) -> Result<Option<(SeriesPoint, u64)>, FormError> {
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
