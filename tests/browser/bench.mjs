// Viewer benchmark in headless Chromium (driven by bench/viewer.sh):
//   node tests/browser/bench.mjs RUNS_DIR REPEATS
//   NINES_BENCH_MODE=compact  the manifest lists each run's compact form (RUNS_DIR/X.hlog.compact,
//                             as nines site writes it) beside its archive
//   NINES_BENCH_MODE=report NINES_BENCH_REPORT=FILE.html  a nines report opened from file://
//   NINES_BENCH_MODE=drop     the raw archives given to the page's file input (decoded in
//                             the viewer's workers); times from the moment they are given
//   NINES_BENCH_DROP_WAIT_MS=N  (drop) give them N ms after the file input is there, as a
//                             person would, rather than at once (default 0)
//   NINES_BENCH_CANVAS_CALLS=1  count the calls a zoom step makes on 2d canvas contexts (by
//                             method and setter): a measure of the drawing's work that this
//                             shared VM's noise does not move
// prints one JSON object: first complete render (ms from navigation start, per repeat), the
// time spent decoding the runs inside the page, zoom-step redraw times, and the peer:
// hdr-histogram-js decoding the same logs in Node.

import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { BUNDLE, ARTIFACTS, serve, launch, zoomSteps } from './lib.mjs';

const [runsDir, repeatsArg] = process.argv.slice(2);
const repeats = Number(repeatsArg || 3);
const files = fs.readdirSync(runsDir).filter((f) => f.endsWith('.hlog')).sort();
const mode = process.env.NINES_BENCH_MODE || 'archive';
const compact = mode === 'compact';
const drop = mode === 'drop';
// where each compact form's groups begin, from the site's manifest beside RUNS_DIR (nines site
// writes it): the page then fetches the bytes before them first, as on the site
const siteManifest = path.join(runsDir, '..', 'manifest.json');
const groupsAt = new Map(fs.existsSync(siteManifest)
  ? JSON.parse(fs.readFileSync(siteManifest, 'utf8')).runs.map((e) => [path.basename(e.file), e.compact_groups_at]) : []);
const entry = (f) => (compact ? { file: `runs/${f}`, compact: `runs/${f}.compact`, compact_groups_at: groupsAt.get(f) } : { file: `runs/${f}` });
const routes = { '/manifest.json': JSON.stringify({ runs: drop ? [] : files.map(entry) }) };
for (const f of files) {
  routes[`/runs/${f}`] = fs.readFileSync(path.join(runsDir, f));
  if (compact) routes[`/runs/${f}.compact`] = fs.readFileSync(path.join(runsDir, `${f}.compact`));
}

// Peer: hdr-histogram-js decoding every window of the same logs, timed right after each page
// load so that both see the same load on a shared machine.
const require = createRequire(import.meta.url);
const hdr = require('hdr-histogram-js');
const texts = files.map((f) => fs.readFileSync(path.join(runsDir, f), 'utf8'));
function peer() {
  const t0 = performance.now();
  let windows = 0;
  for (const t of texts) {
    const reader = new hdr.HistogramLogReader(t);
    let h;
    while ((h = reader.nextIntervalHistogram()) !== null) {
      windows++;
      if (typeof h.destroy === 'function') h.destroy();
    }
  }
  return { ms: performance.now() - t0, windows };
}

// Wraps every method and setter of CanvasRenderingContext2D to count its calls in
// window.ninesCanvasCalls (run in the page before its scripts).
function countCanvasCalls() {
  window.ninesCanvasCalls = {};
  const count = (k) => { window.ninesCanvasCalls[k] = (window.ninesCanvasCalls[k] || 0) + 1; };
  const proto = CanvasRenderingContext2D.prototype;
  for (const name of Object.getOwnPropertyNames(proto)) {
    const d = Object.getOwnPropertyDescriptor(proto, name);
    if (typeof d.value === 'function' && name !== 'constructor') {
      const f = d.value;
      proto[name] = function (...args) { count(name); return f.apply(this, args); };
    } else if (d.set) {
      const set = d.set;
      Object.defineProperty(proto, name, { ...d, set(v) { count(`set ${name}`); set.call(this, v); } });
    }
  }
}

/// CPU time (ms) of each thread of Chromium's processes, from /proc: `main` for the renderers'
/// main threads (a renderer process's first thread). Unlike wall times, these do not grow with
/// the VM's steal time.
function chromiumThreads() {
  const tick = 10; // USER_HZ is 100 on Linux
  const threads = new Map();
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1');
      if (!cmd.includes('chromium')) continue;
      const renderer = cmd.includes('--type=renderer');
      for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
        const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'latin1');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        threads.set(`${pid}/${tid}`, { ms: (Number(f[11]) + Number(f[12])) * tick, main: renderer && tid === pid });
      }
    } catch { /* the process ended meanwhile */ }
  }
  return threads;
}

/// CPU spent since `before` (a `chromiumThreads()`): by the renderers' main threads, and by all.
function chromiumCpuSince(before) {
  let all = 0;
  let main = 0;
  for (const [k, t] of chromiumThreads()) {
    const ms = t.ms - (before.get(k)?.ms || 0);
    all += ms;
    if (t.main) main += ms;
  }
  return { all, main };
}

async function taskSeconds(cdp) {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return metrics.find((m) => m.name === 'TaskDuration').value;
}

