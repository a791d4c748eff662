// The latency curve in the viewer, in a real headless Chromium on the archives of a real
// `nines curve` run (a queue-depth ladder on a file): the sweep panel turns into the curve by
// itself, and every point it draws (achieved IOPS, level, 95% interval) equals
// `nines sweep --curve --json`; with a QoS spec its first upper latency limit is the target,
// decided as nines decides it. Screenshot: tests/artifacts/curve.png.
//
//   node --test tests/browser/curve.test.mjs     (after scripts/build-viewer.sh and cargo build -p nines-qos)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { BUNDLE, NINES, serve, launch, Viewer } from './lib.mjs';

let dir, browser, site, files;

// A verdict command (steady, curve, sweep --curve --limit, compare --fail-on) exits 1 when
// its verdict fails and 2 when it cannot tell, with its output written all the same (README,
// exit status): those are results here; 3 and up are errors.
function nines(args) {
  try {
    return execFileSync(NINES, args, { encoding: 'utf8', maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'inherit'], timeout: 120000, killSignal: 'SIGKILL' });
  } catch (e) {
    if ((e.status === 1 || e.status === 2) && typeof e.stdout === 'string' && e.stdout.length > 0) return e.stdout;
    throw e;
  }
}

function close(a, b, what) {
  assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)), `${what}: page ${a}, nines ${b}`);
}

const LIMIT = 'all p50 <= 10s';

before(async () => {
  assert.ok(fs.existsSync(path.join(BUNDLE, 'nines_viewer_bg.wasm')), `no viewer bundle in ${BUNDLE}: run scripts/build-viewer.sh`);
  assert.ok(fs.existsSync(NINES), `no ${NINES}: run cargo build -p nines-qos`);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nines-curve-'));
  const out = path.join(dir, 'curve');
  nines(['curve', '--quiet', '--target', path.join(dir, 't.dat'), '--size', '32M', '--rw', 'randread', '--qd-ladder', '1,4,16',
    '--runtime', '1s', '--window', '250ms', '-o', out]);
  files = fs.readdirSync(out).sort().map((f) => path.join(out, f));
  assert.equal(files.length, 3);
  browser = await launch();
  const routes = { '/manifest.json': JSON.stringify({ runs: files.map((_, i) => ({ file: `runs/${i}.hlog` })) }) };
  files.forEach((f, i) => { routes[`/runs/${i}.hlog`] = f; });
  site = await serve(BUNDLE, routes);
});

after(async () => {
  await browser?.close();
  site?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/// The points the curve chart drew: {label, iops, value, lower, upper}.
function drawn(v) {
  return v.page.evaluate(() => (document.querySelector('[data-testid=sweep-canvas]').dataset.points || '').split(';').filter((s) => s).map((s) => {
    const [label, iops, value, lower, upper] = s.split('|');
    const n = (x) => (x === '' ? null : Number(x));
    return { label, iops: Number(iops), value: Number(value), lower: n(lower), upper: n(upper) };
  }));
}

test('the curve chart draws the points of nines sweep --curve, and finds the target as nines curve does', async () => {
  const v = await Viewer.open(browser, `${site.base}/index.html#spec=${encodeURIComponent(LIMIT)}`);
  await v.ready(files.length);
  assert.equal(await v.page.inputValue('[data-testid=sweep-view]'), 'curve', 'runs of nines curve show the curve by themselves');
  const json = JSON.parse(nines(['sweep', ...files, '--curve', '--limit', LIMIT, '--json']));
  const set = json.sets[0];
  // every point of every level that has a value, in the chart's order: level by level, by load
  const want = [];
  json.levels.forEach((level, j) => {
    for (const p of set.points) {
      const l = p.levels[j];
      if (l.value === null || p.iops.value === null) continue;
      want.push({ label: `${level} · runs`, iops: p.iops.value, value: l.value, lower: l.lower, upper: l.upper });
    }
  });
  const got = await drawn(v);
  assert.ok(want.length >= 6, `${want.length} points`);
  assert.deepEqual(got.map((p) => p.label), want.map((p) => p.label));
  got.forEach((p, i) => {
    const w = want[i];
    close(p.iops, w.iops, `${w.label} IOPS`);
    close(p.value, w.value, `${w.label} value`);
    for (const b of ['lower', 'upper']) {
      if (w[b] === null) assert.equal(p[b], null, `${w.label} ${b}`);
      else close(p[b], w[b], `${w.label} ${b}`);
    }
  });
  // the table: a row per run by load, the same IOPS
  const rows = await v.page.evaluate(() => [...document.querySelectorAll('[data-testid=curve-row]')].map((tr) => ({ load: Number(tr.dataset.load), iops: Number(tr.dataset.iops) })));
  assert.deepEqual(rows.map((r) => r.load), [1, 4, 16]);
  rows.forEach((r, i) => close(r.iops, set.points[i].iops.value, `row ${i} IOPS`));
  // the decision, in nines' words
  const said = await v.page.locator('[data-testid=curve-decision] li').allTextContents();
  assert.equal(set.decision.verdict, 'meets');
  assert.match(said[0], /^highest load meeting 'all p50 <= 10\.0s': qd 16 \(/);
  const text = nines(['sweep', ...files, '--curve', '--limit', LIMIT]);
  for (const line of said) assert.ok(text.includes(`${line}\n`), `nines sweep --curve says it too: ${line}\n${text}`);
  await v.shotOf('panel-sweep', 'curve');
  // log IOPS axis and back to the parameter view through the controls; the hash follows
  await v.act(() => v.page.click('[data-testid=curve-log]'));
  assert.match(await v.hash(), /cx=log/);
  assert.equal((await drawn(v)).length, want.length, 'the same points on a log axis');
  await v.shotOf('panel-sweep', 'curve-log');
  await v.act(() => v.page.selectOption('[data-testid=sweep-view]', 'param'));
  assert.match(await v.hash(), /curve=0/);
  assert.equal(await v.page.locator('[data-testid=curve-row]').count(), 0);
  assert.equal(await v.page.locator('[data-testid=sweep-row]').count(), 3, 'the parameter view sweeps qd');
  assert.equal(await v.page.inputValue('[data-testid=sweep-param]'), 'qd');
  assert.deepEqual(v.errors, []);
});
