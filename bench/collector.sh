#!/usr/bin/env bash
# nines run against fio 3.33 on the same target with the same parameters:
#   (a) CPU-bound: 4k randread, buffered, file in the page cache, QD32, 1 job
#       -> IOPS ratio nines/fio and CPU time per I/O (user+sys of the whole process tree);
#   (b) device-bound: 4k randrw 70/30, O_DIRECT, QD16 -> IOPS and p50/p99/p99.9 per direction;
#   (c) recording overhead per I/O: the null engine with and without recording (and fio's
#       null engine for the tool's whole per-I/O cost).
# The tools alternate, ROUNDS rounds each; medians are reported. Writes the collector section
# of BENCHMARKS.md and the raw numbers to bench/results/collector.csv.
#
# Usage: bash bench/collector.sh            (RUNTIME=10 ROUNDS=3 DIR=/var/tmp/nines-bench)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
RUNTIME=${RUNTIME:-10}
ROUNDS=${ROUNDS:-3}
DIR=${DIR:-/var/tmp/nines-bench}
NULL_IOS=${NULL_IOS:-20000000}

command -v fio >/dev/null || { echo "fio is missing: apt-get install -y fio (scripts/setup.sh)"; exit 1; }
cargo build -q --release -p nines-qos
NINES=$ROOT/target/release/nines
mkdir -p "$DIR" bench/results
FILE=$DIR/target.dat
if [ ! -f "$FILE" ]; then
  "$NINES" run --quiet --no-summary --target "$FILE" --size 1GiB --ios 1 -o "$DIR/layout.hlog" --force
fi

python3 - "$NINES" "$FILE" "$DIR" "$RUNTIME" "$ROUNDS" "$NULL_IOS" <<'PY'
import json, os, re, resource, statistics, subprocess, sys, time

nines, target, d, runtime, rounds, null_ios = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])

