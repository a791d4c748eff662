//! A cache of values computed per (pyramid level, group index): the runtime chart's points and
//! the heatmap's columns, which a zoom step or a pan mostly revisits.

/// Values computed for a (pyramid level, group) and kept: a zoom step of 20 runs looks up some
/// 30,000 of them. They live in pages of `PAGE` groups a level, allocated when first
/// touched, so a lookup is two indexings (a hash map, even with Fx hashing, was a third of
/// the time spent gathering the runtime chart's data), and zooming deep into a day's run
/// allocates only the pages around the view, not a slot for each of its 86,400 windows.
pub struct Paged<T> {
    /// Per level, its pages (`None` until touched).
    levels: Vec<Vec<Option<Page<T>>>>,
    len: usize,
}

const PAGE: usize = 256;

/// [`PAGE`] consecutive groups of one level, `None` where not computed yet.
type Page<T> = Box<[Option<T>]>;

impl<T> Default for Paged<T> {
    fn default() -> Self {
        Paged { levels: Vec::new(), len: 0 }
    }
}

impl<T> Paged<T> {
    /// The value of `(level, i)`, computed by `f` if it is not kept yet.
    pub fn get_or_insert_with(&mut self, level: usize, i: usize, f: impl FnOnce() -> T) -> &T {
        if self.levels.len() <= level {
            self.levels.resize_with(level + 1, Vec::new);
        }
        let pages = &mut self.levels[level];
        if pages.len() <= i / PAGE {
            pages.resize_with(i / PAGE + 1, || None);
        }
        let page = pages[i / PAGE].get_or_insert_with(|| (0..PAGE).map(|_| None).collect());
        let slot = &mut page[i % PAGE];
        if slot.is_none() {
            self.len += 1;
        }
        slot.get_or_insert_with(f)
    }

    /// The value of `(level, i)`, if it is kept.
    pub fn get(&self, level: usize, i: usize) -> Option<&T> {
        self.levels.get(level)?.get(i / PAGE)?.as_ref()?[i % PAGE].as_ref()
    }

    /// How many values are kept.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn clear(&mut self) {
        self.levels.clear();
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn computes_once_and_keeps_by_level_and_index() {
        let mut c: Paged<u64> = Paged::default();
        let mut calls = 0;
        for (level, i) in [(0, 0), (0, 255), (0, 256), (3, 100_000), (0, 0), (3, 100_000)] {
            let v = *c.get_or_insert_with(level, i, || {
                calls += 1;
                (level * 1_000_000 + i) as u64
            });
            assert_eq!(v, (level * 1_000_000 + i) as u64);
        }
        assert_eq!(calls, 4);
        assert_eq!(c.len(), 4);
        assert_eq!(c.get(0, 256), Some(&256));
        assert_eq!(c.get(0, 257), None);
        assert_eq!(c.get(1, 0), None);
        assert_eq!(c.get(3, 99_999), None);
        assert_eq!(c.get(9, 0), None);
        // only the pages touched exist: level 3 holds one page, not 100,000 slots
        assert_eq!(c.levels[3].iter().filter(|p| p.is_some()).count(), 1);
        c.clear();
        assert_eq!((c.len(), c.get(0, 0)), (0, None));
    }
}
