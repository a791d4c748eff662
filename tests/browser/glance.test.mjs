// What a first-time reader sees at a glance, in a real headless Chromium: the 1-CDF's axes
// (shares slower named by their nines; latency from the lowest p1, not from one fast
// outlier, the minimum a zoom-out away) and the steady-state verdicts (which rule each
// judges by, and why a criterion does not hold). Two synthetic latency lists (CSV), served
// with a manifest. Screenshots go to tests/artifacts/ (glance-*.png).
//
//   node --test tests/browser/glance.test.mjs     (after scripts/build-viewer.sh)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { BUNDLE, serve, launch, Viewer } from './lib.mjs';

let browser, site;

// mulberry32: a small seeded generator, so the runs are the same every time
function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// 20 s of reads and writes, about 80 us with a long tail; IOPS drifting a little each
// second (steady by the SNIA PTS rule, not by fio's slope criterion); one read of 150 ns
function csv(seed, base, outlier) {
  const r = rng(seed);
  const rows = ['time_s,op,latency_ns'];
  for (let s = 0; s < 20; s++) {
    const n = 1500 + s * 12 + Math.round(r() * 40);
    for (let i = 0; i < n; i++) {
      const t = (s + i / n).toFixed(6);
      const lat = Math.round(base * Math.exp(0.25 * (r() + r() + r() - 1.5)) * (r() < 0.001 ? 40 * r() + 5 : 1));
      rows.push(`${t},${r() < 0.7 ? 'read' : 'write'},${lat}`);
    }
  }
  if (outlier) rows.splice(100, 0, '0.05,read,150');
  return rows.join('\n') + '\n';
}

before(async () => {
  assert.ok(fs.existsSync(`${BUNDLE}/nines_viewer_bg.wasm`), `no viewer bundle in ${BUNDLE}: run scripts/build-viewer.sh`);
  browser = await launch();
  site = await serve(BUNDLE, {
    '/manifest.json': JSON.stringify({ runs: [{ file: 'runs/fio-import.csv' }, { file: 'runs/second.csv' }] }),
    '/runs/fio-import.csv': Buffer.from(csv(1, 80000, true)),
    '/runs/second.csv': Buffer.from(csv(2, 95000, false)),
  });
});

after(async () => {
  await browser?.close();
  site?.close();
});

async function svgOf(v, testid) {
  const [d] = await Promise.all([v.page.waitForEvent('download'), v.page.click(`[data-testid=${testid}]`)]);
  return fs.readFileSync(await d.path(), 'utf8');
}

// the text of an SVG's labels
const texts = (svg) => [...svg.matchAll(/<text[^>]*>\s*([^<]*?)\s*</g)].map((m) => m[1]);

test('1-CDF: shares slower named by their nines; latency from the lowest p1, the minimum on zoom-out', async () => {
  const v = await Viewer.open(browser, `${site.base}/index.html#dir=all`, { width: 1400, height: 1000 });
  await v.ready(2);
  let t = texts(await svgOf(v, 'export-cdf-svg'));
  assert.ok(t.includes('share of I/Os slower than x (log)'), t.join('|'));
  for (const s of ['10%', '1%', '0.1%', '0.01%', 'p90', 'p99', 'p99.9', 'p99.99']) assert.ok(t.includes(s), `tick ${s}: ${t.join('|')}`);
  assert.ok(!t.includes('90%') && !t.includes('99.9%'), 'no tick reads as a level');
  // the default view starts near the bulk (tens of us), not at the 150 ns outlier
  assert.ok(!t.some((s) => /^\d+ns$/.test(s)) && !t.includes('1.00us'), `latency ticks: ${t.join('|')}`);
  assert.match(await v.page.locator('[data-testid=cdf-cut]').textContent(), /lowest p1; min 150ns/);
  await v.shotOf('panel-cdf', 'glance-cdf');
  // zoom out to the minimum: the 150 ns outlier is on the axis
  await v.act(() => v.page.click('[data-testid=cdf-full]'));
  t = texts(await svgOf(v, 'export-cdf-svg'));
  assert.ok(t.includes('1.00us'), `latency ticks: ${t.join('|')}`);
  const lo = Number(/cdf=([\d.e+-]+),/.exec(await v.hash())[1]);
  assert.ok(lo <= 150, `the zoom-out reaches the 150 ns minimum: from ${lo} ns`);
  assert.equal(await v.page.locator('[data-testid=cdf-cut]').count(), 0);
  await v.shotOf('panel-cdf', 'glance-cdf-full');
  // double-click resets to the default view
  const o = await v.box('cdf-overlay');
  await v.act(() => v.page.mouse.dblclick(o.x + o.width / 2, o.y + o.height / 2));
  assert.equal(await v.page.locator('[data-testid=cdf-cut]').count(), 1);
  assert.deepEqual(v.errors, []);
});

