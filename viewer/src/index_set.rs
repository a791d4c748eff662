//! A set of run indices kept as a sorted `Vec`: what the view's hidden and baseline runs and the
//! page's bookkeeping need (insert, remove, contains, iteration in order).
//!
//! Written here rather than taken from std: `BTreeSet<usize>` does the same, but every map and
//! set type of the page instantiates the B-tree's node code again (insert, remove with its
//! rebalancing, clone), and that code is the largest generic code in the page's wasm, whose
//! size is budgeted. A page holds at most a few hundred runs, so a sorted `Vec` searched by
//! halves is as fast here.

/// Run indices, ascending, each once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IndexSet(Vec<usize>);

impl IndexSet {
    pub const fn new() -> IndexSet {
        IndexSet(Vec::new())
    }

    pub fn contains(&self, i: &usize) -> bool {
        self.0.binary_search(i).is_ok()
    }

    /// Add `i`; whether it was not there yet.
    pub fn insert(&mut self, i: usize) -> bool {
        match self.0.binary_search(&i) {
            Ok(_) => false,
            Err(at) => {
                self.0.insert(at, i);
                true
            }
        }
    }

    /// Take `i` out; whether it was there.
    pub fn remove(&mut self, i: &usize) -> bool {
        match self.0.binary_search(i) {
            Ok(at) => {
                self.0.remove(at);
                true
            }
            Err(_) => false,
        }
    }

    pub fn iter(&self) -> std::slice::Iter<'_, usize> {
        self.0.iter()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }
}

impl Extend<usize> for IndexSet {
    fn extend<I: IntoIterator<Item = usize>>(&mut self, items: I) {
        self.0.extend(items);
        self.0.sort_unstable();
        self.0.dedup();
    }
}

impl FromIterator<usize> for IndexSet {
    fn from_iter<I: IntoIterator<Item = usize>>(items: I) -> IndexSet {
        let mut s = IndexSet::new();
        s.extend(items);
        s
    }
}

impl<const N: usize> From<[usize; N]> for IndexSet {
    fn from(items: [usize; N]) -> IndexSet {
        items.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::IndexSet;
    use std::collections::BTreeSet;

    #[test]
    fn behaves_as_a_btreeset() {
        // a fixed pseudo-random walk of inserts, removes and extends, against std's set
        let (mut ours, mut std) = (IndexSet::new(), BTreeSet::new());
        let mut x = 7u64;
        for _ in 0..5000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let i = (x >> 33) as usize % 64;
            match (x >> 20) % 4 {
                0 | 1 => assert_eq!(ours.insert(i), std.insert(i)),
                2 => assert_eq!(ours.remove(&i), std.remove(&i)),
                _ => {
                    ours.extend([i, i / 2, i]);
                    std.extend([i, i / 2, i]);
                }
            }
            assert_eq!(ours.contains(&i), std.contains(&i));
            assert_eq!(ours.len(), std.len());
            assert!(ours.iter().eq(std.iter()));
        }
        ours.clear();
        assert!(ours.is_empty());
        assert_eq!(IndexSet::from([3, 1, 3]), [1, 3].into_iter().collect());
    }
}
