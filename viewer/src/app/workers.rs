//! Raw files opened in the page (picker, drag and drop) decoded in Web Workers: one wasm
//! instance of the viewer per worker (`static/worker.js`), as many workers as the machine
//! has cores (`navigator.hardwareConcurrency`, at most [`MAX_WORKERS`]). A worker answers
//! with the run's compact form (`nines_core::summarise`), so the page keeps only what it draws.
//! Runs are added in the order the files were given, each as soon as it and the files before
//! it are done; every file shows its progress.
//!
//! Where no worker can run (a report opened from a mail attachment: `file://` and a
//! Content-Security-Policy that allows no worker), or a worker fails to start, the page
//! decodes the files itself, as before.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// More workers than this gain nothing for a few files and cost a wasm instance each.
pub const MAX_WORKERS: usize = 8;

/// Where a file is.
#[derive(Clone, Debug, PartialEq)]
pub enum Stage {
    Queued,
    Decoding,
    /// Added to the page, with the milliseconds the worker took.
    Drawn(f64),
    Failed,
}

impl Stage {
    pub fn name(&self) -> &'static str {
        match self {
            Stage::Queued => "queued",
            Stage::Decoding => "decoding",
            Stage::Drawn(_) => "drawn",
            Stage::Failed => "failed",
        }
    }

    pub fn text(&self) -> String {
        match self {
            Stage::Queued => "waiting".into(),
            Stage::Decoding => "decoding".into(),
            Stage::Drawn(ms) if *ms > 0.0 => format!("decoded in {:.1} s", ms / 1000.0),
            Stage::Drawn(_) => "read".into(),
            Stage::Failed => "not read".into(),
        }
    }
}

/// What became of a file.
pub enum Outcome {
    /// Its compact form.
    Compact(Vec<u8>),
    /// Why it could not be read.
    Error(String),
    /// No worker could take it: the page reads it itself.
    Raw,
}

/// What the pool reports to the page.
pub trait Sink {
    /// File `i` is at `stage`.
    fn stage(&self, i: usize, stage: Stage);
    /// File `i` is done, in file order, having taken the worker `ms` milliseconds.
    fn done(&self, i: usize, file: &web_sys::File, outcome: Outcome, ms: f64);
}

/// How many workers to start for `n` files, or `None` where workers cannot run here.
pub fn pool_size(n: usize) -> Option<usize> {
    let w = web_sys::window()?;
    let proto = w.location().protocol().ok()?;
    // a report's page (file://, and a policy that allows no worker) decodes runs itself
    if !proto.starts_with("http") || w.document()?.get_element_by_id("nines-report-runs").is_some() || n == 0 {
        return None;
    }
    let cores = w.navigator().hardware_concurrency() as usize;
    Some(cores.clamp(1, MAX_WORKERS).min(n))
}

struct Pool {
    files: Vec<web_sys::File>,
    queue: VecDeque<usize>,
    workers: Vec<Option<web_sys::Worker>>,
    /// Which file each worker has (by worker index).
    busy: Vec<Option<usize>>,
    /// Workers that answered at least once (a worker that fails before it does could not start).
    started: Vec<bool>,
    /// Results waiting for the files before them, with the milliseconds they took (by file).
    ready: Vec<Option<(Outcome, f64)>>,
    next: usize,
    sink: Rc<dyn Sink>,
    /// The workers' handlers, kept alive while the pool runs.
    handlers: Vec<Handlers>,
}

/// A worker's message and error handlers.
type Handlers = (Closure<dyn FnMut(web_sys::MessageEvent)>, Closure<dyn FnMut(web_sys::ErrorEvent)>);

type Shared = Rc<RefCell<Pool>>;

// Browser resources made ahead of any file (the compiled module, idle workers), kept for the
// page's life; not the page's state, which is in `model::Runs`.
thread_local! {
    /// The workers' module, compiled once for the page ([`worker_module`]).
    static MODULE: RefCell<Option<js_sys::Promise>> = const { RefCell::new(None) };
    /// Workers started before any file was given ([`prepare`]), waiting for [`run`].
    static SPARE: RefCell<Vec<Spare>> = const { RefCell::new(Vec::new()) };
}

