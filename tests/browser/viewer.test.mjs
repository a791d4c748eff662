// The viewer in a real headless Chromium: loads real runs (the nines collector and fio),
// checks the table against `nines stats`, drives direction, zoom, brush, box zoom, hover,
// URL-hash state, file picker errors, embedded runs with hostile names and the exports.
// Screenshots go to tests/artifacts/.
//
//   node --test tests/browser/viewer.test.mjs     (after scripts/build-viewer.sh and cargo build -p nines-qos)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync, spawn } from 'node:child_process';
import { BUNDLE, NINES, ROOT, ARTIFACTS, serve, launch, Viewer, ninesStats, ninesStatsText } from './lib.mjs';

let dir, browser, site, files;

function run(args) {
  execFileSync(NINES, args, { stdio: ['ignore', 'ignore', 'inherit'], timeout: 90000, killSignal: 'SIGKILL' });
}

before(async () => {
  assert.ok(fs.existsSync(path.join(BUNDLE, 'nines_viewer_bg.wasm')), `no viewer bundle in ${BUNDLE}: run scripts/build-viewer.sh`);
  assert.ok(fs.existsSync(NINES), `no ${NINES}: run cargo build -p nines-qos`);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nines-browser-'));
  const target = path.join(dir, 'target.dat');
  // Real runs: the nines collector at two queue depths (100 ms windows, 70/30 mix) and fio.
  const a = path.join(dir, 'uring-qd16.hlog');
  const b = path.join(dir, 'psync-qd1.hlog');
  run(['run', '--target', target, '--size', '64M', '--rw', 'randrw', '--mix', '70', '--qd', '16', '--runtime', '3s', '--window', '100ms', '--direct', '--name', 'uring QD16 randrw 70/30', '-o', a, '-q', '--no-summary']);
  run(['run', '--target', target, '--size', '64M', '--rw', 'randrw', '--mix', '70', '--qd', '1', '--engine', 'psync', '--runtime', '3s', '--window', '100ms', '--direct', '--name', 'psync QD1 randrw 70/30', '-o', b, '-q', '--no-summary']);
  execFileSync('fio', ['--name=rw', `--filename=${target}`, '--size=64m', '--rw=randrw', '--rwmixread=70', '--bs=4k', '--ioengine=io_uring',
    '--iodepth=8', '--direct=1', '--runtime=2', '--time_based', `--write_lat_log=${path.join(dir, 'fio')}`, '--log_avg_msec=0', '--output=/dev/null'], { stdio: 'ignore', timeout: 90000, killSignal: 'SIGKILL' });
  const c = path.join(dir, 'fio_clat.1.log');
  assert.ok(fs.existsSync(c), 'fio wrote no clat log');
  // a run of many short windows, which a worker's compact form carries merged
  const many = path.join(dir, 'many-windows.hlog');
  run(['run', '--target', target, '--size', '64M', '--rw', 'randrw', '--mix', '70', '--qd', '4', '--runtime', '3s', '--window', '2ms', '--direct', '--name', 'many windows', '-o', many, '-q', '--no-summary']);
  files = { a, b, c, many };
  // A broken archive: a good header, then a bad line 7.
  const lines = fs.readFileSync(a, 'utf8').split('\n');
  const firstData = lines.findIndex((l) => l.startsWith('Tag='));
  const broken = [...lines.slice(0, firstData), lines[firstData], 'Tag=read,0.1,0.1,1.0,HISTFAAAthis-is-not-a-histogram', ...lines.slice(firstData + 1, firstData + 3)].join('\n') + '\n';
  files.broken = path.join(dir, 'broken.hlog');
  fs.writeFileSync(files.broken, broken);
  files.brokenLine = firstData + 2;
  // A hostile archive: the run name and a tag carry markup and script.
  const hostileName = '<img src=x onerror="window.__pwned=1"></script><script>window.__pwned=2</script>';
  files.hostile = path.join(dir, 'hostile.hlog');
  fs.writeFileSync(files.hostile, lines.map((l) => l.startsWith('#[nines ')
    ? l.replace('"name":"uring QD16 randrw 70/30"', `"name":${JSON.stringify(hostileName)}`)
    : l.replace(/^Tag=write,/, 'Tag=<svg/onload=window.__pwned=3>,')).join('\n'));
  files.hostileName = hostileName;

  browser = await launch();
  site = await serve(BUNDLE, {
    '/manifest.json': JSON.stringify({ runs: [{ file: 'runs/a.hlog' }, { file: 'runs/b.hlog' }, { file: 'runs/fio_clat.1.log' }, { file: 'runs/missing.hlog' }] }),
    '/runs/a.hlog': a, '/runs/b.hlog': b, '/runs/fio_clat.1.log': c,
  });
});

