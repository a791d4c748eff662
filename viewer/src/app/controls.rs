//! The bar of controls (open runs, direction, levels of nines, x axis) and the status line
//! under it (loading, the worker pool's progress, load errors, the brushed range).

use leptos::prelude::*;

use nines_core::quantile::Level;
use nines_core::units::group;

use super::loading;
use super::page::page;
use super::traces::decide_dir;
use crate::charts;
use crate::panels::scoped_directions;
use crate::state::{parse_levels, DirMode};

/// The bar of controls.
#[component]
pub(super) fn Controls() -> impl IntoView {
    let p = page();
    let (state, runs) = (p.state, p.runs);
    let set = move |f: Box<dyn FnOnce(&mut crate::state::ViewState)>| p.set(f);
    view! {
        <header class="bar">
            <h1>"nines"</h1>
            <label class="button" data-testid="open">
                "Open runs…"
                <input type="file" multiple data-testid="file-input" on:change=move |ev| {
                    let input: web_sys::HtmlInputElement = event_target(&ev);
                    if let Some(files) = input.files() { loading::load_files(p, files); }
                    input.set_value("");
                }/>
            </label>
            <span class="hint">"or drop .hlog and other run files anywhere"</span>
            <div class="group" role="radiogroup" aria-label="direction" data-testid="direction">
                <span class="glabel">"direction"</span>
                {DirMode::ALL.into_iter().map(|d| {
                    let (testid, label, on) = (format!("dir-{}", d.key()), d.label().to_string(), d.clone());
                    view! {
                        <button data-testid=testid
                            class:active=move || state.with(|s| s.dir == d)
                            on:click=move |_| { decide_dir(true); let d = on.clone(); set(Box::new(move |s| s.dir = d)) }>{label}</button>
                    }
                }).collect_view()}
                // the loaded runs' scoped directions (a job file's `probe/read`, a merge's
                // `host07/read`), one of them alone
                {move || {
                    let tags = runs.with(|m| scoped_directions(m.iter().map(|r| &*r.run)));
                    (!tags.is_empty()).then(|| view! {
                        <select data-testid="dir-scoped" title="one scoped direction alone: a job section's, target's or host's share"
                            class:active=move || state.with(|s| matches!(s.dir, DirMode::Scoped(_)))
                            prop:value=move || state.with(|s| if let DirMode::Scoped(t) = &s.dir { t.clone() } else { String::new() })
                            on:change=move |ev| {
                                if let Some(d) = DirMode::from_key(&event_target_value(&ev)) {
                                    decide_dir(true);
                                    set(Box::new(move |s| s.dir = d));
                                }
                            }>
                            <option value="">"scoped…"</option>
                            {tags.into_iter().map(|t| view! { <option value=t.clone()>{t.clone()}</option> }).collect_view()}
                        </select>
                    })
                }}
            </div>
            <div class="group" data-testid="levels">
                <span class="glabel">"levels"</span>
                {(1..=9u32).map(|k| view! {
                    <button data-testid=format!("level-{k}") title=format!("{} ({k} nines) on the runtime chart", Level::nines(k).label)
                        class:active=move || state.with(|s| s.levels.contains(&k))
                        on:click=move |_| set(Box::new(move |s| {
                            if let Some(i) = s.levels.iter().position(|&x| x == k) { s.levels.remove(i); } else { s.levels.push(k); nines_core::sort::sort_by(&mut s.levels, u32::cmp); }
                        }))>{k.to_string()}</button>
                }).collect_view()}
                <CustomLevels/>
            </div>
            <div class="group">
                <span class="glabel">"x axis"</span>
                <button data-testid="x-time" class:active=move || state.with(|s| !s.x_ios)
                    on:click=move |_| set(Box::new(|s| { if s.x_ios { s.x_ios = false; s.zoom = None; s.sel = None; } }))>"time"</button>
                <button data-testid="x-ios" class:active=move || state.with(|s| s.x_ios)
                    on:click=move |_| set(Box::new(|s| { if !s.x_ios { s.x_ios = true; s.zoom = None; s.sel = None; } }))>"I/Os"</button>
            </div>
        </header>
    }
}

/// The levels field: levels of the stats table after the standard ones, as `nines stats
/// --levels` reads them. A list with an entry that is no level marks the field, its title
/// nines-core's message, and leaves the view as it was.
#[component]
fn CustomLevels() -> impl IntoView {
    let p = page();
    let state = p.state;
    let error = RwSignal::new(None::<String>);
    let shown = move || state.with(|s| s.custom.iter().map(|l| l.label.as_str()).collect::<Vec<_>>().join(", "));
    view! {
        <input type="text" data-testid="custom-levels" placeholder="p95, p99.5" size="14" spellcheck="false"
            style=move || format!("margin-left: 6px; font: inherit; font-size: 13px; padding: 2px 4px; border-radius: 4px; border: 1px solid {}",
                if error.with(Option::is_some) { "#c62828" } else { "var(--line)" })
            class:invalid=move || error.with(Option::is_some)
            aria-invalid=move || if error.with(Option::is_some) { "true" } else { "false" }
            title=move || error.get().unwrap_or_else(|| "more levels for the stats table, as nines stats --levels reads them: p95, p99.5, 99.99".into())
            prop:value=shown
            on:change=move |ev| match parse_levels(&event_target_value(&ev)) {
                Ok(lx) => {
                    error.set(None);
                    p.set(Box::new(move |s| s.custom = lx));
                }
                Err(e) => error.set(Some(e.to_string())),
            }/>
    }
}

/// The status line: what is loading, the files being decoded, errors, the brushed range.
#[component]
pub(super) fn Status() -> impl IntoView {
    let p = page();
    let (state, loading, progress, errors) = (p.state, p.loading, p.progress, p.errors);
    let set = move |f: Box<dyn FnOnce(&mut crate::state::ViewState)>| p.set(f);
    view! {
        <div class="status">
            <span data-testid="loading">{move || loading.get().unwrap_or_default()}</span>
            <ul class="progress" data-testid="progress">
                {move || progress.get().into_iter().map(|(name, st)| view! {
                    <li data-testid="progress-file" data-state=st.name()><b>{name}</b>": "{st.text()}</li>
                }).collect_view()}
            </ul>
            <ul class="errors" data-testid="errors">
                <For each=move || errors.get().into_iter().enumerate() key=|(i, _)| *i children=move |(_, e)| view! {
                    <li data-testid="load-error"><b>{e.file.clone()}</b>": "{e.message.clone()}</li>
                }/>
            </ul>
            {move || state.with(|s| s.sel).map(|(a, b)| {
                let ios = state.with(|s| s.x_ios);
                // the edges as exactly as the windows' (1.24s, not an axis tick's 1.2 s)
                let fmt = move |v: f64| {
                    if ios {
                        format!("{} I/Os", group(v.max(0.0) as u64))
                    } else if v >= 0.0 {
                        nines_core::units::format_duration((v * 1e9).round() as u64)
                    } else {
                        charts::format_seconds(v)
                    }
                };
                let held = state.with(super::traces::held).map(|h| format!(": {}", h.text())).unwrap_or_default();
                view! {
                    <div class="selection" data-testid="selection">
                        "Showing only the windows from " {fmt(a)} " to " {fmt(b)} " in every panel"
                        <span data-testid="selection-holds">{held}</span>". "
                        <button data-testid="clear-selection" on:click=move |_| set(Box::new(|s| s.sel = None))>"show the whole run"</button>
                    </div>
                }
            })}
        </div>
    }
}
