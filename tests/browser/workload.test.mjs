// Run-to-run variability by workload, in a real headless Chromium: four real `nines run`
// runs on a temporary file (QD1 randrw, QD16 randrw, an O_SYNC randwrite and a repeat of
// the QD16 run), served with a manifest. The stats table spreads only repeats of one workload
// (nines_core::workload_key, as `nines compare` judges them), each group's spread equal to
// (max − min) / median of `nines stats --json` over that group's runs. Screenshots go to
// tests/artifacts/ (workload-*.png).
//
//   NINES_BIN=target/release/nines node --test tests/browser/workload.test.mjs
//   (after scripts/build-viewer.sh)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { BUNDLE, NINES, serve, launch, until, Viewer, ninesStats } from './lib.mjs';

let browser, site, dir;
const files = {};
const RUNS = {
  qd1: ['--rw', 'randrw', '--mix', '70', '--qd', '1'],
  qd16: ['--rw', 'randrw', '--mix', '70', '--qd', '16'],
  sync: ['--rw', 'randwrite', '--qd', '1', '--sync'],
  qd16again: ['--rw', 'randrw', '--mix', '70', '--qd', '16'],
};

before(async () => {
  assert.ok(fs.existsSync(`${BUNDLE}/nines_viewer_bg.wasm`), `no viewer bundle in ${BUNDLE}: run scripts/build-viewer.sh`);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nines-workload-'));
  const target = path.join(dir, 'target.dat');
  const routes = {};
  for (const [name, args] of Object.entries(RUNS)) {
    files[name] = path.join(dir, `${name}.hlog`);
    execFileSync(NINES, ['run', '--target', target, '--size', '32M', ...args, '--runtime', '2s', '--window', '100ms', '--name', name,
      '-o', files[name], '-q', '--no-summary'], { stdio: 'inherit' });
    routes[`/runs/${name}.hlog`] = files[name];
  }
  routes['/manifest.json'] = JSON.stringify({ runs: Object.keys(RUNS).map((n) => ({ file: `runs/${n}.hlog` })) });
  browser = await launch();
  site = await serve(BUNDLE, routes);
});

