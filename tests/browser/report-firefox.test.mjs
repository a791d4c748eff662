// Reports in Firefox (a report must open from file:// in Chromium and Firefox). Stock
// Firefox ESR driven over WebDriver BiDi by puppeteer-core (playwright drives only its own
// Firefox builds); scripts/setup.sh installs both. Screenshots: tests/artifacts/report-firefox*.png.
//
//   node --test tests/browser/report-firefox.test.mjs     (after cargo build -p nines-qos)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { execFileSync } from 'node:child_process';
import { ROOT, NINES, ARTIFACTS, ninesStats, hostileCopy } from './lib.mjs';

const TOOLS = process.env.NINES_FIREFOX_TOOLS || path.join(os.homedir(), '.cache/nines/firefox-tools');
const FIREFOX = process.env.FIREFOX || ['/usr/bin/firefox-esr', '/usr/bin/firefox'].find((f) => fs.existsSync(f));

let dir, browser;

before(async () => {
  assert.ok(fs.existsSync(NINES), `no ${NINES}: run cargo build -p nines-qos`);
  assert.ok(FIREFOX, 'no Firefox: run scripts/setup.sh (installs firefox-esr)');
  assert.ok(fs.existsSync(path.join(TOOLS, 'node_modules/puppeteer-core')), `no puppeteer-core in ${TOOLS}: run scripts/setup.sh`);
  const puppeteer = createRequire(path.join(TOOLS, 'package.json'))('puppeteer-core');
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nines-report-ff-'));
  browser = await puppeteer.launch({ browser: 'firefox', executablePath: FIREFOX, headless: true, userDataDir: path.join(dir, 'profile') });
});

after(async () => {
  await browser?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function open(url) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1600, height: 1400 });
  const requests = [];
  const errors = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  // the viewer started and every panel drew (its test hooks), or it said why it could not
  for (let i = 0; i < 2400; i++) {
    const s = await page.evaluate(() => ({
      started: document.documentElement.classList.contains('nines-started') && document.body.dataset.ninesIdle === '1' && !!document.body.dataset.ninesFirstRenderMs,
      err: document.querySelector('[data-testid=viewer-error]')?.textContent,
    }));
    assert.equal(s.err, undefined, 'the viewer could not start');
    if (s.started) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return { page, requests, errors };
}

test('Firefox: report from file:// starts the viewer, shows nines stats numbers, no request, payloads inert', async () => {
  const files = [path.join(ROOT, 'tests/data/java-rw.hlog'), path.join(ROOT, 'tests/data/fio-randrw_clat.1.log')];
  const { payload, hostile } = hostileCopy(files[0], dir);
  const report = path.join(dir, 'report.html');
  execFileSync(NINES, ['report', ...files, hostile, '-o', report, '--title', payload], { stdio: 'ignore' });
  const url = pathToFileURL(report).href;
  const { page, requests, errors } = await open(url);
  const json = ninesStats([...files, hostile]);
  const rows = await page.evaluate(() => [...document.querySelectorAll('[data-testid=stats-row]')].map((tr) => ({
    run: Number(tr.dataset.run), dir: tr.dataset.dir,
    count: tr.querySelector('[data-col=count]').dataset.ns, max: tr.querySelector('[data-col=max]').dataset.ns,
  })));
  // three runs of reads and writes open with each direction shown: a row each
  assert.equal(rows.length, 6);
  assert.deepEqual([...new Set(rows.map((r) => r.dir))].sort(), ['read', 'write']);
  for (const r of rows) {
    assert.equal(Number(r.count), json.runs[r.run].tags[r.dir].count);
    assert.equal(Number(r.max), json.runs[r.run].tags[r.dir].max_ns);
  }
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.equal(await page.title(), payload);
  assert.equal(await page.evaluate(() => document.querySelectorAll('img, iframe, object, embed').length), 0);
  const foreign = requests.filter((u) => u.split('#')[0] !== url && !u.startsWith('data:') && !u.startsWith('blob:'));
  assert.deepEqual(foreign, [], 'requests');
  assert.deepEqual(errors, [], 'page errors (Firefox reports CSP violations here)');
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, 'report-firefox.png'), fullPage: true });
  await page.close();
});
