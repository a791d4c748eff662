// Compare and judge in the viewer, in a real headless Chromium on real runs of the nines
// collector: compare mode against `nines compare --json`, the sweep plot and table against
// `nines sweep --json`, the steady-state convergence plot and window table against
// `nines steady --json`, and the URL hash that reopens all three. Screenshots go to
// tests/artifacts/ (judge-*.png).
//
//   node --test tests/browser/judge.test.mjs     (after scripts/build-viewer.sh and cargo build -p nines-qos)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { BUNDLE, NINES, serve, launch, Viewer } from './lib.mjs';

let dir, browser, site, runs;

// A verdict command (steady, curve, sweep --curve --limit, compare --fail-on) exits 1 when
// its verdict fails and 2 when it cannot tell, with its output written all the same (README,
// exit status): those are results here; 3 and up are errors.
function nines(args) {
  try {
    return execFileSync(NINES, args, { encoding: 'utf8', maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'inherit'], timeout: 90000, killSignal: 'SIGKILL' });
  } catch (e) {
    if ((e.status === 1 || e.status === 2) && typeof e.stdout === 'string' && e.stdout.length > 0) return e.stdout;
    throw e;
  }
}

function close(a, b, what) {
  assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)), `${what}: page ${a}, nines ${b}`);
}

before(async () => {
  assert.ok(fs.existsSync(path.join(BUNDLE, 'nines_viewer_bg.wasm')), `no viewer bundle in ${BUNDLE}: run scripts/build-viewer.sh`);
  assert.ok(fs.existsSync(NINES), `no ${NINES}: run cargo build -p nines-qos`);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nines-judge-'));
  const target = path.join(dir, 'target.dat');
  // A sweep over the queue depth, O_DIRECT (the baseline) and through the page cache (the
  // candidate): 100 ms windows, 2 s each. Run order = page order.
  runs = [];
  for (const direct of [true, false]) {
    for (const qd of [1, 4, 16]) {
      const name = `${direct ? 'direct' : 'cached'} qd${qd}`;
      const file = path.join(dir, `${direct ? 'direct' : 'cached'}-qd${qd}.hlog`);
      nines(['run', '--target', target, '--size', '64M', '--rw', 'randread', '--qd', String(qd), '--runtime', '2s', '--window', '100ms',
        ...(direct ? ['--direct'] : []), '--name', name, '-o', file, '-q', '--no-summary']);
      runs.push({ name, file, direct, qd });
    }
  }
  browser = await launch();
  const routes = { '/manifest.json': JSON.stringify({ runs: runs.map((r, i) => ({ file: `runs/${i}.hlog` })) }) };
  runs.forEach((r, i) => { routes[`/runs/${i}.hlog`] = r.file; });
  site = await serve(BUNDLE, routes);
});

