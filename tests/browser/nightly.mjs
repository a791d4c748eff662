// Nightly runs for the trend tests and benchmark: copies of real archives, each with its own
// start time (a day apart) and name, the first `flipAt` of run `a`, the rest of run `b`.
import fs from 'node:fs';
import path from 'node:path';

export function nightly(a, b, n, flipAt, dir) {
  const src = [fs.readFileSync(a, 'utf8'), fs.readFileSync(b, 'utf8')];
  fs.mkdirSync(dir, { recursive: true });
  const files = [];
  for (let i = 0; i < n; i++) {
    const t = (1.8e9 + i * 86400).toFixed(3);
    const text = src[i < flipAt ? 0 : 1]
      .replace(/^#\[StartTime: [0-9.]+/m, `#[StartTime: ${t}`)
      .replace(/^#\[BaseTime: [0-9.]+/m, `#[BaseTime: ${t}`)
      .replace(/^#\[nines (\{.*\})\]$/m, (_, json) => `#[nines ${JSON.stringify({ ...JSON.parse(json), name: `nightly ${i}` })}]`);
    const f = path.join(dir, `nightly-${String(i).padStart(4, '0')}.hlog`);
    fs.writeFileSync(f, text);
    files.push(f);
  }
  return files;
}