after(async () => {
  await browser?.close();
  site?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/// Every row of the page's table equals `nines stats --json` and the cells read like the text.
function assertTableMatches(rows, json, text, dirs) {
  assert.ok(rows.length > 0, 'no table rows');
  for (const row of rows) {
    assert.ok(dirs.includes(row.dir), `row of direction ${row.dir}`);
    const js = json.runs[row.run].tags[row.dir];
    assert.ok(js, `nines stats has no ${row.dir} for run ${row.run}`);
    const c = row.cells;
    assert.equal(Number(c.count.ns), js.count, `count ${row.run} ${row.dir}`);
    assert.equal(Number(c.min.ns), js.min_ns);
    assert.equal(Number(c.max.ns), js.max_ns);
    assert.ok(Math.abs(Number(c.mean.ns) - js.mean_ns) <= 1e-9 * js.mean_ns, 'mean');
    assert.ok(Math.abs(Number(c.iops.ns) - js.iops) <= 1e-9 * js.iops, 'iops');
    for (const l of js.levels) {
      const cell = c[l.label];
      if (!cell) {
        assert.equal(l.value_ns, null, `${l.label} dropped although it has a value`);
        continue;
      }
      assert.equal(cell.ns, l.value_ns === null ? '' : String(l.value_ns), `${row.run} ${row.dir} ${l.label}`);
      assert.equal(cell.support, l.support, `${row.run} ${row.dir} ${l.label} support`);
      assert.equal(Number(cell.beyond), l.beyond, `${l.label} beyond`);
      if (l.support === 'thin') assert.match(cell.title, /thin: only/);
      if (l.ci95_ns) assert.match(cell.title, /95% CI/);
    }
    // the same text as the CLI's table
    const t = text[row.run][row.dir];
    for (const [col, val] of Object.entries(t)) {
      if (col === 'dir') continue;
      const key = { count: 'count', IOPS: 'iops', min: 'min', mean: 'mean', stdev: 'stdev', max: 'max' }[col] || col;
      if (!c[key]) {
        // the page drops level columns no shown row has a value in; the CLI decides per run
        assert.equal(val, '', `column ${col} missing in the page although nines stats prints ${val}`);
        continue;
      }
      assert.equal(c[key].text, val, `${row.run} ${row.dir} ${col}: page ${c[key].text} vs nines stats ${val}`);
    }
  }
}

test('manifest: runs load, a missing one shows its error, read and write open split, the table equals nines stats', async () => {
  const v = await Viewer.open(browser, `${site.base}/index.html`);
  await v.ready(3);
  const errs = await v.page.locator('[data-testid=load-error]').allTextContents();
  assert.equal(errs.length, 1);
  assert.match(errs[0], /runs\/missing\.hlog.*404/);
  const names = await v.page.locator('[data-testid=legend-run] > span:first-child').allTextContents();
  assert.deepEqual(names.map((n) => n.trim()).slice(0, 2), ['uring QD16 randrw 70/30', 'psync QD1 randrw 70/30']);
  const all = [files.a, files.b, files.c];
  // runs of reads and writes open with each direction shown, not merged
  assert.match(await v.page.getAttribute('[data-testid=dir-overlay]', 'class'), /active/);
  assert.match(await v.hash(), /dir=overlay/);
  const rows = await v.table();
  assert.equal(rows.length, 6);
  for (const r of [0, 1, 2]) assert.deepEqual(rows.filter((x) => x.run === r).map((x) => x.dir).sort(), ['read', 'write']);
  assertTableMatches(rows, ninesStats(all), ninesStatsText(all), ['read', 'write']);
  // run-to-run variability with several runs
  assert.ok(await v.page.locator('[data-testid=variability-row]').count() >= 1);
  // the sweep parameter found by itself (qd: 16 and 1) sweeps the two runs that have it and
  // names the fio run it leaves out, rather than failing on it
  assert.equal(await v.page.inputValue('[data-testid=sweep-param]'), 'qd');
  assert.equal(await v.page.locator('[data-testid=sweep-error]').count(), 0);
  assert.equal(await v.page.locator('[data-testid=sweep-row]').count(), 2);
  assert.match(await v.page.locator('[data-testid=panel-sweep]').textContent(), /Left out, no qd in their metadata: fio/);
  await v.shot('viewer-manifest-all');
  await v.shotOf('panel-cdf', 'panel-cdf');
  await v.shotOf('panel-hist', 'panel-hist');
  await v.shotOf('panel-runtime', 'panel-runtime');
  await v.shotOf('panel-rate', 'panel-rate');
  await v.shotOf('panel-stats', 'panel-stats');
  assert.deepEqual(v.errors, []);
  await v.page.context().close();
});

test('direction control applies to every panel', async () => {
  const v = await Viewer.open(browser, `${site.base}/index.html`);
  await v.ready(3);
  const all = [files.a, files.b, files.c];
  const json = ninesStats(all);
  const text = ninesStatsText(all);
  const before = { cdf: await v.canvas('cdf-canvas'), rt: await v.canvas('runtime-canvas'), hist: await v.canvas('hist-canvas'), rate: await v.canvas('rate-canvas') };
  await v.act(() => v.page.click('[data-testid=dir-read]'));
  assert.match(await v.hash(), /dir=read/);
  assertTableMatches(await v.table(), json, text, ['read']);
  for (const [k, id] of [['cdf', 'cdf-canvas'], ['rt', 'runtime-canvas'], ['hist', 'hist-canvas'], ['rate', 'rate-canvas']]) {
    assert.notEqual(await v.canvas(id), before[k], `${id} did not change with the direction`);
  }
  await v.act(() => v.page.click('[data-testid=dir-write]'));
  assertTableMatches(await v.table(), json, text, ['write']);
  await v.act(() => v.page.click('[data-testid=dir-overlay]'));
  const rows = await v.table();
  for (const r of [0, 1, 2]) {
    const dirs = rows.filter((x) => x.run === r).map((x) => x.dir);
    assert.ok(dirs.includes('read') && dirs.includes('write'), `run ${r} overlaid: ${dirs}`);
    assert.ok(!dirs.includes('all'));
  }
  assertTableMatches(rows, json, text, ['read', 'write', 'sync', 'trim']);
  await v.shot('viewer-overlay-read-write');
  // the legend hides a run from every panel
  const cdf = await v.canvas('cdf-canvas');
  await v.act(() => v.page.click('[data-testid=legend-run][data-run="1"]'));
  assert.match(await v.hash(), /hide=1/);
  assert.notEqual(await v.canvas('cdf-canvas'), cdf);
  assert.equal((await v.table()).filter((r) => r.run === 1).length, 0);
  assert.deepEqual(v.errors, []);
  await v.page.context().close();
});

test('wheel zoom re-aggregates, alt-drag pans, a drag zooms, a double-click returns to the whole run; both x axes follow', async () => {
  const v = await Viewer.open(browser, `${site.base}/index.html`);
  await v.ready(3);
  const box = await v.box('runtime-overlay');
  const rt0 = await v.canvas('runtime-canvas');
  const rate0 = await v.canvas('rate-canvas');
  const cx = box.x + box.width * 0.55, cy = box.y + box.height * 0.45;
  await v.page.mouse.move(cx, cy);
  await v.act(() => v.page.mouse.wheel(0, -400));
  await v.act(() => v.page.mouse.wheel(0, -400));
  const m = (await v.hash()).match(/zoom=([\d.e+-]+),([\d.e+-]+)/);
  assert.ok(m, `no zoom in ${await v.hash()}`);
  const [z0, z1] = [Number(m[1]), Number(m[2])];
  assert.ok(z1 - z0 < 3.2 * 0.7 && z1 - z0 > 0.5, `zoomed range ${z0}..${z1}`);
  assert.notEqual(await v.canvas('runtime-canvas'), rt0);
  assert.notEqual(await v.canvas('rate-canvas'), rate0, 'the rate chart follows the zoom');
  await v.shotOf('panel-runtime', 'panel-runtime-zoomed');
  // pan with alt-drag to the left: the window moves later in time
  await v.page.keyboard.down('Alt');
  await v.act(async () => {
    await v.page.mouse.move(cx, cy);
    await v.page.mouse.down();
    await v.page.mouse.move(cx - box.width * 0.2, cy, { steps: 4 });
    await v.page.mouse.up();
  });
  await v.page.keyboard.up('Alt');
  const p = (await v.hash()).match(/zoom=([\d.e+-]+),([\d.e+-]+)/);
  assert.ok(Number(p[1]) > z0, `pan moved ${z0} -> ${p[1]}`);
  assert.ok(Math.abs((Number(p[2]) - Number(p[1])) - (z1 - z0)) < 1e-6 * (z1 - z0) + 1e-9, 'pan keeps the width');
  await v.act(() => v.page.click('[data-testid=zoom-reset]'));
  assert.doesNotMatch(await v.hash(), /zoom=/);
  assert.equal(await v.canvas('runtime-canvas'), rt0, 'reset returns to the same picture');
  // a plain drag zooms to the dragged range (as on the 1-CDF) and selects nothing; on the
  // rate chart as on the runtime chart
  for (const chart of ['runtime-overlay', 'rate-overlay']) {
    await v.brush(chart, 0.3, 0.6, null);
    const d = (await v.hash()).match(/zoom=([\d.e+-]+),([\d.e+-]+)/);
    assert.ok(d, `a drag on ${chart} zooms: ${await v.hash()}`);
    assert.ok(Number(d[2]) - Number(d[1]) < 3.2 * 0.45, `zoomed to about 30% of the run: ${d[1]}..${d[2]}`);
    assert.doesNotMatch(await v.hash(), /sel=/);
    assert.notEqual(await v.canvas('runtime-canvas'), rt0);
    // a double-click anywhere on a time chart returns to the whole run
    const cb = await v.box(chart);
    await v.act(() => v.page.dblclick(`[data-testid=${chart}]`, { position: { x: cb.width * 0.5, y: cb.height * 0.5 } }));
    assert.doesNotMatch(await v.hash(), /zoom=/);
    assert.equal(await v.canvas('runtime-canvas'), rt0, 'a double-click returns to the same picture');
  }
  assert.deepEqual(v.errors, []);
  await v.page.context().close();
});

test('brushing a time range restricts every panel; the table equals nines stats --from --to', async () => {
  const v = await Viewer.open(browser, `${site.base}/index.html`);
  await v.ready(3);
  const cdf0 = await v.canvas('cdf-canvas');
  const hist0 = await v.canvas('hist-canvas');
  await v.brush('runtime-overlay', 0.35, 0.7);
  const m = (await v.hash()).match(/sel=([\d.e+-]+),([\d.e+-]+)/);
  assert.ok(m, `no selection in ${await v.hash()}`);
  assert.ok(await v.page.locator('[data-testid=selection]').isVisible());
  assert.notEqual(await v.canvas('cdf-canvas'), cdf0, '1-CDF follows the selection');
  assert.notEqual(await v.canvas('hist-canvas'), hist0, 'histogram follows the selection');
  const all = [files.a, files.b, files.c];
  const extra = ['--from', m[1], '--to', m[2]];
  const rows = await v.table();
  assertTableMatches(rows, ninesStats(all, extra), ninesStatsText(all, extra), ['read', 'write']);
  // the range snapped to window edges: a window of some run starts exactly at each end, so
  // moving an end by a microsecond changes what nines stats counts
  const ios = (from, to) => ninesStats(all, ['--from', String(from), '--to', String(to)]).runs
    .reduce((n, r) => n + (r.tags.read?.count ?? 0) + (r.tags.write?.count ?? 0), 0);
  const [s0, s1] = [Number(m[1]), Number(m[2])];
  const held = ios(s0, s1);
  assert.ok(ios(s0 + 1e-6, s1) < held, `a window starts at ${s0}`);
  assert.ok(ios(s0, s1 + 1e-6) > held, `a window starts at ${s1}`);
  // the banner states the windows and I/Os the table uses
  assert.equal(rows.reduce((n, r) => n + Number(r.cells.count.ns), 0), held);
  const holds = await v.page.locator('[data-testid=selection-holds]').textContent();
  assert.match(holds, new RegExp(`^: \\d+ windows of 3 runs, ${held.toLocaleString('en-US')} I/Os$`), holds);
  const whole = ninesStats(all);
  assert.ok(rows.every((r) => Number(r.cells.count.ns) < whole.runs[r.run].tags[r.dir].count), 'the selection has fewer I/Os');
  await v.shot('viewer-brushed');
  await v.act(() => v.page.click('[data-testid=clear-selection]'));
  assert.doesNotMatch(await v.hash(), /sel=/);
  assert.equal(await v.canvas('cdf-canvas'), cdf0);
  assert.deepEqual(v.errors, []);
  await v.page.context().close();
});

test('1-CDF box zoom, reset and hover readout', async () => {
  const v = await Viewer.open(browser, `${site.base}/index.html`);
  await v.ready(3);
  const box = await v.box('cdf-overlay');
  const cdf0 = await v.canvas('cdf-canvas');
  await v.page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5);
  await v.page.waitForFunction(() => /nines/.test(document.querySelector('[data-testid=cdf-readout]').textContent));
  const readout = await v.page.locator('[data-testid=cdf-readout]').textContent();
  assert.match(readout, /(uring QD16.*nines|beyond the max)/);
  await v.act(async () => {
    await v.page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.3);
    await v.page.mouse.down();
    await v.page.mouse.move(box.x + box.width * 0.8, box.y + box.height * 0.85, { steps: 5 });
    await v.page.mouse.up();
  });
  assert.match(await v.hash(), /cdf=/);
  assert.notEqual(await v.canvas('cdf-canvas'), cdf0);
  await v.shotOf('panel-cdf', 'panel-cdf-box-zoomed');
  await v.act(() => v.page.dblclick('[data-testid=cdf-overlay]'));
  assert.doesNotMatch(await v.hash(), /cdf=/);
  assert.equal(await v.canvas('cdf-canvas'), cdf0);
  await v.page.context().close();
});

