#!/usr/bin/env bash
# fabcheck's coll.all_reduce against a plain MPI_Allreduce loop (bench/compare/mpi_allreduce_peer.c),
# side by side in one run: same ranks, sizes, iterations and statistic, alternating for ROUNDS rounds;
# prints each one's median busbw per size and the ratio fabcheck/peer (the harness must not cost
# bandwidth: at 1 MiB and above the ratio should be at least 0.95).
# Usage: bench/compare_mpi.sh [NP=2] [ROUNDS=3]   (after scripts/setup.sh; ITERS=50 timed iterations)
set -euo pipefail
cd "$(dirname "$0")/.."
np="${1:-2}"
rounds="${2:-3}"
sizes=(4096 65536 1048576 4194304 16777216 67108864)
iters="${ITERS:-50}"
fabcheck=build/bench/cli/fabcheck
peer=build/bench/mpi_allreduce_peer
[ -x "$fabcheck" ] && [ -x "$peer" ] || { echo "build first: scripts/setup.sh" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
size_list=$(IFS=,; echo "${sizes[*]}")

for round in $(seq "$rounds"); do
  # Exit 1 is a FAIL verdict (a loaded machine below generic-cpu's floors): the figures are there and
  # are what this comparison reads. Anything else is an error.
  rc=0
  scripts/mpirun.sh "$np" "$fabcheck" run --probes coll.all_reduce --sizes "$size_list" --iters "$iters" \
    --warmup 5 --profile generic-cpu --out "$work/fabcheck-$round" >/dev/null 2>&1 || rc=$?
  if ((rc != 0 && rc != 1)); then
    echo "compare_mpi: fabcheck exited $rc in round $round" >&2
    exit 1
  fi
  python3 - "$work/fabcheck-$round/measurements.jsonl" >>"$work/fabcheck.txt" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    m = json.loads(line)
    if m["metric"] == "busbw":
        print(m["size_bytes"], m["value"])
PY
  PEER_ITERS=$iters PEER_WARMUP=5 scripts/mpirun.sh "$np" "$peer" "${sizes[@]}" >>"$work/peer.txt"
done

python3 - "$work/fabcheck.txt" "$work/peer.txt" "$np" "$rounds" <<'PY'
import statistics, sys
def load(path):
    values = {}
    for line in open(path):
        size, busbw = line.split()
        values.setdefault(int(size), []).append(float(busbw))
    return values
ours, peer = load(sys.argv[1]), load(sys.argv[2])
print(f"coll.all_reduce vs plain MPI_Allreduce, {sys.argv[3]} ranks, median busbw of {sys.argv[4]} alternating rounds")
print(f"{'size (B)':>12} {'fabcheck GB/s':>14} {'peer GB/s':>10} {'ratio':>7}")
worst = None
for size in sorted(peer):
    a, b = statistics.median(ours[size]), statistics.median(peer[size])
    ratio = a / b if b > 0 else float("nan")
    if size >= 1 << 20:
        worst = ratio if worst is None else min(worst, ratio)
    print(f"{size:>12} {a:>14.3f} {b:>10.3f} {ratio:>7.3f}")
print(f"lowest ratio at 1 MiB and above: {worst:.3f} (target >= 0.95)")
PY