after(async () => {
  await browser?.close();
  site?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

// the variability rows as the page shows them: group, direction, the runs' names, name cell
// and each spread cell's text by level
function variability(v) {
  return v.page.evaluate(() => {
    const file = Object.fromEntries([...document.querySelectorAll('[data-testid=stats-row]')].map((tr) => [tr.dataset.run, tr.dataset.file]));
    return [...document.querySelectorAll('[data-testid=variability-row]')].map((tr) => ({
      group: tr.dataset.group, dir: tr.dataset.dir, name: tr.querySelector('td').textContent,
      files: tr.dataset.runs.split(',').map((i) => file[i]),
      spread: Object.fromEntries([...tr.querySelectorAll('[data-testid=spread]')].map((td) => [td.dataset.col, td.textContent])),
    }));
  });
}

// nines_core::variability's spread of `nines stats --json` over runs: (max − min) / median
// (nearest-rank, the lower middle), blank with fewer than two runs with the level
function spreads(names, d) {
  const runs = ninesStats(names.map((n) => files[n])).runs;
  const out = {};
  for (const l of runs[0].tags[d].levels) {
    const vals = runs.map((r) => r.tags[d].levels.find((x) => x.label === l.label).value_ns).filter((x) => x !== null).sort((a, b) => a - b);
    const median = vals[Math.ceil(vals.length / 2) - 1];
    out[l.label] = vals.length >= 2 && median > 0 ? `${(((vals.at(-1) - vals[0]) / median) * 100).toFixed(1)}%` : '';
  }
  return out;
}

const base = (f) => path.basename(f, '.hlog');

test('variability: runs of different workloads are not repeats; each group spreads as nines stats --json does', async () => {
  const v = await Viewer.open(browser, `${site.base}/index.html#dir=overlay`, { width: 1600, height: 1400 });
  await v.ready(4);
  const hint = await v.page.locator('[data-testid=workload-hint]').textContent();
  assert.match(hint, /^These runs differ in rw, qd, sync: runs of different workloads are not compared as repeats/);
  const rows = await variability(v);
  // only the QD16 runs are repeats: a row per direction, named by what sets them apart
  assert.deepEqual(rows.map((r) => [r.group, r.dir, r.files.map(base)]), [
    ['rw=randrw qd=16 sync=false', 'read', ['qd16', 'qd16again']],
    ['rw=randrw qd=16 sync=false', 'write', ['qd16', 'qd16again']],
  ]);
  assert.equal(rows[0].name, '2 runs · rw=randrw qd=16 sync=false');
  for (const r of rows) {
    const want = spreads(['qd16', 'qd16again'], r.dir);
    assert.ok(Object.keys(r.spread).length >= 3, `${r.dir}: ${JSON.stringify(r.spread)}`);
    for (const [col, text] of Object.entries(r.spread)) assert.equal(text, want[col], `${r.dir} ${col}`);
  }
  await v.shotOf('panel-stats', 'workload-groups');
  assert.deepEqual(v.errors, []);
});

test('variability: the runs shown decide the groups; one workload reads "N runs" with no hint', async () => {
  // the QD1 and sync runs hidden: the QD16 runs alone, one workload
  let v = await Viewer.open(browser, `${site.base}/index.html#dir=overlay&hide=0,2`, { width: 1600, height: 1400 });
  await v.ready(4);
  assert.equal(await v.page.locator('[data-testid=workload-hint]').count(), 0);
  let rows = await variability(v);
  assert.deepEqual(rows.map((r) => [r.group, r.dir, r.name, r.files.map(base)]), [
    ['', 'read', '2 runs', ['qd16', 'qd16again']],
    ['', 'write', '2 runs', ['qd16', 'qd16again']],
  ]);
  // the QD1 run shown beside them: still one group of two (QD1 is no repeat), the hint says qd
  v = await Viewer.open(browser, `${site.base}/index.html#dir=overlay&hide=2`, { width: 1600, height: 1400 });
  await v.ready(4);
  assert.match(await v.page.locator('[data-testid=workload-hint]').textContent(), /^These runs differ in qd: /);
  rows = await variability(v);
  assert.deepEqual(rows.map((r) => [r.name, r.dir]), [['2 runs · qd=16', 'read'], ['2 runs · qd=16', 'write']]);
  for (const r of rows) assert.deepEqual(r.spread, Object.fromEntries(Object.keys(r.spread).map((c) => [c, spreads(['qd16', 'qd16again'], r.dir)[c]])));
  assert.deepEqual(v.errors, []);
});

test('site trend: an order-by select lists the runs\' own keys (nines run --meta), orders x by one, and the link keeps it', async () => {
  // four runs made in the order of builds 3, 1, 10, 2: by build (as numbers) 1, 2, 3, 10
  const builds = ['3', '1', '10', '2'];
  const made = builds.map((b) => {
    const f = path.join(dir, `b${b}.hlog`);
    execFileSync(NINES, ['run', '--target', path.join(dir, 'trend.dat'), '--size', '16M', '--rw', 'randread', '--qd', '4', '--runtime', '1s',
      '--window', '100ms', '--name', `b${b}`, '--meta', `build=${b}`, '--meta', 'kernel=6.8', '-o', f, '-q', '--no-summary'], { stdio: 'inherit' });
    return f;
  });
  const out = path.join(dir, 'site');
  execFileSync(NINES, ['site', ...made, '-o', out], { stdio: 'inherit' });
  const m = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8'));
  assert.deepEqual(m.runs.map((e) => e.user), builds.map((b) => ({ build: b, kernel: '6.8' })));
  const server = await serve(out);
  try {
    let v = await Viewer.open(browser, `${server.base}/index.html`, { width: 1400, height: 1200 });
    await v.ready(4);
    // the runs come as their compact forms, which keep the metadata: one workload, repeats
    assert.equal(await v.page.locator('[data-testid=workload-hint]').count(), 0);
    assert.deepEqual(await v.page.locator('[data-testid=variability-row] td.name').allTextContents(), ['4 runs']);
    const canvas = v.page.locator('[data-testid=trend-canvas]');
    const order = async () => (await canvas.getAttribute('data-order')).split('\n');
    assert.deepEqual(await order(), ['b3', 'b1', 'b10', 'b2'], 'by time');
    const select = v.page.locator('[data-testid=trend-order]');
    assert.deepEqual(await select.locator('option').allTextContents(), ['by time', 'by build', 'by kernel']);
    await v.act(() => select.selectOption('build'));
    assert.deepEqual(await order(), ['b1', 'b2', 'b3', 'b10']);
    assert.match(await v.hash(), /(^#|&)to=build(&|$)/);
    // the point at x = 3 is build 10's
    const at = async (i) => {
      const [l, r, t, b] = (await canvas.getAttribute('data-frame')).split(',').map(Number);
      const box = await canvas.boundingBox();
      return { x: box.x + l + ((i + 0.5) / 4) * (r - l), y: box.y + (t + b) / 2 };
    };
    // (the readout follows the mouse a frame later: read again until it names a run)
    const readout = v.page.locator('[data-testid=trend-readout]');
    const p = await at(3);
    await v.page.mouse.move(p.x - 2, p.y);
    await v.page.mouse.move(p.x, p.y);
    await until(v.page, () => /^run \d: b10: /.test(document.querySelector('[data-testid=trend-readout]').textContent), null, 'the readout of build 10');
    assert.match(await readout.textContent(), /^run \d: b10: /);
    await v.shotOf('panel-trend', 'workload-trend-by-build');
    assert.deepEqual(v.errors, []);
    // the link opens ordered by the key
    const url = `${server.base}/index.html${await v.hash()}`;
    await v.page.context().close();
    v = await Viewer.open(browser, url, { width: 1400, height: 1200 });
    await v.ready(4);
    assert.equal(await v.page.locator('[data-testid=trend-order]').inputValue(), 'build');
    assert.deepEqual((await v.page.locator('[data-testid=trend-canvas]').getAttribute('data-order')).split('\n'), ['b1', 'b2', 'b3', 'b10']);
    assert.deepEqual(v.errors, []);
    await v.page.context().close();
  } finally {
    server.close();
  }
});
