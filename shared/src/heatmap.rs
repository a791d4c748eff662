//! The latency heatmap: the runtime chart's x axis (time, or I/Os completed) against latency on
//! log-spaced bins (those of [`crate::density::log_density`]), each cell the I/Os of one column
//! in one bin. A column is the exact merge (histogram sum) of the windows it covers, the same
//! power-of-two groups of a run's windows as the runtime chart's points
//! ([`Pyramid::view_keys`]), so a stall that one level of nines hides still shows as the I/Os
//! it held in the slow bins; the levels and max of each column come from the same merge.
//!
//! For a compact form ([`crate::compact`]) the "windows" are its carried groups
//! ([`crate::compact::Compact::range`]): every column is then a merge of whole groups.

use crate::density::{bin_edges, bin_of, log_bins};
use crate::pyramid::{series_points, Axis, Pyramid};
use crate::quantile::Level;
use crate::run::Run;

/// One column of a heatmap.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    /// Extent on the heatmap's axis.
    pub x0: f64,
    pub x1: f64,
    /// The time its windows cover: they start in `[start_s, end_s)` (`nines stats --from
    /// start_s --to end_s` counts the same I/Os).
    pub start_s: f64,
    pub end_s: f64,
    pub count: u64,
    /// The bin of `bins[0]` (see [`crate::density::bin_of`]).
    pub first_bin: i64,
    /// I/Os per bin from `first_bin` on; empty for a column without I/Os.
    pub bins: Vec<u64>,
    /// The levels of nines asked for (`None` without support: no I/O beyond the level).
    pub levels: Vec<Option<u64>>,
    pub max_ns: Option<u64>,
}

impl Column {
    /// I/Os of the column in bin `k`.
    pub fn count_in(&self, k: i64) -> u64 {
        usize::try_from(k - self.first_bin).ok().and_then(|i| self.bins.get(i)).copied().unwrap_or(0)
    }

    /// Share of the column's I/Os in bin `k` (0 for a column without I/Os).
    pub fn share(&self, k: i64) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.count_in(k) as f64 / self.count as f64
        }
    }

    /// The non-empty bins: (bin, count).
    pub fn cells(&self) -> impl Iterator<Item = (i64, u64)> + '_ {
        self.bins.iter().enumerate().filter(|(_, c)| **c > 0).map(|(i, c)| (self.first_bin + i as i64, *c))
    }
}

/// A heatmap of one direction of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Heatmap {
    pub bins_per_decade: u32,
    pub columns: Vec<Column>,
}

impl Heatmap {
    /// The lowest and highest non-empty bins of every column.
    pub fn bin_range(&self) -> Option<(i64, i64)> {
        let lo = self.columns.iter().filter_map(|c| c.cells().next().map(|b| b.0)).min()?;
        let hi = self.columns.iter().filter_map(|c| c.cells().last().map(|b| b.0)).max()?;
        Some((lo, hi))
    }

    /// The latency range `[lo, hi)` of bin `k`.
    pub fn edges(&self, k: i64) -> (f64, f64) {
        bin_edges(k, self.bins_per_decade)
    }

    /// The smallest share any non-empty cell has (1 without cells).
    pub fn min_share(&self) -> f64 {
        self.columns.iter().flat_map(|c| c.cells().map(move |(_, n)| n as f64 / c.count as f64)).fold(1.0, f64::min)
    }

    /// The cell under a point: the column whose extent holds `x` and the bin of `latency_ns`.
    pub fn at(&self, x: f64, latency_ns: f64) -> Option<(usize, i64)> {
        if !(latency_ns.is_finite() && latency_ns > 0.0) {
            return None;
        }
        let i = self.columns.iter().position(|c| x >= c.x0 && x < c.x1)?;
        Some((i, (latency_ns.log10() * self.bins_per_decade as f64).floor() as i64))
    }
}

