// Drop profile (not a test): the page's main thread while the raw archives of RUNS_DIR are
// given to the file input (decoded in the viewer's workers), Chrome's CPU profile summed by
// function (self time) and by the page's wasm exports (total time).
//   node tests/browser/dropprof.mjs RUNS_DIR [WAIT_MS]
import fs from 'node:fs';
import path from 'node:path';
import { BUNDLE, serve, launch } from './lib.mjs';
import { waitRuns, startProfile, summarise, printTop } from './prof.mjs';

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
  const cdp = await startProfile(page, ctx);
  const t0 = await page.evaluate(() => performance.now());
  await page.setInputFiles('[data-testid=file-input]', files.map((f) => path.join(runsDir, f)));
  await waitRuns(page, files.length);
  const all = Number(await page.evaluate(() => document.body.dataset.ninesFirstRenderMs)) - t0;
  console.log('draws', await page.evaluate(() => document.body.dataset.ninesRenders), JSON.stringify(await page.evaluate(() => Object.fromEntries(Object.entries(document.body.dataset).filter(([a]) => a.startsWith('drawMs'))))));
  const { profile } = await cdp.send('Profiler.stop');
  const sum = summarise(profile);
  console.log(`every run drawn ${all.toFixed(0)} ms; main thread busy ${sum.busy.toFixed(0)} ms (profiled)`);
  printTop('self:', sum.self, 30);
  printTop('total:', sum.total, 50);
} finally {
  await browser.close();
  server.close();
}
