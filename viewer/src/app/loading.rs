//! Loading runs: a site's manifest (requested before the page is built), runs embedded in the
//! page or handed over by a report, files opened or dropped (decoded in workers when there
//! are several), and `replace_run` for a run being written.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use base64::Engine;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use nines_core::compact::{self, Compact};
use nines_core::run::distinct_names;

use super::dom::{body, busy, now_ms};
use super::model::{runs, Book, CompactParts, Loaded, Runs};
use super::net::{body_of, fetch_bytes, range_request, sleep_ms};
use super::page::LoadError;
use super::page::Page;
use super::traces::split_by_default;
use super::{site, workers};
use crate::state::ViewState;

/// A manifest's runs, requested; an error for a manifest that is not JSON.
pub(super) type Preload = Result<Vec<(String, Pending)>, LoadError>;

/// By file: the compact forms requested without their groups, and where those are (the form's
/// URL and the byte they begin at).
pub(super) use super::model::GroupsAt;

/// What a site's manifest gives the page, read before the page is built: its runs, requested;
/// its runs that have a summary, for the trend ([`site::sorted`]); and where the groups of the
/// compact forms requested without them are.
pub(super) struct Preloaded {
    pub(super) items: Preload,
    pub(super) site: Vec<site::SiteRun>,
    pub(super) groups_at: GroupsAt,
}

/// The first runs of a site's manifest come with their groups (the heatmap and steady-state
/// panels draw from them); the others without until a range needs them.
const WHOLE_FIRST: usize = super::heatmap::MAX_ROWS;

/// The runs listed in `manifest.json` beside the page, each requested now (no runs when there
/// is no manifest).
pub(super) async fn manifest_items() -> Preloaded {
    let mut pre = Preloaded { items: Ok(Vec::new()), site: Vec::new(), groups_at: Vec::new() };
    let Ok(bytes) = fetch_bytes("manifest.json").await else { return pre };
    let v = match serde_json::from_slice::<serde_json::Value>(&bytes) {
        Ok(v) => v,
        Err(e) => {
            pre.items = Err(LoadError { file: "manifest.json".into(), message: format!("not valid JSON: {e}") });
            return pre;
        }
    };
    let Some(w) = web_sys::window() else { return pre };
    let entries = manifest_entries(&v);
    let summarised: Vec<site::SiteRun> = entries
        .iter()
        .filter_map(|e| {
            Some(site::SiteRun {
                file: e.file.clone(),
                compact: e.compact.clone(),
                name: e.name.clone(),
                summary: e.summary.clone()?,
                user: e.user.clone(),
            })
        })
        .collect();
    // a site of many runs opens on its trend, each run loaded when asked for
    let trend_only = entries.len() > AUTO_LOAD_MAX && summarised.len() == entries.len();
    pre.site = site::sorted(summarised);
    if trend_only {
        return pre;
    }
    // every request goes out now; the runs download while earlier ones decode
    let groups_at = &mut pre.groups_at;
    let items = entries
        .into_iter()
        .enumerate()
        .map(|(i, e)| {
            // the compact form when the site has one (its archive is there to download): the
            // first runs' bytes before its recorded windows, the others' only the bytes before
            // its groups (half of a one-hour run's form); the groups come when a range needs
            // them, and the windows of the groups a range cuts
            let p = match (&e.compact, e.groups_at) {
                (Some(c), Some(at)) if at > 0 => {
                    groups_at.push((e.file.clone(), (c.clone(), at, e.windows_at)));
                    match if i >= WHOLE_FIRST { Some(at) } else { e.windows_at } {
                        Some(end) => range_request(&w, c, &format!("bytes=0-{}", end - 1)),
                        None => w.fetch_with_str(c),
                    }
                }
                _ => w.fetch_with_str(e.compact.as_deref().unwrap_or(&e.file)),
            };
            (e.file, Pending::Fetch(p))
        })
        .collect();
    pre.items = Ok(items);
    pre
}

