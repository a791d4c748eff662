// `nines view` of 20 runs in a real headless Chromium, the page loaded 10 times (each in a
// fresh browser context): every load ends with all 20 runs listed and drawn and the page's
// "loading" state gone, under the Content-Security-Policy the server sends, with no request
// refused (the browser's /favicon.ico included) and no error on the page. Prints the time of
// each load (navigation to the complete first render). A load that never ends fails after a
// generous minute: that tells a hung page from a slow one, it is no claim about speed.
//
//   node --test tests/browser/view-many.test.mjs     (after cargo build -p nines-qos)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { spawn, execFileSync } from 'node:child_process';
import { NINES, launch, Viewer } from './lib.mjs';

const RUNS = 20;
const LOADS = 10;
const HUNG_MS = 60000;

let dir, browser;

before(async () => {
  assert.ok(fs.existsSync(NINES), `no ${NINES}: run cargo build -p nines-qos`);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nines-view-many-'));
  browser = await launch();
});

after(async () => {
  await browser?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/// Small runs of the null engine (no I/O): 20 windows of 10,000 I/Os each.
function makeRuns() {
  const files = [];
  for (let i = 1; i <= RUNS; i++) {
    const f = path.join(dir, `run${String(i).padStart(2, '0')}.hlog`);
    execFileSync(NINES, ['run', '--engine', 'null', '--target', path.join(dir, 'unused'), '--size', '1G', '--ios', '200k',
      '--window-ios', '10k', '--name', `run ${i}`, '-o', f, '-q', '--no-summary']);
    files.push(f);
  }
  return files;
}

test(`nines view of ${RUNS} runs: every one of ${LOADS} loads ends with every run drawn`, async () => {
  const files = makeRuns();
  const env = { ...process.env };
  delete env.BROWSER; delete env.DISPLAY; delete env.WAYLAND_DISPLAY;
  const child = spawn(NINES, ['view', '--no-open', ...files], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const url = await new Promise((resolve, reject) => {
      const rl = readline.createInterface({ input: child.stdout });
      rl.on('line', (l) => { const m = l.match(/(http:\/\/\S+)/); if (m) resolve(m[1]); });
      child.on('exit', (c) => reject(new Error(`nines view exited with ${c}`)));
    });
    const times = [];
    for (let i = 0; i < LOADS; i++) {
      const ctx = await browser.newContext({ viewport: { width: 1600, height: 1500 } });
      const page = await ctx.newPage();
      const refused = [];
      page.on('response', (r) => { if (r.status() >= 400) refused.push(`${r.status()} ${r.url()}`); });
      const v = new Viewer(page);
      const t0 = Date.now();
      const resp = await page.goto(url);
      try {
        await v.ready(RUNS, HUNG_MS);
      } catch (e) {
        const loading = await page.locator('[data-testid=loading]').textContent();
        throw new Error(`load ${i + 1} of ${LOADS} did not end within ${HUNG_MS} ms (page says ${JSON.stringify(loading)}; times so far ${times}): ${e.message}`);
      }
      const took = Date.now() - t0;
      const firstRender = Number(await page.evaluate(() => document.body.dataset.ninesFirstRenderMs));
      times.push(took);
      console.log(`load ${i + 1}: every run drawn ${took} ms after navigation (first render at ${firstRender} ms)`);
      assert.equal(await page.locator('[data-testid=loading]').textContent(), '', 'the loading state ended');
      const names = (await page.locator('[data-testid=legend-run] > span:first-child').allTextContents()).map((n) => n.trim());
      assert.deepEqual(names.sort(), files.map((_, k) => `run ${k + 1}`).sort(), 'every run is listed');
      // (a page that drew nothing has no pixel on its runtime chart)
      assert.ok(await page.evaluate(() => {
        const c = document.querySelector('[data-testid=cdf-canvas]');
        if (!c) return false;
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        for (let k = 3; k < d.length; k += 4) if (d[k] !== 0) return true;
        return false;
      }), 'the charts are drawn');
      assert.match(resp.headers()['content-security-policy'] || '', /^default-src 'none'; script-src 'self' 'sha256-/, 'the page has its policy');
      assert.deepEqual(refused, [], 'no request refused');
      assert.deepEqual(v.errors, [], 'no error on the page (a CSP violation is one)');
      if (i === 0) await v.shot('view-many');
      await ctx.close();
    }
    console.log(`${LOADS} loads of ${RUNS} runs, ms from navigation until every run was drawn: ${times.join(', ')}`);
  } finally {
    child.kill('SIGINT');
  }
});