def timed(cmd):
    """Run cmd; return (stdout, CPU seconds user+sys of it and its children, wall seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"{cmd[0]} failed: {p.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return p.stdout, cpu, wall

def nines_stats(hlog):
    out = subprocess.run([nines, "stats", "--json", hlog], stdout=subprocess.PIPE, text=True, check=True).stdout
    return json.loads(out)["runs"][0]

def level(tagstats, label):
    for l in tagstats["levels"]:
        if l["label"] == label:
            return l["value_ns"]
    return None

hlog = os.path.join(d, "bench.hlog")
rows = []  # (bench, tool, round, metric, value)

def nines_run(args):
    out, cpu, wall = timed([nines, "run", "--quiet", "--no-summary", "--force", "-o", hlog, "--target", target] + args)
    return nines_stats(hlog), cpu

def fio_run(args):
    # fio draws random offsets without replacement by default (a random map); nines draws with
    # replacement, so fio gets --norandommap for the same workload.
    out, cpu, wall = timed(["fio", "--name=bench", f"--filename={target}", "--size=1g", "--output-format=json", "--norandommap"] + args)
    return json.loads(out[out.index("{"):])["jobs"][0], cpu

# (a) CPU-bound, page cache.
subprocess.run(["cat", target], stdout=subprocess.DEVNULL, check=True)
for r in range(rounds):
    s, cpu = nines_run(["--buffered", "--rw", "randread", "--bs", "4k", "--qd", "32", "--runtime", f"{runtime}s"])
    n = s["tags"]["read"]["count"]
    rows += [("a", "nines", r, "iops", n / s["duration_s"]), ("a", "nines", r, "cpu_ns_per_io", cpu / n * 1e9)]
    s, cpu = nines_run(["--buffered", "--rw", "randread", "--bs", "4k", "--qd", "32", "--runtime", f"{runtime}s", "--submit-batch", "32"])
    n = s["tags"]["read"]["count"]
    rows += [("a", "nines-batch32", r, "iops", n / s["duration_s"]), ("a", "nines-batch32", r, "cpu_ns_per_io", cpu / n * 1e9)]
    j, cpu = fio_run(["--ioengine=io_uring", "--rw=randread", "--bs=4k", "--iodepth=32", "--direct=0", "--invalidate=0", f"--runtime={runtime}", "--time_based"])
    n = j["read"]["total_ios"]
    rows += [("a", "fio", r, "iops", j["read"]["iops"]), ("a", "fio", r, "cpu_ns_per_io", cpu / n * 1e9)]

# (b) device-bound, O_DIRECT randrw 70/30 QD16.
for r in range(rounds):
    s, cpu = nines_run(["--rw", "randrw", "--mix", "70", "--bs", "4k", "--qd", "16", "--runtime", f"{runtime}s"])
    for tag in ("read", "write"):
        t = s["tags"][tag]
        rows.append(("b", "nines", r, f"{tag}_iops", t["count"] / s["duration_s"]))
        for lab in ("p50", "p99", "p99.9"):
            rows.append(("b", "nines", r, f"{tag}_{lab}_us", level(t, lab) / 1e3))
    j, cpu = fio_run(["--ioengine=io_uring", "--rw=randrw", "--rwmixread=70", "--bs=4k", "--iodepth=16", "--direct=1",
                      f"--runtime={runtime}", "--time_based", "--lat_percentiles=1", "--percentile_list=50:99:99.9"])
    for tag in ("read", "write"):
        t = j[tag]
        rows.append(("b", "fio", r, f"{tag}_iops", t["iops"]))
        pct = t["lat_ns"]["percentile"]
        for lab, key in (("p50", "50.000000"), ("p99", "99.000000"), ("p99.9", "99.900000")):
            rows.append(("b", "fio", r, f"{tag}_{lab}_us", pct[key] / 1e3))

# (d) the same clock points: QD1 O_DIRECT randread latency.
for r in range(rounds):
    s, cpu = nines_run(["--rw", "randread", "--bs", "4k", "--qd", "1", "--runtime", "5s"])
    t = s["tags"]["read"]
    rows.append(("d", "nines", r, "iops", t["count"] / s["duration_s"]))
    for lab in ("p50", "p99"):
        rows.append(("d", "nines", r, f"{lab}_us", level(t, lab) / 1e3))
    j, cpu = fio_run(["--ioengine=io_uring", "--rw=randread", "--bs=4k", "--iodepth=1", "--direct=1", "--runtime=5", "--time_based",
                      "--lat_percentiles=1", "--percentile_list=50:99"])
    rows.append(("d", "fio", r, "iops", j["read"]["iops"]))
    for lab, key in (("p50", "50.000000"), ("p99", "99.000000")):
        rows.append(("d", "fio", r, f"{lab}_us", j["read"]["lat_ns"]["percentile"][key] / 1e3))

# (c) recording overhead: null engine, with and without recording.
for r in range(rounds):
    for rec in (True, False):
        args = [nines, "run", "--quiet", "--no-summary", "--force", "-o", hlog, "--engine", "null", "--target", "none",
                "--size", "1GiB", "--qd", "32", "--ios", str(null_ios)] + ([] if rec else ["--no-record"])
        _, cpu, wall = timed(args)
        rows.append(("c", "nines" if rec else "nines-no-record", r, "cpu_ns_per_io", cpu / null_ios * 1e9))
    j, cpu = fio_run(["--ioengine=null", "--rw=randread", "--bs=4k", "--iodepth=32", "--runtime=5", "--time_based"])
    rows.append(("c", "fio-null", r, "cpu_ns_per_io", cpu / j["read"]["total_ios"] * 1e9))

with open("bench/results/collector.csv", "w") as f:
    f.write("bench,tool,round,metric,value\n")
    for row in rows:
        f.write(",".join(str(x) for x in row) + "\n")

def med(bench, tool, metric):
    return statistics.median(v for b, t, _, m, v in rows if b == bench and t == tool and m == metric)

def vals(bench, tool, metric):
    return " / ".join(f"{v:,.0f}" for b, t, _, m, v in rows if b == bench and t == tool and m == metric)

load = open("/proc/loadavg").read().split()[:3]
date = time.strftime("%Y-%m-%d", time.gmtime())
na, fa = med("a", "nines", "iops"), med("a", "fio", "iops")
nc, fc = med("a", "nines", "cpu_ns_per_io"), med("a", "fio", "cpu_ns_per_io")
lines = []
lines.append("## Collector: `nines run` against fio 3.33")
lines.append("")
lines.append(f"Same 1 GiB file on the ext4 work disk, same parameters, io_uring in both, {runtime} s per run, the tools")
lines.append(f"alternating, median of {rounds} rounds ({date}, 2-core VM shared with other work: load average at the end")
lines.append(f"{' '.join(load)}, so absolute IOPS move between runs; CPU time per I/O is user+sys of the whole process).")
lines.append("fio runs with `--norandommap` (offsets drawn with replacement, as nines draws them).")
lines.append("")
lines.append("**(a) CPU-bound**: 4k randread, buffered, file in the page cache, QD32, 1 job.")
lines.append("")
lines.append("| tool | IOPS (median) | IOPS per round | CPU per I/O |")
lines.append("|---|---|---|---|")
lines.append(f"| nines | {na:,.0f} | {vals('a','nines','iops')} | {nc:,.0f} ns |")
lines.append(f"| fio | {fa:,.0f} | {vals('a','fio','iops')} | {fc:,.0f} ns |")
lines.append(f"| nines `--submit-batch 32` | {med('a','nines-batch32','iops'):,.0f} | {vals('a','nines-batch32','iops')} | {med('a','nines-batch32','cpu_ns_per_io'):,.0f} ns |")
lines.append("")
lines.append(f"IOPS ratio nines/fio: **{na/fa:.2f}**; CPU per I/O nines/fio: **{nc/fc:.2f}** (both with their defaults: one")
lines.append("submission per I/O). Handing the kernel 32 I/Os per system call (`--submit-batch 32`) is the last row; it")
lines.append("saves CPU but holds the first I/O of each group back until the group is complete, so it is not the default.")
lines.append("")
lines.append("**(b) device-bound**: 4k randrw 70/30, O_DIRECT, QD16. nines measures from just before the submitting")
lines.append("system call to just after the reaping one, so fio's numbers are its total latency (`lat`, `--lat_percentiles=1`).")
lines.append("")
lines.append("| dir | tool | IOPS | p50 | p99 | p99.9 |")
lines.append("|---|---|---|---|---|---|")
for tag in ("read", "write"):
    for tool in ("nines", "fio"):
        lines.append(f"| {tag} | {tool} | {med('b', tool, tag + '_iops'):,.0f} | " + " | ".join(
            f"{med('b', tool, f'{tag}_{lab}_us'):,.0f} us" for lab in ("p50", "p99", "p99.9")) + " |")
lines.append("")
rec, norec, fnull = med("c", "nines", "cpu_ns_per_io"), med("c", "nines-no-record", "cpu_ns_per_io"), med("c", "fio-null", "cpu_ns_per_io")
lines.append(f"**(c) recording overhead**: the null engine (no I/O), QD32, {null_ios:,} I/Os. CPU per I/O with recording")
lines.append(f"{rec:.1f} ns, without (`--no-record`: same loop, clocks read, nothing recorded) {norec:.1f} ns: recording costs")
lines.append(f"**{rec - norec:.1f} ns per I/O** (histogram record, exact max, count, bytes, sum). fio's null engine at QD32")
lines.append(f"costs {fnull:.1f} ns per I/O for the whole tool, nines {rec:.1f} ns.")
lines.append("")
lines.append("**(d) same clock points**: 4k randread, O_DIRECT, QD1, 5 s: the two tools' latencies of the same I/O path.")
lines.append("")
lines.append("| tool | IOPS | p50 | p99 |")
lines.append("|---|---|---|---|")
for tool in ("nines", "fio"):
    lines.append(f"| {tool} | {med('d', tool, 'iops'):,.0f} | {med('d', tool, 'p50_us'):.1f} us | {med('d', tool, 'p99_us'):.1f} us |")
lines.append("")
lines.append("Command: `bash bench/collector.sh` (raw numbers: bench/results/collector.csv).")
section = "\n".join(lines)

path = "BENCHMARKS.md"
text = open(path).read() if os.path.exists(path) else "# Benchmarks\n"
begin, end = "<!-- collector:begin -->", "<!-- collector:end -->"
block = f"{begin}\n{section}\n{end}"
if begin in text and end in text:
    text = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: block, text, flags=re.S)
else:
    text = text.rstrip("\n") + "\n\n" + block + "\n"
open(path, "w").write(text)
print(section)
PY
