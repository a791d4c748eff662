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
pub mod ccdf;
pub mod codec;
pub mod compare;
pub mod convergence;
pub mod hist;
pub mod import;
pub mod quantile;
pub mod run;
pub mod series;
pub mod stats;
pub mod sweep_table;
pub mod table;
pub mod steady;
pub mod units;
pub mod variability;
pub mod view;