test('a link reopens the same view', async () => {
  const v = await Viewer.open(browser, `${site.base}/index.html#dir=write&lv=2,5&x=ios&hide=2`);
  await v.ready(3);
  assert.match(await v.page.getAttribute('[data-testid=dir-write]', 'class'), /active/);
  assert.match(await v.page.getAttribute('[data-testid=level-5]', 'class'), /active/);
  assert.doesNotMatch(await v.page.getAttribute('[data-testid=level-3]', 'class') || '', /active/);
  assert.match(await v.page.getAttribute('[data-testid=x-ios]', 'class'), /active/);
  const rows = await v.table();
  assert.ok(rows.length === 2 && rows.every((r) => r.dir === 'write' && r.run !== 2));
  assert.match(await v.page.locator('[data-testid=panel-runtime]').textContent(), /p99\.999/);
  await v.shot('viewer-link-write-ios');
  await v.page.context().close();
});

test('runs of one name opened one after another: the one shown is renamed, as nines stats names them', async () => {
  const bare = await serve(BUNDLE);
  try {
    const data = ['fio-randrw.json', 'fio-randrw_clat_hist.1.log'].map((f) => path.join(ROOT, 'tests/data', f));
    const v = await Viewer.open(browser, `${bare.base}/index.html`);
    await v.page.waitForSelector('[data-testid=no-runs]');
    const legend = async () => (await v.page.locator('[data-testid=legend-run] > span:first-child').allTextContents()).map((n) => n.trim());
    const tableNames = () => v.page.evaluate(() => [...new Set([...document.querySelectorAll('[data-testid=stats-row] td.name')].map((td) => td.textContent))]);
    await v.page.setInputFiles('[data-testid=file-input]', [data[0]]);
    await v.ready(1);
    assert.deepEqual(await legend(), ['fio-randrw'], 'alone, a run keeps its name');
    // the first run is drawn (its traces and stats cached) before the second arrives
    await v.page.setInputFiles('[data-testid=file-input]', [data[1]]);
    await v.ready(2);
    const want = ninesStats(data).runs.map((r) => r.name);
    assert.deepEqual(want, ['fio-randrw (fio-randrw.json)', 'fio-randrw (fio-randrw_clat_hist.1.log)']);
    assert.deepEqual(await legend(), want);
    assert.deepEqual(await tableNames(), want);
    assert.deepEqual(v.errors, []);
    await v.page.context().close();
  } finally {
    bare.close();
  }
});