const server = await serve(BUNDLE, routes);
const browser = await launch();
const result = { runs: files.length, first_render_ms: [], first_run_ms: [], parse_ms: [], traces_ms: [], wasm_mb: [], zoom_ms: [], zoom_draw_ms: [], peer_ms: [] };
try {
  for (let i = 0; i < repeats; i++) {
    const ctx = await browser.newContext({ viewport: { width: 1600, height: 1500 } });
    const page = await ctx.newPage();
    if (process.env.NINES_BENCH_CANVAS_CALLS) await page.addInitScript(countCanvasCalls);
    // the page's main thread busy (Chromium's TaskDuration) until every run is drawn: from the
    // navigation for a site or report, from the drop for dropped files
    const cpu0 = fs.existsSync('/proc/self/stat') ? chromiumThreads() : null;
    const cdp = await ctx.newCDPSession(page);
    await cdp.send('Performance.enable');
    let busy0 = await taskSeconds(cdp);
    await page.goto(mode === 'report' ? pathToFileURL(process.env.NINES_BENCH_REPORT).href : `${server.base}/index.html`);
    let t0 = 0;
    if (drop) {
      await page.waitForSelector('[data-testid=file-input]', { state: 'attached' });
      await new Promise((r) => setTimeout(r, Number(process.env.NINES_BENCH_DROP_WAIT_MS || 0)));
      busy0 = await taskSeconds(cdp);
      t0 = await page.evaluate(() => performance.now());
      await page.setInputFiles('[data-testid=file-input]', files.map((f) => path.join(runsDir, f)));
    }
    // polled with evaluate: a report's Content-Security-Policy forbids the string evaluation
    // waitForFunction uses
    const want = mode === 'report' ? 1 : files.length;
    for (let t = 0; ; t++) {
      const done = await page.evaluate((n) => Boolean(document.body.dataset.ninesFirstRenderMs
        && document.querySelectorAll('[data-testid=legend-run]').length >= n), want);
      if (done) break;
      if (t > 12000) throw new Error('no first render in 10 minutes');
      await new Promise((r) => setTimeout(r, 50));
    }
    result.first_render_ms.push(Number(await page.evaluate(() => document.body.dataset.ninesFirstRenderMs)) - t0);
    result.first_run_ms.push(Number(await page.evaluate(() => document.body.dataset.ninesFirstRunMs)) - t0);
    result.main_thread_ms = (result.main_thread_ms || []).concat(Math.round((await taskSeconds(cdp) - busy0) * 1000));
    if (cpu0) {
      // CPU until the first render was seen: the page's main thread, and all of Chromium
      const cpu = chromiumCpuSince(cpu0);
      result.main_cpu_ms = (result.main_cpu_ms || []).concat(cpu.main);
      result.chromium_cpu_ms = (result.chromium_cpu_ms || []).concat(cpu.all);
    }
    if (drop) {
      // each worker's own time per file, as the page shows it ("decoded in 1.2 s")
      const ms = await page.evaluate(() => [...document.querySelectorAll('[data-testid=progress-file]')].map((e) => Number((e.textContent.match(/decoded in ([\d.]+) s/) || [])[1]) * 1000));
      result.worker_ms = (result.worker_ms || []).concat(ms);
    }
    if (drop && i === 0) {
      result.progress = await page.evaluate(() => [...document.querySelectorAll('[data-testid=progress-file]')].map((e) => e.textContent));
      result.workers = await page.evaluate(() => Math.min(navigator.hardwareConcurrency, 8));
    }
    result.parse_ms.push(Number(await page.evaluate(() => document.body.dataset.ninesParseMs)));
    // the 1-CDF's first draw builds every trace (pyramid, merged histogram, 1-CDF, density)
    result.traces_ms.push(Number(await page.evaluate(() => document.body.dataset.drawMsCdf)));
    result.wasm_mb.push(Number(await page.evaluate(() => document.body.dataset.ninesWasmMb)));
    if (i === 0) {
      // zoom steps: a wheel event on the runtime chart, timed in the page from dispatch until
      // the runtime and rate charts have redrawn (the idle flag set after their draws)
      if (process.env.NINES_BENCH_CANVAS_CALLS) await page.evaluate(() => { window.ninesCanvasCalls = {}; });
      const raw = await zoomSteps(page);
      if (process.env.NINES_BENCH_CANVAS_CALLS) {
        const calls = await page.evaluate(() => window.ninesCanvasCalls);
        result.canvas_calls_per_step = Object.fromEntries(Object.entries(calls).sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, v / raw.length]));
      }
      const steps = raw.map((s) => ({ wall: s.wall, draw: s.draws.drawMsRuntime + s.draws.drawMsRate }));
      result.zoom_ms = steps.map((s) => s.wall);
      result.zoom_draw_ms = steps.map((s) => s.draw);
      fs.mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: path.join(ARTIFACTS, `bench-20-runs${mode === 'archive' ? '' : `-${mode}`}.png`), fullPage: true });
    }
    await ctx.close();
    if (mode === 'archive') {
      const p = peer();
      result.peer_ms.push(p.ms);
      result.peer_windows = p.windows;
    }
  }
} finally {
  await browser.close();
  server.close();
}

result.mode = mode;
result.bytes = mode === 'report' ? fs.statSync(process.env.NINES_BENCH_REPORT).size
  : compact ? files.reduce((a, f) => a + fs.statSync(path.join(runsDir, `${f}.compact`)).size, 0)
  : texts.reduce((a, t) => a + t.length, 0);
console.log(JSON.stringify(result));
