// Shared helpers of the viewer's browser tests and benchmark: a loopback static server, the
// system Chromium through playwright-core, and a page object with the viewer's test hooks.

import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BUNDLE = process.env.NINES_VIEWER_BUNDLE || path.join(ROOT, 'target/viewer');
export const NINES = process.env.NINES_BIN || path.join(ROOT, 'target/debug/nines');
export const ARTIFACTS = path.join(ROOT, 'tests/artifacts');

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.css': 'text/css', '.wasm': 'application/wasm', '.json': 'application/json',
};

/// Serve `routes` (url path -> file path or Buffer) and everything under `dir` on 127.0.0.1.
/// Every request is recorded in `server.requests`.
export async function serve(dir, routes = {}) {
  const requests = [];
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    requests.push(url);
    let body = routes[url];
    // a route may be a function of the request's number (from 0): what it returns is served,
    // null a 404
    if (typeof body === 'function') body = body(requests.filter((r) => r === url).length - 1);
    if (body === null) {
      res.writeHead(404).end('not found');
      return;
    }
    if (body === undefined) {
      const file = path.join(dir, url === '/' ? 'index.html' : url);
      if (!file.startsWith(dir) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
        res.writeHead(404).end('not found');
        return;
      }
      body = file;
    }
    const data = Buffer.isBuffer(body) ? body : typeof body === 'string' && fs.existsSync(body) ? fs.readFileSync(body) : Buffer.from(String(body));
    const headers = { 'content-type': TYPES[path.extname(url)] || 'application/octet-stream', 'cache-control': 'no-store', 'accept-ranges': 'bytes' };
    // one byte range (RFC 9110 section 14), as static hosts serve them: 206 and the range
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range || '');
    if (range) {
      server.ranges.push([url, req.headers.range]);
      const from = Number(range[1]);
      const to = Math.min(range[2] === '' ? data.length - 1 : Number(range[2]), data.length - 1);
      if (from > to) {
        res.writeHead(416, { 'content-range': `bytes */${data.length}` }).end();
        return;
      }
      res.writeHead(206, { ...headers, 'content-range': `bytes ${from}-${to}/${data.length}` });
      res.end(data.subarray(from, to + 1));
      return;
    }
    res.writeHead(200, headers);
    res.end(data);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  server.base = `http://127.0.0.1:${server.address().port}`;
  server.requests = requests;
  // the Range headers asked for: [url, header]
  server.ranges = [];
  return server;
}

export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

export async function launch() {
  return chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
}