/// Add a run to the page's, without drawing it yet: the caller tells the runs' readers
/// ([`Runs::notify`]) once it has added what it draws together.
pub(super) fn add_run(h: Runs, file: &str, bytes: &[u8]) -> Result<(), LoadError> {
    let l = read_run(file, bytes)?;
    h.stage(|runs, b| {
        runs.push(Rc::new(l));
        name_runs(runs, b);
        b.drawn.clear();
        b.first_render_done = false;
    });
    Ok(())
}

/// Replace the run the page loaded from `file` with these bytes (a compact form or any run's
/// file), or add it: `live.js` (collector/src/view/) follows a run being written this way. False (nothing
/// done) until the page's first runs are loaded; an error when the bytes are not a run.
#[wasm_bindgen]
pub fn replace_run(file: &str, bytes: &[u8]) -> Result<bool, JsValue> {
    let h = runs();
    if !h.book(|b| b.live) {
        return Ok(false);
    }
    let mut l = read_run(file, bytes).map_err(|e| JsValue::from_str(&format!("{}: {}", e.file, e.message)))?;
    h.commit(|runs, b| {
        match runs.iter().position(|r| r.file == file) {
            Some(i) => {
                // the name the page shows stays
                let name = &runs[i].run.name;
                if let Some(r) = Rc::get_mut(&mut l.run) {
                    r.name.clone_from(name);
                }
                if let Some(c) = &mut l.compact {
                    c.form.run.name.clone_from(name);
                }
                runs[i] = Rc::new(l);
                b.traces.retain(|k, _| k.0 != i);
                b.stats.retain(|k, _| k.0 != i);
            }
            None => {
                runs.push(Rc::new(l));
                name_runs(runs, b);
            }
        }
        b.drawn.clear();
        b.first_render_done = false;
    });
    Ok(true)
}

/// Decode a run's bytes (a compact form or any format nines reads).
fn read_run(file: &str, bytes: &[u8]) -> Result<Loaded, LoadError> {
    let t0 = now_ms();
    let read = if compact::sniff(bytes) {
        let groups_url = runs().book(|b| b.groups_at.iter().find(|(f, _)| f == file).map(|(_, u)| u.clone()));
        // a form asked for without its groups may come without them; any other must be whole
        let c = match groups_url {
            Some(_) => Compact::read_head(file, bytes),
            None => Compact::read(file, bytes),
        };
        c.map_err(|e| e.to_string()).map(|mut c| {
            let text = if c.carries_windows() { format!("{}, and every window", c.group_text()) } else { c.group_text() };
            let group = c.group;
            // the form keeps the run's name and metadata (its ranges are runs of that name),
            // the page holds its merged windows
            let mut run = std::mem::take(&mut c.run);
            let windows = std::mem::take(&mut run.windows);
            c.run = run.clone();
            run.windows = windows;
            (
                run,
                Some(CompactParts {
                    form: c,
                    group,
                    text,
                    range: RefCell::new(None),
                    groups_url,
                    fetching: Cell::new(false),
                    windows_fetching: RefCell::default(),
                }),
            )
        })
    } else {
        nines_core::import::read_any(file, bytes).map_err(|e| e.to_string()).map(|r| (r, None))
    };
    // time spent decoding runs (nines_core::import::read_any only), for the benchmark
    let total = runs().book(|b| {
        b.parse_ms += now_ms() - t0;
        b.parse_ms
    });
    if let Some(b) = body() {
        let _ = b.set_attribute("data-nines-parse-ms", &format!("{total:.1}"));
    }
    match read {
        Ok((run, compact)) => {
            // (decoded bucket lists are already of their exact size: nines-core copies each
            // window out of its scratch list)
            let given = run.name.clone();
            Ok(Loaded { run: Rc::new(run), given, file: file.to_string(), compact })
        }
        Err(msg) => {
            // the error names the file itself; shown after the file name, once is enough
            let message = msg.strip_prefix(&format!("{file}: ")).map_or(msg.clone(), str::to_string);
            Err(LoadError { file: file.to_string(), message })
        }
    }
}

