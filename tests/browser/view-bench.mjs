// `nines view` of many runs in headless Chromium: the server on loopback, the page from
// navigation to its first complete render, and what it fetched.
//   node tests/browser/view-bench.mjs REPEATS FILE...   (NINES_BIN: the nines to run)
// Prints one JSON object: first render (ms from navigation start) and the bytes of run data
// the page received (the compact forms, whole or up to their groups), per load; then brushes
// a range on the runtime chart of the last load and waits until the stats table has a row per run
// and direction again (the groups of the runs past the first few come by a second range request).
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { NINES, launch, Viewer } from './lib.mjs';

const [repeatsArg, ...files] = process.argv.slice(2);
const repeats = Number(repeatsArg || 3);
const child = spawn(NINES, ['view', '--no-open', ...files], { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((resolve, reject) => {
  const rl = readline.createInterface({ input: child.stdout });
  rl.on('line', (l) => { const m = l.match(/(http:\/\/\S+)/); if (m) resolve(m[1]); });
  child.on('exit', (c) => reject(new Error(`nines view exited with ${c}`)));
});
const browser = await launch();
let rangesAll = [];
const out = { runs: files.length, first_render_ms: [], run_bytes: [], range_requests: [] };
try {
  let v;
  for (let i = 0; i < repeats; i++) {
    if (v) await v.page.context().close();
    const ranges = [];
    rangesAll = ranges;
    const ctx = await browser.newContext({ viewport: { width: 1600, height: 1500 } });
    const page = await ctx.newPage();
    page.on('request', (r) => { const h = r.headers().range; if (h) ranges.push(h); });
    v = new Viewer(page);
    await page.goto(url);
    await v.ready(files.length, 600000);
    out.first_render_ms.push(Number(await page.evaluate(() => document.body.dataset.ninesFirstRenderMs)));
    out.run_bytes.push(await page.evaluate(() => performance.getEntriesByType('resource')
      .filter((e) => e.name.includes('/runs/')).reduce((s, e) => s + e.encodedBodySize, 0)));
    out.range_requests.push(ranges.length);
    if (v.errors.length) throw new Error(v.errors.join('\n'));
  }
  // (NINES_BENCH_NO_BRUSH=1: first renders only, e.g. for a build whose brush is not to be timed)
  if (!process.env.NINES_BENCH_NO_BRUSH) await brush(v);
  if (v.errors.length) throw new Error(v.errors.join('\n'));
} finally {
  await browser.close();
  child.kill('SIGINT');
}
console.log(JSON.stringify(out));

async function brush(v) {
  await v.brush('runtime-overlay', 0.3, 0.6);
  // the runs past the first few fetch their groups now: the table fills as they arrive
  const rows = () => v.page.evaluate(() => document.querySelectorAll('[data-testid=stats-row]').length);
  const t0 = Date.now();
  out.brushed_rows_at_once = await rows();
  while ((await rows()) < 2 * files.length && Date.now() - t0 < 30000) await new Promise((r) => setTimeout(r, 100));
  out.brushed_rows = await rows();
  out.brushed_rows_ms = Date.now() - t0;
  out.range_requests_after_brush = rangesAll.length;
}
