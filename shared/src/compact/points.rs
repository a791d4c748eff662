//! The points of every level: median, nines and max of exact merges of power-of-two groups
//! of slots, merged bottom up.

use std::borrow::Cow;

use super::{levels_for, Trace, METRICS};
use crate::hist::Hist;
use crate::pyramid::Pyramid;
use crate::run::{is_direction, Run};
use crate::series::Direction;

/// Median, 1 to 9 nines and max of a histogram, in one pass over its buckets.
pub(super) fn metrics(h: &Hist) -> [u64; METRICS] {
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
pub(super) fn traces_of(run: &Run, pyramids: &[(Direction, Pyramid)]) -> Vec<Trace> {
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
