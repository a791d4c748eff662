// Renders the viewer section of BENCHMARKS.md from bench/results/viewer.json (bench/viewer.sh).
//   node tests/browser/bench-section.mjs RAW_WASM_BYTES GZIP_BYTES GLUE_BYTES "CHROMIUM VERSION" DATE
import fs from 'node:fs';

const r = JSON.parse(fs.readFileSync('bench/results/viewer.json', 'utf8'));
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor((s.length - 1) / 2)]; };
const f = (x) => Math.round(x).toLocaleString('en-US');
const [raw, gz, js, chrome, date] = process.argv.slice(2);
const first = med(r.first_render_ms), parse = med(r.parse_ms), peer = med(r.peer_ms);
const traces = med(r.traces_ms || [NaN]), mem = med(r.wasm_mb || [NaN]);
const zoom = med(r.zoom_ms), zoomDraw = med(r.zoom_draw_ms);
const zmax = Math.max(...r.zoom_ms);
const ok = (b) => (b ? 'meets' : 'misses');
const other = (m) => { try { return JSON.parse(fs.readFileSync(`bench/results/viewer-${m}.json`, 'utf8')); } catch { return null; } };
const rows = [['compact', 'a site: each run\'s compact form (nines site)', 1500], ['report', 'one nines report (default size limit) from file://', 1500], ['compact-100', 'a site of 100 such runs', 2000]]
  .map(([m, what, goal]) => [other(m), what, goal]).filter(([o]) => o)
  .map(([o, what, goal]) => `| ${what}: ${o.runs} runs, ${(o.bytes / 1e6).toFixed(1)} MB | ${f(med(o.first_render_ms))} ms (${ok(med(o.first_render_ms) <= goal)} ${f(goal)}) | ${f(med(o.wasm_mb))} MiB (${(med(o.wasm_mb) / o.runs).toFixed(1)} a run-hour; ${ok(med(o.wasm_mb) / o.runs <= 5)} 5) | ${f(med(o.zoom_ms))} ms, max ${f(Math.max(...o.zoom_ms))} (${ok(med(o.zoom_ms) <= 33 && Math.max(...o.zoom_ms) <= 100)} 33/100) |`);