/// Give the runs distinct names (nines-core's `distinct_names` of their own names and file
/// names): a run whose name another run has too is renamed, and what was computed under its
/// old name is dropped.
fn name_runs(runs: &mut [Rc<Loaded>], b: &mut Book) {
    // the usual case, a name no other run has: nothing to rename (and no pass over all pairs)
    if let Some((last, rest)) = runs.split_last() {
        if rest.iter().all(|r| r.given != last.given && r.run.name != last.given) && last.run.name == last.given {
            return;
        }
    }
    let names = distinct_names(&runs.iter().map(|r| (r.given.as_str(), r.file.as_str())).collect::<Vec<_>>());
    for (i, name) in names.into_iter().enumerate() {
        if runs[i].run.name == name {
            continue;
        }
        // the caches hold the run (traces) or its name (stats)
        b.traces.retain(|k, _| k.0 != i);
        b.stats.retain(|k, _| k.0 != i);
        let rename = |l: &mut Loaded| {
            Rc::make_mut(&mut l.run).name.clone_from(&name);
            if let Some(c) = &mut l.compact {
                c.form.run.name.clone_from(&name);
                *c.range.get_mut() = None;
            }
        };
        match Rc::get_mut(&mut runs[i]) {
            Some(l) => rename(l),
            None => {
                let old = &runs[i];
                let mut l = Loaded { run: old.run.clone(), given: old.given.clone(), file: old.file.clone(), compact: old.compact.clone() };
                rename(&mut l);
                runs[i] = Rc::new(l);
            }
        }
    }
}

/// Let the browser paint between heavy steps.
async fn yield_now() {
    sleep_ms(0.0).await;
}

async fn read_file(f: web_sys::File) -> Result<Vec<u8>, String> {
    let buf = wasm_bindgen_futures::JsFuture::from(f.array_buffer()).await.map_err(|e| format!("{e:?}"))?;
    Ok(js_sys::Uint8Array::new(&buf).to_vec())
}

/// A run's bytes: read already, or a request under way.
pub(super) enum Pending {
    Ready(Result<Vec<u8>, String>),
    /// Bytes still in JavaScript memory.
    Bytes(js_sys::Uint8Array),
    Fetch(js_sys::Promise),
}

/// Embedded runs: file name and bytes, or why they could not be decoded.
type EmbeddedRuns = Vec<(String, Pending)>;

/// Runs handed over by a report's bootstrap (`nines report`), as bytes:
/// `globalThis.ninesRuns = {runs: [{name, bytes: Uint8Array}], view}`; read once.
pub(super) fn handed_runs() -> Option<JsValue> {
    // read once, before the app exists, from a global the page deletes
    thread_local!(static HANDED: RefCell<Option<Option<JsValue>>> = const { RefCell::new(None) });
    HANDED.with(|h| {
        h.borrow_mut()
            .get_or_insert_with(|| {
                let g = js_sys::global();
                let v = js_sys::Reflect::get(&g, &"ninesRuns".into()).ok().filter(JsValue::is_object)?;
                // the page keeps no second copy of the runs
                let _ = js_sys::Reflect::delete_property(g.unchecked_ref::<js_sys::Object>(), &"ninesRuns".into());
                Some(v)
            })
            .clone()
    })
}

/// The view a page with embedded runs opens with when its link has no hash.
pub(super) fn embedded_view() -> Option<String> {
    if let Some(v) = handed_runs() {
        return js_sys::Reflect::get(&v, &"view".into()).ok()?.as_string();
    }
    let text = web_sys::window()?.document()?.get_element_by_id("nines-runs")?.text_content()?;
    // from_slice, as everywhere: one compiled copy of serde_json's parser, not two
    let v: serde_json::Value = serde_json::from_slice(text.as_bytes()).ok()?;
    v.get("view")?.as_str().map(str::to_string)
}

