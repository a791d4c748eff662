// The page's follower for `nines view --follow` and `nines run --live` (the server adds it to
// index.html only then). It polls `live.json` beside the page (each run's window count and
// size, read by the server as the file grows) and, when a run has more windows than the page
// shows, fetches the run's compact form again and hands it to the viewer's `replace_run`,
// which redraws without a reload. A badge shows what is followed; its data-windows attribute
// is the number of windows the page holds (the tests read it).
import * as viewer from './nines_viewer.js';

const EVERY_MS = 1000;
const shown = new Map(); // file -> windows the viewer holds

const badge = document.createElement('div');
badge.id = 'nines-live';
badge.dataset.testid = 'live-status';
badge.dataset.windows = '0';
badge.setAttribute('role', 'status');
// in the page's flow above the viewer, not floating: a badge fixed in a corner covered the
// heatmap's buttons
badge.style.cssText = 'display:inline-block;margin:8px 12px 0;padding:4px 10px;border-radius:12px;'
  + 'font:12px system-ui,sans-serif;background:#1f6f3f;color:#fff';
badge.textContent = 'live: waiting for the first window';
document.body.prepend(badge);

function say(text, finished) {
  const total = [...shown.values()].reduce((a, b) => a + b, 0);
  badge.dataset.windows = String(total);
  badge.dataset.done = finished ? '1' : '0';
  badge.style.background = finished ? '#555' : '#1f6f3f';
  badge.textContent = text.replace('{n}', String(total));
}

async function tick() {
  const r = await fetch('live.json', { cache: 'no-store' });
  if (!r.ok) throw new Error('live.json: HTTP ' + r.status);
  const live = await r.json();
  let problem = null;
  for (const run of live.runs) {
    if (run.error && !run.windows) problem = run.error;
    if (!run.windows || shown.get(run.file) === run.windows) continue;
    const resp = await fetch(run.compact || run.file, { cache: 'no-store' });
    if (!resp.ok) throw new Error(run.file + ': HTTP ' + resp.status);
    // the count of the bytes fetched (the file may have grown since live.json)
    const windows = Number(resp.headers.get('x-nines-windows') || run.windows);
    const bytes = new Uint8Array(await resp.arrayBuffer());
    // false until the viewer has loaded the page's first runs; tried again next time
    if (!viewer.replace_run(run.file, bytes)) return false;
    shown.set(run.file, windows);
  }
  const at = new Date().toLocaleTimeString();
  if (live.done) {
    say(`finished: {n} windows`, true);
    return true;
  }
  say(problem && shown.size === 0 ? `live: ${problem}` : `live: {n} windows (updated ${at})`, false);
  return false;
}

async function loop() {
  if (typeof viewer.replace_run !== 'function') {
    say('this viewer cannot follow runs (rebuild nines)', true);
    return;
  }
  // the viewer's module starts with the page (index.html); wait until it runs
  while (!document.body.classList.contains('viewer-on')) await new Promise((r) => setTimeout(r, 100));
  for (;;) {
    let done = false;
    try {
      done = await tick();
    } catch (e) {
      say('live: ' + (e && e.message ? e.message : e) + ' (retrying)', false);
    }
    if (done) return;
    await new Promise((r) => setTimeout(r, EVERY_MS));
  }
}

loop();
