// The trend benchmark's page side (bench/trend.sh): a site of many summarised runs served from
// loopback, opened REPEATS times in headless Chromium; prints JSON with the time to the trend's
// first draw (data-nines-trend-ms, from navigation start), its draw time, the manifest's bytes
// and how many runs the page requested (none: the trend draws from the manifest).
//   node tests/browser/trend-bench.mjs SITE_DIR REPEATS
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch } from './lib.mjs';

const [site, repeats = '3'] = process.argv.slice(2);
const server = await serve(path.resolve(site));
const browser = await launch();
const out = { runs: 0, manifest_bytes: fs.statSync(path.join(site, 'manifest.json')).size, trend_ms: [], draw_ms: [], run_requests: [] };
try {
  for (let i = 0; i < Number(repeats); i++) {
    const ctx = await browser.newContext({ viewport: { width: 1600, height: 1200 } });
    const page = await ctx.newPage();
    const before = server.requests.length;
    await page.goto(`${server.base}/index.html`);
    await page.waitForFunction(() => document.body.dataset.ninesTrendMs, null, { timeout: 120000 });
    const r = await page.evaluate(() => ({
      t: Number(document.body.dataset.ninesTrendMs),
      d: Number(document.body.dataset.drawMsTrend),
      n: Number(document.querySelector('[data-testid=trend-canvas]').dataset.marks),
    }));
    out.trend_ms.push(r.t);
    out.draw_ms.push(r.d);
    out.runs = r.n;
    out.run_requests.push(server.requests.slice(before).filter((u) => u.startsWith('/runs/')).length);
    await ctx.close();
  }
} finally {
  await browser.close();
  server.close();
}
console.log(JSON.stringify(out));
