// Zoom-step profile (not a test): per-panel draw times of 16 wheel steps on the runtime chart,
// and Chrome's CPU profile of them summed by function (self time).
//   node tests/browser/zoomprof.mjs SITE_RUNS_DIR [OUT.json]
import fs from 'node:fs';
import path from 'node:path';
import { BUNDLE, serve, launch } from './lib.mjs';

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
  const steps = await page.evaluate(async () => {
    const el = document.querySelector('[data-testid=runtime-overlay]');
    const r = el.getBoundingClientRect();
    const res = [];
    for (let k = 0; k < 16; k++) {
      const before = Number(document.body.dataset.ninesRenders);
      const snap = () => Object.fromEntries(Object.entries(document.body.dataset).filter(([k]) => k.startsWith('drawMs')));
      const done = new Promise((resolve) => {
        const obs = new MutationObserver(() => {
          if (Number(document.body.dataset.ninesRenders) >= before + 2 && document.body.dataset.ninesIdle === '1') {
            obs.disconnect();
            resolve(performance.now());
          }
        });
        obs.observe(document.body, { attributes: true });
      });
      const t0 = performance.now();
      el.dispatchEvent(new WheelEvent('wheel', { deltaY: k < 8 ? -100 : 100, clientX: r.left + r.width * 0.6, clientY: r.top + r.height * 0.5, bubbles: true, cancelable: true }));
      const t1 = await done;
      res.push({ wall: +(t1 - t0).toFixed(1), renders: Number(document.body.dataset.ninesRenders) - before, ...snap() });
      await new Promise((res2) => setTimeout(res2, 30));
    }
    return res;
  });
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
  for (const s of steps) console.log(JSON.stringify(s));
  const walls = steps.map((s) => s.wall).sort((a, b) => a - b);
  console.log('median wall', walls[8], 'max', walls[15]);
  console.log(top.join('\n'));
  if (out) fs.writeFileSync(out, JSON.stringify(profile));
} finally {
  await browser.close();
  server.close();
}
