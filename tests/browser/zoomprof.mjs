// Zoom-step profile (not a test): per-panel draw times of 16 wheel steps on the runtime chart,
// and Chrome's CPU profile of them summed by function (self time, then with callees).
//   node tests/browser/zoomprof.mjs SITE_RUNS_DIR [OUT.json]
import fs from 'node:fs';
import { zoomSteps } from './lib.mjs';
import { withSite, startProfile, summarise, printTop } from './prof.mjs';

const [runsDir, out] = process.argv.slice(2);
await withSite(runsDir, async (page, ctx) => {
  await new Promise((r) => setTimeout(r, 500));
  const cdp = await startProfile(page, ctx);
  const steps = (await zoomSteps(page)).map((s) => ({ wall: +s.wall.toFixed(1), renders: s.renders, ...s.draws }));
  const { profile } = await cdp.send('Profiler.stop');
  const sum = summarise(profile, { where: true });
  for (const s of steps) console.log(JSON.stringify(s));
  const walls = steps.map((s) => s.wall).sort((a, b) => a - b);
  console.log('median wall', walls[8], 'max', walls[15]);
  printTop('self:', sum.self, 40);
  printTop('total (callees included):', sum.total, 60);
  if (out) fs.writeFileSync(out, JSON.stringify(profile));
});
