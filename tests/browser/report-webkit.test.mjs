// Reports and sites in WebKit, the engine of Safari, where many customers open a report:
// WebKitGTK's MiniBrowser driven by its WebDriver (Debian's webkit2gtk-driver) under Xvfb,
// spoken to over the W3C WebDriver protocol (plain HTTP requests: no client library). The
// same checks as the Chromium and Firefox tests: the viewer starts from file:// and from a
// loopback site, its table equals `nines stats`, hostile names stay text, nothing is fetched
// from elsewhere. scripts/setup.sh installs the driver and Xvfb. Screenshots:
// tests/artifacts/report-webkit.png and site-webkit.png.
//
//   node --test tests/browser/report-webkit.test.mjs     (after cargo build -p nines-qos)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { execFileSync, spawn } from 'node:child_process';
import { ROOT, NINES, ARTIFACTS, ninesStats, serve, hostileCopy } from './lib.mjs';

const DRIVER = process.env.WEBKIT_WEBDRIVER || '/usr/bin/WebKitWebDriver';
// MiniBrowser ships with libwebkit2gtk-4.1 under the multiarch library directory
const MINIBROWSER = process.env.WEBKIT_MINIBROWSER || fs.readdirSync('/usr/lib')
  .map((d) => path.join('/usr/lib', d, 'webkit2gtk-4.1/MiniBrowser')).find((p) => fs.existsSync(p));

let dir, driver, base, session;

async function wd(method, route, body) {
  const r = await fetch(base + route, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const j = await r.json();
  if (!r.ok) throw new Error(`WebDriver ${method} ${route}: ${JSON.stringify(j.value)}`);
  return j.value;
}
const exec = (script, args = []) => wd('POST', `/session/${session}/execute/sync`, { script, args });

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

before(async () => {
  assert.ok(fs.existsSync(NINES), `no ${NINES}: run cargo build -p nines-qos`);
  assert.ok(fs.existsSync(DRIVER), `no ${DRIVER}: run scripts/setup.sh (installs webkit2gtk-driver)`);
  assert.ok(MINIBROWSER, 'no WebKitGTK MiniBrowser: run scripts/setup.sh (installs webkit2gtk-driver)');
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nines-report-webkit-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  // its own process group, so that Xvfb, the driver and the browser all end with the test
  driver = spawn('xvfb-run', ['-a', DRIVER, `--port=${port}`], { detached: true, stdio: 'ignore' });
  for (let i = 0; ; i++) {
    try {
      if ((await wd('GET', '/status')).ready) break;
    } catch (e) {
      if (i > 300) throw new Error(`WebKitWebDriver did not start on port ${port}: ${e.message}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const s = await wd('POST', '/session', {
    capabilities: { alwaysMatch: { 'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] } } },
  });
  session = s.sessionId;
  await wd('POST', `/session/${session}/window/rect`, { width: 1600, height: 1400 });
});

after(async () => {
  if (session) await wd('DELETE', `/session/${session}`).catch(() => {});
  if (driver) {
    try {
      process.kill(-driver.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/// Open `url` and wait until the viewer started (a report's page marks its start on the root
/// element) and every panel drew (its test hooks), or it said why it could not.
async function open(url, report = true) {
  await wd('POST', `/session/${session}/url`, { url });
  for (let i = 0; i < 2400; i++) {
    const s = await exec(`return {
      started: (!arguments[0] || document.documentElement.classList.contains('nines-started')) && document.body.dataset.ninesIdle === '1'
        && !!document.body.dataset.ninesFirstRenderMs && document.querySelectorAll('[data-testid=stats-row]').length > 0,
      err: document.querySelector('[data-testid=viewer-error]')?.textContent ?? null,
    };`, [report]);
    assert.equal(s.err, null, 'the viewer could not start');
    if (s.started) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  await screenshot('webkit-failed.png');
  const state = await exec(`return { data: { ...document.body.dataset }, html: document.documentElement.className,
    status: document.querySelector('.status')?.textContent, rows: document.querySelectorAll('[data-testid=stats-row]').length };`);
  assert.fail(`the viewer did not draw ${url} in WebKit: ${JSON.stringify(state)}`);
}

/// The table's rows, and every resource the page fetched.
const rows = () => exec(`return [...document.querySelectorAll('[data-testid=stats-row]')].map((tr) => ({
  run: Number(tr.dataset.run), dir: tr.dataset.dir,
  count: tr.querySelector('[data-col=count]').dataset.ns, max: tr.querySelector('[data-col=max]').dataset.ns,
}));`);
const fetched = () => exec(`return performance.getEntriesByType('resource').map((e) => e.name);`);

function assertRows(got, json, n) {
  assert.equal(got.length, n, `${n} rows`);
  for (const r of got) {
    assert.equal(Number(r.count), json.runs[r.run].tags[r.dir].count, `count ${r.run} ${r.dir}`);
    assert.equal(Number(r.max), json.runs[r.run].tags[r.dir].max_ns, `max ${r.run} ${r.dir}`);
  }
}

async function screenshot(name) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const png = await wd('GET', `/session/${session}/screenshot`);
  fs.writeFileSync(path.join(ARTIFACTS, name), Buffer.from(png, 'base64'));
}

const FILES = [path.join(ROOT, 'tests/data/java-rw.hlog'), path.join(ROOT, 'tests/data/fio-randrw_clat.1.log')];

test('WebKit: report from file:// starts the viewer, shows nines stats numbers, no request, payloads inert', async () => {
  const { payload, hostile } = hostileCopy(FILES[0], dir);
  const report = path.join(dir, 'report.html');
  execFileSync(NINES, ['report', ...FILES, hostile, '-o', report, '--title', payload], { stdio: 'ignore' });
  const url = pathToFileURL(report).href;
  await open(url);
  // three runs of reads and writes open with each direction shown: a row each
  assertRows(await rows(), ninesStats([...FILES, hostile]), 6);
  assert.equal(await exec('return window.__pwned ?? null;'), null);
  assert.equal(await wd('GET', `/session/${session}/title`), payload);
  assert.equal(await exec(`return document.querySelectorAll('img, iframe, object, embed').length;`), 0);
  const foreign = (await fetched()).filter((u) => u.split('#')[0] !== url && !u.startsWith('data:') && !u.startsWith('blob:'));
  assert.deepEqual(foreign, [], 'requests');
  await screenshot('report-webkit.png');
});

test('WebKit: a site served from loopback loads its runs; the table equals nines stats', async () => {
  const site = path.join(dir, 'site');
  execFileSync(NINES, ['site', ...FILES, '-o', site], { stdio: 'ignore' });
  const server = await serve(site);
  try {
    await open(`${server.base}/index.html`, false);
    assertRows(await rows(), ninesStats(FILES), 4);
    // every request went to the site
    const elsewhere = (await fetched()).filter((u) => !u.startsWith(server.base) && !u.startsWith('data:') && !u.startsWith('blob:'));
    assert.deepEqual(elsewhere, [], 'requests');
    await screenshot('site-webkit.png');
  } finally {
    server.close();
  }
});
