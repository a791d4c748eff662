// Reports and sites in a real headless Chromium: `nines report` opened from
// file:// (the viewer starts, its table equals `nines stats --json`, no request leaves the
// page, the static summary equals `nines stats` with JavaScript disabled), archives and notes
// carrying script payloads run nothing, and `nines site` served from loopback (runs added
// later, permalinks). Screenshots go to tests/artifacts/report-*.png.
//
//   node --test tests/browser/report.test.mjs     (after cargo build -p nines-qos)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { execFileSync, spawnSync } from 'node:child_process';
import { NINES, ROOT, ARTIFACTS, serve, launch, Viewer, ninesStats, ninesStatsText } from './lib.mjs';
import { nightly } from './nightly.mjs';

let dir, browser, files;

function nines(args) {
  return execFileSync(NINES, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 120000, killSignal: 'SIGKILL' });
}

// Payloads: each would set window.__pwned or change document.title if it ever ran.
const P = {
  img: '<img src=x onerror="window.__pwned=\'img\'">',
  script: '</script><script>window.__pwned="script";document.title="pwned"</script>',
  js: 'javascript:window.__pwned="js"',
  svg: '<svg/onload=window.__pwned="svg">',
};

before(async () => {
  assert.ok(fs.existsSync(NINES), `no ${NINES}: run cargo build -p nines-qos`);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nines-report-'));
  const target = path.join(dir, 'target.dat');
  const a = path.join(dir, 'uring-qd16.hlog');
  const b = path.join(dir, 'psync-qd1.hlog');
  nines(['run', '--target', target, '--size', '64M', '--rw', 'randrw', '--mix', '70', '--qd', '16', '--runtime', '3s', '--window', '100ms', '--direct', '--name', 'uring QD16 randrw 70/30', '-o', a, '-q', '--no-summary']);
  nines(['run', '--target', target, '--size', '64M', '--rw', 'randrw', '--mix', '70', '--qd', '1', '--engine', 'psync', '--runtime', '3s', '--window', '100ms', '--direct', '--name', 'psync QD1 randrw 70/30', '-o', b, '-q', '--no-summary']);
  execFileSync('fio', ['--name=rw', `--filename=${target}`, '--size=64m', '--rw=randrw', '--rwmixread=70', '--bs=4k', '--ioengine=io_uring',
    '--iodepth=8', '--direct=1', '--runtime=2', '--time_based', `--write_lat_log=${path.join(dir, 'fio')}`, '--log_avg_msec=0', '--output=/dev/null'], { stdio: 'ignore', timeout: 90000, killSignal: 'SIGKILL' });
  const c = path.join(dir, 'fio_clat.1.log');
  assert.ok(fs.existsSync(c), 'fio wrote no clat log');
  // many short windows: reports and sites must merge them into groups
  const many = path.join(dir, 'many.hlog');
  nines(['run', '--target', target, '--size', '64M', '--rw', 'randrw', '--mix', '70', '--qd', '4', '--runtime', '3s', '--window', '20ms', '--name', 'many windows', '-o', many, '-q', '--no-summary']);
  files = { a, b, c, many };

  // A hostile archive written by hand from a real one: the run name, metadata values, a tag
  // (archive-valid: no comma, no whitespace) and the file name carry the payloads.
  const lines = fs.readFileSync(a, 'utf8').split('\n');
  const hostileTag = '</script><svg/onload=window.__pwned="tag">';
  const out = lines.map((l) => {
    if (l.startsWith('#[nines ')) {
      const meta = JSON.parse(l.slice('#[nines '.length, -1));
      meta.name = `${P.img}${P.script}`;
      meta.workload = { ...meta.workload, rw: `${P.svg} ${P.js}` };
      meta.made_up = { note: P.svg }; // a key nines does not know: kept, shown as text
      meta.target = { kind: P.script, path: P.img, device: { name: P.js, vendor: P.svg } };
      meta.notes = P.script;
      return `#[nines ${JSON.stringify(meta)}]`;
    }
    return l.replace(/^Tag=write,/, `Tag=${hostileTag},`);
  });
  files.hostile = path.join(dir, `${P.img} ${P.js}.hlog`);
  fs.writeFileSync(files.hostile, out.join('\n'));
  files.hostileName = `${P.img}${P.script}`;
  files.hostileTag = hostileTag;
  browser = await launch();
});