test('steady state: the headline names its rule, and each criterion that does not hold says why', async () => {
  const v = await Viewer.open(browser, `${site.base}/index.html#dir=all&ss=0,iops,5`, { width: 1400, height: 1000 });
  await v.ready(2);
  const sum = v.page.locator('[data-testid=steady-summary]').first();
  const head = await sum.textContent();
  assert.match(head, /SNIA PTS: (steady state holds|not steady) over rounds 16–20/);
  const crit = await v.page.evaluate(() => [...document.querySelectorAll('[data-testid=steady-criterion]')].map((li) => ({ holds: li.dataset.holds, text: li.textContent })));
  assert.ok(crit.length >= 2, JSON.stringify(crit));
  const failing = crit.filter((c) => c.holds === 'false');
  assert.ok(failing.length >= 1, `a drifting run fails fio's slope criterion: ${JSON.stringify(crit)}`);
  for (const c of failing) assert.match(c.text, /does not hold over the window: (largest deviation|slope per second) [\d.]+% of the mean ≥ limit [\d.]+%/);
  const fio = await v.page.locator('[data-testid=steady-fio-summary]').first().textContent();
  assert.match(fio, /^fio's criteri(a|on): (do not hold|does not hold) \(iops_slope:0\.1%: slope per second [\d.]+% of the mean ≥ limit 0\.1%\)/);
  await v.shotOf('panel-steady', 'glance-steady');
  assert.deepEqual(v.errors, []);
});

test('colours: a run keeps its colour in every direction mode; overlaid directions differ by dash', async () => {
  const v = await Viewer.open(browser, `${site.base}/index.html#dir=all`, { width: 1400, height: 1000 });
  await v.ready(2);
  const swatches = () => v.page.evaluate(() => [...document.querySelectorAll('[data-testid=legend-run]')].map((b) => [...b.querySelectorAll('line')].map((l) => [l.getAttribute('stroke'), l.getAttribute('stroke-dasharray')])));
  const all = await swatches();
  assert.equal(all.length, 2);
  assert.notEqual(all[0][0][0], all[1][0][0], 'two runs, two colours');
  for (const dir of ['overlay', 'read', 'write']) {
    await v.act(() => v.page.click(`[data-testid=dir-${dir}]`));
    const s = await swatches();
    s.forEach((run, i) => run.forEach(([stroke]) => assert.equal(stroke, all[i][0][0], `run ${i} in ${dir}`)));
    if (dir === 'overlay') {
      assert.equal(s[0].length, 2, 'read and write');
      assert.notEqual(s[0][0][1], s[0][1][1], 'read and write are told apart by their dash');
      await v.shotOf('runs', 'glance-colours-overlay');
      await v.shotOf('panel-cdf', 'glance-colours-overlay-cdf');
    }
  }
  assert.deepEqual(v.errors, []);
});

test('compare: a change off the scale is marked with its value, thin levels with *', async () => {
  // a baseline of about 80 us and a candidate some 35 times slower: its levels run off the top
  const slow = await serve(BUNDLE, {
    '/manifest.json': JSON.stringify({ runs: [{ file: 'runs/base.csv' }, { file: 'runs/slow.csv' }] }),
    '/runs/base.csv': Buffer.from(csv(3, 80000, false)),
    '/runs/slow.csv': Buffer.from(csv(4, 2800000, false)),
  });
  try {
    const v = await Viewer.open(browser, `${slow.base}/index.html#dir=all&base=0`, { width: 1400, height: 1000 });
    await v.ready(2);
    const c = v.page.locator('[data-testid=change-canvas]');
    const off = (await c.getAttribute('data-offscale')).split(',').filter(Boolean);
    assert.ok(off.length >= 1 && off.every((m) => Number(m.split(':')[1]) > 1000), `off-scale marks: ${off}`);
    // 30,000 I/Os: p99.99 has 3 beyond, thin; p99.9 has 30
    const thin = (await c.getAttribute('data-thin')).split(',').filter(Boolean).map((m) => m.split(':')[0]);
    assert.ok(thin.includes('4.00') && !thin.includes('2.00'), `thin levels: ${thin}`);
    await v.shotOf('panel-compare', 'glance-compare');
    assert.deepEqual(v.errors, []);
  } finally {
    slow.close();
  }
});

test('runtime chart: a key names each level by its own dash, and the max squares', async () => {
  const v = await Viewer.open(browser, `${site.base}/index.html#dir=all&lv=2,3,4`, { width: 1400, height: 1000 });
  await v.ready(2);
  const t = texts(await svgOf(v, 'export-runtime-svg'));
  const key = t.filter((s) => ['median', 'p99', 'p99.9', 'p99.99', 'max (■ a window)'].includes(s));
  assert.deepEqual(key, ['median', 'p99', 'p99.9', 'p99.99', 'max (■ a window)']);
  assert.match(await v.page.locator('[data-testid=panel-runtime] .keyline').textContent(), /each its own dash, named in the chart's key/);
  await v.shotOf('panel-runtime', 'glance-runtime');
  assert.deepEqual(v.errors, []);
});
