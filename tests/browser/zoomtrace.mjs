// Zoom-step trace (not a test): Chrome's timeline of 16 wheel steps on the runtime chart, the
// page's main thread per step (script, canvas rasterisation, frame, idle callbacks) and summed
// by event over the steps.
//   node tests/browser/zoomtrace.mjs SITE_RUNS_DIR [OUT.json]
import fs from 'node:fs';
import { zoomSteps } from './lib.mjs';
import { withSite } from './prof.mjs';

const [runsDir, out] = process.argv.slice(2);
await withSite(runsDir, async (page, ctx, files, browser) => {
  await new Promise((r) => setTimeout(r, 500));
  await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'toplevel', 'blink', 'cc', 'gpu', 'viz'] });
  const steps = await zoomSteps(page);
  const buf = await browser.stopTracing();
  const trace = JSON.parse(buf.toString());
  const events = trace.traceEvents || trace;
  if (out) fs.writeFileSync(out, JSON.stringify(events));
  const walls = steps.map((s) => s.wall).sort((a, b) => a - b);
  console.log('median wall', walls[8].toFixed(1), 'max', walls[15].toFixed(1));
  // the renderer's main thread
  const main = events.find((e) => e.name === 'thread_name' && e.args.name === 'CrRendererMain');
  // per step (from one wheel event to the next): the page's script (outside idle callbacks),
  // the canvases' rasterisation at the end of the step's task (FinalizeFrame), the frame
  // (BeginMainFrame: style, layout, paint, commit) and the idle callbacks (reading ahead)
  const m = events.filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X').sort((a, b) => a.ts - b.ts);
  const wheels = m.filter((e) => e.name === 'EventDispatch' && e.args?.data?.type === 'wheel').map((e) => e.ts);
  const idles = m.filter((e) => e.name === 'FireIdleCallback');
  const inIdle = (e) => idles.some((i) => e.ts >= i.ts && e.ts < i.ts + i.dur);
  const parts = { script: [], raster: [], frame: [], idle: [] };
  for (let k = 0; k < wheels.length; k++) {
    const [a, b] = [wheels[k] - 1000, k + 1 < wheels.length ? wheels[k + 1] - 1000 : Infinity];
    const within = m.filter((e) => e.ts >= a && e.ts < b);
    const ms = (f) => within.filter(f).reduce((t, e) => t + e.dur / 1000, 0);
    parts.script.push(ms((e) => e.name === 'FunctionCall' && !inIdle(e)));
    parts.raster.push(ms((e) => e.name === 'CanvasRenderingContext2D::FinalizeFrame'));
    parts.frame.push(ms((e) => e.name === 'ProxyMain::BeginMainFrame'));
    parts.idle.push(ms((e) => e.name === 'FireIdleCallback'));
  }
  const med = (v) => [...v].sort((x, y) => x - y)[v.length >> 1];
  console.log('per step, median ms:', Object.entries(parts).map(([k, v]) => `${k} ${med(v).toFixed(1)}`).join(', '));
  const sum = new Map();
  for (const e of m) {
    const v = sum.get(e.name) || { ms: 0, n: 0 };
    v.ms += (e.dur || 0) / 1000;
    v.n++;
    sum.set(e.name, v);
  }
  for (const [k, v] of [...sum.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, 25)) console.log(`${(v.ms / 16).toFixed(2).padStart(8)} ms/step ${String(v.n).padStart(6)}x  ${k}`);
});