test('file picker: a broken file shows file, line and reason; the others stay', async () => {
  const bare = await serve(BUNDLE);
  try {
    const v = await Viewer.open(browser, `${bare.base}/index.html`);
    await v.page.waitForSelector('[data-testid=no-runs]');
    await v.page.setInputFiles('[data-testid=file-input]', [files.c, files.broken, files.a]);
    await v.ready(2);
    const errs = await v.page.locator('[data-testid=load-error]').allTextContents();
    assert.equal(errs.length, 1, errs.join('\n'));
    assert.match(errs[0], new RegExp(`^broken\\.hlog: line ${files.brokenLine}: \\S`));
    const rows = await v.table();
    assert.equal(rows.length, 4);
    const both = [files.c, files.a];
    assertTableMatches(rows, ninesStats(both), ninesStatsText(both), ['read', 'write']);
    // drag and drop of another run onto the page
    const dropped = fs.readFileSync(files.b).toString('base64');
    await v.page.evaluate((b64) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], 'dropped.hlog'));
      document.querySelector('.app').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, dropped);
    await v.ready(3);
    const after = await v.table();
    assert.equal(after.length, 6);
    const dropped2 = after.filter((r) => r.run === 2);
    assert.deepEqual(dropped2.map((r) => r.dir).sort(), ['read', 'write']);
    for (const r of dropped2) assert.equal(Number(r.cells.count.ns), ninesStats([files.b]).runs[0].tags[r.dir].count);
    await v.shot('viewer-picker-error');
    await v.page.context().close();
  } finally {
    bare.close();
  }
});

test('raw files decode in workers: each shows its progress, the page holds compact forms, a brush counts the groups that start in it', async () => {
  const bare = await serve(BUNDLE);
  try {
    const v = await Viewer.open(browser, `${bare.base}/index.html`);
    await v.page.waitForSelector('[data-testid=no-runs]');
    // a page without runs starts its workers before any file is given, and they warm up once
    // it has been left alone half a second: the files below go to warmed workers (the file
    // picker's test gives its files at once, before the warm-up)
    for (let t = 0; !bare.requests.includes('/nines_worker_bg.wasm'); t++) {
      assert.ok(t < 200, `no worker started ahead of the files: ${bare.requests.join(' ')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(bare.requests.includes('/worker.js'));
    await new Promise((r) => setTimeout(r, 1500));
    const both = [files.many, files.a];
    await v.page.setInputFiles('[data-testid=file-input]', both);
    await v.ready(2);
    // the workers' module was fetched once, and each file says how it went
    assert.equal(bare.requests.filter((r) => r === '/nines_worker_bg.wasm').length, 1, bare.requests.join(' '));
    await v.page.waitForFunction(() => [...document.querySelectorAll('[data-testid=progress-file]')].every((e) => e.dataset.state === 'drawn'));
    const progress = await v.page.locator('[data-testid=progress-file]').allTextContents();
    assert.equal(progress.length, 2);
    progress.forEach((p, i) => assert.match(p, new RegExp(`^${path.basename(both[i]).replace('.', '\\.')}: decoded in \\d+\\.\\d s$`)));
    // in file order, each a compact form whose grouping the page states
    const names = await v.page.locator('[data-testid=legend-run] > span:first-child').allTextContents();
    assert.deepEqual(names.map((n) => n.trim()), ['many windows', 'uring QD16 randrw 70/30']);
    // the long one grouped, the short one whole
    const note = await v.page.locator('[data-testid=carries]').textContent();
    assert.match(note, /many windows: histograms of \d+ms \(groups of \d+ windows\)/);
    assert.match(note, /uring QD16 randrw 70\/30: histograms of every window \(100ms\)/);
    assertTableMatches(await v.table(), ninesStats(both), ninesStatsText(both), ['read', 'write']);
    await v.shot('viewer-workers');
    // a brushed range: the grouped run counts the groups that start in it (as the page says,
    // and as a report does), the other run its windows in it; no file is read again
    // (back to the left edge: this short run's one group starts there)
    await v.brush('runtime-overlay', 0.6, 0.0);
    const m = (await v.hash()).match(/sel=([\d.e+-]+),([\d.e+-]+)/);
    assert.ok(m, `no selection in ${await v.hash()}`);
    const [from, to] = [Number(m[1]), Number(m[2])];
    assert.match(await v.page.locator('[data-testid=carries]').textContent(), /many windows: histograms of \d+ms \(groups of \d+ windows\); a brushed range counts the groups that start in it/);
    // the groups: consecutive windows from the first, as the note gives their number
    const per = Number(note.match(/many windows: histograms of \d+ms \(groups of (\d+) windows\)/)[1]);
    const starts = [...new Set(hlogWindows(files.many).map((w) => w.start))].sort((x, y) => x - y);
    const groupStarts = starts.filter((_, i) => i % per === 0);
    const inRange = groupStarts.map((g, k) => [g, k]).filter(([g]) => g >= from && g < to);
    assert.ok(inRange.length > 0, `no group starts in ${from} to ${to}: ${per} a group, ${starts.length} starts ${starts.slice(0, 3)} .. ${starts.slice(-2)}`);
    const last = inRange[inRange.length - 1][1];
    const snapped = ['--from', String(inRange[0][0]), '--to', String(groupStarts[last + 1] ?? 1e9)];
    const exact = ['--from', m[1], '--to', m[2]];
    const json = { runs: [ninesStats([files.many], snapped).runs[0], ninesStats([files.a], exact).runs[0]] };
    const text = [ninesStatsText([files.many], snapped)[0], ninesStatsText([files.a], exact)[0]];
    assertTableMatches(await v.table(), json, text, ['read', 'write']);
    assert.equal(bare.requests.filter((r) => r.endsWith('.hlog')).length, 0, 'no file fetched for the brush');
    assert.deepEqual(v.errors, []);
    await v.page.context().close();
  } finally {
    bare.close();
  }
});

test('workers started ahead of the files that failed to load are replaced: the files still decode', async () => {
  // the prepared workers' script fails (as over a flaky link), then loads again
  const script = path.join(BUNDLE, 'worker.js');
  const bare = await serve(BUNDLE, { '/worker.js': (n) => (n < 2 ? null : script) });
  try {
    const v = await Viewer.open(browser, `${bare.base}/index.html`);
    await v.page.waitForSelector('[data-testid=no-runs]');
    for (let t = 0; bare.requests.filter((r) => r === '/worker.js').length < 2; t++) {
      assert.ok(t < 200, `the workers were not started ahead of the files: ${bare.requests.join(' ')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 1000));
    await v.page.setInputFiles('[data-testid=file-input]', [files.a]);
    await v.ready(1);
    await v.page.waitForFunction(() => [...document.querySelectorAll('[data-testid=progress-file]')].every((e) => e.dataset.state === 'drawn'));
    assert.ok(bare.requests.filter((r) => r === '/worker.js').length >= 3, bare.requests.join(' '));
    assertTableMatches(await v.table(), ninesStats([files.a]), ninesStatsText([files.a]), ['read', 'write']);
    assert.deepEqual(v.errors, []);
    await v.page.context().close();
  } finally {
    bare.close();
  }
});

test('embedded runs load; hostile names and tags stay text; exports download', async () => {
  const page = fs.readFileSync(path.join(BUNDLE, 'index.html'), 'utf8');
  const payload = JSON.stringify({ runs: [
    { name: 'hostile.hlog', base64: fs.readFileSync(files.hostile).toString('base64') },
    { name: 'b.hlog', base64: fs.readFileSync(files.b).toString('base64') },
  ] }).replace(/</g, '\\u003c');
  const html = page.replace('<script type="application/json" id="nines-runs"></script>', `<script type="application/json" id="nines-runs">${payload}</script>`);
  assert.notEqual(html, page, 'the shell has no embedded-runs element to fill');
  const emb = await serve(BUNDLE, { '/report.html': html });
  try {
    const v = await Viewer.open(browser, `${emb.base}/report.html#dir=overlay`);
    await v.ready(2);
    const legend = await v.page.locator('[data-testid=legend-run] > span').first().textContent();
    assert.equal(legend.trim(), files.hostileName);
    assert.equal(await v.page.evaluate(() => window.__pwned), undefined);
    assert.equal(await v.page.locator('img').count(), 0);
    const dirs = (await v.table()).filter((r) => r.run === 0).map((r) => r.dir);
    assert.ok(dirs.includes('<svg/onload=window.__pwned=3>'), dirs.join());
    assert.ok(!emb.requests.some((u) => u.includes('manifest')), 'embedded runs: no manifest request');
    // exports
    const [csv] = await Promise.all([v.page.waitForEvent('download'), v.page.click('[data-testid=export-csv]')]);
    const csvText = fs.readFileSync(await csv.path(), 'utf8');
    const lines = csvText.trim().split('\n');
    assert.equal(lines.length, 1 + (await v.table()).length);
    assert.match(lines[0], /^run,file,direction,count,iops/);
    const [svg] = await Promise.all([v.page.waitForEvent('download'), v.page.click('[data-testid=export-cdf-svg]')]);
    const svgText = fs.readFileSync(await svg.path(), 'utf8');
    assert.match(svgText, /^<svg/);
    assert.match(svgText, /0\.1%/);
    assert.match(svgText, /p99\.9/);
    assert.ok(!svgText.includes('<img') && !svgText.includes('<script'), 'names are escaped in the SVG');
    const [png] = await Promise.all([v.page.waitForEvent('download'), v.page.click('[data-testid=export-runtime-png]')]);
    const pngBytes = fs.readFileSync(await png.path());
    assert.deepEqual([...pngBytes.subarray(1, 4)], [0x50, 0x4e, 0x47]);
    assert.equal(await v.page.evaluate(() => window.__pwned), undefined);
    await v.shot('viewer-embedded-hostile');
    await v.page.context().close();
  } finally {
    emb.close();
  }
});

test('high-density screens: canvases hold device pixels, the mouse still maps to data', async () => {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 1200 }, deviceScaleFactor: 2 });
  const v = new Viewer(await ctx.newPage());
  await v.page.goto(`${site.base}/index.html`);
  await v.ready(3);
  // no baseline marked: the compare panel folds to its tools line and its chart is not drawn
  assert.equal(await v.page.locator('[data-testid=panel-compare]').getAttribute('data-empty'), '1');
  assert.equal(await v.page.locator('[data-testid=change-canvas]').isVisible(), false);
  for (const id of ['cdf-canvas', 'cdf-overlay', 'runtime-canvas', 'rate-canvas', 'hist-canvas', 'sweep-canvas', 'conv-canvas']) {
    const [w, h, cw, ch] = await v.page.evaluate((id) => {
      const c = document.querySelector(`[data-testid=${id}]`);
      return [c.width, c.height, parseFloat(c.style.width), parseFloat(c.style.height)];
    }, id);
    assert.equal(w, 2 * cw, `${id} width`);
    assert.equal(h, 2 * ch, `${id} height`);
  }
  // a box dragged on the 1-CDF in CSS pixels zooms to the data under it
  const box = await v.box('cdf-overlay');
  await v.act(async () => {
    await v.page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.2);
    await v.page.mouse.down();
    await v.page.mouse.move(box.x + box.width * 0.7, box.y + box.height * 0.6, { steps: 4 });
    await v.page.mouse.up();
  });
  const m = (await v.hash()).match(/cdf=([^&]+)/);
  assert.ok(m, 'box zoom in the hash');
  const [x0, x1] = m[1].split(',').map(Number);
  assert.ok(x0 < x1 && x0 > 0, `zoomed latency range ${x0}..${x1}`);
  await v.shotOf('panel-cdf', 'viewer-hidpi-cdf');
  assert.deepEqual(v.errors, []);
  await ctx.close();
});

