// The runtime chart with five runs, in a real headless Chromium: "one level, all runs" (one
// chosen level of every run, each run in its own colour, the key naming the level) and the
// small multiples (one strip per run on shared axes), both kept in the link. The points
// drawn equal `nines stats --from --to` over their window. Screenshots go to
// tests/artifacts/ (runtime-*.png).
//
//   node --test tests/browser/runtime-modes.test.mjs     (after scripts/build-viewer.sh)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BUNDLE, serve, launch, Viewer, ninesStats } from './lib.mjs';

let browser, site;
const NAMES = ['baseline', 'fw-2.1', 'fw-2.2', 'queue-32', 'nvme-gc'];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nines-rt-'));
const file = (name) => path.join(dir, `${name}.csv`);

// mulberry32: a small seeded generator, so the runs are the same every time
function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// 20 s of reads and writes about `base` ns with a long tail; run 4 has a garbage-collection
// stall from 12 s to 15 s (its tail some 20 times longer)
function csv(seed, base, stall) {
  const r = rng(seed);
  const rows = ['time_s,op,latency_ns'];
  for (let s = 0; s < 20; s++) {
    const n = 1500 + Math.round(r() * 40);
    const slow = stall && s >= 12 && s < 15;
    for (let i = 0; i < n; i++) {
      const t = (s + i / n).toFixed(6);
      const tail = r() < (slow ? 0.01 : 0.001) ? (slow ? 200 : 40) * r() + 5 : 1;
      rows.push(`${t},${r() < 0.7 ? 'read' : 'write'},${Math.round(base * Math.exp(0.25 * (r() + r() + r() - 1.5)) * tail)}`);
    }
  }
  return rows.join('\n') + '\n';
}

before(async () => {
  assert.ok(fs.existsSync(`${BUNDLE}/nines_viewer_bg.wasm`), `no viewer bundle in ${BUNDLE}: run scripts/build-viewer.sh`);
  const routes = { '/manifest.json': JSON.stringify({ runs: NAMES.map((n) => ({ file: `runs/${n}.csv` })) }) };
  NAMES.forEach((n, i) => {
    fs.writeFileSync(file(n), csv(10 + i, 70000 + 12000 * i, i === 4));
    routes[`/runs/${n}.csv`] = file(n);
  });
  browser = await launch();
  site = await serve(BUNDLE, routes);
});