/// Poll `fn(arg)` in the page until it is truthy, for at most `timeout` ms. A page with a
/// Content-Security-Policy (a report, the page `nines view` serves) forbids evaluating
/// strings, which playwright's waitForFunction does; evaluate() is not affected.
export async function until(page, fn, arg, what, timeout = 120000) {
  const t0 = Date.now();
  for (;;) {
    if (await page.evaluate(fn, arg)) return;
    if (Date.now() - t0 > timeout) throw new Error(`gave up waiting ${timeout} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/// A page of the viewer with its test hooks.
export class Viewer {
  constructor(page) {
    this.page = page;
    this.errors = [];
    page.on('pageerror', (e) => this.errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) this.errors.push(m.text()); });
  }
  static async open(browser, url, viewport = { width: 1600, height: 1500 }) {
    const ctx = await browser.newContext({ viewport, acceptDownloads: true });
    const v = new Viewer(await ctx.newPage());
    await v.page.goto(url);
    return v;
  }
  renders() { return this.page.evaluate(() => Number(document.body.dataset.ninesRenders || 0)); }
  /// Wait until every panel has drawn the loaded runs once.
  async ready(runs, timeout = 60000) {
    await until(this.page, (n) => Boolean(document.body.dataset.ninesFirstRenderMs
      && document.querySelectorAll('[data-testid=legend-run]').length >= n
      && document.body.dataset.ninesIdle === '1'), runs, `${runs} runs drawn`, timeout);
  }
  /// Do something, then wait until the redraws it caused are finished.
  async act(fn, timeout = 30000) {
    const before = await this.renders();
    await fn();
    await until(this.page, (b) => Number(document.body.dataset.ninesRenders || 0) > b && document.body.dataset.ninesIdle === '1', before, 'the redraws', timeout);
    // the table re-renders in the same tick; one frame for the DOM to settle
    await this.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
  }
  /// Shift-drag across the middle of a chart's overlay from fraction `a` to `b` of its width
  /// (a brush: a range selected for every panel), and wait for the redraws. `key` null: a
  /// plain drag (a zoom); 'Alt': a pan.
  async brush(testid, a, b, key = 'Shift') {
    const box = await this.box(testid);
    const y = box.y + box.height * 0.5;
    if (key) await this.page.keyboard.down(key);
    await this.act(async () => {
      await this.page.mouse.move(box.x + box.width * a, y);
      await this.page.mouse.down();
      await this.page.mouse.move(box.x + box.width * b, y, { steps: 5 });
      await this.page.mouse.up();
    });
    if (key) await this.page.keyboard.up(key);
  }
  canvas(id) { return this.page.evaluate((id) => document.querySelector(`[data-testid=${id}]`).toDataURL(), id); }
  // the page writes the link's hash shortly after the last change (data-nines-hash-pending)
  async hash() {
    for (let t = 0; t < 200; t++) {
      const h = await this.page.evaluate(() => (document.body.dataset.ninesHashPending === '1' ? null : location.hash));
      if (h !== null) return h;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('the page never wrote its link');
  }
  async box(testid) { return this.page.locator(`[data-testid=${testid}]`).boundingBox(); }
  /// The stats table as {run, dir, cells: {col: {ns, text, support, beyond}}} rows.
  table() {
    return this.page.evaluate(() => [...document.querySelectorAll('[data-testid=stats-row]')].map((tr) => ({
      run: Number(tr.dataset.run), dir: tr.dataset.dir,
      cells: Object.fromEntries([...tr.querySelectorAll('[data-testid=cell]')].map((td) => [td.dataset.col, {
        ns: td.dataset.ns, text: td.textContent, support: td.dataset.support, beyond: td.dataset.beyond, title: td.title,
      }])),
    })));
  }
  async shot(name) {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const file = path.join(ARTIFACTS, `${name}.png`);
    await this.page.screenshot({ path: file, fullPage: true });
    return file;
  }
  async shotOf(testid, name) {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const file = path.join(ARTIFACTS, `${name}.png`);
    await this.page.locator(`[data-testid=${testid}]`).screenshot({ path: file });
    return file;
  }
}

/// `nines stats --json` for files (optionally with --from/--to).
/// A copy of the archive `file` in `dir` whose name and metadata carry payloads that would set
/// window.__pwned if a page ran them: { payload, hostile (its path) }.
export function hostileCopy(file, dir) {
  const payload = '</script><script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">';
  const hostile = path.join(dir, 'hostile.hlog');
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const at = lines.findIndex((l) => !l.startsWith('#'));
  lines.splice(at, 0, `#[nines ${JSON.stringify({ version: 1, name: payload, workload: { rw: payload }, target: { path: payload }, made_up: payload })}]`);
  fs.writeFileSync(hostile, lines.join('\n'));
  return { payload, hostile };
}

export function ninesStats(files, extra = []) {
  return JSON.parse(execFileSync(NINES, ['stats', '--json', ...extra, ...files], { encoding: 'utf8', maxBuffer: 1 << 28 }));
}

/// `nines stats` text table, parsed into {dir: {col: text}} per run (columns are right-aligned
/// under their header, so cells are cut at the header's column ends).
export function ninesStatsText(files, extra = []) {
  const out = execFileSync(NINES, ['stats', ...extra, ...files], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const runs = [];
  let header = null;
  for (const line of out.split('\n')) {
    if (/^dir\s/.test(line)) {
      const cols = [];
      const re = /\S+/g;
      let m;
      while ((m = re.exec(line))) cols.push({ name: m[0], end: m.index + m[0].length });
      header = cols;
      runs.push({});
      continue;
    }
    if (line.trim() === '') { header = null; continue; }
    if (!header || !/^\S/.test(line) || /^(\* |blank:|ranges:|warning:)/.test(line)) continue;
    const row = { dir: line.split(/\s+/)[0] };
    let start = row.dir.length;
    header.forEach((c, i) => {
      if (i === 0) return;
      row[c.name] = line.slice(start, c.end).trim();
      start = c.end;
    });
    runs[runs.length - 1][row.dir] = row;
  }
  return runs;
}

// 16 wheel zoom steps on the runtime chart (8 in, 8 out, right of centre), each timed in the page
// from dispatch until the runtime and rate charts have redrawn and the idle flag is set; per
// step the wall time, the draws it took and the page's draw-time attributes (data-draw-ms-*).
export function zoomSteps(page) {
  return page.evaluate(async () => {
    const el = document.querySelector('[data-testid=runtime-overlay]');
    const r = el.getBoundingClientRect();
    const out = [];
    for (let k = 0; k < 16; k++) {
      const before = Number(document.body.dataset.ninesRenders);
      const done = new Promise((resolve) => {
        const obs = new MutationObserver(() => {
          if (Number(document.body.dataset.ninesRenders) >= before + 2 && document.body.dataset.ninesIdle === '1') {
            obs.disconnect();
            resolve(performance.now());
          }
        });
        obs.observe(document.body, { attributes: true });
      });
      const t0 = performance.now();
      el.dispatchEvent(new WheelEvent('wheel', { deltaY: k < 8 ? -100 : 100, clientX: r.left + r.width * 0.6, clientY: r.top + r.height * 0.5, bubbles: true, cancelable: true }));
      const t1 = await done;
      const draws = Object.fromEntries(Object.entries(document.body.dataset).filter(([a]) => a.startsWith('drawMs')).map(([a, v]) => [a, Number(v)]));
      out.push({ wall: t1 - t0, renders: Number(document.body.dataset.ninesRenders) - before, draws });
      await new Promise((res) => setTimeout(res, 30));
    }
    return out;
  });
}