test('trims: a randtrim run shows its trim direction, the table equals nines stats', async () => {
  const t = path.join(dir, 'trim-target.dat');
  const f = path.join(dir, 'randtrim.hlog');
  run(['run', '--target', t, '--size', '16M', '--rw', 'randtrim', '--bs', '64k', '--ios', '400', '--window', '100ms', '--name', 'randtrim 64k', '-o', f, '-q', '--no-summary']);
  const s = await serve(BUNDLE, { '/manifest.json': JSON.stringify({ runs: [{ file: 'runs/t.hlog' }] }), '/runs/t.hlog': f });
  try {
    const v = await Viewer.open(browser, `${s.base}/index.html#dir=trim`);
    await v.ready(1);
    const rows = await v.table();
    assert.deepEqual(rows.map((r) => r.dir), ['trim']);
    const js = ninesStats([f]).runs[0].tags.trim;
    assert.equal(Number(rows[0].cells.count.ns), js.count);
    assert.equal(js.count, 400);
    assert.equal(Number(rows[0].cells.max.ns), js.max_ns);
    await v.shotOf('panel-stats', 'viewer-trim-table');
    assert.deepEqual(v.errors, []);
    await v.page.context().close();
  } finally {
    s.close();
  }
});

/// The windows of an archive nines wrote (its BaseTime is its StartTime: timestamps count from
/// the start), each histogram decoded here from its HdrHistogram V2 encoding (the
/// HdrHistogram format, independently of nines): {tag, start, counts: [[median equivalent
/// value, count]]}.
function hlogWindows(file) {
  const out = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = line.match(/^Tag=([^,]+),([\d.]+),([\d.]+),[\d.]+,(\S+)$/);
    if (!m) continue;
    const raw = Buffer.from(m[4], 'base64');
    assert.equal((raw.readUInt32BE(0) & ~0xf0) >>> 0, 0x1c849304, 'a compressed V2 histogram (the cookie less its word size bits)');
    const b = zlib.inflateSync(raw.subarray(8, 8 + raw.readUInt32BE(4)));
    assert.equal((b.readUInt32BE(0) & ~0xf0) >>> 0, 0x1c849303, 'a V2 histogram');
    const payload = b.readUInt32BE(4);
    const sigfig = b.readUInt32BE(12);
    const lowest = Number(b.readBigUInt64BE(16));
    const halfMag = Math.ceil(Math.log2(2 * 10 ** sigfig)) - 1;
    const half = 2 ** halfMag;
    const unitMag = Math.floor(Math.log2(lowest));
    const counts = [];
    let at = 40;
    let index = 0;
    while (at < 40 + payload) {
      // ZigZag LEB128 of at most 9 bytes, the 9th of 8 bits; a negative count skips empty buckets
      let v = 0n;
      let shift = 0n;
      for (let i = 0; ; i++) {
        const byte = b[at++];
        if (i === 8) { v |= BigInt(byte) << shift; break; }
        v |= BigInt(byte & 0x7f) << shift;
        shift += 7n;
        if (!(byte & 0x80)) break;
      }
      const n = Number((v >> 1n) ^ -(v & 1n));
      if (n < 0) { index += -n; continue; }
      if (n > 0) {
        let bucket = (index >> halfMag) - 1;
        let sub = (index & (half - 1)) + half;
        if (bucket < 0) { sub -= half; bucket = 0; }
        const size = 2 ** (bucket + unitMag);
        counts.push([sub * size + Math.floor(size / 2), n]);
      }
      index++;
    }
    out.push({ tag: m[1], start: Number(m[2]), counts });
  }
  return out;
}

