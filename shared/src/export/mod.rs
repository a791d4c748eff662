//! Every rendering of results, one module per format, as hyperfine's `src/export/` has one
//! exporter per format over its `BenchmarkResult`: the computations (`stats`, `compare`,
//! `convergence`, `sweep_table`) return plain result structs and compute nothing for display;
//! these functions only format them.
//!
//! | format | module | renders |
//! |---|---|---|
//! | terminal text | [`text`] | [`RunStats`](crate::stats::RunStats), [`Comparison`](crate::compare::Comparison), [`SteadyReport`](crate::convergence::SteadyReport), [`SweepTable`](crate::sweep_table::SweepTable) |
//! | CSV | [`csv`] | [`RunStats`](crate::stats::RunStats), [`SweepTable`](crate::sweep_table::SweepTable) |
//! | JSON | [`json`] | [`RunStats`](crate::stats::RunStats) |
//! | tables (`nines export`) | [`dataset`] | a [`Run`](crate::run::Run) as runs, windows and buckets rows (Parquet is written by the collector) |
//!
//! ```
//! use nines_core::{export, hist::{Hist, Layout}, run::{Run, Window}, stats};
//! let hist = Hist::from_values(Layout::default_ns(), 1_000..=2_000);
//! let run = Run { name: "r".into(), windows: vec![Window { start_s: 0.0, length_s: 1.0, tag: Some("read".into()), hist }], ..Run::default() };
//! let s = [stats::run_stats(&run, &stats::Options::default())];
//! assert!(export::text::stats(&s).starts_with("r (), 1.0 s\n"));
//! assert!(export::csv::stats(&s).starts_with("run,file,direction,count,iops,"));
//! assert!(export::json::stats(&s).contains("\"runs\""));
//! ```

pub mod csv;
pub mod dataset;
pub mod json;
pub mod text;
