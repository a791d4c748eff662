//! nines, the collector and command line: everything that touches the OS.
//! All computation lives in `nines-core`.

pub mod check_cmd;
pub mod cli;
pub mod curve_cmd;
pub mod demo;
pub mod diag;
pub mod export_cmd;
pub mod generate;
pub mod import_cmd;
pub mod judge_cmd;
pub mod load;
pub mod merge_cmd;
pub mod output;
pub mod pts_cmd;
pub mod report;
pub mod run;
pub mod run_cmd;
pub mod stats_cmd;
pub mod sys;
pub mod view;
