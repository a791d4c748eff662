//! A site's trend: one level of one direction across every run the manifest lists, drawn from
//! the whole-run summaries `nines site` writes into it (`nines_core::trend`), so a site of a
//! thousand nightly runs shows its history without loading a run. Each run is compared with
//! the run before it, or with a pinned baseline, as `nines compare` compares two runs; a
//! click opens the run.

use leptos::prelude::*;

use nines_core::compare::Verdict;
use nines_core::trend::{points, Summary};
use nines_core::units::format_ns;

use super::canvas::{canvas_size, draw_canvas};
use super::dom::{body, busy, now_ms};
use super::draws::mark_drawn;
use super::loading::add_run;
use super::model::Runs;
use super::net::fetch_bytes;
use super::page::LoadError;
use super::site::{order_keys, ordered, SiteRun};
use crate::charts::Scale;
use crate::judge_charts::{draw_trend, trend_labels, TrendMark, TrendSpec};
use crate::state::ViewState;

/// The marks of the chosen level and direction, and the runs they belong to (indices into the
/// site's runs in start order), x the run's place in the order chosen (`site::ordered`): each
/// run is compared with the run before it in that order, or with the pinned baseline.
fn marks(site: &[SiteRun], st: &ViewState) -> Vec<(usize, TrendMark)> {
    let t = &st.trend;
    let order = ordered(site, order_key(site, st));
    let refs: Vec<&Summary> = order.iter().map(|&i| &site[i].summary).collect();
    let base = t.base.and_then(|b| order.iter().position(|&i| i == b));
    points(&refs, &t.tag, &t.level, base)
        .into_iter()
        .enumerate()
        .filter_map(|(x, p)| {
            let value = p.value?;
            let i = order[x];
            Some((i, TrendMark { x: x as f64, value, interval: p.interval, verdict: p.verdict, baseline: t.base == Some(i) }))
        })
        .collect()
}

/// The key the trend is ordered by: the one chosen, when a run of the site has it.
fn order_key<'a>(site: &[SiteRun], st: &'a ViewState) -> Option<&'a str> {
    st.trend.order.as_deref().filter(|k| site.iter().any(|r| r.user.iter().any(|(n, _)| n == k)))
}

/// The x axis' names: the runs' dates (`trend_labels`), or ordered by a key, its values.
fn x_names(site: &[SiteRun], order_key: Option<&str>) -> Vec<String> {
    let order = ordered(site, order_key);
    match order_key {
        None => trend_labels(order.iter().map(|&i| (site[i].summary.start, site[i].name.as_str()))),
        Some(k) => order.iter().map(|&i| site[i].user.iter().find(|(n, _)| n == k).map_or("–".to_string(), |(_, v)| v.clone())).collect(),
    }
}

fn verdict_text(v: Option<Verdict>) -> &'static str {
    match v {
        None => "first run",
        Some(Verdict::Worse) => "worse than its reference beyond noise",
        Some(Verdict::Better) => "better than its reference beyond noise",
        Some(Verdict::Same) => "within noise of its reference",
        Some(Verdict::Unknown) => "too few I/Os to tell",
    }
}

/// Show run `i` of the site alone: the loaded run, or its compact form (else archive) fetched.
fn open(i: usize, state: RwSignal<ViewState>, runs: Runs, errors: RwSignal<Vec<LoadError>>) {
    let Some(r) = runs.site().get(i).cloned() else { return };
    let show_only = move |idx: usize| {
        let n = runs.len();
        busy();
        state.update(|s| {
            s.hidden.clear();
            s.hidden.extend((0..n).filter(|&j| j != idx));
        });
    };
    if let Some(idx) = runs.with(|m| m.iter().position(|l| l.file == r.file)) {
        show_only(idx);
        return;
    }
    leptos::task::spawn_local(async move {
        let url = r.compact.clone().unwrap_or_else(|| r.file.clone());
        let added = fetch_bytes(&url)
            .await
            .map_err(|e| LoadError { file: r.file.clone(), message: format!("could not load it from the manifest: {e}") })
            .and_then(|b| add_run(runs, &r.file, &b));
        match added {
            Ok(()) => {
                super::traces::split_by_default(state);
                runs.notify();
                show_only(runs.len() - 1);
            }
            Err(e) => errors.update(|v| v.push(e)),
        }
    });
}

