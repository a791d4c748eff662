#!/usr/bin/env bash
# Site trend: a site of 1,000 nightly runs opens on the trend of a level across them, drawn
# from the whole-run summaries `nines site` keeps in manifest.json, without loading a run.
# Writes the BENCHMARKS.md section between <!-- trend:begin --> and <!-- trend:end -->.
#
# Runs: two real 2 s randrw runs on a temporary file (psync QD1 and io_uring QD16), copied
# into 1,000 nights a day apart (tests/browser/nightly.mjs), the QD16 run from night 500 on.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q --release -p nines-qos
N=$PWD/target/release/nines
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=1000
$N run --target "$tmp/t.dat" --size 64M --rw randrw --mix 70 --qd 1 --engine psync --runtime 2s --window 100ms -o "$tmp/a.hlog" -q --no-summary
$N run --target "$tmp/t.dat" --size 64M --rw randrw --mix 70 --qd 16 --runtime 2s --window 100ms -o "$tmp/b.hlog" -q --no-summary
node -e "import('./tests/browser/nightly.mjs').then((m) => m.nightly('$tmp/a.hlog', '$tmp/b.hlog', $n, $n / 2, '$tmp/nights'))"
t0=$(date +%s.%N)
$N site "$tmp"/nights/*.hlog -o "$tmp/site" >/dev/null
t1=$(date +%s.%N)
node tests/browser/trend-bench.mjs "$tmp/site" 3 > bench/results/trend.json
read -r first draw bytes runs requests < <(node -e '
const r = JSON.parse(require("fs").readFileSync("bench/results/trend.json", "utf8"));
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor((s.length - 1) / 2)]; };
console.log(Math.round(med(r.trend_ms)), Math.round(med(r.draw_ms)), r.manifest_bytes, r.runs, Math.max(...r.run_requests));')
verdict=$([ "$first" -le 2000 ] && echo meets || echo misses)
section=$(cat <<MD
<!-- trend:begin -->
## Site trend: a thousand nightly runs

\`nines site\` keeps each run's whole-run levels and intervals per direction in
\`manifest.json\`; a site of more than 100 runs opens on the trend of a level across them
(each run against the one before it, or a pinned baseline, as \`nines compare\` judges) and
loads a run only when its point is clicked. $(date -u +%Y-%m-%d), this project's 2-core VM,
headless Chromium, site served from loopback, median of 3 page loads.

| runs | manifest | first trend drawn (from navigation) | its draw | runs requested |
|---|---|---|---|---|
| ${runs} | $((bytes / 1024)) KiB | ${first} ms (${verdict} <= 2,000 ms) | ${draw} ms | ${requests} |

Writing the site of ${n} runs (\`nines site\`, each run's compact form and summary) took
$(python3 -c "print(f'{$t1 - $t0:.1f}')") s. No peer draws this view; the goal is the absolute one.

Command: \`bash bench/trend.sh\` (raw: bench/results/trend.json).
<!-- trend:end -->
MD
)
python3 - "$section" <<'PY'
import re, sys
section = sys.argv[1]
path = "BENCHMARKS.md"
text = open(path).read()
if "<!-- trend:begin -->" in text:
    text = re.sub(r"<!-- trend:begin -->.*?<!-- trend:end -->", lambda m: section, text, flags=re.S)
else:
    text = text.rstrip("\n") + "\n\n" + section + "\n"
open(path, "w").write(text)
PY
echo "trend: first draw ${first} ms for ${runs} runs (${verdict} 2 s)"