/// Runs embedded in the page: handed over by a report's bootstrap, or written into it as
/// `<script type="application/json" id="nines-runs">{"runs":[{"name":"a.hlog","base64":"..."}]}</script>`.
fn embedded_runs() -> Option<EmbeddedRuns> {
    if let Some(v) = handed_runs() {
        let list: js_sys::Array = js_sys::Reflect::get(&v, &"runs".into()).ok()?.dyn_into().ok()?;
        return Some(
            list.iter()
                .enumerate()
                .map(|(i, r)| {
                    let name = js_sys::Reflect::get(&r, &"name".into())
                        .ok()
                        .and_then(|n| n.as_string())
                        .unwrap_or_else(|| format!("embedded run {}", i + 1));
                    // copied into wasm memory one run at a time, as it is decoded
                    let bytes = js_sys::Reflect::get(&r, &"bytes".into()).ok().and_then(|b| b.dyn_into::<js_sys::Uint8Array>().ok());
                    (name, bytes.map_or_else(|| Pending::Ready(Err("no bytes".to_string())), Pending::Bytes))
                })
                .collect(),
        );
    }
    let doc = web_sys::window()?.document()?;
    let el = doc.get_element_by_id("nines-runs")?;
    let text = el.text_content()?;
    if text.trim().is_empty() {
        return None;
    }
    let v: serde_json::Value = match serde_json::from_slice(text.as_bytes()) {
        Ok(v) => v,
        Err(e) => {
            return Some(vec![("embedded runs".into(), Pending::Ready(Err(format!("the page's embedded runs are not valid JSON: {e}"))))])
        }
    };
    let list = v.get("runs")?.as_array()?;
    Some(
        list.iter()
            .enumerate()
            .map(|(i, r)| {
                let name = r.get("name").and_then(|n| n.as_str()).map_or_else(|| format!("embedded run {}", i + 1), str::to_string);
                let data = r
                    .get("base64")
                    .and_then(|d| d.as_str())
                    .ok_or_else(|| "no base64 data".to_string())
                    .and_then(|d| base64::engine::general_purpose::STANDARD.decode(d.trim()).map_err(|e| format!("base64: {e}")));
                (name, Pending::Ready(data))
            })
            .collect(),
    )
}

/// The most runs a site's page loads by itself; past that (with every run summarised) it
/// opens on the trend across its runs, and loads a run when it is clicked.
pub(super) const AUTO_LOAD_MAX: usize = 100;

/// A run a manifest lists: its archive, and the compact form to load first when there is one.
#[derive(Clone, Debug, PartialEq)]
struct ManifestEntry {
    file: String,
    compact: Option<String>,
    /// Where the compact form's groups begin (`nines site` writes it): the bytes before are
    /// what the page fetches first.
    groups_at: Option<usize>,
    /// Where its recorded windows begin: the page fetches a group's windows when a range cuts
    /// it.
    windows_at: Option<usize>,
    name: String,
    /// Its whole-run levels (`nines site` writes them), for the trend.
    summary: Option<nines_core::trend::Summary>,
    /// The run's own keys (`nines run --meta`), which the trend can order by.
    user: Vec<(String, String)>,
}