/// A worker started ahead of any file.
struct Spare {
    worker: web_sys::Worker,
    /// Whether it was sent the module (by [`prepare`], else by [`run`]).
    sent: Rc<Cell<bool>>,
    /// Whether it failed to start while it waited (its script could not load).
    dead: Rc<Cell<bool>>,
    /// Whether it was sent the warm-up.
    warmed: Rc<Cell<bool>>,
    /// Its error handler while it waits; [`run`] sets its own.
    _on_error: Closure<dyn FnMut(web_sys::ErrorEvent)>,
}

fn new_worker() -> Option<web_sys::Worker> {
    let opts = web_sys::WorkerOptions::new();
    opts.set_type(web_sys::WorkerType::Module);
    web_sys::Worker::new_with_options("worker.js", &opts).ok()
}

/// Start the workers ahead of any file, on a page that has no runs and waits for files: each
/// is given the module and, once the page has been left alone for [`WARM_AFTER_MS`], warms up
/// on a small synthetic run (`warm` in the nines-worker crate), so that the first file given
/// finds its worker started, its module instantiated and its code compiled (a cold worker took
/// about twice as long over its first file as over the next ones). They wait, idle, until
/// [`run`] takes them.
pub fn prepare() {
    let Some(k) = pool_size(MAX_WORKERS) else { return };
    let have = SPARE.with(|s| s.borrow().len());
    let mut fresh = Vec::new();
    for _ in have..k {
        let Some(worker) = new_worker() else { break };
        let dead = Rc::new(Cell::new(false));
        let d = dead.clone();
        let on_error = Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |e: web_sys::ErrorEvent| {
            e.prevent_default();
            d.set(true);
        });
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let sent = Rc::new(Cell::new(false));
        let warmed = Rc::new(Cell::new(false));
        fresh.push((worker.clone(), sent.clone(), warmed.clone()));
        SPARE.with(|s| s.borrow_mut().push(Spare { worker, sent, dead, warmed, _on_error: on_error }));
    }
    wasm_bindgen_futures::spawn_local(async move {
        let Some(module) = compiled_module().await else { return };
        for (w, sent, _) in &fresh {
            if !sent.replace(true) {
                post_module(w, &module);
            }
        }
        // the warm-up once the page has been left alone a while: files given at once do not
        // wait for it
        super::net::sleep_ms(WARM_AFTER_MS).await;
        let waiting: Vec<web_sys::Worker> = SPARE.with(|s| s.borrow().iter().map(|s| s.worker.clone()).collect());
        for (w, _, warmed) in fresh.iter().filter(|(w, _, _)| waiting.contains(w)) {
            post_one(w, "warm", &JsValue::TRUE);
            warmed.set(true);
        }
    });
}

/// How long a page waiting for files is left alone before its workers warm up.
const WARM_AFTER_MS: f64 = 500.0;

/// A worker started by [`prepare`] that is still alive, with whether it was sent the module
/// and whether it was sent the warm-up.
fn take_spare() -> Option<(web_sys::Worker, Rc<Cell<bool>>, bool)> {
    loop {
        let s = SPARE.with(|s| s.borrow_mut().pop())?;
        if s.dead.get() {
            s.worker.terminate();
            continue;
        }
        s.worker.set_onerror(None);
        return Some((s.worker, s.sent, s.warmed.get()));
    }
}