/// The heatmap of the pyramid's direction of `run` over `[from, to)` on `axis`: at most
/// `max_columns` columns (the finest power-of-two groups of windows that fit, as the runtime
/// chart's points), `bins_per_decade` latency bins a decade, and each column's levels of
/// `nines` (1 to 9) and max. The run must be the one the pyramid was built from.
pub fn heatmap(
    run: &Run,
    p: &Pyramid,
    axis: Axis,
    (from, to): (f64, f64),
    max_columns: usize,
    bins_per_decade: u32,
    nines: &[u32],
) -> Heatmap {
    let bins_per_decade = bins_per_decade.max(1);
    let (k, range) = p.view_keys(axis, from, to, max_columns);
    let levels: Vec<Level> = nines.iter().map(|&n| Level::nines(n)).collect();
    let columns = range.filter_map(|i| column(run, p, axis, k, i, bins_per_decade, &levels)).collect();
    Heatmap { bins_per_decade, columns }
}

/// Column `i` of pyramid level `k` ([`Pyramid::view_keys`] gives the ones a view shows), with
/// `levels`; `None` where the level has no such group. A viewer that zooms step by step
/// revisits most columns, and may keep them by `(axis, k, i)`.
pub fn column(run: &Run, p: &Pyramid, axis: Axis, k: u32, i: usize, bins_per_decade: u32, levels: &[Level]) -> Option<Column> {
    let span = p.span(run, k, i)?;
    let (x0, x1) = span.extent(axis);
    let point = series_points(std::iter::once(&span), levels).pop()?;
    let (first_bin, bins) = log_bins(&span.hist, bins_per_decade.max(1)).unwrap_or((0, Vec::new()));
    Some(Column {
        x0,
        x1,
        start_s: span.start_s,
        end_s: span.start_s + span.length_s,
        count: span.hist.count(),
        first_bin,
        bins,
        levels: point.levels.iter().map(|l| l.0).collect(),
        max_ns: point.max_ns,
    })
}