/// Entries of a `manifest.json` beside the page: `{"runs":[{"file":"runs/a.hlog",
/// "compact":"runs/a.hlog.compact"}]}` or `["runs/a.hlog", ...]`. Only relative paths on the
/// same site are fetched.
fn manifest_entries(v: &serde_json::Value) -> Vec<ManifestEntry> {
    let local = |p: &str| !p.contains(':') && !p.starts_with('/') && !p.starts_with('\\');
    let list = v.get("runs").and_then(|r| r.as_array()).or_else(|| v.as_array());
    list.map(|l| {
        l.iter()
            .filter_map(|e| {
                let file = e.as_str().or_else(|| e.get("file").and_then(|f| f.as_str())).filter(|p| local(p))?.to_string();
                let compact = e.get("compact").and_then(|f| f.as_str()).filter(|p| local(p)).map(str::to_string);
                let at = |k: &str| e.get(k).and_then(serde_json::Value::as_u64).map(|n| n as usize);
                let (groups_at, windows_at) =
                    (at("compact_groups_at"), at("compact_windows_at").filter(|&w| Some(w) > at("compact_groups_at")));
                let name = e.get("name").and_then(|n| n.as_str()).unwrap_or(&file).to_string();
                // a summary that does not read leaves the run out of the trend only
                let summary = e.get("trend").and_then(|t| nines_core::trend::Summary::from_json(t).ok());
                let user = site::user_keys(e.get("user"));
                Some(ManifestEntry { file, compact, groups_at, windows_at, name, summary, user })
            })
            .collect()
    })
    .unwrap_or_default()
}

/// The page's side of the worker pool: results are added in file order, those that arrive
/// together in one step (one redraw for them all).
struct PageSink {
    /// Index of the pool's first file in `progress`.
    base: usize,
    progress: RwSignal<Vec<(String, workers::Stage)>>,
    errors: RwSignal<Vec<LoadError>>,
    runs: Runs,
    state: RwSignal<ViewState>,
    /// Results not added yet, and whether a task is adding them.
    queue: Rc<RefCell<(std::collections::VecDeque<Arrived>, bool)>>,
}

/// A file the pool is done with: its index, the file, what became of it, the worker's time.
type Arrived = (usize, web_sys::File, workers::Outcome, f64);

impl workers::Sink for PageSink {
    fn stage(&self, i: usize, stage: workers::Stage) {
        self.progress.update(|p| {
            if let Some(e) = p.get_mut(self.base + i) {
                e.1 = stage;
            }
        });
    }

    fn done(&self, i: usize, file: &web_sys::File, outcome: workers::Outcome, ms: f64) {
        let start = {
            let mut q = self.queue.borrow_mut();
            q.0.push_back((i, file.clone(), outcome, ms));
            !std::mem::replace(&mut q.1, true)
        };
        if !start {
            return;
        }
        let (queue, progress, errors, runs, base, state) =
            (self.queue.clone(), self.progress, self.errors, self.runs, self.base, self.state);
        leptos::task::spawn_local(async move {
            loop {
                let batch: Vec<_> = queue.borrow_mut().0.drain(..).collect();
                if batch.is_empty() {
                    queue.borrow_mut().1 = false;
                    break;
                }
                busy();
                let t0 = now_ms();
                for (i, file, outcome, ms) in batch {
                    let name = file.name();
                    let res = match outcome {
                        workers::Outcome::Compact(b) => add_run(runs, &name, &b),
                        workers::Outcome::Raw => match read_file(file).await {
                            Ok(b) => add_run(runs, &name, &b),
                            Err(message) => Err(LoadError { file: name.clone(), message }),
                        },
                        workers::Outcome::Error(msg) => {
                            let message = msg.strip_prefix(&format!("{name}: ")).map_or(msg.clone(), str::to_string);
                            Err(LoadError { file: name.clone(), message })
                        }
                    };
                    let stage = if res.is_ok() { workers::Stage::Drawn(ms) } else { workers::Stage::Failed };
                    if let Err(e) = res {
                        errors.update(|v| v.push(e));
                    }
                    progress.update(|p| {
                        if let Some(e) = p.get_mut(base + i) {
                            e.1 = stage;
                        }
                    });
                }
                split_by_default(state);
                runs.notify();
                // let the charts draw what came before the next results are added
                yield_now().await;
                // While files are still being decoded, the page's redraws take a core from the
                // workers (each redraws every run so far): the next runs are added, and all drawn
                // again, only after four times as long as adding and drawing these took (the page
                // then takes at most a fifth of a core). Runs that arrive meanwhile are drawn
                // together; once every file left has arrived, at once.
                let until = now_ms() + 4.0 * (now_ms() - t0);
                loop {
                    let left = progress.with_untracked(|p| {
                        p.iter().skip(base).filter(|(_, s)| matches!(s, workers::Stage::Queued | workers::Stage::Decoding)).count()
                    });
                    let now = now_ms();
                    if left <= queue.borrow().0.len() || now >= until {
                        break;
                    }
                    sleep_ms((until - now).min(50.0)).await;
                }
            }
        });
    }
}

