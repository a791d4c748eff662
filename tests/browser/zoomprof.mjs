// Zoom-step profile (not a test): per-panel draw times of 16 wheel steps on the runtime chart,
// and Chrome's CPU profile of them summed by function (self time, then with callees).
//   node tests/browser/zoomprof.mjs SITE_RUNS_DIR [OUT.json]
import fs from 'node:fs';
import path from 'node:path';
import { BUNDLE, serve, launch, zoomSteps } from './lib.mjs';

const [runsDir, out] = process.argv.slice(2);
const files = fs.readdirSync(runsDir).filter((f) => f.endsWith('.hlog')).sort();
const routes = { '/manifest.json': JSON.stringify({ runs: files.map((f) => ({ file: `runs/${f}`, compact: `runs/${f}.compact` })) }) };
for (const f of files) {
  routes[`/runs/${f}`] = fs.readFileSync(path.join(runsDir, f));
  routes[`/runs/${f}.compact`] = fs.readFileSync(path.join(runsDir, `${f}.compact`));
}
const server = await serve(BUNDLE, routes);
const browser = await launch();
try {
  const ctx = await browser.newContext({ viewport: { width: 1600, height: 1500 } });
  const page = await ctx.newPage();
  await page.goto(`${server.base}/index.html`);
  for (;;) {
    const done = await page.evaluate((n) => Boolean(document.body.dataset.ninesFirstRenderMs
      && document.querySelectorAll('[data-testid=legend-run]').length >= n), files.length);
    if (done) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 500));
  const cdp = await ctx.newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  const steps = (await zoomSteps(page)).map((s) => ({ wall: +s.wall.toFixed(1), renders: s.renders, ...s.draws }));
  const { profile } = await cdp.send('Profiler.stop');
  const self = new Map();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const dt = profile.timeDeltas;
  const counts = new Map();
  profile.samples.forEach((id, i) => counts.set(id, (counts.get(id) || 0) + (dt[i] || 0)));
  for (const [id, us] of counts) {
    const n = byId.get(id);
    const name = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber}`;
    self.set(name, (self.get(name) || 0) + us / 1000);
  }
  const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 40).map(([n, ms]) => `${ms.toFixed(1).padStart(8)} ms  ${n}`);
  // total time of every distinct function on the stack (its callees included)
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
  const total = new Map();
  for (const [id, us] of counts) {
    const seen = new Set();
    for (let p = id; p !== undefined; p = parent.get(p)) {
      const f = (byId.get(p).callFrame.functionName || '(anon)').replace(/::h[0-9a-f]{16}$/, '');
      if (!seen.has(f)) total.set(f, (total.get(f) || 0) + us / 1000);
      seen.add(f);
    }
  }
  const totals = [...total.entries()].sort((a, b) => b[1] - a[1]).slice(0, 60).map(([n, ms]) => `${ms.toFixed(1).padStart(8)} ms  ${n.slice(0, 110)}`);
  for (const s of steps) console.log(JSON.stringify(s));
  const walls = steps.map((s) => s.wall).sort((a, b) => a - b);
  console.log('median wall', walls[8], 'max', walls[15]);
  console.log(top.join('\n'));
  console.log('total (callees included):');
  console.log(totals.join('\n'));
  if (out) fs.writeFileSync(out, JSON.stringify(profile));
} finally {
  await browser.close();
  server.close();
}
