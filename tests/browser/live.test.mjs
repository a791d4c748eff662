// `nines run --live` in a real headless Chromium: a short io_uring run on a temporary file in
// 500 ms windows, served as it is written; the page's window count (the live badge) grows
// without a reload, then the run ends and the page shows the final run, whose stats table
// equals `nines stats --json` of the archive. Screenshots: tests/artifacts/live-*.png.
//
//   node --test tests/browser/live.test.mjs     (after cargo build -p nines-qos)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { spawn } from 'node:child_process';
import { NINES, launch, Viewer, ninesStats, until } from './lib.mjs';

let dir, browser;

before(async () => {
  assert.ok(fs.existsSync(NINES), `no ${NINES}: run cargo build -p nines-qos`);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nines-live-'));
  browser = await launch();
});

after(async () => {
  await browser?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/// Lines of a stream, awaited one at a time until one matches.
function lines(stream) {
  const rl = readline.createInterface({ input: stream });
  const seen = [];
  const waiting = [];
  rl.on('line', (l) => {
    seen.push(l);
    for (const w of waiting.splice(0)) w();
  });
  let closed = false;
  rl.on('close', () => { closed = true; for (const w of waiting.splice(0)) w(); });
  return {
    seen,
    async until(re) {
      for (let i = 0; ; i++) {
        const hit = seen.find((l) => re.test(l));
        if (hit) return hit;
        if (closed) throw new Error(`no line ${re} in: ${seen.join('\n')}`);
        await new Promise((r) => waiting.push(r));
      }
    },
  };
}

/// The viewer's table equals `nines stats --json` for the rows it shows.
function assertViewerTable(rows, json) {
  assert.ok(rows.length >= 1, 'rows');
  for (const row of rows) {
    const js = json.runs[row.run].tags[row.dir];
    assert.ok(js, `nines stats has no ${row.dir}`);
    assert.equal(Number(row.cells.count.ns), js.count, `${row.dir} count`);
    assert.equal(Number(row.cells.min.ns), js.min_ns, `${row.dir} min`);
    assert.equal(Number(row.cells.max.ns), js.max_ns, `${row.dir} max`);
    assert.ok(Math.abs(Number(row.cells.mean.ns) - js.mean_ns) <= 1e-9 * js.mean_ns, 'mean');
    for (const l of js.levels) {
      const cell = row.cells[l.label];
      if (cell) assert.equal(cell.ns, l.value_ns === null ? '' : String(l.value_ns), `${row.dir} ${l.label}`);
      else assert.equal(l.value_ns, null, `${l.label} missing`);
    }
  }
}

test('run --live: the page follows the run as windows land, then shows the final run', async () => {
  const archive = path.join(dir, 'live.hlog');
  const env = { ...process.env };
  delete env.BROWSER; delete env.DISPLAY; delete env.WAYLAND_DISPLAY;
  const child = spawn(NINES, ['run', '--target', path.join(dir, 'target.dat'), '--size', '32M', '--rw', 'randrw', '--mix', '70',
    '--qd', '4', '--runtime', '7s', '--window', '500ms', '--name', 'live randrw', '-o', archive, '-q', '--no-summary', '--live'],
  { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise((r) => child.on('exit', (code, signal) => r({ code, signal })));
  try {
    const err = lines(child.stderr);
    const url = (await err.until(/http:\/\//)).match(/http:\/\/\S+/)[0];
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{32}\/$/);
    await err.until(/open that URL in a browser/);

    const ctx = await browser.newContext({ viewport: { width: 1600, height: 1500 } });
    const v = new Viewer(await ctx.newPage());
    let loads = 0;
    v.page.on('load', () => { loads += 1; });
    await v.page.goto(url);
    // a mark on the page's window: a reload would drop it
    await v.page.evaluate(() => { window.__sameDocument = true; });

    // the count grows while the run goes (at least two increases seen), the page never reloads
    const counts = [];
    let done = false;
    for (let i = 0; i < 600 && !done; i++) {
      const s = await v.page.evaluate(() => {
        const b = document.querySelector('[data-testid=live-status]');
        return b ? { n: Number(b.dataset.windows), done: b.dataset.done === '1', text: b.textContent } : null;
      });
      if (s) {
        if (counts.length === 0 || s.n !== counts[counts.length - 1]) counts.push(s.n);
        done = s.done;
      }
      if (counts.length === 3) await v.shot('live-running');
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(done, `the page did not say the run finished (counts ${counts})`);
    const rising = counts.filter((n, i) => i > 0 && n > counts[i - 1]).length;
    assert.ok(rising >= 2, `the window count grew ${rising} times: ${counts}`);
    assert.ok(counts.every((n, i) => i === 0 || n > counts[i - 1]), `the count only grows: ${counts}`);
    assert.equal(await v.page.evaluate(() => window.__sameDocument), true, 'the page was reloaded');
    assert.equal(loads, 1, 'one page load');

    await err.until(/the run has ended/);
    // the final run: every window of the archive, and nines stats' numbers
    const text = fs.readFileSync(archive, 'utf8');
    const starts = new Set(text.split('\n').filter((l) => l.startsWith('Tag=')).map((l) => l.split(',')[1]));
    assert.equal(counts[counts.length - 1], starts.size, 'the badge counts the archive\'s windows');
    await until(v.page, () => document.body.dataset.ninesIdle === '1', null, 'the final run drawn', 60000);
    await v.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
    const names = (await v.page.locator('[data-testid=legend-run] > span:first-child').allTextContents()).map((n) => n.trim());
    assert.deepEqual(names, ['live randrw']);
    assertViewerTable(await v.table(), ninesStats([archive]));
    assert.match(await v.page.locator('[data-testid=live-status]').textContent(), /^finished: \d+ windows$/);
    // the badge covers no control: it sits in the page's flow, not over the panels
    const over = await v.page.evaluate(() => {
      const b = document.querySelector('[data-testid=live-status]').getBoundingClientRect();
      return [...document.querySelectorAll('button, select, input')].filter((el) => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && r.left < b.right && b.left < r.right && r.top < b.bottom && b.top < r.bottom;
      }).map((el) => el.dataset.testid || el.textContent);
    });
    assert.deepEqual(over, [], 'controls under the live badge');
    await v.shot('live-finished');
    assert.deepEqual(v.errors, []);
    await ctx.close();

    child.kill('SIGINT');
    const { code, signal } = await exited;
    assert.equal(signal, null);
    assert.equal(code, 0, 'nines exits with 0 on Ctrl-C');
  } finally {
    child.kill('SIGKILL');
  }
});
