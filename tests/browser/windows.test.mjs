// How often the tail is bad, in a real headless Chromium: the page's per-window levels (each
// level on every recorded window, their spread over the windows, and the windows and I/Os
// beyond each limit of the QoS spec) equal `nines stats --windows --limit ... --json`, for a
// report carrying every window (--full) and one carrying histograms per group of 5 windows,
// of the whole run and of brushed ranges. A synthetic latency list (CSV, 1 s windows, a tail
// that comes and goes). Screenshots go to tests/artifacts/windows-*.png.
//
//   node --test tests/browser/windows.test.mjs     (after scripts/build-viewer.sh and cargo build -p nines-qos)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { execFileSync } from 'node:child_process';
import { NINES, launch, until, Viewer, ninesStats } from './lib.mjs';

let dir, browser, run;

// mulberry32: a small seeded generator, so the run is the same every time
function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// 40 s of reads and writes about 80 us; every seventh second a stall slows 2% of the I/Os
// 20 to 60 times; the I/O rate varies from second to second
function csv() {
  const r = rng(7);
  const rows = ['time_s,op,latency_ns'];
  for (let s = 0; s < 40; s++) {
    const n = 1200 + Math.round(r() * 900);
    const stall = s % 7 === 3 ? 0.02 : 0.0005;
    for (let i = 0; i < n; i++) {
      const lat = Math.round(80000 * Math.exp(0.3 * (r() + r() + r() - 1.5)) * (r() < stall ? 20 + 40 * r() : 1));
      rows.push(`${(s + i / n).toFixed(6)},${r() < 0.7 ? 'read' : 'write'},${lat}`);
    }
  }
  return rows.join('\n') + '\n';
}

function nines(args) {
  return execFileSync(NINES, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 120000, killSignal: 'SIGKILL' });
}

before(async () => {
  assert.ok(fs.existsSync(NINES), `no ${NINES}: run cargo build -p nines-qos`);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nines-windows-'));
  run = path.join(dir, 'stalls.csv');
  fs.writeFileSync(run, csv());
  browser = await launch();
});