after(async () => {
  await browser?.close();
  site?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('compare mode: a baseline, the change per level and its verdicts equal nines compare', async () => {
  const v = await Viewer.open(browser, `${site.base}/index.html`);
  await v.ready(runs.length);
  assert.equal(await v.page.locator('[data-testid=compare-note]').count(), 1, 'no baseline yet: the panel says what to do');
  // baseline: direct qd16 (run 2); hide all but the cached qd16 candidate (run 5)
  await v.act(() => v.page.click('[data-testid=baseline-2]'));
  for (const i of [0, 1, 3, 4]) await v.act(() => v.page.click(`[data-testid=legend-run][data-run="${i}"]`));
  const hash = await v.hash();
  assert.match(hash, /base=2/);
  const rows = await v.page.evaluate(() => [...document.querySelectorAll('[data-testid=compare-row]')].map((tr) => ({
    run: Number(tr.dataset.run), dir: tr.dataset.dir,
    cells: Object.fromEntries([...tr.querySelectorAll('[data-testid=change]')].map((td) => [td.dataset.col, { pct: td.dataset.pct, verdict: td.dataset.verdict, text: td.textContent, title: td.title }])),
  })));
  assert.deepEqual(rows.map((r) => [r.run, r.dir]), [[5, 'all']], 'one candidate row, every direction merged');
  const json = JSON.parse(nines(['compare', runs[2].file, '--with', runs[5].file, '--json']));
  const all = json.tags.find((t) => t.tag === 'all');
  const cells = rows[0].cells;
  let compared = 0;
  for (const c of [all.iops, all.mean, ...all.levels]) {
    const cell = cells[c.label];
    if (!cell) {
      assert.ok(c.base.value === null && c.cand.value === null, `${c.label} has values but no column`);
      continue;
    }
    assert.equal(cell.verdict, c.verdict, `${c.label} verdict`);
    if (c.change_pct === null) assert.equal(cell.pct, '');
    else close(Number(cell.pct), c.change_pct, `${c.label} change`);
    assert.ok(cell.title.includes('baseline') && cell.title.includes('candidate'), 'the cell explains both sides');
    compared++;
  }
  // IOPS, mean and p50 to p99.9 have values on both sides from a few thousand I/Os; the deeper
  // levels need 10^5 and more, which a slow or busy device does not give in 2 s
  assert.ok(compared >= 6, `${compared} measures compared`);
  await v.shotOf('panel-compare', 'judge-compare');
  // a set of runs as the baseline: the band of direct qd4 and qd16
  await v.act(() => v.page.click('[data-testid=baseline-1]'));
  const setRows = await v.page.locator('[data-testid=compare-row]').count();
  assert.equal(setRows, 1);
  const baseName = await v.page.locator('[data-testid=compare-base-row] td.name').first().textContent();
  assert.match(baseName, /direct qd4, direct qd16/);
  const json2 = JSON.parse(nines(['compare', runs[1].file, runs[2].file, '--with', runs[5].file, '--json']));
  const p90 = await v.page.locator('[data-testid=compare-row] [data-testid=change][data-col=p90]').getAttribute('data-verdict');
  assert.equal(p90, json2.tags.find((t) => t.tag === 'all').levels.find((l) => l.label === 'p90').verdict);
  // sets on both sides: the three page-cache runs as one candidate set, as nines compare does
  for (const i of [3, 4]) await v.act(() => v.page.click(`[data-testid=legend-run][data-run="${i}"]`));
  assert.equal(await v.page.locator('[data-testid=compare-row]').count(), 3, 'one by one');
  await v.act(() => v.page.click('[data-testid=candidate-set]'));
  assert.match(await v.hash(), /cset=1/);
  assert.equal(await v.page.locator('[data-testid=compare-row]').count(), 1, 'one set');
  assert.match(await v.page.locator('[data-testid=compare-row] td.name').textContent(), /3 runs: cached qd1, cached qd4, cached qd16/);
  const json3 = JSON.parse(nines(['compare', runs[1].file, runs[2].file, '--with', runs[3].file, runs[4].file, runs[5].file, '--json']));
  const set = await v.page.evaluate(() => Object.fromEntries([...document.querySelectorAll('[data-testid=compare-row] [data-testid=change]')].map((td) => [td.dataset.col, [td.dataset.verdict, td.dataset.pct]])));
  const all3 = json3.tags.find((t) => t.tag === 'all');
  for (const c of [all3.iops, all3.mean, ...all3.levels]) {
    if (!set[c.label]) continue;
    assert.equal(set[c.label][0], c.verdict, `set ${c.label}`);
    if (c.change_pct !== null) close(Number(set[c.label][1]), c.change_pct, `set ${c.label} change`);
  }
  await v.shotOf('panel-compare', 'judge-compare-sets');
  assert.deepEqual(v.errors, []);
});

test('sweep plot and table equal nines sweep, alone and paired with candidates', async () => {
  const v = await Viewer.open(browser, `${site.base}/index.html`);
  await v.ready(runs.length);
  // every run shown, no baseline: the parameter that differs (qd) is found by itself
  assert.equal(await v.page.inputValue('[data-testid=sweep-param]'), 'qd');
  const table = () => v.page.evaluate(() => [...document.querySelectorAll('[data-testid=sweep-row]')].map((tr) => ({
    param: Number(tr.dataset.param),
    cols: Object.fromEntries([...tr.querySelectorAll('td[data-col]')].map((td) => [td.dataset.col, { v: td.dataset.v, text: td.textContent }])),
  })));
  // baseline: the O_DIRECT runs; candidates: the page-cache runs, paired by qd
  for (const i of [0, 1, 2]) await v.act(() => v.page.click(`[data-testid=baseline-${i}]`));
  const rows = await table();
  const json = JSON.parse(nines(['sweep', ...runs.slice(0, 3).map((r) => r.file), '--with', ...runs.slice(3).map((r) => r.file), '--param', 'qd', '--json']));
  assert.equal(rows.length, 3);
  assert.deepEqual(rows.map((r) => r.param), json.rows.map((r) => r.param));
  rows.forEach((row, i) => {
    const j = json.rows[i];
    close(Number(row.cols.iops.v), j.base.iops, `qd ${row.param} IOPS`);
    close(Number(row.cols.mean.v), j.base.mean_ns, `qd ${row.param} mean`);
    assert.equal(row.cols.p99.v, j.base.p99_ns === null ? '' : String(j.base.p99_ns));
    assert.equal(row.cols['p99.99'].v, j.base.p99_99_ns === null ? '' : String(j.base.p99_99_ns));
    assert.ok(j.cand, 'nines pairs a candidate');
    assert.equal(row.cols.mean_pct.text, `${j.change.mean_pct >= 0 ? '+' : ''}${j.change.mean_pct.toFixed(1)}%`);
  });
  assert.match(await v.hash(), /base=0,1,2/);
  await v.shotOf('panel-sweep', 'judge-sweep');
  // a parameter no run has: the error names the run and the parameter
  await v.act(async () => {
    await v.page.fill('[data-testid=sweep-param]', 'numjobs');
    await v.page.press('[data-testid=sweep-param]', 'Enter');
  });
  const err = await v.page.locator('[data-testid=sweep-error]').textContent();
  assert.match(err, /no value for parameter 'numjobs'/);
  assert.match(await v.hash(), /sweep=numjobs/);
  // the CSV export is nines sweep --csv
  await v.act(async () => {
    await v.page.fill('[data-testid=sweep-param]', 'qd');
    await v.page.press('[data-testid=sweep-param]', 'Enter');
  });
  const [dl] = await Promise.all([v.page.waitForEvent('download'), v.page.click('[data-testid=export-sweep-csv]')]);
  const csv = fs.readFileSync(await dl.path(), 'utf8');
  const want = nines(['sweep', ...runs.slice(0, 3).map((r) => r.file), '--with', ...runs.slice(3).map((r) => r.file), '--param', 'qd', '--csv']);
  assert.equal(csv, want);
  assert.deepEqual(v.errors, []);
});

test('steady state: convergence plot and window table equal nines steady, and a link reopens it', async () => {
  const r = runs[4]; // cached qd4
  const url = `${site.base}/index.html#ss=4,p99,6`;
  const v = await Viewer.open(browser, url);
  await v.ready(runs.length);
  const json = JSON.parse(nines(['steady', r.file, '--track', 'p99', '--rounds', '6', '--json']));
  const sum = await v.page.locator('[data-testid=steady-summary]').first();
  const d = await sum.evaluate((p) => ({ ...p.dataset }));
  if (json.last) {
    close(Number(d.average), json.last.average, 'average');
    close(Number(d.range), json.last.range, 'range');
    close(Number(d.excursion), json.last.excursion, 'excursion');
    assert.equal(d.holds, String(json.last.holds));
  } else {
    assert.equal(d.holds, 'unknown');
  }
  assert.equal(d.first ?? '', json.first_steady_after === null ? '' : String(json.first_steady_after));
  const win = await v.page.evaluate(() => [...document.querySelectorAll('[data-testid=steady-window-row]')].map((tr) => ({ round: Number(tr.dataset.round), value: tr.dataset.value })));
  const n = json.rounds.length;
  assert.deepEqual(win.map((w) => w.round), [n - 5, n - 4, n - 3, n - 2, n - 1, n]);
  win.forEach((w, i) => {
    const want = json.rounds[n - 6 + i].value;
    assert.equal(w.value, want === null ? '' : String(want), `round ${w.round}`);
  });
  const crit = await v.page.evaluate(() => [...document.querySelectorAll('[data-testid=steady-criterion]')].map((li) => ({ ...li.dataset })));
  assert.deepEqual(crit.map((c) => c.criterion), json.criteria.map((c) => c.criterion));
  crit.forEach((c, i) => {
    assert.equal(c.holds, json.criteria[i].last ? String(json.criteria[i].last.holds) : '');
    assert.equal(c.first, json.criteria[i].first_steady_after === null ? '' : String(json.criteria[i].first_steady_after));
  });
  await v.shotOf('panel-steady', 'judge-steady');
  // IOPS in 1 s rounds through the controls: the hash follows, nines agrees
  await v.act(() => v.page.selectOption('[data-testid=steady-track]', 'iops'));
  await v.act(() => v.page.fill('[data-testid=steady-rounds]', '2').then(() => v.page.press('[data-testid=steady-rounds]', 'Enter')));
  await v.act(() => v.page.selectOption('[data-testid=steady-round]', '1'));
  assert.match(await v.hash(), /ss=4,iops,2,1/);
  const j2 = JSON.parse(nines(['steady', r.file, '--track', 'iops', '--rounds', '2', '--round', '1', '--json']));
  const d2 = await v.page.locator('[data-testid=steady-summary]').first().evaluate((p) => ({ ...p.dataset }));
  if (j2.last) close(Number(d2.average), j2.last.average, 'iops average');
  // too few rounds for the window: said plainly, nothing drawn wrong
  await v.act(() => v.page.fill('[data-testid=steady-rounds]', '9').then(() => v.page.press('[data-testid=steady-rounds]', 'Enter')));
  assert.match(await v.page.locator('[data-testid=steady-error]').first().textContent(), /fewer than the 9/);
  assert.deepEqual(v.errors, []);
});