/// The bin of a latency (see [`crate::density::bin_of`]).
pub fn bin(latency_ns: u64, bins_per_decade: u32) -> i64 {
    bin_of(latency_ns, bins_per_decade)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compact::Compact;
    use crate::density::log_density;
    use crate::hist::{Hist, Layout};
    use crate::run::test_runs::two_directions;
    use crate::run::Window;
    use crate::series::Direction;

    /// Every column's bins equal log_density of the merge (`Hist::merge_all`) of the windows
    /// that start in its time range, and its count and levels are those of `nines stats`.
    fn assert_columns_are_merges(full: &Run, h: &Heatmap, dir: &Direction) {
        assert!(!h.columns.is_empty());
        for c in &h.columns {
            let ws: Vec<&Hist> = full
                .windows
                .iter()
                .filter(|w| w.start_s >= c.start_s - 1e-9 && w.start_s < c.end_s - 1e-9)
                .filter(|w| match dir {
                    Direction::Tag(t) => w.tag == *t,
                    Direction::All => crate::run::is_direction(w.tag.as_deref()),
                })
                .map(|w| &w.hist)
                .collect();
            let merged = Hist::merge_all(ws);
            assert_eq!(c.count, merged.count(), "column {}..{}", c.start_s, c.end_s);
            let want = log_density(&merged, h.bins_per_decade);
            let got: Vec<(f64, u64)> = (0..c.bins.len()).map(|i| (h.edges(c.first_bin + i as i64).0, c.bins[i])).collect();
            assert_eq!(got.len(), want.len());
            for ((lo, n), b) in got.iter().zip(&want) {
                assert!((lo - b.lo_ns).abs() <= 1e-9 * b.lo_ns);
                assert_eq!(*n, b.count);
            }
            let o = crate::stats::Options { from: Some(c.start_s), to: Some(c.end_s), ..Default::default() };
            let s = crate::stats::run_stats(full, &o);
            let key = match dir {
                Direction::All => "all".to_string(),
                Direction::Tag(t) => crate::stats::tag_name(t.as_deref()).to_string(),
            };
            let ts = &s.tags.0.iter().find(|(t, _)| *t == key).expect("the tag's row").1;
            assert_eq!(ts.count, c.count);
            assert_eq!(Some(ts.max_ns), c.max_ns);
            assert_eq!(ts.levels.iter().find(|l| l.label == "p99.9").and_then(|l| l.value_ns), c.levels[0]);
        }
    }

    #[test]
    fn columns_are_exact_merges_of_the_windows_they_cover() {
        let mut r = two_directions(37);
        // a stall: window 20's reads hold a few I/Os of 2 s
        for w in r.windows.iter_mut().filter(|w| w.start_s == 20.0 && w.tag.as_deref() == Some("read")) {
            w.hist = w.hist.merge(&Hist::from_values(Layout::default_ns(), [2_000_000_000, 2_100_000_000, 1_990_000_000]));
        }
        for dir in [Direction::All, Direction::Tag(Some("read".into())), Direction::Tag(Some("write".into()))] {
            let p = Pyramid::new(&r, &dir);
            for (axis, from, to) in [(Axis::Time, 0.0, 37.0), (Axis::Time, 10.5, 22.0), (Axis::Ios, 0.0, 1e9)] {
                for max in [1, 5, 16, 100] {
                    let h = heatmap(&r, &p, axis, (from, to), max, 40, &[3]);
                    assert!(h.columns.len() <= max, "{} columns for at most {max}", h.columns.len());
                    assert_columns_are_merges(&r, &h, &dir);
                }
            }
        }
        // the stalled column has its 3 I/Os in the 2 s bins
        let read = Direction::Tag(Some("read".into()));
        let h = heatmap(&r, &Pyramid::new(&r, &read), Axis::Time, (0.0, 37.0), 100, 40, &[3]);
        let stalled = h.columns.iter().find(|c| c.start_s == 20.0).unwrap();
        let slow: u64 = stalled.cells().filter(|&(k, _)| h.edges(k).0 >= 1e9).map(|c| c.1).sum();
        assert_eq!(slow, 3);
        assert_eq!(h.columns.iter().map(|c| c.cells().filter(|&(k, _)| h.edges(k).0 >= 1e9).count()).sum::<usize>(), 2);
        let (lo, hi) = h.bin_range().unwrap();
        assert_eq!(hi, bin(2_100_000_000, 40));
        assert_eq!(lo, bin(10_000, 40));
        // the cell under a point
        let (i, k) = h.at(20.5, 2.05e9).unwrap();
        assert_eq!(h.columns[i].start_s, 20.0);
        assert_eq!(h.columns[i].count_in(k), 2, "2.0 s and 2.1 s share a bin of 10^(1/40)");
        assert!((h.columns[i].share(k) - 2.0 / 703.0).abs() < 1e-12);
        assert_eq!(h.at(99.0, 1e6), None);
        assert_eq!(h.at(1.0, 0.0), None);
        assert!((h.min_share() - 1.0 / 703.0).abs() < 1e-12);
    }

    #[test]
    fn a_compact_form_gives_columns_of_whole_groups() {
        let r = two_directions(40);
        for g in [1, 4, 7] {
            let c = Compact::read("x.compact", &Compact::of(&r, g).write().unwrap()).unwrap();
            let groups = c.range(None, None).unwrap();
            for dir in [Direction::All, Direction::Tag(Some("write".into()))] {
                let p = Pyramid::new(&groups, &dir);
                let h = heatmap(&groups, &p, Axis::Time, (0.0, 40.0), 8, 40, &[3]);
                // every column starts and ends on group edges, and is the merge of the
                // recorded windows in it
                for col in &h.columns {
                    assert_eq!(col.start_s as usize % g, 0);
                    assert!((col.end_s as usize).is_multiple_of(g) || col.end_s == 40.0);
                }
                assert_columns_are_merges(&r, &h, &dir);
            }
        }
    }

    #[test]
    fn empty_windows_make_empty_columns() {
        let l = Layout::default_ns();
        let r = Run {
            windows: vec![
                Window { start_s: 0.0, length_s: 1.0, tag: Some("read".into()), hist: Hist::from_values(l, [5_000]) },
                Window { start_s: 1.0, length_s: 1.0, tag: Some("read".into()), hist: Hist::empty(l) },
            ],
            ..Run::default()
        };
        let d = Direction::Tag(Some("read".into()));
        let h = heatmap(&r, &Pyramid::new(&r, &d), Axis::Time, (0.0, 2.0), 10, 40, &[1]);
        assert_eq!(h.columns.len(), 2);
        assert!(h.columns[1].bins.is_empty() && h.columns[1].count == 0 && h.columns[1].max_ns.is_none());
        assert_eq!(h.columns[1].share(5), 0.0);
        assert_eq!(h.columns[0].levels, vec![None], "one I/O: no support for p90");
    }
}
