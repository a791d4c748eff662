//! Compare and judge in the viewer: compare mode (a baseline against every other shown run,
//! per direction and level, with the intervals that decide whether a change is real), the
//! sweep plot and table (a parameter such as fio's numjobs), and the SNIA PTS steady-state check
//! with its convergence plot and window table. The numbers are nines-core's `compare`, `sweep_table` and
//! `convergence`, the same as `nines compare`, `nines sweep` and `nines steady` print.
//!
//! The panels' data and tables are computed natively by [`crate::judge`] over the page's
//! model (`JudgeRuns`); `judge/common.rs` keeps the last result per state, folds a panel with
//! nothing to draw, and handles the controls' changes. The panels themselves are the
//! components in `judge/` (one a panel), their controls built by [`crate::judge_controls`].

mod common;
mod compare_panel;
mod steady_panel;
mod sweep_panel;

pub(super) use compare_panel::ComparePanel;
pub(super) use steady_panel::SteadyPanel;
pub(super) use sweep_panel::SweepPanel;
