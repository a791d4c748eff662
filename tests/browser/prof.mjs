// Shared by the profiling scripts (zoomprof, zoomtrace, dropprof, loadprof; not tests): open a
// site of runs in the page, and sum a CPU profile of Chrome's (DevTools protocol `Profiler`) by
// function.
import fs from 'node:fs';
import path from 'node:path';
import { BUNDLE, serve, launch } from './lib.mjs';

/** The archives of RUNS_DIR (with their `.compact` forms) served as a site's manifest. */
export function siteRoutes(runsDir) {
  const files = fs.readdirSync(runsDir).filter((f) => f.endsWith('.hlog')).sort();
  // where each compact form's groups begin, from the site's manifest beside RUNS_DIR (`nines
  // site` writes it), so that the page fetches later runs without their groups, as on the site
  const siteManifest = path.join(runsDir, '..', 'manifest.json');
  const groupsAt = new Map(fs.existsSync(siteManifest)
    ? JSON.parse(fs.readFileSync(siteManifest, 'utf8')).runs.map((e) => [path.basename(e.file), e.compact_groups_at]) : []);
  const entry = (f) => ({ file: `runs/${f}`, compact: `runs/${f}.compact`, compact_groups_at: groupsAt.get(f) });
  const routes = { '/manifest.json': JSON.stringify({ runs: files.map(entry) }) };
  for (const f of files) {
    routes[`/runs/${f}`] = fs.readFileSync(path.join(runsDir, f));
    routes[`/runs/${f}.compact`] = fs.readFileSync(path.join(runsDir, `${f}.compact`));
  }
  return { files, routes };
}

/** Waits until the page has drawn its first render with `n` runs in the legend. */
export async function waitRuns(page, n) {
  for (;;) {
    const done = await page.evaluate((k) => Boolean(document.body.dataset.ninesFirstRenderMs
      && document.querySelectorAll('[data-testid=legend-run]').length >= k), n);
    if (done) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Opens the site of RUNS_DIR in a 1600x1500 page and runs `body(page, ctx, files)`. With
 * `beforeLoad(page, ctx)` (e.g. to start a profiler), that runs on a blank page before the
 * site is opened; otherwise the first render is awaited before `body`.
 */
export async function withSite(runsDir, body, beforeLoad) {
  const { files, routes } = siteRoutes(runsDir);
  const server = await serve(BUNDLE, routes);
  const browser = await launch();
  try {
    const ctx = await browser.newContext({ viewport: { width: 1600, height: 1500 } });
    const page = await ctx.newPage();
    if (beforeLoad) await beforeLoad(page, ctx);
    await page.goto(`${server.base}/index.html`);
    if (!beforeLoad) await waitRuns(page, files.length);
    return await body(page, ctx, files, browser);
  } finally {
    await browser.close();
    server.close();
  }
}

/** Starts the sampling profiler (200 us) on the page; returns its session. */
export async function startProfile(page, ctx) {
  const cdp = await ctx.newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  return cdp;
}

/**
 * Sums a profile by function: `self` (keyed by name and, with `where`, script and line) and
 * `total` (time with callees, each distinct function once per sample), both in ms and sorted,
 * and `busy` (every sample but idle and program).
 */
export function summarise(profile, { where = false } = {}) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
  const counts = new Map();
  profile.samples.forEach((id, i) => counts.set(id, (counts.get(id) || 0) + (profile.timeDeltas[i] || 0)));
  const self = new Map();
  const total = new Map();
  let busy = 0;
  const add = (m, k, ms) => m.set(k, (m.get(k) || 0) + ms);
  for (const [id, us] of counts) {
    const f = byId.get(id).callFrame;
    const name = f.functionName || '(anon)';
    if (name !== '(idle)' && name !== '(program)') busy += us / 1000;
    add(self, where ? `${name} ${f.url.split('/').pop()}:${f.lineNumber}` : name, us / 1000);
    const seen = new Set();
    for (let p = id; p !== undefined; p = parent.get(p)) {
      const g = (byId.get(p).callFrame.functionName || '(anon)').replace(/::h[0-9a-f]{16}$/, '');
      if (!seen.has(g)) add(total, g, us / 1000);
      seen.add(g);
    }
  }
  const sorted = (m) => [...m.entries()].sort((a, b) => b[1] - a[1]);
  return { busy, self: sorted(self), total: sorted(total) };
}

/** Prints the top `n` rows of a sorted `[name, ms]` list. */
export function printTop(title, rows, n) {
  console.log(title);
  for (const [k, ms] of rows.slice(0, n)) console.log(`${ms.toFixed(1).padStart(8)} ms  ${k.slice(0, 110)}`);
}