after(async () => {
  await browser?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/// Poll `fn(arg)` in the page until it is truthy. The report's Content-Security-Policy forbids
/// evaluating strings, which playwright's waitForFunction does; evaluate() is not affected.
async function until(page, fn, arg, what) {
  for (let i = 0; i < 2400; i++) {
    if (await page.evaluate(fn, arg)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/// Every panel drew the loaded runs once (the viewer's test hooks, as Viewer.ready).
function ready(v, runs) {
  return until(v.page, (n) => document.body.dataset.ninesFirstRenderMs
    && document.querySelectorAll('[data-testid=legend-run]').length >= n
    && document.body.dataset.ninesIdle === '1', runs, `${runs} runs drawn`);
}

/// Do something, then wait for the redraws it caused (as Viewer.act).
async function act(v, fn) {
  const before = await v.renders();
  await fn();
  await until(v.page, (b) => Number(document.body.dataset.ninesRenders || 0) > b && document.body.dataset.ninesIdle === '1', before, 'the redraw');
}

/// A page that records every request (playwright's and the DevTools protocol's view) and
/// every Content-Security-Policy violation.
async function openWatched(url, { javaScriptEnabled = true } = {}) {
  const ctx = await browser.newContext({ viewport: { width: 1600, height: 1500 }, javaScriptEnabled, acceptDownloads: true });
  const page = await ctx.newPage();
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  const cdp = await ctx.newCDPSession(page);
  await cdp.send('Network.enable');
  cdp.on('Network.requestWillBeSent', (e) => requests.push(e.request.url));
  cdp.on('Network.webSocketCreated', (e) => requests.push(e.url));
  if (javaScriptEnabled) {
    await page.addInitScript(() => {
      window.__csp = [];
      document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
  }
  const v = new Viewer(page);
  await page.goto(url);
  return { v, page, ctx, requests };
}

/// Requests other than the page itself (data: and blob: URLs are not network requests).
function foreign(requests, url) {
  const self = url.split('#')[0];
  return requests.filter((u) => u.split('#')[0] !== self && !u.startsWith('data:') && !u.startsWith('blob:'));
}

/// The static summary's tables: [{dir: {col: text}}] per run.
function summaryTables(page) {
  return page.evaluate(() => [...document.querySelectorAll('[data-testid=summary-stats]')].map((sec) => {
    const cols = [...sec.querySelectorAll('table.ns-stats tr:first-child th')].map((th) => th.textContent);
    const rows = {};
    for (const tr of sec.querySelectorAll('[data-testid=summary-row]')) {
      const cells = [...tr.children].map((td) => td.textContent);
      rows[tr.dataset.dir] = Object.fromEntries(cols.map((c, i) => [c, cells[i]]));
    }
    return rows;
  }));
}

/// The summary equals `nines stats` text, cell for cell, column for column.
function assertSummaryMatches(tables, textRuns) {
  assert.equal(tables.length, textRuns.length, 'one table per run');
  // ninesStatsText also takes note lines such as "p99.9999..p99.9999999: not shown" for rows
  const text = textRuns.map((r) => Object.fromEntries(Object.entries(r).filter(([d]) => !d.endsWith(':'))));
  tables.forEach((rows, i) => {
    assert.deepEqual(Object.keys(rows), Object.keys(text[i]), `run ${i}: directions`);
    for (const [d, row] of Object.entries(text[i])) {
      assert.deepEqual(rows[d], row, `run ${i} ${d}`);
    }
  });
}

/// The viewer's table equals `nines stats --json` for the rows it shows (read and write by default).
function assertViewerTable(rows, json) {
  assert.ok(rows.length >= json.runs.length, 'a row per run');
  for (const row of rows) {
    const js = json.runs[row.run].tags[row.dir];
    assert.ok(js, `nines stats has no ${row.dir} for run ${row.run}`);
    assert.equal(Number(row.cells.count.ns), js.count);
    assert.equal(Number(row.cells.min.ns), js.min_ns);
    assert.equal(Number(row.cells.max.ns), js.max_ns);
    assert.ok(Math.abs(Number(row.cells.mean.ns) - js.mean_ns) <= 1e-9 * js.mean_ns, 'mean');
    for (const l of js.levels) {
      const cell = row.cells[l.label];
      if (cell) assert.equal(cell.ns, l.value_ns === null ? '' : String(l.value_ns), `${row.run} ${row.dir} ${l.label}`);
      else assert.equal(l.value_ns, null, `${l.label} missing`);
    }
  }
}

test('report from file://: the viewer starts, shows nines stats numbers, makes no request', async () => {
  const notes = path.join(dir, 'notes.md');
  fs.writeFileSync(notes, '## Setup\n\nThree runs on the **same** file: nines io_uring QD16, psync QD1 and *fio* QD8.\n\n- 70/30 randrw, 4 KiB\n- O_DIRECT\n');
  const report = path.join(dir, 'report.html');
  const all = [files.a, files.b, files.c];
  const said = nines(['report', ...all, '-o', report, '--title', 'QD comparison', '--notes', notes]);
  assert.match(said, /report: .*report\.html \(3 runs, \d+ KB\)/);
  const url = pathToFileURL(report).href;
  const { v, page, ctx, requests } = await openWatched(url);
  await ready(v, 3);
  assert.equal(await page.title(), 'QD comparison');
  assert.equal(await page.locator('[data-testid=report-title]').textContent(), 'QD comparison');
  assert.match(await page.locator('[data-testid=report-notes]').innerHTML(), /<strong>same<\/strong>/);
  // the viewer took over: the static summary is hidden, the viewer's table is there
  assert.equal(await page.locator('[data-testid=summary]').isVisible(), false);
  assertViewerTable(await v.table(), ninesStats(all));
  const names = (await page.locator('[data-testid=legend-run] > span:first-child').allTextContents()).map((n) => n.trim());
  assert.deepEqual(names.slice(0, 2), ['uring QD16 randrw 70/30', 'psync QD1 randrw 70/30']);
  // direction control still works inside the report
  await act(v, () => page.click('[data-testid=dir-read]'));
  assert.ok((await v.table()).every((r) => r.dir === 'read'));
  // exports work under the report's policy (downloads of blobs, no request)
  const [csv] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export-csv]')]);
  assert.match(fs.readFileSync(await csv.path(), 'utf8'), /^run,file,direction,count,iops/);
  const [png] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export-cdf-png]')]);
  assert.deepEqual([...fs.readFileSync(await png.path()).subarray(1, 4)], [0x50, 0x4e, 0x47]);
  assert.deepEqual(foreign(requests, url), [], 'the report made network requests');
  assert.deepEqual(await page.evaluate(() => window.__csp), [], 'CSP violations');
  assert.deepEqual(v.errors, []);
  await v.shot('report-file');
  await ctx.close();
});

test('one-run report: compare and sweep fold to one line saying what they need, no empty chart', async () => {
  const one = path.join(dir, 'one.html');
  nines(['report', files.a, '-o', one]);
  const { v, page, ctx } = await openWatched(pathToFileURL(one).href);
  await ready(v, 1);
  for (const [panel, canvas, note, says] of [
    ['panel-compare', 'change-canvas', 'compare-note', /^Open a second run to compare/],
    ['panel-sweep', 'sweep-canvas', 'sweep-note', /^Open runs that differ in one parameter/],
  ]) {
    const p = page.locator(`[data-testid=${panel}]`);
    assert.equal(await p.getAttribute('data-empty'), 'few', `${panel} folds`);
    assert.equal(await page.locator(`[data-testid=${canvas}]`).isVisible(), false, `${panel}: no empty chart`);
    assert.match(await p.locator(`[data-testid=${note}]`).textContent(), says);
    // the tools line alone (its controls have nothing to choose from with one run)
    const h = await p.evaluate((e) => e.getBoundingClientRect().height);
    assert.ok(h < 60, `${panel} is ${h} px high`);
  }
  // the run's 30 windows can be checked for steady state: that chart is drawn
  assert.equal(await page.locator('[data-testid=panel-steady]').getAttribute('data-empty'), null);
  assert.equal(await page.locator('[data-testid=conv-canvas]').isVisible(), true);
  assert.ok(await page.locator('[data-testid=steady-summary]').count() >= 1);
  assert.deepEqual(v.errors, []);
  await v.shot('report-one-run');
  await ctx.close();
});

test('report of one fio run read three ways: distinct names as nines stats gives them; a check without rounds folds', async () => {
  const data = ['fio-randrw.json', 'fio-randrw_clat_hist.1.log', 'fio-randrw_lat.1.log'].map((f) => path.join(ROOT, 'tests/data', f));
  const out = path.join(dir, 'fio-three.html');
  nines(['report', ...data, '-o', out]);
  const { v, page, ctx } = await openWatched(pathToFileURL(out).href);
  await ready(v, 3);
  const names = (await page.locator('[data-testid=legend-run] > span:first-child').allTextContents()).map((n) => n.trim());
  assert.deepEqual(names, ninesStats(data).runs.map((r) => r.name));
  assert.deepEqual(names, ['fio-randrw (fio-randrw.json)', 'fio-randrw (fio-randrw_clat_hist.1.log)', 'fio-randrw (fio-randrw_lat.1.log)']);
  // three runs but no baseline, no parameter, and the first run is one window: all folded
  for (const panel of ['panel-compare', 'panel-sweep', 'panel-steady']) {
    assert.equal(await page.locator(`[data-testid=${panel}]`).getAttribute('data-empty'), '1', panel);
  }
  assert.match(await page.locator('[data-testid=steady-error]').textContent(), /1 rounds, fewer than the 5/);
  // the controls stay: marking a baseline unfolds compare and draws its chart
  await act(v, () => page.click('[data-testid=baseline-0]'));
  assert.equal(await page.locator('[data-testid=panel-compare]').getAttribute('data-empty'), null);
  assert.equal(await page.locator('[data-testid=change-canvas]').isVisible(), true);
  assert.ok(await page.locator('[data-testid=compare-row]').count() >= 1);
  assert.deepEqual(v.errors, []);
  await ctx.close();
});

test('grouped report, --full report and site: the table is nines stats, whole and for brushed ranges, exact at edges that cut groups; a report too small for the windows snaps to groups', async () => {
  const whole = ninesStats([files.many]);
  const ranged = ninesStats([files.many], ['--from', '1', '--to', '2.5']);
  // a range off the groups' edges (500 ms): the recorded windows in it, in every page (a
  // grouped report carries them; a site's page fetches the windows of the two groups the
  // range cuts, never the archive)
  const cut = ninesStats([files.many], ['--from', '1.24', '--to', '2.32']);
  // a report whose limit leaves no room for the windows counts the groups that start in it
  const groups = ninesStats([files.many], ['--from', '1.5', '--to', '2.5']);
  const grouped = path.join(dir, 'grouped.html');
  const full = path.join(dir, 'full.html');
  const tight = path.join(dir, 'tight.html');
  nines(['report', files.many, '-o', grouped, '--group', '500ms']);
  nines(['report', files.many, '-o', full, '--full']);
  nines(['report', files.many, '-o', tight, '--group', '500ms', '--max-size', String(fs.statSync(grouped).size - 1)]);
  const site = path.join(dir, 'site-grouped');
  nines(['site', files.many, '-o', site, '--group', '500ms']);
  const m = JSON.parse(fs.readFileSync(path.join(site, 'manifest.json'), 'utf8'));
  assert.deepEqual(m.runs.map((r) => [r.file, r.compact]), [['runs/many.hlog', 'runs/many.hlog.compact']]);
  const wat = m.runs[0].compact_windows_at;
  assert.ok(wat > m.runs[0].compact_groups_at, 'the manifest says where the windows begin');
  const server = await serve(site);
  const exact = /many windows: histograms of 500ms \(groups of 25 windows\), and every window$/;
  const snapped = /many windows: histograms of 500ms \(groups of 25 windows\); a brushed range counts the groups that start in it/;
  try {
    const pages = [
      ['grouped', pathToFileURL(grouped).href, exact, cut],
      ['full', pathToFileURL(full).href, null, cut],
      ['site', `${server.base}/index.html`, exact, cut],
      ['tight', pathToFileURL(tight).href, snapped, groups],
    ];
    for (const [what, url, carries, off] of pages) {
      for (const [hash, want] of [['', whole], ['#sel=1,2.5', ranged], ['#sel=1.24,2.32', off]]) {
        server.ranges.length = 0;
        const { v, page, ctx, requests } = await openWatched(url + hash);
        await ready(v, 1);
        if (what === 'site' && hash) {
          // the groups, then the windows of the groups a range cuts, come with range requests
          await until(page, () => document.querySelectorAll('[data-testid=stats-row]').length > 0, null, 'the range\'s rows');
          await until(page, () => document.body.dataset.ninesIdle === '1', null, 'the redraw');
        }
        assertViewerTable(await v.table(), want);
        const note = await page.locator('[data-testid=carries]').count() ? await page.locator('[data-testid=carries]').textContent() : null;
        if (carries) assert.match(note.replace(/\.$/, ''), carries, `${what} ${hash}: the page states the grouping`);
        if (!carries) assert.equal(note, null, `${what}: nothing grouped`);
        if (what === 'site') {
          assert.equal(requests.some((u) => u.endsWith('/runs/many.hlog')), false, `site ${hash}: no archive fetched`);
          // the windows are fetched a group at a time, only for a range that cuts groups
          const windows = server.ranges.filter(([, r]) => Number(/^bytes=(\d+)/.exec(r)[1]) >= wat);
          const cuts = hash === '#sel=1.24,2.32' ? 4 : 0; // two groups of each direction
          assert.equal(windows.length, cuts, `site ${hash}: ${JSON.stringify(server.ranges)}`);
          assert.ok(windows.every(([, r]) => /^bytes=\d+-\d+$/.test(r)), 'bounded window ranges');
        }
        assert.deepEqual(v.errors, [], `${what} ${hash}`);
        if (what === 'grouped' && hash === '#sel=1.24,2.32') await v.shot('report-grouped-cut');
        await ctx.close();
      }
    }
  } finally {
    server.close();
  }
});

test('site of six runs: later runs come without their groups (a range request) until a panel needs them', async () => {
  const out = path.join(dir, 'site-lazy');
  const six = [1, 2, 3, 4, 5, 6].map((i) => {
    const f = path.join(dir, `copy-${i}.hlog`);
    fs.copyFileSync(files.a, f);
    return f;
  });
  nines(['site', ...six, '-o', out]);
  const m = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8'));
  const at = m.runs.map((r) => r.compact_groups_at);
  assert.ok(at.every((n, i) => n > 0 && n < fs.statSync(path.join(out, m.runs[i].compact)).size), 'groups_at within each form');
  const server = await serve(out);
  try {
    const { v, page, ctx } = await openWatched(`${server.base}/index.html`);
    await ready(v, 6);
    // the first four runs whole (the heatmap and steady state draw from them); runs 5 and 6
    // only up to their groups
    // (in either order: two requests made together may reach the server either way)
    const byUrl = (a, b) => a[0].localeCompare(b[0]);
    assert.deepEqual([...server.ranges].sort(byUrl), [5, 6].map((i) => [`/${m.runs[i - 1].compact}`, `bytes=0-${at[i - 1] - 1}`]).sort(byUrl));
    assertViewerTable(await v.table(), ninesStats(six));
    // steady state of run 6 (the same bytes as run 1): its groups are fetched now, and it
    // judges the same windows
    const rows = () => page.evaluate(() => [...document.querySelectorAll('[data-testid=steady-window-row]')].map((tr) => ({ ...tr.dataset })));
    const first = await rows();
    assert.ok(first.length > 0, 'run 1 has steady-state rows');
    await act(v, () => page.selectOption('[data-testid=steady-run]', '5'));
    await until(page, () => document.querySelectorAll('[data-testid=steady-window-row]').length > 0
      && !/Loading the windows/.test(document.querySelector('[data-testid=panel-steady]')?.textContent || ''), null, 'the groups of run 6');
    assert.deepEqual(server.ranges.slice(2), [[`/${m.runs[5].compact}`, m.runs[5].compact_windows_at ? `bytes=${at[5]}-${m.runs[5].compact_windows_at - 1}` : `bytes=${at[5]}-`]]);
    assert.deepEqual(await rows(), first);
    assert.deepEqual(v.errors, []);
    await ctx.close();
  } finally {
    server.close();
  }
});

test('site trend: 120 nightly runs open on their trend without loading a run; the change is marked; a click opens the run', async () => {
  // 60 nights of psync QD1, then 60 of uring QD16: the median of every direction jumps at night 60
  const runs = nightly(files.b, files.a, 120, 60, path.join(dir, 'nightly'));
  const out = path.join(dir, 'site-nightly');
  nines(['site', ...runs.slice(0, 100), '-o', out]);
  nines(['site', ...runs.slice(100), '-o', out]);
  const m = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8'));
  assert.equal(m.runs.length, 120);
  // each run's summary holds nines stats' levels and intervals
  const st = ninesStats([runs[0], runs[119]]);
  for (const [k, js] of [[0, st.runs[0]], [119, st.runs[1]]]) {
    const tags = Object.fromEntries(m.runs[k].trend.tags.map(([t, n, lv]) => [t, { n, lv }]));
    assert.deepEqual(Object.keys(tags), Object.keys(js.tags));
    for (const [t, s] of Object.entries(js.tags)) {
      assert.equal(tags[t].n, s.count);
      for (const l of s.levels) {
        const [label, value, lo, hi, beyond] = tags[t].lv.find((x) => x[0] === l.label);
        assert.deepEqual([label, lo, hi, beyond], [l.label, l.ci95_ns ? l.ci95_ns[0] : null, l.ci95_ns ? l.ci95_ns[1] : null, l.beyond]);
        if (l.support !== 'none') assert.equal(value, l.value_ns, `${k} ${t} ${l.label}`);
      }
    }
  }
  const server = await serve(out);
  try {
    const { v, page, ctx } = await openWatched(`${server.base}/index.html`);
    await until(page, () => document.body.dataset.ninesTrendMs && document.body.dataset.ninesIdle === '1', null, 'the trend');
    assert.equal(await page.locator('[data-testid=legend-run]').count(), 0, 'no run loaded');
    assert.match(await page.locator('[data-testid=no-runs]').textContent(), /^This site holds 120 runs: its trend is below/);
    assert.deepEqual(server.requests.filter((u) => u.startsWith('/runs/')), [], 'no run requested');
    const canvas = page.locator('[data-testid=trend-canvas]');
    const data = () => canvas.evaluate((c) => ({ marks: Number(c.dataset.marks), worse: Number(c.dataset.worse) }));
    await act(v, () => page.locator('[data-testid=trend-level]').selectOption('p50'));
    assert.deepEqual(await data(), { marks: 120, worse: 1 });
    await v.shot('site-trend');
    // a point's position: the run's index across the plot
    const at = async (i) => {
      const [l, r, t, b] = (await canvas.getAttribute('data-frame')).split(',').map(Number);
      const box = await canvas.boundingBox();
      return { x: box.x + l + ((i + 0.5) / 120) * (r - l), y: box.y + (t + b) / 2 };
    };
    // pinned to the first night, every uring night is worse
    let p = await at(0);
    await act(v, async () => {
      await page.keyboard.down('Shift');
      await page.mouse.click(p.x, p.y);
      await page.keyboard.up('Shift');
    });
    assert.deepEqual(await data(), { marks: 120, worse: 60 });
    assert.match(await v.hash(), /tr=all,p50,0/);
    // a click opens that night's run, and only that one is requested
    p = await at(60);
    await page.mouse.move(p.x, p.y);
    assert.match(await page.locator('[data-testid=trend-readout]').textContent(), /^run 61: nightly 60: p50 .*worse/);
    await page.mouse.click(p.x, p.y);
    await ready(v, 1);
    assert.deepEqual(server.requests.filter((u) => u.startsWith('/runs/')), ['/runs/nightly-0060.hlog.compact']);
    assertViewerTable(await v.table(), ninesStats([runs[60]]));
    assert.deepEqual(v.errors, []);
    await ctx.close();
  } finally {
    server.close();
  }
});

test('a merge of two hosts: the directions of each host are traces and rows of their own in a report', async () => {
  // the same run as two hosts' parts, regridded onto 500 ms windows
  const merged = path.join(dir, 'fleet.hlog');
  nines(['merge', files.a, files.b, '--label', 'host01', '--label', 'host02', '--regrid', '500ms', '-o', merged]);
  const out = path.join(dir, 'fleet.html');
  nines(['report', merged, '-o', out]);
  const { v, page, ctx } = await openWatched(pathToFileURL(out).href);
  await ready(v, 1);
  // a run with several directions opens with each shown (overlaid); the click only if not
  if (!/active/.test(await page.getAttribute('[data-testid=dir-overlay]', 'class') || '')) await act(v, () => page.click('[data-testid=dir-overlay]'));
  const dirs = (await v.table()).map((r) => r.dir);
  for (const d of ['read', 'write', 'host01/read', 'host01/write', 'host02/read', 'host02/write']) assert.ok(dirs.includes(d), `${d} in ${dirs}`);
  const box = await v.box('cdf-overlay');
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5);
  await until(page, () => document.querySelectorAll('[data-testid=cdf-readout] .ro').length > 0, null, 'the readout');
  const curves = await page.evaluate(() => [...document.querySelectorAll('[data-testid=cdf-readout] .ro')].map((e) => e.textContent.split(':')[0]));
  assert.deepEqual(curves.map((c) => c.replace(/^.* /, '')).sort(), ['host01/read', 'host01/write', 'host02/read', 'host02/write', 'read', 'write']);
  await v.shot('report-fleet');
  assert.deepEqual(v.errors, []);
  await ctx.close();
});

test('report --baseline: opens in compare mode; the summary carries nines compare', async () => {
  const out = path.join(dir, 'compare.html');
  nines(['report', files.b, '--baseline', files.a, '--sweep', 'qd', '-o', out, '--title', 'QD1 psync against QD16 uring']);
  const want = nines(['compare', files.a, '--with', files.b]);
  // with scripts off: the comparison is in the static summary, as nines compare prints it
  {
    const { page, ctx } = await openWatched(pathToFileURL(out).href, { javaScriptEnabled: false });
    const pre = await page.locator('[data-testid=summary-compare]').textContent();
    assert.equal(pre, want);
    await ctx.close();
  }
  const url = pathToFileURL(out).href;
  const { v, page, ctx, requests } = await openWatched(url);
  await ready(v, 2);
  // the baseline (added first) is ticked, the other run is the candidate; verdicts as nines
  assert.equal(await page.locator('[data-testid=baseline-0]').isChecked(), true);
  assert.equal(await page.locator('[data-testid=baseline-1]').isChecked(), false);
  const json = JSON.parse(nines(['compare', files.a, '--with', files.b, '--json']));
  const all = json.tags.find((t) => t.tag === 'all');
  // the runs open with read and write split: the merged directions (all) are one click away
  await act(v, () => page.click('[data-testid=dir-all]'));
  const cells = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll('[data-testid=compare-row][data-dir=all] [data-testid=change]')].map((td) => [td.dataset.col, td.dataset.verdict])));
  for (const c of [all.iops, all.mean, ...all.levels]) {
    if (cells[c.label] !== undefined) assert.equal(cells[c.label], c.verdict, c.label);
  }
  assert.ok(Object.keys(cells).length >= 6, 'compare cells shown');
  assert.equal(await page.inputValue('[data-testid=sweep-param]'), 'qd');
  assert.deepEqual(foreign(requests, url), [], 'no request leaves the page');
  assert.deepEqual(await page.evaluate(() => window.__csp), [], 'no CSP violation');
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(ARTIFACTS, 'report-compare.png'), fullPage: true });
  assert.deepEqual(v.errors, []);
  await ctx.close();
  // every run a baseline: nothing to compare, said plainly
  const e = (() => {
    try {
      execFileSync(NINES, ['report', files.a, '--baseline', files.a, '-o', path.join(dir, 'x.html')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      return '';
    } catch (err) { return String(err.stderr); }
  })();
  assert.match(e, /every run of the report is a baseline/);
});

test('report --spec: the viewer judges the runs as nines check does and draws the spec on the 1-CDF and runtime charts', async () => {
  const spec = path.join(dir, 'vendor.spec');
  fs.writeFileSync(spec, '# vendor QoS, as a customer checks it\nread p99 <= 10s\nread p99.99 <= 20s\nwrite p99.9 <= 1us\nwrite max <= 2us\nall p99.9 <= 30s\nall max <= 60s\nread iops >= 1\n[name=many*]\nwrite mean <= 1s\n');
  const out = path.join(dir, 'vendor.html');
  // both runs carried in groups of 500 ms: their verdicts must still be those of every window
  const runs = [files.a, files.many];
  nines(['report', ...runs, '--spec', spec, '--limit', 'write iops >= 1', '--group', '500ms', '-o', out]);
  const got = spawnSync(NINES, ['check', ...runs, '--spec', spec, '--limit', 'write iops >= 1', '--json'], { encoding: 'utf8' });
  assert.equal(got.status, 1, got.stderr);
  const want = JSON.parse(got.stdout);
  const { v, page, ctx } = await openWatched(pathToFileURL(out).href);
  await ready(v, 2);
  assert.match(await page.locator('[data-testid=carries]').textContent(), /groups of 5 windows.*groups of 25 windows/, 'both runs carried in groups');
  const rows = (id) => page.evaluate((id) => [...document.querySelectorAll(`[data-testid=${id}]`)].map((tr) => ({
    limit: tr.dataset.limit, verdict: tr.dataset.verdict, cells: [...tr.cells].map((td) => td.textContent) })), id);
  // the viewer's verdicts: nines check's limits, runs and verdicts, and cell for cell the
  // report's static table (written natively from the recorded runs)
  const viewer = await rows('verdict-row');
  const expected = want.runs.flatMap((r) => r.checks.map((c) => ({ limit: c.limit, verdict: c.verdict, run: r.name })));
  assert.equal(expected.length, 17);
  assert.deepEqual(viewer.map((r) => ({ limit: r.limit, verdict: r.verdict, run: r.cells[0] })), expected);
  assert.deepEqual(viewer.map((r) => r.cells), (await rows('qos-row')).map((r) => r.cells));
  assert.ok(expected.some((e) => e.verdict === 'fails') && expected.some((e) => e.verdict === 'meets'));
  // the runs open split: the read and the write envelopes; every direction merged, the `all` limits
  const envelopes = () => page.evaluate(() => document.querySelector('[data-testid=cdf-canvas]').dataset.envelopes);
  assert.equal(await envelopes(), '10000000000:0.01,20000000000:0.0001;1000:0.001,2000:0');
  await act(v, () => page.click('[data-testid=dir-all]'));
  assert.equal(await envelopes(), '30000000000:0.001,60000000000:0');
  // reads alone: p99 <= 10s and p99.99 <= 20s, and no read window beyond either
  await act(v, () => page.click('[data-testid=dir-read]'));
  assert.equal(await envelopes(), '10000000000:0.01,20000000000:0.0001');
  const breaks = () => page.evaluate(() => Number(document.querySelector('[data-testid=runtime-canvas]').dataset.limitBreaks));
  assert.equal(await breaks(), 0);
  // writes: p99.9 <= 1us and max <= 2us, which every write point breaks where it has the
  // value: a max from one I/O on, a p99.9 from 1,000 (below, no I/O lies beyond its rank).
  // The runtime chart draws every recorded window here (the page carries every window's
  // points; only histograms are carried in groups), and how many windows hold 1,000 writes
  // depends on how fast this machine ran the workload: the count comes from the recorded
  // windows, as nines export's table gives them.
  const table = path.join(dir, 'spec-windows.csv');
  nines(['export', '--csv', table, ...runs]);
  const [head, ...lines] = fs.readFileSync(table, 'utf8').trim().split('\n');
  const col = Object.fromEntries(head.split(',').map((c, i) => [c, i]));
  const writes = lines.map((l) => l.split(',')).filter((c) => c[col.direction] === 'write').map((c) => Number(c[col.count]));
  assert.equal(writes.length, 30 + 150, 'a write window per recorded window of both runs');
  const ringed = writes.filter((n) => n >= 1000).length + writes.filter((n) => n >= 1).length;
  // one point a window: the chart is wide enough for 150 points (two pixels each)
  assert.ok(await page.evaluate(() => document.querySelector('[data-testid=runtime-canvas]').clientWidth) >= 2 * 150 + 130);
  await act(v, () => page.click('[data-testid=dir-write]'));
  // the 1-CDF may report its redraw before the runtime chart's: wait for the latter's rings
  await until(page, (n) => Number(document.querySelector('[data-testid=runtime-canvas]').dataset.limitBreaks) === n, ringed, `${ringed} write points ringed`)
    .catch(async (err) => assert.fail(`${err.message}: ${await breaks()} ringed`));
  await page.waitForTimeout(200);
  await v.shot('report-spec-viewer');
  // a spec typed on the page: judged at once, kept in the link, and the link reopens it
  const typeSpec = (text) => act(v, async () => {
    await page.locator('[data-testid=spec-input]').fill(text);
    await page.locator('[data-testid=spec-input]').dispatchEvent('change');
  });
  await typeSpec('all max <= 1ns');
  const typed = await rows('verdict-row');
  assert.deepEqual(typed.map((r) => [r.limit, r.verdict]), [['all max <= 1ns', 'fails'], ['all max <= 1ns', 'fails']]);
  const hash = await v.hash();
  assert.match(hash, /spec=all%20max%20%3C%3D%201ns/);
  await page.goto(`${pathToFileURL(out).href}${hash}`);
  await page.reload();
  await ready(v, 2);
  assert.equal(await page.locator('[data-testid=spec-input]').inputValue(), 'all max <= 1ns');
  assert.equal((await rows('verdict-row')).length, 2);
  // a spec that does not parse says where, and judges nothing
  await typeSpec('read p99.99 <= 1');
  assert.match(await page.locator('[data-testid=spec-error]').textContent(), /^spec:1:16: .*unit/);
  assert.equal((await rows('verdict-row')).length, 0);
  assert.deepEqual(v.errors, []);
  await ctx.close();
});

test('report --spec: the header carries nines check\'s verdicts, with and without scripts', async () => {
  const spec = path.join(dir, 'qos.spec');
  fs.writeFileSync(spec, '# QoS as a vendor states it\nread p50 <= 10s\nread p50 <= 1ns\nwrite p99.9999 <= 1s\n[name=uring*]\nall max <= 60s\n');
  const out = path.join(dir, 'qos.html');
  const runs = [files.a, files.c];
  nines(['report', ...runs, '--spec', spec, '-o', out]);
  const got = spawnSync(NINES, ['check', ...runs, '--spec', spec, '--json'], { encoding: 'utf8' });
  assert.equal(got.status, 1, got.stderr);
  const want = JSON.parse(got.stdout);
  const rows = async (page) => page.evaluate(() => [...document.querySelectorAll('[data-testid=qos-row]')].map((tr) => ({ limit: tr.dataset.limit, verdict: tr.dataset.verdict, cells: [...tr.cells].map((td) => td.textContent) })));
  const expected = want.runs.flatMap((r) => r.checks.map((c) => ({ limit: c.limit, verdict: c.verdict, run: r.name })));
  assert.equal(expected.length, 7);
  const check = (got) => {
    assert.deepEqual(got.map((r) => ({ limit: r.limit, verdict: r.verdict, run: r.cells[0] })), expected);
  };
  for (const javaScriptEnabled of [false, true]) {
    const { v, page, ctx } = await openWatched(pathToFileURL(out).href, { javaScriptEnabled });
    if (javaScriptEnabled) await ready(v, 2);
    assert.equal(await page.locator('[data-testid=report-qos]').isVisible(), true);
    assert.equal(await page.locator('[data-testid=report-qos]').getAttribute('data-verdict'), 'fails');
    check(await rows(page));
    if (javaScriptEnabled) {
      await page.waitForTimeout(300);
      await page.screenshot({ path: path.join(ARTIFACTS, 'report-qos.png'), fullPage: false });
    }
    await ctx.close();
  }
});