/// The trend panel (nothing when the site has fewer than two summarised runs).
// long: a Leptos component: its signals, effects and view! markup read best as one piece
#[component]
pub(super) fn Trend(state: RwSignal<ViewState>, runs: Runs, size: RwSignal<u32>, errors: RwSignal<Vec<LoadError>>) -> impl IntoView {
    let site = runs.site();
    let (tags, levels) = {
        let s = &site;
        let mut tags: Vec<String> = Vec::new();
        let mut levels: Vec<String> = Vec::new();
        for r in s.iter() {
            for (t, _, lv) in &r.summary.tags {
                if !tags.contains(t) {
                    tags.push(t.clone());
                }
                for l in lv {
                    if !levels.contains(&l.label) {
                        levels.push(l.label.clone());
                    }
                }
            }
        }
        (tags, levels)
    };
    let keys = order_keys(&site);
    let no_keys = keys.is_empty();
    let shown = site.len() >= 2;
    let canvas: NodeRef<leptos::html::Canvas> = NodeRef::new();
    let hover: RwSignal<Option<String>> = RwSignal::new(None);
    let key = Memo::new(move |_| {
        let s = state.get();
        (s.trend.clone(), size.get())
    });
    Effect::new(move |_| {
        let (t, _) = key.get();
        let Some(c) = canvas.get() else { return };
        let t0 = now_ms();
        canvas_size(&c, 300);
        let st = state.get_untracked();
        let site = runs.site();
        let m: Vec<TrendMark> = marks(&site, &st).into_iter().map(|(_, m)| m).collect();
        let n = site.len().max(1);
        let lo = m.iter().map(|m| m.interval.map_or(m.value, |i| i.0.min(m.value))).fold(f64::INFINITY, f64::min);
        let hi = m.iter().map(|m| m.interval.map_or(m.value, |i| i.1.max(m.value))).fold(0.0, f64::max);
        let y = if hi > 0.0 { Scale { lo: (lo / 1.5).max(1.0), hi: hi * 1.5, log: true } } else { Scale { lo: 1e3, hi: 1e7, log: true } };
        let key = order_key(&site, &st);
        let by = key.map(|k| format!(", by {k}")).unwrap_or_default();
        let title = format!("{} of {} across {} runs{by}", t.level, t.tag, n);
        let names = x_names(&site, key);
        let x = Scale { lo: -0.5, hi: n as f64 - 0.5, log: false };
        let x_desc = key.map_or_else(|| "runs in start order".to_string(), |k| format!("runs by {k}"));
        let spec = TrendSpec { title: &title, y_desc: &t.level, marks: &m, x, y, x_names: &names, x_desc: &x_desc };
        let f = draw_canvas(&c, |root| draw_trend(root, &spec));
        if let Some(f) = f {
            // test hook: the plot area in CSS pixels, so a test can click a run's point
            let _ = c.set_attribute("data-frame", &format!("{},{},{},{}", f.left, f.right, f.top, f.bottom));
        }
        runs.book(|b| match f {
            Some(f) => b.frames.insert("trend", f),
            None => b.frames.remove("trend"),
        });
        // test and benchmark hooks: what the chart shows, and when it first drew
        let worse = m.iter().filter(|m| m.verdict == Some(Verdict::Worse)).count();
        let _ = c.set_attribute("data-marks", &m.len().to_string());
        let _ = c.set_attribute("data-worse", &worse.to_string());
        let order: Vec<&str> = ordered(&site, key).into_iter().map(|i| site[i].name.as_str()).collect();
        let _ = c.set_attribute("data-order", &order.join("\n"));
        if let Some(b) = body() {
            if b.get_attribute("data-nines-trend-ms").is_none() {
                let _ = b.set_attribute("data-nines-trend-ms", &format!("{:.1}", now_ms()));
            }
        }
        mark_drawn("trend", now_ms() - t0);
    });
    // the run under the mouse: nearest on x
    let run_at = move |ev: &web_sys::MouseEvent| -> Option<usize> {
        let f = runs.book(|b| b.frames.get("trend").copied())?;
        let (px, py) = (ev.offset_x() as f64, ev.offset_y() as f64);
        if !f.contains(px, py) {
            return None;
        }
        let x = f.x_at(px).round();
        let st = state.get_untracked();
        marks(&runs.site(), &st).into_iter().min_by(|a, b| (a.1.x - x).abs().total_cmp(&(b.1.x - x).abs())).map(|(i, _)| i)
    };
    let on_move = move |ev: web_sys::MouseEvent| {
        let text = run_at(&ev).and_then(|i| {
            let st = state.get_untracked();
            let site = runs.site();
            let (_, m) = marks(&site, &st).into_iter().find(|(j, _)| *j == i)?;
            let name = site.get(i).map(|r| r.name.clone())?;
            let ci = m.interval.map(|(a, b)| format!(" (95% {}..{})", format_ns(a as u64), format_ns(b as u64))).unwrap_or_default();
            Some(format!("run {}: {name}: {} {}{ci}, {}", i + 1, st.trend.level, format_ns(m.value as u64), verdict_text(m.verdict)))
        });
        hover.set(text);
    };
    let on_click = move |ev: web_sys::MouseEvent| {
        let Some(i) = run_at(&ev) else { return };
        if ev.shift_key() {
            busy();
            state.update(|s| s.trend.base = if s.trend.base == Some(i) { None } else { Some(i) });
        } else {
            open(i, state, runs, errors);
        }
    };
    let set_tag = move |t: String| {
        busy();
        state.update(|s| s.trend.tag = t);
    };
    let set_order = move |ev: leptos::ev::Event| {
        let o = event_target_value(&ev);
        busy();
        state.update(|s| s.trend.order = (!o.is_empty()).then_some(o));
    };
    let set_level = move |ev: leptos::ev::Event| {
        let l = event_target_value(&ev);
        busy();
        state.update(|s| s.trend.level = l);
    };
    view! {
        <section class="panel" data-testid="panel-trend" style:display=if shown { "" } else { "none" }>
            <div class="tools">
                <div class="group" data-testid="trend-dir">
                    {tags.into_iter().map(|t| {
                        let k = t.clone();
                        view! { <button data-testid=format!("trend-dir-{t}") class:active=move || state.with(|s| s.trend.tag == k)
                            on:click={ let t = t.clone(); move |_| set_tag(t.clone()) }>{t.clone()}</button> }
                    }).collect_view()}
                </div>
                <select data-testid="trend-level" on:change=set_level prop:value=move || state.with(|s| s.trend.level.clone())>
                    {levels.into_iter().map(|l| view! { <option value=l.clone()>{l.clone()}</option> }).collect_view()}
                </select>
                <select data-testid="trend-order" title="order the runs on x by one of their own keys (nines run --meta KEY=VALUE)"
                    style:display=if no_keys { "none" } else { "" } on:change=set_order
                    prop:value=move || state.with(|s| s.trend.order.clone().unwrap_or_default())>
                    <option value="">"by time"</option>
                    {keys.into_iter().map(|k| view! { <option value=k.clone()>{format!("by {k}")}</option> }).collect_view()}
                </select>
                <span class="hint">"each run against the one before it (red: worse beyond noise, green: better, hollow: too few I/Os); click opens a run, shift-click pins it as the baseline"</span>
                <button data-testid="trend-unpin" on:click=move |_| { busy(); state.update(|s| s.trend.base = None) }>"no baseline"</button>
            </div>
            <div class="chart"><canvas node_ref=canvas data-testid="trend-canvas" on:click=on_click on:mousemove=on_move></canvas></div>
            <div class="readout" data-testid="trend-readout">{move || hover.get()}</div>
        </section>
    }
}