/// The page's heatmap as it last drew it (its test hook, the viewer module's export).
function heatmapCells(v) {
  return v.page.evaluate(async () => JSON.parse((await import('./nines_viewer.js')).heatmap_cells()));
}

/// Every column of a heatmap row equals the windows of its direction that start in its time
/// range, merged here: I/Os per latency bin (each bucket whole in the bin of its midpoint, 40 a
/// decade), and its count and max as `nines stats --from --to` gives them.
function assertColumnsAreWindows(row, windows, tag, file, statsEvery = 7) {
  assert.ok(row.columns.length > 0, `${row.label}: no columns`);
  let total = 0;
  row.columns.forEach((c, i) => {
    const want = new Map();
    let n = 0;
    for (const w of windows.filter((w) => w.tag === tag && w.start >= c.start_s - 1e-9 && w.start < c.end_s - 1e-9)) {
      for (const [value, count] of w.counts) {
        const k = Math.floor(Math.log10(Math.max(value, 1)) * row.bins_per_decade);
        want.set(k, (want.get(k) || 0) + count);
        n += count;
      }
    }
    const got = new Map(c.bins.map((count, j) => [c.first_bin + j, count]).filter(([, count]) => count > 0));
    assert.deepEqual([...got].sort((a, b) => a[0] - b[0]), [...want].sort((a, b) => a[0] - b[0]), `${row.label} column ${i} (${c.start_s}..${c.end_s} s)`);
    assert.equal(c.count, n);
    total += n;
    if (c.count > 0 && i % statsEvery === 0) {
      const js = ninesStats([file], ['--from', String(c.start_s), '--to', String(c.end_s)]).runs[0].tags[tag];
      assert.equal(c.count, js.count, `column ${i}: nines stats --from --to count`);
      assert.equal(c.max, js.max_ns, `column ${i}: nines stats max`);
    }
  });
  return total;
}

