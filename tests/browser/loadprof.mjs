// First-render profile (not a test): Chrome's CPU profile of the page's main thread from the
// moment a site of runs is opened until every run is drawn, summed by function (self time,
// then with callees), with the page's own timings.
//   node tests/browser/loadprof.mjs SITE_RUNS_DIR [OUT.json]
import fs from 'node:fs';
import { withSite, waitRuns, startProfile, summarise, printTop } from './prof.mjs';

const [runsDir, out] = process.argv.slice(2);
let cdp;
await withSite(runsDir, async (page, ctx, files) => {
  await waitRuns(page, files.length);
  const { profile } = await cdp.send('Profiler.stop');
  const ds = await page.evaluate(() => ({ ...document.body.dataset }));
  const sum = summarise(profile);
  console.log(`first render ${ds.ninesFirstRenderMs} ms; main thread busy ${sum.busy.toFixed(0)} ms (profiled)`);
  console.log(JSON.stringify(ds));
  printTop('self:', sum.self, 40);
  printTop('total (callees included):', sum.total, Number(process.env.TOP || 70));
  if (out) fs.writeFileSync(out, JSON.stringify(profile));
}, async (page, ctx) => { cdp = await startProfile(page, ctx); });
