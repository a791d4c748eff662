#!/usr/bin/env bash
# The cost of recording each window's context (nines run's #[context] lines): CPU time of
# the whole process over 1000 windows of 10 ms with and without --no-context (null engine,
# 100 IOPS, so the I/O itself costs next to nothing), 3 rounds; the difference per window is
# one sample of /proc/diskstats, /proc/stat, /proc/pressure/{io,cpu} and getrusage, the
# sampling thread's wake-up and the line written.
# Usage: bash bench/context.sh [path/to/nines]   (default: a release build in target/)
set -euo pipefail
cd "$(dirname "$0")/.."
NINES=${1:-target/release/nines}
[ -x "$NINES" ] || cargo build -q --release -p nines-qos
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
python3 - "$NINES" "$DIR" <<'PY'
import resource, subprocess, sys
nines, d = sys.argv[1], sys.argv[2]
def cpu(extra):
    b = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([nines, "run", "--engine", "null", "--target", "x", "--size", "1m", "--rate-iops", "100", "--runtime", "10s",
                    "--window", "10ms", "-q", "--no-summary", "-o", d + "/c.hlog", "--force"] + extra, check=True)
    a = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (a.ru_utime - b.ru_utime) + (a.ru_stime - b.ru_stime)
per = []
for i in range(3):
    on, off = cpu([]), cpu(["--no-context"])
    per.append((on - off) / 1000)
    print(f"round {i+1}: with context {on:.3f} s CPU, --no-context {off:.3f} s CPU: {(on-off)/1000*1e6:.0f} us a window")
m = sorted(per)[1]
print(f"median {m*1e6:.0f} us a window = {m*100:.4f} % of a core at 1 s windows")
PY

# What the context records add to a report (`nines report`, default compact form): a real
# io_uring run of 120 one-second windows at 2,000 IOPS on a file on this machine's disk,
# reported with its context lines and without them (the same archive, the lines taken out);
# the difference per window times 3,600 is what they add to a run-hour, as long as a
# run-hour's records stay within their budget one window each (compact form version 5).
SECS=${CONTEXT_REPORT_SECS:-120}
"$NINES" run --target "$DIR/t" --size 256M --rw randrw --qd 4 --bs 4k --rate-iops 2000 --runtime "${SECS}s" \
    -q --no-summary -o "$DIR/r.hlog"
grep -v '^#\[context ' "$DIR/r.hlog" > "$DIR/plain.hlog"
"$NINES" report "$DIR/r.hlog" -o "$DIR/with.html" > /dev/null
"$NINES" report "$DIR/plain.hlog" -o "$DIR/without.html" > /dev/null
python3 - "$DIR" "$SECS" <<'PY'
import os, sys
d, secs = sys.argv[1], int(sys.argv[2])
w, wo = os.path.getsize(d + "/with.html"), os.path.getsize(d + "/without.html")
lines = sum(1 for l in open(d + "/r.hlog") if l.startswith("#[context "))
print(f"report with {lines} context records: {w} bytes, without: {wo} bytes; "
      f"{(w - wo) / lines:.1f} bytes a window, {(w - wo) / lines * 3600 / 1000:.1f} kB a run-hour")
PY