test('heatmap: every column is the merge of the windows it covers; it zooms and brushes with the runtime chart', async () => {
  const v = await Viewer.open(browser, `${site.base}/index.html`);
  await v.ready(3);
  const windows = hlogWindows(files.a);
  let rows = await heatmapCells(v);
  // split by default: a row per direction of the first runs, up to four
  assert.deepEqual(rows.map((r) => r.label), ['uring QD16 randrw 70/30 read', 'uring QD16 randrw 70/30 write', 'psync QD1 randrw 70/30 read', 'psync QD1 randrw 70/30 write']);
  assert.equal(assertColumnsAreWindows(rows[0], windows, 'read', files.a), ninesStats([files.a]).runs[0].tags.read.count);
  assertColumnsAreWindows(rows[1], windows, 'write', files.a);
  assertColumnsAreWindows(rows[2], hlogWindows(files.b), 'read', files.b);
  const canvas = () => v.page.locator('[data-testid=heatmap-canvas]');
  assert.equal(await canvas().getAttribute('data-columns'), rows.map((r) => r.columns.length).join(','));
  await v.shotOf('panel-heatmap', 'panel-heatmap');
  // hover: the cell under the mouse, its range, count and share
  // hover: the cell under the mouse (the row's median, mid-run), its range, count and share
  const frame0 = rows[0];
  const mid = frame0.columns[Math.floor(frame0.columns.length / 2)];
  await v.page.locator('[data-testid=heatmap-canvas]').scrollIntoViewIfNeeded();
  const box = await v.box('heatmap-canvas');
  const [fl, fr, ft, fb] = (await canvas().getAttribute('data-frame')).split(',').map(Number);
  const [x0, x1] = (await canvas().getAttribute('data-x')).split(',').map(Number);
  const [y0, y1] = (await canvas().getAttribute('data-y')).split(',').map(Number);
  const js = ninesStats([files.a], ['--from', String(mid.start_s), '--to', String(mid.end_s)]).runs[0].tags.read;
  const p50 = js.levels.find((l) => l.label === 'p50').value_ns;
  const px = box.x + fl + ((mid.x0 + mid.x1) / 2 - x0) / (x1 - x0) * (fr - fl);
  const py = box.y + fb - (Math.log10(p50) - Math.log10(y0)) / (Math.log10(y1) - Math.log10(y0)) * (fb - ft);
  await v.page.mouse.move(px, py);
  await v.page.waitForFunction(() => document.querySelector('[data-testid=heatmap-readout]').textContent.length > 0);
  const readout = await v.page.locator('[data-testid=heatmap-readout]').textContent();
  const m = readout.match(/^uring QD16 randrw 70\/30 read, ([\d.]+) s to ([\d.]+) s: \S+ to \S+: ([\d,]+) I\/Os, [\d.]+% of the column's ([\d,]+)$/);
  assert.ok(m, readout);
  assert.equal(Number(m[4].replace(/,/g, '')), mid.count, 'the column under the mouse');
  assert.ok(Number(m[3].replace(/,/g, '')) > 0, 'the median bin holds I/Os');
  // the readout sits beside the mouse, not under the chart
  const tip = await v.box('heatmap-readout');
  const gap = Math.max(0, tip.x - px, px - (tip.x + tip.width)) + Math.max(0, tip.y - py, py - (tip.y + tip.height));
  assert.ok(gap <= 40, `the readout is ${gap} px from the mouse: ${JSON.stringify(tip)} against ${px},${py}`);
  // six traces, four rows: a button per trace chooses which are drawn
  const buttons = v.page.locator('[data-testid=heatmap-row]');
  assert.equal(await buttons.count(), 6);
  const off = await v.page.evaluate(() => [...document.querySelectorAll('[data-testid=heatmap-row]')].filter((b) => !b.classList.contains('active')).map((b) => b.dataset.label));
  assert.equal(off.length, 2, JSON.stringify(off));
  await v.act(() => v.page.click(`[data-testid=heatmap-row][data-label="${off[0]}"]`));
  const chosen = (await heatmapCells(v)).map((r) => r.label);
  assert.equal(chosen.length, 4);
  assert.ok(chosen.includes(off[0]) && !chosen.includes(rows[0].label), `${off[0]} drawn in place of the first row: ${chosen}`);
  await v.shotOf('panel-heatmap', 'panel-heatmap-chosen');
  // back to the first four for what follows
  await v.act(() => v.page.click(`[data-testid=heatmap-row][data-label="${off[0]}"]`));
  await v.act(() => v.page.click(`[data-testid=heatmap-row][data-label="${rows[0].label}"]`));
  assert.deepEqual((await heatmapCells(v)).map((r) => r.label).sort(), rows.map((r) => r.label).sort());
  // zoom on the runtime chart: the heatmap takes its range, and its columns are still windows
  const heat0 = await v.canvas('heatmap-canvas');
  await v.page.evaluate(() => window.scrollTo(0, 0));
  const rt = await v.box('runtime-overlay');
  await v.page.mouse.move(rt.x + rt.width * 0.55, rt.y + rt.height * 0.45);
  await v.act(() => v.page.mouse.wheel(0, -400));
  await v.act(() => v.page.mouse.wheel(0, -400));
  const z = (await v.hash()).match(/zoom=([\d.e+-]+),([\d.e+-]+)/);
  assert.ok(z, `no zoom in ${await v.hash()}`);
  assert.equal(await canvas().getAttribute('data-x'), `${Number(z[1])},${Number(z[2])}`);
  assert.notEqual(await v.canvas('heatmap-canvas'), heat0, 'the heatmap follows the zoom');
  rows = await heatmapCells(v);
  assert.ok(rows[0].columns[0].x0 <= Number(z[1]) + 0.1 && rows[0].columns.at(-1).x1 >= Number(z[2]) - 0.1, 'the columns cover the zoomed range');
  assert.ok(rows[0].columns.length < frame0.columns.length, 'fewer windows in the zoomed range');
  assertColumnsAreWindows(rows[0], windows, 'read', files.a, 1);
  // a brush on the runtime chart is marked on the heatmap, which keeps the zoomed range
  const zoomed = await v.canvas('heatmap-canvas');
  await v.brush('runtime-overlay', 0.3, 0.6);
  assert.match(await v.hash(), /sel=/);
  assert.equal(await canvas().getAttribute('data-x'), `${Number(z[1])},${Number(z[2])}`);
  assert.notEqual(await v.canvas('heatmap-canvas'), zoomed, 'the brushed range is marked');
  await v.shotOf('panel-heatmap', 'panel-heatmap-zoomed-brushed');
  // the x axis in I/Os: columns span the I/Os of their windows
  await v.act(() => v.page.click('[data-testid=x-ios]'));
  rows = await heatmapCells(v);
  const read = ninesStats([files.a]).runs[0].tags.read.count;
  assert.equal(rows[0].columns[0].x0, 0);
  assert.equal(rows[0].columns.at(-1).x1, read);
  assertColumnsAreWindows(rows[0], windows, 'read', files.a, 1000);
  // exports
  const [svg] = await Promise.all([v.page.waitForEvent('download'), v.page.click('[data-testid=export-heatmap-svg]')]);
  const svgText = fs.readFileSync(await svg.path(), 'utf8');
  assert.match(svgText, /^<svg/);
  assert.match(svgText, /share of the column.{1,6}s I\/Os in the bin/);
  const [png] = await Promise.all([v.page.waitForEvent('download'), v.page.click('[data-testid=export-heatmap-png]')]);
  assert.deepEqual([...fs.readFileSync(await png.path()).subarray(1, 4)], [0x50, 0x4e, 0x47]);
  assert.deepEqual(v.errors, []);
  await v.page.context().close();
});

test('heatmap: a real randrw run stopped for 2 s shows the stalled I/Os in the 2 s bins', async () => {
  // nines on io_uring against a real file, its process stopped (SIGSTOP) for 2 s in the
  // middle: the I/Os in flight complete meanwhile and are reaped 2 s after submission
  const target = path.join(dir, 'stall.dat');
  const out = path.join(dir, 'stall.hlog');
  const child = spawn(NINES, ['run', '--target', target, '--size', '64M', '--rw', 'randrw', '--mix', '70', '--qd', '16', '--runtime', '6s',
    '--window', '100ms', '--direct', '--name', 'randrw stalled 2 s', '-o', out, '-q', '--no-summary'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise((resolve) => child.on('exit', (code, sig) => resolve([code, sig])));
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  // the file is laid out first; stop once the run is writing windows
  for (let i = 0; i < 600 && !(fs.existsSync(out) && fs.readFileSync(out, 'utf8').split('\n').filter((l) => l.startsWith('Tag=')).length >= 20); i++) await sleep(50);
  await sleep(500);
  process.kill(child.pid, 'SIGSTOP');
  await sleep(2000);
  process.kill(child.pid, 'SIGCONT');
  assert.deepEqual(await exited, [0, null]);
  const s = await serve(BUNDLE, { '/manifest.json': JSON.stringify({ runs: [{ file: 'runs/stall.hlog' }] }), '/runs/stall.hlog': out });
  try {
    const v = await Viewer.open(browser, `${s.base}/index.html`, { width: 1400, height: 1400 });
    await v.ready(1);
    const rows = await heatmapCells(v);
    assert.deepEqual(rows.map((r) => r.label), ['randrw stalled 2 s read', 'randrw stalled 2 s write']);
    const windows = hlogWindows(out);
    assertColumnsAreWindows(rows[0], windows, 'read', out);
    assertColumnsAreWindows(rows[1], windows, 'write', out);
    // the stalled column(s): I/Os from 1.5 s up, in no other column
    const slow = (r) => r.columns.map((c, i) => [i, c.bins.reduce((n, count, j) => n + (10 ** ((c.first_bin + j) / r.bins_per_decade) >= 1.5e9 ? count : 0), 0)]).filter(([, n]) => n > 0);
    const stalled = [...slow(rows[0]), ...slow(rows[1])];
    assert.ok(stalled.length >= 1, 'no column holds I/Os of about 2 s');
    const n = stalled.reduce((a, [, c]) => a + c, 0);
    assert.ok(n >= 1 && n <= 16, `${n} I/Os stalled; QD16 has at most 16 in flight`);
    const max = ninesStats([out]).runs[0].tags.all.max_ns;
    assert.ok(max >= 1.9e9 && max < 3e9, `the run's max is ${max} ns`);
    // the stall is drawn where its column is, and the levels and max lines over it
    await v.page.evaluate(() => document.querySelector('[data-testid=panel-heatmap]').scrollIntoView());
    const file = await v.shotOf('panel-heatmap', 'heatmap-stall');
    assert.ok(fs.statSync(file).size > 10000);
    assert.deepEqual(v.errors, []);
    await v.page.context().close();
  } finally {
    s.close();
  }
});

test('a link choosing all keeps the directions merged; a click on all is kept in the link', async () => {
  const v = await Viewer.open(browser, `${site.base}/index.html#dir=all`);
  await v.ready(3);
  assert.match(await v.page.getAttribute('[data-testid=dir-all]', 'class'), /active/);
  const rows = await v.table();
  assert.equal(rows.length, 3);
  assert.ok(rows.every((r) => r.dir === 'all'));
  assert.deepEqual((await heatmapCells(v)).map((r) => r.label), ['uring QD16 randrw 70/30 all', 'psync QD1 randrw 70/30 all', 'fio all']);
  await v.page.context().close();
  const w = await Viewer.open(browser, `${site.base}/index.html`);
  await w.ready(3);
  await w.act(() => w.page.click('[data-testid=dir-all]'));
  assert.match(await w.hash(), /dir=all/);
  await w.page.context().close();
});

test('focus run: from five runs one is drawn strong and the others faint; the legend picks it, the link keeps it', async () => {
  // six runs (the two collector runs under six file names: named apart by file name)
  const routes = { '/manifest.json': JSON.stringify({ runs: [1, 2, 3, 4, 5, 6].map((i) => ({ file: `runs/r${i}.hlog` })) }) };
  for (const i of [1, 2, 3, 4, 5, 6]) routes[`/runs/r${i}.hlog`] = i % 2 ? files.a : files.b;
  const s = await serve(BUNDLE, routes);
  try {
    const focusOf = (v) => v.page.getAttribute('[data-testid=runtime-canvas]', 'data-focus');
    const names = (v) => v.page.$$eval('[data-testid=legend-run] .rname', (e) => e.map((x) => x.textContent));
    const v = await Viewer.open(browser, `${s.base}/index.html`);
    await v.ready(6);
    const n = await names(v);
    assert.equal(n.length, 6);
    assert.equal(new Set(n).size, 6, `names not apart: ${n}`);
    // by default the first run is the focus, marked in the legend
    assert.equal(await focusOf(v), n[0]);
    assert.equal(await v.page.locator('[data-testid=focus-run].on').count(), 1);
    await v.shotOf('panel-runtime', 'viewer-focus-runtime');
    // the focus mark of the third run moves the focus there, without hiding or showing runs
    const before = await v.canvas('runtime-canvas');
    await v.act(() => v.page.locator('[data-testid=focus-run]').nth(2).click());
    assert.equal(await focusOf(v), n[2]);
    assert.match(await v.hash(), /fo=2/);
    assert.equal(await v.page.locator('[data-testid=legend-run].off').count(), 0);
    assert.notEqual(await v.canvas('runtime-canvas'), before, 'the runtime chart was not redrawn');
    // hiding the focus run falls back to the first shown
    await v.act(() => v.page.locator('[data-testid=legend-run] .rname').nth(2).click());
    assert.equal(await focusOf(v), n[0]);
    // all alike: no focus, kept in the link
    await v.act(() => v.page.click('[data-testid=focus-toggle]'));
    assert.equal(await focusOf(v), '');
    assert.match(await v.hash(), /fo=off/);
    assert.deepEqual(v.errors, []);
    await v.page.context().close();
    // the link reopens the chosen focus
    const w = await Viewer.open(browser, `${s.base}/index.html#fo=4`);
    await w.ready(6);
    assert.equal(await focusOf(w), n[4]);
    await w.page.context().close();
  } finally {
    s.close();
  }
  // two runs: every run alike unless one is picked
  const v2 = await Viewer.open(browser, `${site.base}/index.html`);
  await v2.ready(3);
  assert.equal(await v2.page.getAttribute('[data-testid=runtime-canvas]', 'data-focus'), '');
  await v2.page.context().close();
});

test('levels field: custom levels are columns equal to nines stats --levels, kept in the link; a bad entry marks the field', async () => {
  const all = [files.a, files.b, files.c];
  const levels = ['p95', 'p99.5', 'p99.99'];
  const json = ninesStats(all, ['--levels', levels.join(',')]);
  const text = ninesStatsText(all, ['--levels', levels.join(',')]);
  // each row's custom cells: {run, dir, cells: [{col, ns, text, support, beyond, title}]}
  const custom = (v) => v.page.evaluate(() => [...document.querySelectorAll('[data-testid=stats-row]')].map((tr) => ({
    run: Number(tr.dataset.run), dir: tr.dataset.dir,
    cells: [...tr.querySelectorAll('[data-testid=custom-cell]')].map((td) => ({
      col: td.dataset.col, ns: td.dataset.ns, text: td.textContent, support: td.dataset.support, beyond: td.dataset.beyond, title: td.title,
    })),
  })));
  const columns = (v) => v.page.waitForFunction((n) => {
    const rows = [...document.querySelectorAll('[data-testid=stats-row]')];
    return rows.length === 6 && rows.every((tr) => tr.querySelectorAll('[data-testid=custom-cell]').length === n);
  }, levels.length, { timeout: 30000 });
  const field = (v) => v.page.locator('[data-testid=custom-levels]');
  // every row's custom cells equal `nines stats --levels --json` and read like its table
  const assertCustom = (rows, json, text) => {
    assert.equal(rows.length, 6);
    for (const row of rows) {
      const js = json.runs[row.run].tags[row.dir];
      assert.ok(js, `nines stats has no ${row.dir} for run ${row.run}`);
      assert.deepEqual(row.cells.map((c) => c.col), levels);
      assert.deepEqual(js.levels.map((l) => l.label), levels);
      row.cells.forEach((c, i) => {
        const l = js.levels[i];
        const at = `${row.run} ${row.dir} ${l.label}`;
        assert.equal(c.ns, l.value_ns === null ? '' : String(l.value_ns), at);
        assert.equal(c.support, l.support, `${at} support`);
        assert.equal(Number(c.beyond), l.beyond, `${at} beyond`);
        if (l.support === 'thin') assert.match(c.title, /thin: only/);
        // the text of the CLI's table (thin starred, none beyond blank)
        assert.equal(c.text, text[row.run][row.dir][l.label] ?? '', `${at}: page ${c.text} vs nines stats`);
      });
    }
  };
  const v = await Viewer.open(browser, `${site.base}/index.html`);
  await v.ready(3);
  assert.equal(await v.page.locator('[data-testid=custom-cell]').count(), 0, 'no custom levels by default');
  await field(v).fill('p95, p99.5, p99.99');
  await field(v).blur();
  await columns(v);
  const rows = await custom(v);
  assertCustom(rows, json, text);
  const head = await v.page.$$eval('[data-testid=stats-table] thead th.custom', (t) => t.map((x) => x.textContent));
  assert.deepEqual(head, levels);
  // the standard columns are as they were
  assertTableMatches(await v.table(), ninesStats(all), ninesStatsText(all), ['read', 'write']);
  const hash = await v.hash();
  assert.match(hash, /(^#|&)lx=p95,p99\.5,p99\.99(&|$)/);
  await v.shot('viewer-custom-levels');
  await v.page.locator('header.bar').screenshot({ path: path.join(ARTIFACTS, 'viewer-custom-levels-bar.png') });
  await v.shotOf('panel-stats', 'viewer-custom-levels-table');
  // a list with an entry that is no level: the field is marked, the table and link unchanged
  await field(v).fill('p95, p101');
  await field(v).blur();
  await v.page.waitForSelector('[data-testid=custom-levels][aria-invalid=true]', { timeout: 30000 });
  assert.match(await field(v).getAttribute('title'), /"p101" is not a level/);
  assert.match(await field(v).getAttribute('class'), /invalid/);
  assert.deepEqual(await custom(v), rows);
  assert.equal(await v.hash(), hash);
  // a valid list again clears the mark
  await field(v).fill('p99.99,p95,p99.5');
  await field(v).blur();
  await v.page.waitForSelector('[data-testid=custom-levels][aria-invalid=false]', { timeout: 30000 });
  assert.deepEqual(v.errors, []);
  await v.page.context().close();
  // the link reopens the same columns, the field showing the list
  const w = await Viewer.open(browser, `${site.base}/index.html${hash}`);
  await w.ready(3);
  await columns(w);
  assert.deepEqual(await custom(w), rows);
  assert.equal(await field(w).inputValue(), 'p95, p99.5, p99.99');
  // a brushed range: the columns equal nines stats --levels --from --to
  await w.brush('runtime-overlay', 0.35, 0.7);
  const m = (await w.hash()).match(/sel=([\d.e+-]+),([\d.e+-]+)/);
  assert.ok(m, `no selection in ${await w.hash()}`);
  const extra = ['--levels', levels.join(','), '--from', m[1], '--to', m[2]];
  await columns(w);
  const brushed = await custom(w);
  assertCustom(brushed, ninesStats(all, extra), ninesStatsText(all, extra));
  assert.notDeepEqual(brushed, rows, 'the brushed range has other values');
  assert.deepEqual(w.errors, []);
  await w.page.context().close();
});
