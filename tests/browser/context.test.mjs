// The device and host panel of a report, in a real headless Chromium: a real `nines run` on
// a file on this machine's disk (its context records read from /proc/diskstats, /proc/stat
// and /proc/pressure) and one on tmpfs (no block device: the page says why), written into
// one report and opened from file://. The readout at the mouse gives every number of the
// window under it, equal to `nines stats --context --json` over that window within the
// compact form's 0.25% and the readout's rounding; pointing at the runtime chart moves the
// readout too (one crosshair for the time charts). Screenshots: tests/artifacts/context-*.png.
//
//   node --test tests/browser/context.test.mjs     (after scripts/build-viewer.sh and a build of nines)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { NINES, launch, until, Viewer } from './lib.mjs';

let browser, dir, shm;

before(async () => {
  // /tmp may be tmpfs elsewhere: the disk run goes under the working tree's target/
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nines-context-'));
  const run = (target, size, secs, out) =>
    execFileSync(NINES, ['run', '--target', target, '--size', size, '--rw', 'randrw', '--qd', '8', '--bs', '4k', '--runtime', secs, '-o', out],
      { stdio: ['ignore', 'ignore', 'pipe'] });
  run(path.join(dir, 'disk-target'), '64M', '4s', path.join(dir, 'disk.hlog'));
  shm = fs.existsSync('/dev/shm') ? fs.mkdtempSync('/dev/shm/nines-context-') : null;
  const files = [path.join(dir, 'disk.hlog')];
  if (shm) {
    run(path.join(shm, 'target'), '16M', '2s', path.join(dir, 'tmpfs.hlog'));
    files.push(path.join(dir, 'tmpfs.hlog'));
  }
  execFileSync(NINES, ['report', ...files, '-o', path.join(dir, 'report.html')], { stdio: 'ignore' });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  if (shm) fs.rmSync(shm, { recursive: true, force: true });
});

/// The number after `key` in a readout line (`17.57k` is 17570).
function num(line, key) {
  const m = line.match(new RegExp(`${key.replace(/[%/]/g, '\\$&')} (-?[\\d.]+)([kMG]?)`));
  if (!m) return null;
  return Number(m[1]) * { '': 1, k: 1e3, M: 1e6, G: 1e9 }[m[2]];
}

/// Within the form's 0.25% and the readout's rounding to 3 or 4 significant digits (2 decimals).
function near(got, want, what) {
  const tol = Math.max(Math.abs(want) * 0.0075, 0.006);
  assert.ok(Math.abs(got - want) <= tol, `${what}: the page reads ${got}, nines stats --context ${want}`);
}

test('a report shows the device and host under the runtime chart; its readout equals nines stats --context', async () => {
  const v = await Viewer.open(browser, pathToFileURL(path.join(dir, 'report.html')).href);
  await v.ready(shm ? 2 : 1);
  const panel = v.page.locator('[data-testid=panel-context]');
  assert.ok(await panel.isVisible(), 'the panel is shown');
  const drawn = await v.page.evaluate(() => {
    const c = document.querySelector('[data-testid=context-canvas]');
    return { shown: c.dataset.shown, points: Number(c.dataset.points) };
  });
  // as wide as the rate chart above it, whose time axis it shares
  const [cw, rw] = [(await v.box('context-canvas')).width, (await v.box('rate-canvas')).width];
  assert.ok(Math.abs(cw - rw) <= 1, `the panel's chart is ${cw} px wide, the rate chart ${rw}`);
  // the queue by default: one point a window of the disk run (the tmpfs run has none)
  assert.equal(drawn.shown, 'queue');
  assert.equal(drawn.points, 4, JSON.stringify(drawn));

  // point at the middle of the chart: the readout names a window of the disk run
  const box = await v.box('context-overlay');
  await v.page.mouse.move(box.x + box.width * 0.55, box.y + box.height * 0.5);
  await until(v.page, () => /at \d/.test(document.querySelector('[data-testid=context-readout]').textContent), null, 'the readout');
  const line = (await v.page.locator('[data-testid=context-readout]').textContent()).split('\n').find((l) => l.startsWith('disk at'));
  assert.ok(line, 'a line for the disk run');
  const [, from, to] = line.match(/at ([\d.]+) s to ([\d.]+) s/);
  const stats = JSON.parse(execFileSync(NINES, ['stats', '--context', '--json', '--from', from, '--to', to, path.join(dir, 'disk.hlog')], { encoding: 'utf8' }));
  const ctx = stats.runs[0].context;
  assert.equal(ctx.windows, 1, `one window from ${from} to ${to}`);
  const want = (k) => ctx.numbers[k].mean;
  for (const [label, key] of [['%util', 'util'], ['aqu-sz', 'aqu_sz'], ['r_await', 'r_await'], ['w_await', 'w_await'], ['r/s', 'r_s'], ['w/s', 'w_s'],
    ['rkB/s', 'rkB_s'], ['wkB/s', 'wkB_s'], ['user', 'user'], ['sys', 'sys'], ['iowait', 'iowait']]) {
    near(num(line, label), want(key), label);
  }
  if (ctx.numbers.io_some) near(num(line, 'I/O pressure some'), want('io_some'), 'I/O pressure some');

  // the runtime chart's crosshair moves the readout too
  const rt = await v.box('runtime-overlay');
  await v.page.mouse.move(rt.x + rt.width * 0.2, rt.y + rt.height * 0.5);
  await until(v.page, (l) => !document.querySelector('[data-testid=context-readout]').textContent.includes(l), line, 'the readout to follow the runtime chart');

  // every number the panel offers draws, and says which it drew
  for (const b of ['util', 'await', 'device-I/Os', 'CPU', 'pressure', 'queue']) {
    await v.act(() => v.page.click(`[data-testid="context-${b}"]`));
    const d = await v.page.evaluate(() => document.querySelector('[data-testid=context-canvas]').dataset);
    assert.equal(d.shown.replace(' ', '-'), b);
    if (b !== 'pressure' || fs.existsSync('/proc/pressure/io')) assert.ok(Number(d.points) >= 4, `${b}: ${d.points} points`);
  }
  // the tmpfs run has no device to read: the page says so, with nines' reason
  if (shm) {
    const missing = await v.page.locator('[data-testid=context-missing]').textContent();
    const why = JSON.parse(execFileSync(NINES, ['stats', '--context', '--json', path.join(dir, 'tmpfs.hlog')], { encoding: 'utf8' })).runs[0].context.missing;
    assert.ok(why && missing.includes(`tmpfs: ${why}`), missing);
  }
  await v.page.mouse.move(box.x + box.width * 0.55, box.y + box.height * 0.5);
  await v.shotOf('panel-context', 'context-panel');
  await v.shot('context-report');
  assert.deepEqual(v.errors, []);
});
