//! The stats panel: `nines stats` of every run shown (of the brushed range, when there is
//! one), per direction, then run-to-run variability ([`panels::stats_table`], rebuilt whole:
//! see `dom`), and its CSV export.

use leptos::prelude::*;

use nines_core::stats::RunStats;
use nines_core::workload_key::WorkloadKey;

use super::dom::{self, body, download, now_ms};
use super::model::{runs, stats_of};
use super::page::page;
use super::traces::run_time_sel;
use crate::panels::{self, shown_tag, TableRow};
use crate::state::ViewState;

#[component]
pub(super) fn StatsPanel() -> impl IntoView {
    let p = page();
    let (state, runs) = (p.state, p.runs);
    let table_key = Memo::new(move |_| {
        let s = state.get();
        (runs.version(), s.dir.clone(), s.hidden.clone(), s.sel, s.x_ios, s.custom.clone())
    });
    let out: NodeRef<leptos::html::Div> = NodeRef::new();
    Effect::new(move |_| {
        let _ = table_key.get();
        if let Some(out) = out.get() {
            let t0 = now_ms();
            let st = state.get_untracked();
            let table = table_rows(&st);
            dom::mount(&out, &panels::stats_table_by_workload(&table, &st.custom, &workload_keys(&table)));
            mark_table(now_ms() - t0);
        }
    });
    let export_csv = move |_| {
        let st = state.get_untracked();
        let n = runs.len();
        let stats: Vec<RunStats> = (0..n)
            .filter(|i| !st.hidden.contains(i))
            .filter_map(|i| stats_of(i, run_time_sel(&st, i), &st.custom))
            .map(|s| {
                let mut s = (*s).clone();
                s.tags.0.retain(|(t, _)| shown_tag(&st.dir, t));
                s
            })
            .collect();
        download("nines-stats.csv", "text/csv", nines_core::export::csv::stats(&stats).as_bytes());
    };
    view! {
        <section class="panel table" data-testid="panel-stats">
            <div class="tools">
                <span class="hint">"* thin: fewer than 100 I/Os beyond the level (count shown); blank: none beyond, the value would only repeat the max. Hover a value for its 95% confidence interval."</span>
                <button data-testid="export-csv" on:click=export_csv>"CSV"</button>
            </div>
            <div node_ref=out></div>
        </section>
    }
}

/// The table's rows: each run shown, of the brushed range when there is one.
fn table_rows(st: &ViewState) -> Vec<TableRow> {
    let n = runs().len();
    (0..n)
        .filter(|i| !st.hidden.contains(i))
        .filter_map(|i| Some(panels::table_row(i, &*stats_of(i, run_time_sel(st, i), &st.custom)?, &st.dir)))
        .collect()
}

/// Each row group's run's workload key (`nines_core::workload_key`, from its metadata), so
/// that run-to-run variability puts only repeats together.
fn workload_keys(table: &[TableRow]) -> Vec<WorkloadKey> {
    runs().with(|m| table.iter().map(|(i, ..)| m.get(*i).map(|l| WorkloadKey::of(&l.run.meta)).unwrap_or_default()).collect())
}

fn mark_table(ms: f64) {
    if let Some(b) = body() {
        let _ = b.set_attribute("data-draw-ms-table", &format!("{ms:.2}"));
    }
}
