//! A stable sort with one compiled copy for every caller.
//!
//! `slice::sort_by` is generic over the element type and the comparison, so each call site
//! compiles its own copy of the standard library's driftsort (several KB of wasm each; `twiggy
//! monos` counted thirteen in the viewer). [`sort_by`] sorts the positions `0..n` (one type,
//! one comparison type: one copy of the sort) through a `&dyn` comparison, then moves the
//! elements into that order. It is meant for the short, cold sorts (windows of a run, rows
//! of a table), not for hot loops: each comparison is an indirect call.

use std::cmp::Ordering;

/// Sort `v` stably by `cmp`, like `v.sort_by(cmp)`.
pub fn sort_by<T>(v: &mut [T], cmp: impl Fn(&T, &T) -> Ordering) {
    let order = order(v.len(), &|a, b| cmp(&v[a], &v[b]));
    permute(v, &order);
}

/// Sort `v` stably by an `f64` key in IEEE 754 total order (`f64::total_cmp`).
pub fn sort_by_f64<T>(v: &mut [T], key: impl Fn(&T) -> f64) {
    sort_by(v, |a, b| key(a).total_cmp(&key(b)));
}

/// The positions `0..n` in the stable order of `cmp`.
fn order(n: usize, cmp: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_by(|&a, &b| cmp(a, b));
    idx
}

/// Reorder `v` so that `v[k]` becomes the old `v[order[k]]`, one cycle of the permutation
/// at a time (swaps only, so no `T: Clone`).
fn permute<T>(v: &mut [T], order: &[usize]) {
    let mut done = vec![false; v.len()];
    for start in 0..v.len() {
        if done[start] {
            continue;
        }
        let mut cur = start;
        loop {
            done[cur] = true;
            let next = order[cur];
            if next == start {
                break;
            }
            v.swap(cur, next);
            cur = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_stably_like_the_standard_sort() {
        // a fixed pseudo-random sequence with many ties
        let mut x = 12345u64;
        for n in [0usize, 1, 2, 3, 7, 50, 1000] {
            let v: Vec<(u64, usize)> = (0..n)
                .map(|i| {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    ((x >> 33) % 10, i)
                })
                .collect();
            let mut want = v.clone();
            want.sort_by_key(|a| a.0);
            let mut got = v.clone();
            sort_by(&mut got, |a, b| a.0.cmp(&b.0));
            assert_eq!(got, want, "n = {n}");
            let mut got = v;
            sort_by_f64(&mut got, |a| -(a.0 as f64));
            want.sort_by_key(|a| std::cmp::Reverse(a.0));
            assert_eq!(got, want, "n = {n}, descending");
        }
    }
}
