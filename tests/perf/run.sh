#!/usr/bin/env bash
# Measures fleet evaluation against its targets and prints the figures: synthetic sweeps
# (tests/synthetic) of 4096 nodes x 8 GPUs (< 5 s, < 2 GiB) and 12,500 nodes (< 20 s), through the
# Google Benchmark in tests/perf/fleet_benchmark.cpp (each evaluation in a child, its peak RSS from
# wait4; the sweep read once beforehand, untimed, so that it is in the page cache as right after a
# sweep wrote it), then the fabcheck binary itself under /usr/bin/time -v on the 4096-node sweep.
# Usage: tests/perf/run.sh [BUILD_DIR]. The sweeps are written once into $FABCHECK_PERF_DIR
# (default /tmp/fabcheck-perf; about 1.6 GB and 5 GB) and kept for the next run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${1:-$root/build}"
export FABCHECK_PERF_DIR="${FABCHECK_PERF_DIR:-/tmp/fabcheck-perf}"
cmake --build "$build" --target perf_fleet fabcheck -j"$(nproc)" >/dev/null
json="$(mktemp)"
trap 'rm -f "$json"' EXIT
"$build/tests/perf/perf_fleet" --benchmark_filter='BM_EvaluateFleet' --benchmark_format=json \
  --benchmark_out="$json" --benchmark_out_format=json >/dev/null
status=0
/usr/bin/python3 - "$json" <<'EOF' || status=1
import json, sys
targets = {4096: (5.0, 2048.0), 12500: (20.0, None)}
rows = json.load(open(sys.argv[1]))["benchmarks"]
print(f"{'nodes':>6} {'GPUs':>7} {'measurements':>13} {'seconds':>8} {'(runs':>6} {'peers)':>6} "
      f"{'peak MiB':>9} {'records/s':>11} {'findings':>9} {'drain':>6}  target")
ok = True
for row in rows:
    nodes = int(row["nodes"])
    seconds = row["real_time"]  # manual time, seconds (the benchmark's unit)
    rss = row["peak_rss_MiB"]
    limit_s, limit_mib = targets.get(nodes, (None, None))
    met = (limit_s is None or seconds < limit_s) and (limit_mib is None or rss < limit_mib)
    ok = ok and met
    want = " and ".join(x for x in (f"< {limit_s:g} s" if limit_s else "",
                                    f"< {limit_mib / 1024:g} GiB" if limit_mib else "") if x)
    print(f"{nodes:>6} {int(row['gpus']):>7} {int(row['measurements']):>13} {seconds:>8.2f} "
          f"{row['seconds_runs']:>6.2f} {row['seconds_peers']:>6.2f} {rss:>9.0f} {row['records_per_s']:>11.3g} {int(row['findings']):>9} "
          f"{int(row['drain']):>6}  {want}: {'met' if met else 'MISSED'}")
sys.exit(0 if ok else 1)
EOF
sweep="$FABCHECK_PERF_DIR/fleet-4096/sweep"
find "$sweep" -type f -exec cat {} + >/dev/null  # in the page cache, as for the benchmark
echo "fabcheck evaluate $sweep under /usr/bin/time -v:"
set +e
/usr/bin/time -v "$build/bench/cli/fabcheck" evaluate "$sweep" >/dev/null 2>"$json.time"
code=$?
set -e
grep -E "Elapsed \(wall clock\)|Maximum resident set size" "$json.time" | sed 's/^\s*/  /'
echo "  exit code $code (1: the sweep's injected faults are FAILs)"
rm -f "$json.time"
exit $status