after(async () => {
  await browser?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/// The page's per-window rows: {dir, level, v: [supported, thin, too_few, min..max], limit}.
async function pageRows(page) {
  return page.evaluate(() => [...document.querySelectorAll('[data-testid=window-row]')].map((tr) => ({
    dir: tr.dataset.dir, level: tr.dataset.level, v: tr.dataset.v, limit: tr.dataset.limit ?? null })));
}

/// The rows `nines stats --windows --json` gives for the same directions: a level is shown
/// when some window supports it or a limit bounds it; one row per limit. `iosKnown` false: the
/// page says the I/Os beyond are not known (an empty field).
function cliRows(stats, dirs, iosKnown = true) {
  const out = [];
  for (const [dir, s] of Object.entries(stats.runs[0].tags)) {
    if (!dirs.includes(dir)) continue;
    for (const l of s.windows.levels) {
      if (l.supported === 0 && !l.limits) continue;
      const v = [l.supported, l.thin, l.too_few, l.min_ns, l.p50_ns, l.p90_ns, l.p99_ns, l.max_ns].map((x) => (x === null ? '' : String(x))).join(',');
      for (const lim of l.limits ?? [null]) {
        const limit = lim && [lim.limit, lim.windows_beyond, iosKnown ? lim.ios_beyond : '', lim.ios, lim.iops_met ?? ''].join('|');
        out.push({ dir, level: l.label, v, limit });
      }
    }
  }
  return out;
}

/// IOPS met as the page writes it (Rust's shortest f64) and as JSON gives it may differ in
/// form, not in value: compare the rows with the IOPS as numbers.
function norm(rows) {
  return rows.map((r) => {
    if (!r.limit) return r;
    const f = r.limit.split('|');
    return { ...r, limit: f.slice(0, 4).join('|'), iops: f[4] === '' ? null : Number(f[4]) };
  });
}

test('per-window levels: the page equals nines stats --windows --limit, whole run and brushed, every window carried or groups of 5', async () => {
  // limits where the windows part: the per-window p99 of reads at its median, and so on
  const plain = ninesStats([run], ['--windows']);
  const at = (dir, label, key) => plain.runs[0].tags[dir].windows.levels.find((l) => l.label === label)[key];
  const limits = [`read p99 <= ${at('read', 'p99', 'p50_ns')}ns`, `write p99 < ${at('write', 'p99', 'p90_ns')}ns`, `all p99.9 <= ${at('all', 'p99.9', 'p50_ns')}ns`];
  const spec = path.join(dir, 'qos.spec');
  const specText = `# per-window QoS\n${limits.join('\n')}\nread iops >= 1\nall max <= 60s\n`;
  fs.writeFileSync(spec, specText);
  const limitArgs = limits.flatMap((l) => ['--limit', l]);
  const want = (extra) => ninesStats([run], ['--windows', ...limitArgs, ...extra]);
  const full = path.join(dir, 'full.html');
  const grouped = path.join(dir, 'grouped.html');
  nines(['report', run, '--spec', spec, '--full', '-o', full]);
  nines(['report', run, '--spec', spec, '--group', '5s', '-o', grouped]);
  // a range on the groups' edges (10 s to 25 s), and one off them (12 s to 23 s): with groups
  // of 5 windows the page has each window's levels but not its histogram, so it says the I/Os
  // beyond are not known there
  const cases = [
    ['full', full, '', [], true],
    ['full', full, 'sel=10,25', ['--from', '10', '--to', '25'], true],
    ['full', full, 'sel=12,23', ['--from', '12', '--to', '23'], true],
    ['grouped', grouped, '', [], true],
    ['grouped', grouped, 'sel=10,25', ['--from', '10', '--to', '25'], true],
    ['grouped', grouped, 'sel=12,23', ['--from', '12', '--to', '23'], false],
  ];
  for (const [what, file, sel, extra, iosKnown] of cases) {
    const cli = want(extra);
    for (const dirMode of ['overlay', 'all']) {
      // the report opens split with its spec; a link replaces its view, so it carries the spec
      const hash = dirMode === 'overlay' && !sel ? '' : [`dir=${dirMode}`, sel, `spec=${encodeURIComponent(specText)}`].filter(Boolean).join('&');
      const v = await Viewer.open(browser, `${pathToFileURL(file).href}${hash ? '#' : ''}${hash}`);
      await v.ready(1);
      const { page } = v;
      // a spec that limits a level: the panel opens by itself
      assert.equal(await page.evaluate(() => document.querySelector('[data-testid=windows-details]').open), true, 'open with a spec');
      await until(page, () => document.querySelectorAll('[data-testid=window-row]').length > 0, null, 'the per-window rows');
      const dirs = dirMode === 'all' ? ['all'] : ['read', 'write'];
      const got = await pageRows(page);
      const label = `${what} #${hash.replace(/&spec=.*/, '')}`;
      assert.deepEqual(norm(got), norm(cliRows(cli, dirs, iosKnown)), label);
      // the limits part the windows: some broken, some met
      const limited = got.filter((r) => r.limit);
      assert.ok(limited.length >= 1, label);
      assert.ok(limited.some((r) => Number(r.limit.split('|')[1]) > 0), `${label}: some window beyond`);
      if (!iosKnown) {
        assert.match(await page.locator('[data-testid=window-row][data-limit] td[title]').first().getAttribute('title'), /not on the edges of the groups of 5 windows/);
      }
      assert.deepEqual(v.errors, [], label);
      if (what === 'grouped' && dirMode === 'overlay') await v.shotOf('panel-windows', `windows-${sel ? 'brushed' : 'whole'}`);
      await v.page.context().close();
    }
  }
});

test('per-window levels follow a brush drawn on the runtime chart', async () => {
  const full = path.join(dir, 'plain.html');
  nines(['report', run, '--full', '-o', full]);
  const v = await Viewer.open(browser, `${pathToFileURL(full).href}#dir=read`);
  await v.ready(1);
  // no spec: folded, nothing computed until it is opened
  assert.equal(await v.page.evaluate(() => document.querySelector('[data-testid=windows-details]').open), false);
  // brushed first: opening the panel scrolls the chart away
  await v.brush('runtime-overlay', 0.3, 0.6);
  assert.equal(await v.page.locator('[data-testid=window-row]').count(), 0, 'folded, nothing computed');
  await v.shotOf('panel-windows', 'windows-folded');
  await v.page.click('[data-testid=windows-details] > summary');
  const sel = (await v.hash()).match(/sel=([\d.]+),([\d.]+)/);
  assert.ok(sel, 'the brush is in the link');
  await until(v.page, () => document.querySelectorAll('[data-testid=window-row]').length > 0, null, 'the per-window rows');
  const cli = ninesStats([run], ['--windows', '--tag', 'read', '--from', sel[1], '--to', sel[2]]);
  assert.deepEqual(norm(await pageRows(v.page)), norm(cliRows(cli, ['read'])));
  assert.ok(cli.runs[0].tags.read.windows.windows < 40, 'a part of the run');
  await v.shotOf('panel-windows', 'windows-read-brushed');
  assert.deepEqual(v.errors, []);
  await v.page.context().close();
});

test('a QoS spec typed in after the page opened unfolds the per-window levels, with its limits as nines stats gives them', async () => {
  const full = path.join(dir, 'typed.html');
  nines(['report', run, '--full', '-o', full]);
  const v = await Viewer.open(browser, `${pathToFileURL(full).href}#dir=read`);
  await v.ready(1);
  const open = () => v.page.evaluate(() => document.querySelector('[data-testid=windows-details]').open);
  assert.equal(await open(), false, 'no spec: folded');
  // a spec with no limit on a level leaves it folded
  const type = (text) => v.act(async () => {
    await v.page.fill('[data-testid=spec-input]', text);
    await v.page.locator('[data-testid=spec-input]').dispatchEvent('change');
  });
  await type('read iops >= 1');
  assert.equal(await open(), false, 'a limit on the IOPS alone: folded');
  const plain = ninesStats([run], ['--windows']);
  const limit = `read p99 <= ${plain.runs[0].tags.read.windows.levels.find((l) => l.label === 'p99').p50_ns}ns`;
  await type(`read iops >= 1\n${limit}`);
  assert.equal(await open(), true, 'a limit on a level: open');
  await until(v.page, () => document.querySelectorAll('[data-testid=window-row][data-limit]').length > 0, null, 'the rows of the limit');
  const cli = ninesStats([run], ['--windows', '--limit', limit]);
  assert.deepEqual(norm(await pageRows(v.page)), norm(cliRows(cli, ['read'])));
  await v.shotOf('panel-windows', 'windows-spec-typed');
  // folded by hand, it stays folded while the view changes, and opens for a new spec
  await v.page.click('[data-testid=windows-details] > summary');
  assert.equal(await open(), false);
  await v.act(() => v.page.click('[data-testid=rate-mbps]'));
  assert.equal(await open(), false, 'folded by hand stays folded');
  await type(`${limit}\n`.replace('p99 <=', 'p99.9 <='));
  assert.equal(await open(), true, 'a new spec opens it again');
  assert.deepEqual(v.errors, []);
  await v.page.context().close();
});