const compactTable = rows.length ? `

The same 20 runs in compact form (points of every power-of-two group stored exactly, windows
merged per minute), same page, same repeats:

| loaded from | first complete render | wasm memory | zoom step, median of 16 |
|---|---|---|---|
${rows.join('\n')}

Where the time goes (profiled in the same page with Chrome's CPU profiler and tracing,
2026-12-01): a zoom step is the wasm drawing both charts (about half) and Chromium
rasterising the runtime canvas in software (\`CanvasRenderingContext2D::FinalizeFrame\`) and
painting the frame. Two changes took the 20-run site's step from about 100 ms to about 40 ms:
plotters strokes each dash of a dashed line, and each max square, as a call of its own, so
the viewer's canvas backend now joins consecutive strokes and fills of one style into one
path; and Skia draws a 1 px line as a hairline but turns a 2 px one into a filled outline
(50 ms a step for 20 runs' jagged levels), so traces are 1 px wide once more than four are
shown. Compact forms are read section by section (version 3): the head on loading, each
level's points when a chart first draws one, the groups when a range first needs them; the
100-run site parsed its forms in 0.3 s instead of 1.4 to 1.7 s. Its first render is then
mostly the download of its ${(other('compact-100') || { bytes: 0 }).bytes > 0 ? ((other('compact-100').bytes) / 1e6).toFixed(1) : '?'} MB of forms from the loopback server (about a
second, half of it the groups that only a brushed range reads) and drawing 100 runs' panels
and stats table (about 0.8 s).` : '';
const d = other('drop');
const dropTable = d ? `

The same 20 archives given to the page's file input (as a picker or a drop gives them), on
a page without runs: each decoded in a Web Worker (one wasm instance per core, here
${d.workers || 2}), which sends the page the run's compact form (windows merged per minute);
times from the moment the files are given, same repeats:

| what | result | goal |
|---|---|---|
| first run drawn | ${f(med(d.first_run_ms))} ms | <= 1,000 ms: ${ok(med(d.first_run_ms) <= 1000)} |
| every run drawn | ${f(med(d.first_render_ms))} ms (from the manifest above: ${f(first)} ms) | <= half of that, ${f(first / 2)} ms: ${ok(med(d.first_render_ms) <= first / 2)} |
| wasm memory of the page then | ${f(med(d.wasm_mb))} MiB (from the manifest: ${f(mem)} MiB) | |
| zoom step, median of 16 | ${f(med(d.zoom_ms))} ms (max ${f(Math.max(...d.zoom_ms))}) | |
| each worker's time per file (read, decode, build and write the compact form) | median ${(med(d.worker_ms || [NaN]) / 1000).toFixed(2)} s | |

Where the time goes: every file costs its worker the decoding of its 7,200 windows and the
exact merges of every power-of-two group of every direction (each level's buckets merged
once, bottom up) for the compact form, about ${(med(d.worker_ms || [NaN]) / 1000).toFixed(1)} s a file with two workers and the
page sharing the 2 cores. The first file goes to one worker alone: V8 runs fresh wasm code
unoptimised until it is hot, and the workers share the module's optimised code, so two cold
workers at once took 1.6 to 1.8 s each for their first file (in the bench run that had them
start together: first run drawn at 2.1 s, all at 11.7 s, against 9.0 s from the manifest). The work divides by the cores; on these 2,
the page decoding the archives itself (above) is done ${med(d.first_render_ms) > first ? 'sooner' : 'later'}, but draws nothing until the last
run is decoded and holds ${f(mem)} MiB.` : '';
console.log(`### Generated by bench/viewer.sh: 20 one-hour runs in headless Chromium

${r.runs} runs x 3,600 one-second windows x 2 directions (read, write), 2,000 I/Os a window
(${(r.bytes / 1048576).toFixed(0)} MiB of archives, written by nines-core's writer from seeded synthetic latencies),
loaded from a manifest.json on a loopback server into a 1600x1500 page. ${chrome}, on the
2-core project machine (load average ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')} when the section was written; ${date}); medians of
${r.first_render_ms.length} page loads, the peer timed right after each; zoom steps from the first load.

| what | result | goal |
|---|---|---|
| page load to first complete render (every panel and the table drawn) | ${f(first)} ms | <= 1,500 ms: ${ok(first <= 1500)} |
| of which decoding the runs in the page (nines-core \`read_any\`, wasm) | ${f(parse)} ms | |
| of which building the traces (runtime pyramids, merged histograms, 1-CDFs) | ${f(traces)} ms | |
| wasm memory after the first render | ${f(mem)} MiB (${f(mem / r.runs)} MiB a run-hour) | |
| zoom step (wheel on the runtime chart until runtime and rate charts are redrawn and the page is idle), median of 16 | ${f(zoom)} ms (max ${f(zmax)}) | <= 33 ms: ${ok(zoom <= 33)} |
| of which computing and drawing both charts | ${f(zoomDraw)} ms | |
| wasm, after LTO and wasm-opt -Oz | ${f(raw / 1024)} KiB raw, ${f(gz / 1024)} KiB gzipped (JS glue ${f(js / 1024)} KiB) | <= 500 KB gzipped: ${ok(gz <= 500000)} |
| peer: hdr-histogram-js 3.0.1 in Node decoding the same ${f(r.peer_windows)} windows | ${f(peer)} ms | nines decoding >= 2x faster: ${(peer / parse).toFixed(1)}x, ${ok(peer / parse >= 2)} |

Where the time goes: the first render decodes all 144,000 histograms (about 80 million
recorded buckets, 8 bytes each since the 8-byte buckets) before anything can be drawn, then
builds per run the merged pyramid of the runtime view and the stats of \`nines stats\`;
decoding alone is ${(parse / 1000).toFixed(1)} s, building the traces ${(traces / 1000).toFixed(1)} s. A faster decoder alone cannot
reach 1.5 s: sites and reports carry compact forms instead (below), and raw files opened in the
page go through Web Workers (further below).
A zoom step that stays within stored pyramid levels (groups of 8 windows and more) or
revisits cached points costs the drawing (median ${f(zoomDraw)} ms); the slow steps (max ${f(zmax)} ms) are
the first visits of the two finest levels, merged from the windows on demand.

${compactTable}
${dropTable}

Command: \`bash bench/viewer.sh\` (raw numbers: bench/results/viewer*.json; screenshots of the
loaded pages: tests/artifacts/bench-20-runs*.png).`);
