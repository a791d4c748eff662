// Drop profile (not a test): the page's main thread while the raw archives of RUNS_DIR are
// given to the file input (decoded in the viewer's workers), Chrome's CPU profile summed by
// function (self time) and by the page's wasm exports (total time).
//   node tests/browser/dropprof.mjs RUNS_DIR [WAIT_MS]
import fs from 'node:fs';
import path from 'node:path';
import { BUNDLE, serve, launch } from './lib.mjs';

const [runsDir, wait] = process.argv.slice(2);
const files = fs.readdirSync(runsDir).filter((f) => f.endsWith('.hlog')).sort();
const server = await serve(BUNDLE, { '/manifest.json': JSON.stringify({ runs: [] }) });
const browser = await launch();
try {
  const ctx = await browser.newContext({ viewport: { width: 1600, height: 1500 } });
  const page = await ctx.newPage();
  await page.goto(`${server.base}/index.html`);
  await page.waitForSelector('[data-testid=file-input]', { state: 'attached' });
  await new Promise((r) => setTimeout(r, Number(wait || 1500)));
  const cdp = await ctx.newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  const t0 = await page.evaluate(() => performance.now());
  await page.setInputFiles('[data-testid=file-input]', files.map((f) => path.join(runsDir, f)));
  for (;;) {
    const done = await page.evaluate((n) => Boolean(document.body.dataset.ninesFirstRenderMs
      && document.querySelectorAll('[data-testid=legend-run]').length >= n), files.length);
    if (done) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const all = Number(await page.evaluate(() => document.body.dataset.ninesFirstRenderMs)) - t0;
  console.log('draws', await page.evaluate(() => document.body.dataset.ninesRenders), JSON.stringify(await page.evaluate(() => Object.fromEntries(Object.entries(document.body.dataset).filter(([a]) => a.startsWith('drawMs'))))));
  const { profile } = await cdp.send('Profiler.stop');
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
  const counts = new Map();
  profile.samples.forEach((id, i) => counts.set(id, (counts.get(id) || 0) + (profile.timeDeltas[i] || 0)));
  const self = new Map();
  const total = new Map();
  let busy = 0;
  for (const [id, us] of counts) {
    const n = byId.get(id);
    const name = n.callFrame.functionName || '(anon)';
    if (name !== '(idle)' && name !== '(program)') busy += us;
    self.set(name, (self.get(name) || 0) + us / 1000);
    // total time of every distinct frame on the stack
    const seen = new Set();
    for (let p = id; p !== undefined; p = parent.get(p)) {
      const f = (byId.get(p).callFrame.functionName || '(anon)').replace(/::h[0-9a-f]{16}$/, '');
      if (seen.has(f)) continue;
      seen.add(f);
      total.set(f, (total.get(f) || 0) + us / 1000);
    }
  }
  console.log(`every run drawn ${all.toFixed(0)} ms; main thread busy ${(busy / 1000).toFixed(0)} ms (profiled)`);
  console.log('self:');
  for (const [n, ms] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`${ms.toFixed(1).padStart(8)} ms  ${n.slice(0, 110)}`);
  console.log('total:');
  for (const [n, ms] of [...total.entries()].sort((a, b) => b[1] - a[1]).slice(0, 50)) console.log(`${ms.toFixed(1).padStart(8)} ms  ${n.slice(0, 110)}`);
} finally {
  await browser.close();
  server.close();
}