/// Load runs one after the other (embedded, a site's manifest, files read on the page), the
/// page painting between them, then draw them all.
async fn load_list(p: Page, items: Vec<(String, Pending)>) {
    let Page { loading, errors, state, runs, .. } = p;
    busy();
    let n = items.len();
    // the page paints and takes input between runs, but not after every run: a yield
    // costs a timer's clamp and often a frame, which for a site of 100 small runs was
    // more than a second of its first render
    let mut painted = f64::NEG_INFINITY;
    for (i, (name, pending)) in items.into_iter().enumerate() {
        if now_ms() - painted > 50.0 {
            loading.set(Some(format!("loading {} of {n}: {name}", i + 1)));
            yield_now().await;
            painted = now_ms();
        }
        let bytes = match pending {
            Pending::Ready(b) => b,
            Pending::Bytes(b) => Ok(b.to_vec()),
            Pending::Fetch(p) => body_of(p).await.map_err(|e| format!("could not load it from the manifest: {e}")),
        };
        let res = bytes.map_err(|message| LoadError { file: name.clone(), message }).and_then(|b| add_run(runs, &name, &b));
        if let Err(e) = res {
            errors.update(|v| v.push(e));
        }
    }
    loading.set(None);
    split_by_default(state);
    runs.notify();
}

/// The page's first runs: embedded ones, else a site's manifest (requested before the page
/// was built); then `replace_run` may add or replace runs.
pub(super) fn load_first(p: Page, preload: Option<Preload>) {
    leptos::task::spawn_local(async move {
        if let Some(items) = embedded_runs() {
            load_list(p, items).await;
            return;
        }
        match preload {
            Some(Ok(items)) => load_list(p, items).await,
            Some(Err(e)) => p.errors.update(|v| v.push(e)),
            None => {}
        }
        p.runs.notify();
        p.runs.book(|b| b.live = true);
        // a page without runs waits for files: their workers start now, after its first paint
        if p.runs.get_untracked().is_empty() {
            yield_now().await;
            workers::prepare();
        }
    });
}

/// Files opened or dropped: decoded in workers when there are several (see `workers`), else
/// read and loaded here.
pub(super) fn load_files(p: Page, files: web_sys::FileList) {
    let Page { progress, errors, runs, state, .. } = p;
    let list: Vec<web_sys::File> = (0..files.length()).filter_map(|i| files.get(i)).collect();
    if let Some(k) = workers::pool_size(list.len()) {
        busy();
        let base = progress.with_untracked(|p: &Vec<(String, workers::Stage)>| {
            if p.iter().all(|(_, s)| matches!(s, workers::Stage::Drawn(_) | workers::Stage::Failed)) {
                0
            } else {
                p.len()
            }
        });
        progress.update(|p| {
            p.truncate(base);
            p.extend(list.iter().map(|f| (f.name(), workers::Stage::Queued)));
        });
        let sink = Rc::new(PageSink { base, progress, errors, runs, state, queue: Default::default() });
        workers::run(list, k, sink);
        return;
    }
    leptos::task::spawn_local(async move {
        let mut items = Vec::new();
        for f in list {
            let name = f.name();
            items.push((name, read_file(f).await));
        }
        load_list(p, items.into_iter().map(|(n, b)| (n, Pending::Ready(b))).collect()).await;
    });
}
