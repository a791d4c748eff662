//! # nines-core
//!
//! The analysis core of nines: everything that computes. It reads and writes archives
//! (HdrHistogram interval logs), imports other tools' outputs, and computes levels of nines
//! that never interpolate, 1-CDF curves, runtime QoS series, IOPS, steady state and
//! run-to-run comparisons. It does no I/O beyond bytes handed to it, keeps no global state and
//! has no clock or threads, so the same code runs natively and in the browser (wasm32).
//!
//! ```
//! use nines_core::{archive, hist::{Hist, Layout}, run::{Run, Window}, stats};
//!
//! // A run with one window of 10,000 reads between 100 and 200 us.
//! let hist = Hist::from_values(Layout::default_ns(), (0..10_000u64).map(|i| 100_000 + i * 10));
//! let run = Run {
//!     name: "example".into(),
//!     windows: vec![Window { start_s: 0.0, length_s: 1.0, tag: Some("read".into()), hist }],
//!     ..Run::default()
//! };
//! let bytes = archive::write(Vec::new(), &run).unwrap();
//! let back = archive::read("example.hlog", &bytes).unwrap();
//! let report = stats::run_stats(&back, &stats::Options::default());
//! let read = &report.tags["read"];
//! assert_eq!(read.count, 10_000);
//! assert_eq!(read.levels[2].label, "p99");
//! ```

pub mod archive;
pub mod bandwidth;
pub mod bom;
pub mod ccdf;
pub mod codec;
pub mod compact;
pub mod compare;
pub mod context;
pub mod context_summary;
pub mod convergence;
pub mod curve;
pub mod density;
pub mod distribution;
pub mod export;
pub mod fio_job;
pub mod fleet;
pub mod heatmap;
pub mod hist;
pub mod html;
pub mod import;
pub mod meta;
pub mod precision;
pub mod pts;
pub mod pyramid;
pub mod quantile;
pub mod run;
pub mod same_run;
pub mod series;
pub mod sort;
pub mod spec;
pub mod stats;
pub mod steady;
pub mod summarise;
pub mod sweep_table;
pub mod table;
pub mod tag;
pub mod trend;
pub mod units;
pub mod variability;
pub mod window_levels;
pub mod workload_key;

/// Test-only allocation accounting: the peak heap a piece of code takes on its thread, so
/// memory bounds can be tested as sizes (no timers).
#[cfg(test)]
pub(crate) mod test_alloc {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    thread_local! {
        static NOW: Cell<isize> = const { Cell::new(0) };
        static PEAK: Cell<isize> = const { Cell::new(0) };
    }

    fn add(delta: isize) {
        // `try_with`: no accounting while a thread's locals are being torn down
        let _ = NOW.try_with(|n| {
            let v = n.get() + delta;
            n.set(v);
            let _ = PEAK.try_with(|p| p.set(p.get().max(v)));
        });
    }

    struct Counting;

    // SAFETY: every call is forwarded to the system allocator with the caller's arguments;
    // the accounting allocates nothing (const-initialised thread-local cells).
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, l: Layout) -> *mut u8 {
            let p = unsafe { System.alloc(l) };
            if !p.is_null() {
                add(l.size() as isize);
            }
            p
        }
        unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
            let p = unsafe { System.alloc_zeroed(l) };
            if !p.is_null() {
                add(l.size() as isize);
            }
            p
        }
        unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
            unsafe { System.dealloc(p, l) };
            add(-(l.size() as isize));
        }
        unsafe fn realloc(&self, p: *mut u8, l: Layout, new_size: usize) -> *mut u8 {
            let q = unsafe { System.realloc(p, l, new_size) };
            if !q.is_null() {
                add(new_size as isize - l.size() as isize);
            }
            q
        }
    }

    #[global_allocator]
    static ALLOC: Counting = Counting;

    /// `f()` and the most heap its thread held above the start while it ran, in bytes.
    pub fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
        let start = NOW.with(Cell::get);
        PEAK.with(|p| p.set(start));
        let out = f();
        (out, (PEAK.with(Cell::get) - start).max(0) as usize)
    }
}