/// Decode `files` in `workers` workers, reporting to `sink`.
pub fn run(files: Vec<web_sys::File>, workers: usize, sink: Rc<dyn Sink>) {
    let n = files.len();
    for i in 0..n {
        sink.stage(i, Stage::Queued);
    }
    let pool: Shared = Rc::new(RefCell::new(Pool {
        files,
        queue: (0..n).collect(),
        workers: Vec::new(),
        busy: vec![None; workers],
        started: vec![false; workers],
        ready: (0..n).map(|_| None).collect(),
        next: 0,
        sink,
        handlers: Vec::new(),
    }));
    // whether each worker was sent the module
    let mut sent = Vec::with_capacity(workers);
    // whether every worker was warmed up while the page waited for files
    let mut all_warm = true;
    for k in 0..workers {
        let (worker, has) = match take_spare() {
            Some((w, has, warmed)) => {
                all_warm &= warmed;
                (Some(w), has)
            }
            None => {
                all_warm = false;
                (new_worker(), Rc::new(Cell::new(false)))
            }
        };
        sent.push(has);
        if let Some(w) = &worker {
            let p = pool.clone();
            let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| message(&p, k, e.data()));
            let p = pool.clone();
            let on_error = Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |e: web_sys::ErrorEvent| {
                e.prevent_default();
                failed(&p, k, e.message());
            });
            w.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
            w.set_onerror(Some(on_error.as_ref().unchecked_ref()));
            pool.borrow_mut().handlers.push((on_message, on_error));
        }
        pool.borrow_mut().workers.push(worker);
    }
    if pool.borrow().workers.iter().all(Option::is_none) {
        give_back(&pool);
        deliver(&pool);
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        // The workers' module compiled once here and given to every worker before its first
        // file: one download and compilation, and the workers share the code V8 optimises
        // as it runs (a cold instance runs its wasm unoptimised for a while). Where it cannot
        // be compiled here, each worker loads it itself (static/worker.js).
        if let Some(module) = compiled_module().await {
            for (w, sent) in pool.borrow().workers.iter().zip(&sent) {
                if let Some(w) = w {
                    if !sent.replace(true) {
                        post_module(w, &module);
                    }
                }
            }
        }
        // Workers warmed up while the page waited take files at once. Cold ones give the
        // first file to one worker alone, which is then drawn sooner with a core to itself
        // while its code is compiled, and every worker takes files once it is done.
        feed(&pool, 0);
        if all_warm || pool.borrow().workers[0].is_none() {
            for k in 1..workers {
                feed(&pool, k);
            }
        }
    });
}

/// The workers' wasm module (`nines_worker_bg.wasm` beside the page), compiled while it
/// downloads (`WebAssembly.compileStreaming`, which needs the `application/wasm` type every
/// server of the bundle gives it), once for the page.
fn worker_module() -> Option<js_sys::Promise> {
    MODULE.with(|m| {
        let mut m = m.borrow_mut();
        if m.is_none() {
            let fetch = web_sys::window()?.fetch_with_str("nines_worker_bg.wasm");
            *m = Some(js_sys::WebAssembly::compile_streaming(&fetch));
        }
        m.clone()
    })
}

/// [`worker_module`], compiled, or `None` where it could not be.
async fn compiled_module() -> Option<JsValue> {
    wasm_bindgen_futures::JsFuture::from(worker_module()?).await.ok()
}

/// Give worker `w` the compiled `module`.
fn post_module(w: &web_sys::Worker, module: &JsValue) {
    post_one(w, "module", module);
}

/// Post worker `w` the message `{ key: value }`.
fn post_one(w: &web_sys::Worker, key: &str, value: &JsValue) {
    let msg = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&msg, &key.into(), value);
    let _ = w.post_message(&msg);
}

/// Give worker `k` the next queued file, or stop it when none is left.
fn feed(pool: &Shared, k: usize) {
    let mut p = pool.borrow_mut();
    let Some(w) = p.workers[k].clone() else { return };
    match p.queue.pop_front() {
        Some(i) => {
            p.busy[k] = Some(i);
            let msg = js_sys::Object::new();
            let _ = js_sys::Reflect::set(&msg, &"id".into(), &JsValue::from(i as u32));
            let _ = js_sys::Reflect::set(&msg, &"name".into(), &p.files[i].name().into());
            let _ = js_sys::Reflect::set(&msg, &"file".into(), &p.files[i]);
            if w.post_message(&msg).is_err() {
                p.busy[k] = None;
                p.queue.push_front(i);
                drop(p);
                failed(pool, k, "could not send the file to a worker".into());
            }
        }
        None => {
            // its wasm memory goes with it
            w.terminate();
            p.workers[k] = None;
        }
    }
}