after(async () => {
  await browser?.close();
  site?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const hook = (v, attr) => v.page.evaluate((a) => JSON.parse(document.querySelector('[data-testid=runtime-canvas]').getAttribute(a)), attr);

test('one level, all runs: one trace a run of the chosen level, its points as nines stats gives them, kept in the link', async () => {
  const v = await Viewer.open(browser, `${site.base}/index.html#dir=all`, { width: 1400, height: 1100 });
  await v.ready(5);
  // the default: every run's median, levels and max
  assert.equal((await hook(v, 'data-lines')).length, 5 * 4);
  await v.act(() => v.page.selectOption('[data-testid=runtime-one]', '3'));
  assert.match(await v.hash(), /(^#|&)one=3(&|$)/);
  const lines = await hook(v, 'data-lines');
  assert.deepEqual(lines.map((l) => [l.trace, l.metric]), NAMES.map((n) => [`${n} all`, '3']), 'exactly one p99.9 trace a run');
  assert.equal(await v.page.getAttribute('[data-testid=runtime-canvas]', 'data-focus'), '', 'no run is faint');
  assert.match(await v.page.locator('[data-testid=panel-runtime] .keyline').textContent(), /the p99\.9 of every run alone, each run in its own colour/);
  // each point is its one-second window's p99.9, as nines stats computes it over the window
  let compared = 0;
  for (const [i, l] of lines.entries()) {
    assert.equal(l.points.length, 20, `${l.trace}: a point a window`);
    for (const k of [0, 7, 13, 19]) {
      const [x, ns] = l.points[k];
      // at the window's midpoint (a list's last window ends at its last I/O)
      assert.ok(k < 19 ? x === k + 0.5 : Math.floor(x) === k, `window ${k} at ${x}`);
      const lv = ninesStats([file(NAMES[i])], ['--from', String(k), '--to', String(k + 1)]).runs[0].tags.all.levels.find((e) => e.label === 'p99.9');
      assert.equal(ns, lv.value_ns, `${l.trace} window ${k}`);
      if (ns !== null) compared++;
    }
  }
  assert.ok(compared >= 15, `${compared} values compared`);
  await v.shotOf('panel-runtime', 'runtime-one-level');
  // the link reopens the same view; another level and the max alone
  const v2 = await Viewer.open(browser, `${site.base}/index.html${await v.hash()}`, { width: 1400, height: 1100 });
  await v2.ready(5);
  assert.deepEqual(await hook(v2, 'data-lines'), lines);
  assert.equal(await v2.page.inputValue('[data-testid=runtime-one]'), '3');
  await v2.act(() => v2.page.selectOption('[data-testid=runtime-one]', 'max'));
  assert.deepEqual((await hook(v2, 'data-lines')).map((l) => l.metric), NAMES.map(() => 'max'));
  await v2.act(() => v2.page.selectOption('[data-testid=runtime-one]', ''));
  assert.doesNotMatch(await v2.hash(), /one=/);
  assert.equal((await hook(v2, 'data-lines')).length, 5 * 4);
  assert.deepEqual([...v.errors, ...v2.errors], []);
  await v.page.context().close();
  await v2.page.context().close();
});

test('small multiples: one strip per run on equal axes; zoom, select and the time rule across strips; kept in the link', async () => {
  const v = await Viewer.open(browser, `${site.base}/index.html#dir=all`, { width: 1400, height: 1300 });
  await v.ready(5);
  await v.act(() => v.page.click('[data-testid=runtime-strips]'));
  assert.match(await v.hash(), /(^#|&)strips=1(&|$)/);
  let strips = await hook(v, 'data-strips');
  assert.deepEqual(strips.map((s) => s.label), NAMES);
  const lines = await hook(v, 'data-lines');
  for (const [i, s] of strips.entries()) {
    assert.deepEqual([s.left, s.right, s.x, s.y], [strips[0].left, strips[0].right, strips[0].x, strips[0].y], `strip ${i}: the same axes`);
    assert.equal(s.bottom - s.top, strips[0].bottom - strips[0].top, `strip ${i}: the same height`);
    if (i > 0) assert.ok(s.top > strips[i - 1].bottom, 'stacked');
    assert.deepEqual(s.lines.map((j) => [lines[j].trace, lines[j].metric]), ['med', '3', '4', 'max'].map((m) => [`${NAMES[i]} all`, m]), 'the run\'s own levels');
  }
  const whole = strips[0].x;
  assert.ok(whole[0] === 0 && whole[1] > 19.9 && whole[1] <= 20, `the whole runs: ${whole}`);
  await v.shotOf('panel-runtime', 'runtime-strips');
  // the time rule: one column lit in the first strip and the last
  const o = await v.box('runtime-overlay');
  const at = strips[0].left + (strips[0].right - strips[0].left) / 2;
  await v.page.mouse.move(o.x + at, o.y + strips[2].top + 20);
  const lit = await v.page.evaluate(([x, ys]) => {
    const c = document.querySelector('[data-testid=runtime-overlay]');
    const r = c.width / c.clientWidth;
    const ctx = c.getContext('2d');
    return ys.map((y) => [...ctx.getImageData(Math.round((x - 2) * r), Math.round(y * r), Math.round(5 * r), 1).data].some((b, k) => k % 4 === 3 && b > 0));
  }, [at, [strips[0].top + 30, strips[4].bottom - 10]]);
  assert.deepEqual(lit, [true, true], 'the rule spans every strip');
  // a drag in the third strip zooms every strip
  const drag = async (a, b, key) => {
    const y = o.y + strips[2].top + 30;
    if (key) await v.page.keyboard.down(key);
    await v.act(async () => {
      await v.page.mouse.move(o.x + a, y);
      await v.page.mouse.down();
      await v.page.mouse.move(o.x + b, y, { steps: 5 });
      await v.page.mouse.up();
    });
    if (key) await v.page.keyboard.up(key);
  };
  const px = (t) => strips[0].left + ((strips[0].right - strips[0].left) * t) / 20;
  await drag(px(5), px(15));
  assert.match(await v.hash(), /zoom=/);
  strips = await hook(v, 'data-strips');
  assert.ok(strips[0].x[0] > 4 && strips[0].x[1] < 16, `zoomed to ${strips[0].x}`);
  assert.ok(strips.every((s) => s.x[0] === strips[0].x[0] && s.x[1] === strips[0].x[1]), 'every strip zoomed alike');
  // shift-drag selects a range for every panel
  await drag(px(8), px(11), 'Shift');
  assert.match(await v.hash(), /sel=/);
  assert.ok(await v.page.locator('[data-testid=selection]').isVisible());
  // the link reopens the strips, with the one-level view on them too
  await v.act(() => v.page.selectOption('[data-testid=runtime-one]', '3'));
  const v2 = await Viewer.open(browser, `${site.base}/index.html${await v.hash()}`, { width: 1400, height: 1300 });
  await v2.ready(5);
  const s2 = await hook(v2, 'data-strips');
  assert.deepEqual(s2.map((s) => [s.label, s.lines.length]), NAMES.map((n) => [n, 1]));
  assert.deepEqual(s2, await hook(v, 'data-strips'));
  await v2.shotOf('panel-runtime', 'runtime-strips-one-level');
  // a double-click returns to the whole run
  await v2.act(() => v2.page.mouse.dblclick(o.x + at, o.y + s2[1].top + 20));
  assert.deepEqual((await hook(v2, 'data-strips'))[0].x, whole);
  assert.deepEqual([...v.errors, ...v2.errors], []);
  await v.page.context().close();
  await v2.page.context().close();
});

test('heatmap: the time rule of the runtime chart crosses its rows, and its own mouse draws the rule on the runtime chart', async () => {
  const v = await Viewer.open(browser, `${site.base}/index.html#dir=all`, { width: 1400, height: 1300 });
  await v.ready(5);
  const rt = await v.box('runtime-overlay');
  const strip = await v.page.evaluate(() => document.querySelector('[data-testid=runtime-canvas]').getAttribute('data-strips'));
  assert.equal(strip, '[]', 'overlaid: no strips');
  // the mouse at mid-run on the runtime chart: a rule on the heatmap at the same time
  await v.page.mouse.move(rt.x + rt.width * 0.55, rt.y + rt.height * 0.5);
  const rule = () => v.page.getAttribute('[data-testid=heatmap-overlay]', 'data-rule');
  const t = Number(await rule());
  assert.ok(t > 5 && t < 15, `rule at ${t}`);
  const heat = await v.page.evaluate(() => document.querySelector('[data-testid=heatmap-canvas]').dataset.frame.split(',').map(Number));
  const lit = (id, x, y) => v.page.evaluate(([id, x, y]) => {
    const c = document.querySelector(`[data-testid=${id}]`);
    const r = c.width / c.clientWidth;
    return [...c.getContext('2d').getImageData(Math.round((x - 2) * r), Math.round(y * r), Math.round(5 * r), 1).data].some((b, k) => k % 4 === 3 && b > 0);
  }, [id, x, y]);
  const [hl, hr, ht, hb] = heat;
  const hx = hl + ((hr - hl) * t) / 20;
  assert.ok(await lit('heatmap-overlay', hx, (ht + hb) / 2), 'the rule crosses the heatmap row');
  // the mouse on the heatmap: the rule on the runtime chart, at the time under it
  const hm = await v.box('heatmap-canvas');
  await v.page.mouse.move(hm.x + hl + (hr - hl) * 0.25, hm.y + (ht + hb) / 2);
  const t2 = Number(await rule());
  assert.ok(t2 > 3 && t2 < 7, `the heatmap's own time ${t2}`);
  await v.shotOf('panel-heatmap', 'runtime-heatmap-rule');
  const f = await v.page.evaluate(() => {
    const c = document.querySelector('[data-testid=runtime-overlay]');
    return [c.clientWidth, c.clientHeight];
  });
  // the runtime chart's plot spans the same x range: find its lit column near the same share
  const cols = await v.page.evaluate(([w, h]) => {
    const c = document.querySelector('[data-testid=runtime-overlay]');
    const r = c.width / c.clientWidth;
    const d = c.getContext('2d').getImageData(0, Math.round((h / 2) * r), c.width, 1).data;
    const out = [];
    for (let i = 0; i < c.width; i++) if (d[4 * i + 3] > 0) out.push(i / r);
    return out;
  }, f);
  assert.ok(cols.length > 0 && cols.length <= 3, `one rule on the runtime chart: ${cols}`);
  await v.page.mouse.move(1, 1);
  assert.equal(await rule(), '', 'the rule goes with the mouse');
  assert.deepEqual(v.errors, []);
  await v.page.context().close();
});

// each point of a one-level line: its window's level as `nines stats --from --to` gives it
function samePoints(l, f, dir, label) {
  let compared = 0;
  for (const k of [0, 7, 13, 18]) {
    const [x, ns] = l.points[k];
    assert.equal(x, k + 0.5, `${l.trace}: window ${k}`);
    const lv = ninesStats([f], ['--from', String(k), '--to', String(k + 1)]).runs[0].tags[dir].levels.find((e) => e.label === label);
    assert.equal(ns, lv.value_ns, `${l.trace} window ${k}`);
    if (ns !== null) compared++;
  }
  return compared;
}

test('one level, all runs with read and write: a run keeps its colour, its directions their dashes, named in the key; the focus run strong, the others pale', async () => {
  const v = await Viewer.open(browser, `${site.base}/index.html#dir=overlay&one=3&fo=2`, { width: 1400, height: 1100 });
  await v.ready(5);
  const lines = await hook(v, 'data-lines');
  assert.deepEqual(lines.map((l) => l.trace), NAMES.flatMap((n) => [`${n} read`, `${n} write`]));
  let compared = 0;
  for (const [i, n] of NAMES.entries()) {
    const [r, w] = [lines[2 * i], lines[2 * i + 1]];
    assert.equal(r.color, w.color, `${n}: one colour for both directions`);
    assert.notDeepEqual(r.dash, w.dash, `${n}: read and write in their own dashes`);
    assert.deepEqual(r.dash, [0, 0], `${n}: read solid`);
    if (i > 0) assert.notEqual(r.color, lines[0].color, 'each run its own colour');
    // the focus (fo=2): fw-2.2 strong, every other run pale
    assert.deepEqual([r.faint, w.faint], [i !== 2, i !== 2], `${n}: faint unless the focus`);
    compared += samePoints(r, file(n), 'read', 'p99.9') + samePoints(w, file(n), 'write', 'p99.9');
  }
  assert.ok(compared >= 20, `${compared} values compared (the writes' p99.9 mostly unsupported, as in nines stats)`);
  assert.equal(await v.page.getAttribute('[data-testid=runtime-canvas]', 'data-focus'), 'fw-2.2');
  // the legend shows the focus, and ◎ on another run moves it there
  assert.equal(await v.page.locator('[data-testid=focus-run].on').count(), 1);
  await v.shotOf('panel-runtime', 'runtime-one-level-dirs-focus');
  await v.act(() => v.page.locator('[data-testid=focus-run]').nth(4).click());
  assert.equal(await v.page.getAttribute('[data-testid=runtime-canvas]', 'data-focus'), 'nvme-gc');
  assert.deepEqual((await hook(v, 'data-lines')).map((l) => l.faint), NAMES.flatMap((n, i) => [i !== 4, i !== 4]));
  // focus off: every run alike (and by default too: the one-level view picks no focus itself)
  await v.act(() => v.page.click('[data-testid=focus-toggle]'));
  assert.ok((await hook(v, 'data-lines')).every((l) => !l.faint));
  await v.shotOf('panel-runtime', 'runtime-one-level-dirs');
  assert.deepEqual(v.errors, []);
  await v.page.context().close();
});

test('strips: the focus run\'s strip is marked; the IOPS panel as strips on the runtime strips\' x axis, its rates those of nines stats', async () => {
  const v = await Viewer.open(browser, `${site.base}/index.html#dir=overlay&strips=1&fo=3`, { width: 1400, height: 1500 });
  await v.ready(5);
  const strips = await hook(v, 'data-strips');
  assert.deepEqual(strips.map((s) => [s.label, s.dirs, s.focus]), NAMES.map((n, i) => [n, 'read,write', i === 3]));
  assert.equal(await v.page.getAttribute('[data-testid=runtime-canvas]', 'data-focus'), 'queue-32');
  assert.ok((await hook(v, 'data-lines')).length === 5 * 2 * 4, 'every run drawn, none faint');
  await v.shotOf('panel-runtime', 'runtime-strips-focus');
  // the rate chart: one strip a run, its plot on the runtime strips' left, right and x range
  const rate = (a) => v.page.evaluate((a) => JSON.parse(document.querySelector('[data-testid=rate-canvas]').getAttribute(a)), a);
  const [l, r, , , x0, x1] = await rate('data-frame');
  assert.deepEqual([l, r, [x0, x1]], [strips[0].left, strips[0].right, strips[0].x], 'the same x axis as the runtime strips');
  const rs = await rate('data-strips');
  assert.deepEqual(rs.map((s) => [s.run, s.rates.length]), NAMES.map((n, i) => [i, 2]));
  // each window's IOPS of each direction as nines stats gives it over the window
  let compared = 0;
  for (const [i, s] of rs.entries()) {
    for (const [d, dir] of ['read', 'write'].entries()) {
      for (const k of [0, 9, 18]) {
        const [x, iops] = s.rates[d][k];
        assert.equal(x, k + 0.5);
        const cli = ninesStats([file(NAMES[i])], ['--from', String(k), '--to', String(k + 1)]).runs[0].tags[dir].iops;
        assert.ok(Math.abs(iops - cli) <= 1e-9 * cli, `${NAMES[i]} ${dir} window ${k}: ${iops} vs ${cli}`);
        compared++;
      }
    }
  }
  assert.equal(compared, 30);
  await v.shotOf('panel-rate', 'rate-strips');
  // the SVG export draws the same strips
  const [svg] = await Promise.all([v.page.waitForEvent('download'), v.page.click('[data-testid=export-rate-svg]')]);
  const svgText = fs.readFileSync(await svg.path(), 'utf8');
  assert.match(svgText, /IOPS per window: one strip per run/);
  assert.match(svgText, /queue-32 \(focus\)/);
  for (const n of NAMES) assert.ok(svgText.includes(n), `${n} in the export`);
  // a zoom on the rate strips zooms the runtime strips alike
  const o = await v.box('rate-overlay');
  await v.act(async () => {
    await v.page.mouse.move(o.x + l + (r - l) * 0.25, o.y + 80);
    await v.page.mouse.down();
    await v.page.mouse.move(o.x + l + (r - l) * 0.75, o.y + 80, { steps: 5 });
    await v.page.mouse.up();
  });
  const z = (await hook(v, 'data-strips'))[0].x;
  assert.ok(z[0] > 4 && z[1] < 16, `zoomed to ${z}`);
  assert.deepEqual((await rate('data-frame')).slice(4), z);
  // one level on the strips: each strip a run's read and write, in their dashes
  await v.act(() => v.page.dblclick('[data-testid=rate-overlay]'));
  await v.act(() => v.page.selectOption('[data-testid=runtime-one]', '3'));
  const ones = await hook(v, 'data-lines');
  assert.deepEqual((await hook(v, 'data-strips')).map((s) => s.lines.map((j) => ones[j].dash[0] > 0)), NAMES.map(() => [false, true]));
  await v.shotOf('panel-runtime', 'runtime-strips-one-level-dirs');
  // off: the rate chart overlaid again
  await v.act(() => v.page.click('[data-testid=runtime-strips]'));
  assert.deepEqual(await rate('data-strips'), []);
  assert.deepEqual(v.errors, []);
  await v.page.context().close();
});

test('strips with 30 runs: 8 drawn, the panel says how many are not and its run buttons choose them; kept in the link', async () => {
  // 30 short runs (5 s, 400 I/Os a second)
  const many = Array.from({ length: 30 }, (_, i) => `run-${String(i).padStart(2, '0')}`);
  const routes = { '/manifest.json': JSON.stringify({ runs: many.map((n) => ({ file: `runs/${n}.csv` })) }) };
  for (const [i, n] of many.entries()) {
    const r = rng(100 + i);
    const rows = ['time_s,op,latency_ns'];
    for (let k = 0; k < 2000; k++) rows.push(`${(k / 400).toFixed(6)},read,${Math.round(60000 + 2000 * i + 30000 * r())}`);
    const f = path.join(dir, `${n}.csv`);
    fs.writeFileSync(f, rows.join('\n') + '\n');
    routes[`/runs/${n}.csv`] = f;
  }
  const site30 = await serve(BUNDLE, routes);
  const v = await Viewer.open(browser, `${site30.base}/index.html#dir=read&strips=1`, { width: 1400, height: 1300 });
  await v.ready(30, 120000);
  let strips = await hook(v, 'data-strips');
  assert.deepEqual(strips.map((s) => s.label), many.slice(0, 8), 'the first 8 runs');
  const height = await v.page.evaluate(() => document.querySelector('[data-testid=runtime-canvas]').clientHeight);
  assert.ok(height <= 44 + 8 * 75 + 36, `the chart stays bounded: ${height}px`);
  const rateStrips = await v.page.evaluate(() => JSON.parse(document.querySelector('[data-testid=rate-canvas]').getAttribute('data-strips')));
  assert.deepEqual(rateStrips.map((s) => s.run), [0, 1, 2, 3, 4, 5, 6, 7], 'the rate strips are the same runs');
  assert.match(await v.page.locator('[data-testid=strip-note]').textContent(), /^8 of 30 runs drawn, 22 not/);
  const buttons = v.page.locator('[data-testid=strip-run]');
  assert.equal(await buttons.count(), 30);
  assert.equal(await v.page.locator('[data-testid=strip-run].active').count(), 8);
  await v.shotOf('panel-runtime', 'runtime-strips-30');
  // a run not drawn: its strip in place of the first; a drawn one: dropped
  await v.act(() => buttons.nth(20).click());
  strips = await hook(v, 'data-strips');
  assert.deepEqual(strips.map((s) => s.run), [1, 2, 3, 4, 5, 6, 7, 20]);
  await v.act(() => buttons.nth(3).click());
  assert.deepEqual((await hook(v, 'data-strips')).map((s) => s.run), [1, 2, 4, 5, 6, 7, 20]);
  assert.match(await v.page.locator('[data-testid=strip-note]').textContent(), /^7 of 30 runs drawn, 23 not/);
  const h = await v.hash();
  assert.match(h, /(^#|&)sp=1,2,4,5,6,7,20(&|$)/);
  // the link draws the same strips
  const v2 = await Viewer.open(browser, `${site30.base}/index.html${h}`, { width: 1400, height: 1300 });
  await v2.ready(30, 120000);
  assert.deepEqual((await hook(v2, 'data-strips')).map((s) => s.label), [1, 2, 4, 5, 6, 7, 20].map((i) => many[i]));
  await v2.shotOf('panel-rate', 'rate-strips-30');
  assert.deepEqual([...v.errors, ...v2.errors], []);
  await v.page.context().close();
  await v2.page.context().close();
  site30.close();
});
