// Nightly runs for the trend tests and benchmark: copies of real archives, each with its own
// start time (a day apart) and name, the first `flipAt` of run `a`, the rest of run `b`.
import fs from 'node:fs';
import path from 'node:path';

export function nightly(a, b, n, flipAt, dir) {
  const src = [fs.readFileSync(a, 'utf8'), fs.readFileSync(b, 'utf8')];
  // every night is the same job (the first run's metadata, so one workload: a trend compares
  // runs of one workload), only what the device did changes at the flip
  // (a run writes two metadata lines, its start and its end: their keys merged)
  const meta = Object.assign({}, ...[...src[0].matchAll(/^#\[nines (\{.*\})\]$/gm)].map((m) => JSON.parse(m[1])));
  fs.mkdirSync(dir, { recursive: true });
  const files = [];
  for (let i = 0; i < n; i++) {
    const t = (1.8e9 + i * 86400).toFixed(3);
    const text = src[i < flipAt ? 0 : 1]
      .replace(/^#\[StartTime: [0-9.]+/m, `#[StartTime: ${t}`)
      .replace(/^#\[BaseTime: [0-9.]+/m, `#[BaseTime: ${t}`)
      .replace(/^#\[nines (\{.*\})\]\n/gm, '')
      .replace(/^(#\[StartTime: .*\n)/m, (l) => `${l}#[nines ${JSON.stringify({ ...meta, name: `nightly ${i}` })}]\n`);
    const f = path.join(dir, `nightly-${String(i).padStart(4, '0')}.hlog`);
    fs.writeFileSync(f, text);
    files.push(f);
  }
  return files;
}