fn get(v: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(v, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

fn message(pool: &Shared, k: usize, data: JsValue) {
    let id = get(&data, "id").as_f64().map(|v| v as usize);
    let stage = get(&data, "stage").as_string().unwrap_or_default();
    let sink = {
        let mut p = pool.borrow_mut();
        p.started[k] = true;
        p.sink.clone()
    };
    let Some(i) = id else { return };
    match stage.as_str() {
        "decoding" => sink.stage(i, Stage::Decoding),
        "done" | "error" => {
            let outcome = if stage == "done" {
                match get(&data, "bytes").dyn_into::<js_sys::Uint8Array>() {
                    Ok(b) => Outcome::Compact(b.to_vec()),
                    Err(_) => Outcome::Error("the worker sent no compact form".into()),
                }
            } else {
                Outcome::Error(get(&data, "message").as_string().unwrap_or_else(|| "could not be read".into()))
            };
            let ms = get(&data, "took_ms").as_f64().unwrap_or(0.0);
            {
                let mut p = pool.borrow_mut();
                p.busy[k] = None;
                p.ready[i] = Some((outcome, ms));
            }
            feed(pool, k);
            // the first result: the other workers start
            let idle: Vec<usize> = {
                let p = pool.borrow();
                (0..p.workers.len()).filter(|&j| p.workers[j].is_some() && p.busy[j].is_none() && !p.started[j]).collect()
            };
            for j in idle {
                feed(pool, j);
            }
            deliver(pool);
        }
        _ => {}
    }
}

/// Hand the page every result whose predecessors are all in.
fn deliver(pool: &Shared) {
    loop {
        let (i, file, (outcome, ms), sink) = {
            let mut p = pool.borrow_mut();
            let i = p.next;
            let Some(r) = p.ready.get_mut(i).and_then(Option::take) else { break };
            p.next += 1;
            (i, p.files[i].clone(), r, p.sink.clone())
        };
        sink.done(i, &file, outcome, ms);
    }
    let finished = {
        let p = pool.borrow();
        p.next == p.files.len()
    };
    if finished {
        // the handlers go when the pool does: after this call returns
        let p = pool.clone();
        let cb = Closure::once_into_js(move || p.borrow_mut().handlers.clear());
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback(cb.unchecked_ref());
        }
    }
}

/// Worker `k` failed (its script or wasm could not load, or it crashed).
fn failed(pool: &Shared, k: usize, why: String) {
    {
        let mut p = pool.borrow_mut();
        if let Some(w) = p.workers[k].take() {
            w.terminate();
        }
        let started = p.started[k];
        if let Some(i) = p.busy[k].take() {
            if started {
                // a run that crashed a running worker (out of memory): said, not retried
                p.ready[i] = Some((Outcome::Error(format!("the worker decoding it stopped: {why}")), 0.0));
            } else {
                p.queue.push_front(i);
            }
        }
    }
    if pool.borrow().workers.iter().all(Option::is_none) {
        give_back(pool);
    } else {
        // the files left go to the workers still there, those waiting for the first result too
        let idle: Vec<usize> = {
            let p = pool.borrow();
            (0..p.workers.len()).filter(|&j| p.workers[j].is_some() && p.busy[j].is_none()).collect()
        };
        for j in idle {
            feed(pool, j);
        }
    }
    deliver(pool);
}

/// Every queued file goes back to the page, which reads it itself.
fn give_back(pool: &Shared) {
    let mut p = pool.borrow_mut();
    while let Some(i) = p.queue.pop_front() {
        p.ready[i] = Some((Outcome::Raw, 0.0));
    }
}
