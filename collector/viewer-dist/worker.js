// A viewer worker: one instance of the workers' wasm module (nines-worker: nines-core's
// summarise, built for speed, apart from the page's module, which is built for size), which
// decodes the raw runs (archives and every other format the viewer reads) the page sends it
// and answers with each run's compact form, so that the page holds only what it draws.
// Messages:
//   page -> worker  { module }                              first: the workers' module,
//                                                           compiled once by the page
//                   { warm }                                a worker started before any file
//                                                           was given: summarise a small
//                                                           synthetic run (warm() in
//                                                           worker/src/lib.rs)
//                   { id, name, file }                      file: a File or an ArrayBuffer
//   worker -> page  { id, stage: 'decoding' }               when it starts on the run
//                   { id, stage: 'done', bytes, took_ms }   bytes: the compact form (transferred)
//                   { id, stage: 'error', message }         the run could not be read
// Started by the page with `new Worker('worker.js', { type: 'module' })` (module workers:
// https://html.spec.whatwg.org/multipage/workers.html#module-worker-example).
import init, { summarise, warm } from './nines_worker.js';

// the module the page compiled when it sends one (one download and compilation for every
// worker, whose optimised code they then share), else the wasm beside this script
let ready = null;
self.onmessage = async (e) => {
  if (e.data.module !== undefined) {
    ready = init({ module_or_path: e.data.module });
    return;
  }
  if (e.data.warm !== undefined) {
    // a file given meanwhile waits for the warm-up; a warm-up that fails only costs its time
    if (ready !== null) ready = ready.then(() => { try { warm(); } catch (_) { /* the file will say */ } });
    return;
  }
  if (ready === null) ready = init({ module_or_path: new URL('nines_worker_bg.wasm', import.meta.url) });
  const { id, name, file } = e.data;
  try {
    await ready;
    self.postMessage({ id, stage: 'decoding' });
    const t0 = performance.now();
    const buf = file instanceof ArrayBuffer ? file : await file.arrayBuffer();
    const out = summarise(name, new Uint8Array(buf));
    self.postMessage({ id, stage: 'done', bytes: out, took_ms: performance.now() - t0 }, [out.buffer]);
  } catch (err) {
    self.postMessage({ id, stage: 'error', message: String(err && err.message ? err.message : err) });
  }
};
