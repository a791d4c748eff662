#!/usr/bin/env bash
# `nines site` adding one run to a site of many: the 1,000th and the 10,000th. Each addition
# reads the site's manifest (its entries one at a time) and writes it again with the new run;
# peak memory should not grow with the site's runs, and time only by that pass.
# Writes the BENCHMARKS.md section between <!-- site:begin --> and <!-- site:end -->, the
# raw numbers into bench/results/site.csv.
#
# Runs: two real 2 s randrw runs on a temporary file (psync QD1 and io_uring QD16), copied
# into 10,000 nights a day apart (tests/browser/nightly.mjs), as bench/trend.sh does.
# Usage: bash bench/site.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q --release -p nines-qos
N=$PWD/target/release/nines
tmp=$(mktemp -d -p target)
trap 'rm -rf "$tmp"' EXIT
$N run --target "$tmp/t.dat" --size 64M --rw randrw --mix 70 --qd 1 --engine psync --runtime 2s --window 100ms -o "$tmp/a.hlog" -q --no-summary
$N run --target "$tmp/t.dat" --size 64M --rw randrw --mix 70 --qd 16 --runtime 2s --window 100ms -o "$tmp/b.hlog" -q --no-summary
rm -f "$tmp/t.dat"
node -e "import('./tests/browser/nightly.mjs').then((m) => m.nightly('$tmp/a.hlog', '$tmp/b.hlog', 10000, 5000, '$tmp/nights'))"
mapfile -t nights < <(ls "$tmp"/nights/*.hlog)

# wall seconds and peak RSS in MB of a command
measure() {
  /usr/bin/time -o "$tmp/time" -f '%e %M' "$@" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
  awk '{printf "%.2f %.1f\n", $1, $2 / 1024}' "$tmp/time"
}
echo "runs,what,wall_s,peak_rss_mb" > bench/results/site.csv
rows=""
have=0
for n in 1000 10000; do
  echo "bench: a site of $((n - 1)) runs" >&2
  # the site grows in batches of 1,000 runs (one command line each)
  while [ $have -lt $((n - 1)) ]; do
    upto=$(( have + 1000 < n - 1 ? have + 1000 : n - 1 ))
    $N site "${nights[@]:$have:$((upto - have))}" -o "$tmp/site" >/dev/null
    have=$upto
  done
  echo "bench: adding run $n" >&2
  read -r aw am < <(measure "$N" site "${nights[$((n - 1))]}" -o "$tmp/site")
  have=$n
  read -r gw gm < <(measure "$N" site "${nights[$((n - 1))]}" -o "$tmp/site")
  mb=$(( $(stat -c %s "$tmp/site/manifest.json") / 1000 ))
  echo "$n,add,$aw,$am" >> bench/results/site.csv
  echo "$n,again,$gw,$gm" >> bench/results/site.csv
  rows+="| $n | ${mb} KB | $aw s | $am MB | $gw s | $gm MB |"$'\n'
done
section=$(cat <<MD
<!-- site:begin -->
## Site: adding the 1,000th and the 10,000th run

\`nines site RUN -o SITE\` on a site that already holds the other runs (nightly copies of a
2 s run, as in the trend benchmark), $(date -u +%Y-%m-%d), this project's 2-core VM, whole
process once each; peak memory is the maximum resident set (GNU time). "Again" gives the
same run a second time (nothing added; the manifest is still read and written).

| runs after | manifest | add the run: wall | peak memory | again: wall | peak memory |
|---|---|---|---|---|---|
${rows}
Command: \`bash bench/site.sh\` (raw: bench/results/site.csv).
<!-- site:end -->
MD
)
python3 - "$section" <<'PY'
import re, sys
section = sys.argv[1]
path = "BENCHMARKS.md"
text = open(path).read()
if "<!-- site:begin -->" in text:
    text = re.sub(r"<!-- site:begin -->.*?<!-- site:end -->", lambda m: section, text, flags=re.S)
else:
    text = text.replace("<!-- trend:begin -->", section + "\n\n<!-- trend:begin -->")
open(path, "w").write(text)
PY
echo "site: $rows"
