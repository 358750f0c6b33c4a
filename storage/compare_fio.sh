#!/usr/bin/env bash
# Runs fabcheck's sequential write, sequential read and 4 KiB random read (QD 32) and the same
# patterns with fio (same file size, block size, queue depth, O_DIRECT, io_uring), one after the
# other on the same path, and prints fabcheck / fio ratios (targets: >= 0.95 bandwidth, >= 0.9 IOPS).
# A shared VM is noisy: each round runs both tools back to back (which goes first alternates by
# round), and the verdict is the median of the per-round ratios.
# Usage: storage/compare_fio.sh PATH/TO/fabcheck DIRECTORY [FILE_SIZE=1G] [ROUNDS=3] [SECONDS=10]
set -euo pipefail

USAGE="usage: $0 PATH/TO/fabcheck DIRECTORY [FILE_SIZE] [ROUNDS] [SECONDS]"
FABCHECK=${1:?$USAGE}
TARGET=${2:?$USAGE}
SIZE=${3:-1G}
ROUNDS=${4:-3}
SECONDS_PER_PATTERN=${5:-10}
command -v fio > /dev/null || { echo "fio not found" >&2; exit 2; }
command -v python3 > /dev/null || { echo "python3 not found" >&2; exit 2; }

# Judged against thresholds any storage meets: the ratios are the point here (FABCHECK_PROFILE overrides).
PROFILE=${FABCHECK_PROFILE:-$(cd "$(dirname "$0")/../tests/fixtures/storage" && pwd)/storage-smoke.toml}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/fabcheck-compare-fio.XXXXXX")
FIO_DIR=$(mktemp -d "$TARGET/.fabcheck-compare-fio.XXXXXX")  # fio's files, removed at the end
trap 'rm -rf "$WORK" "$FIO_DIR"' EXIT

# fabcheck_figure PROBE METRIC: runs one probe single-process and prints the metric's value.
fabcheck_figure() {
  local probe=$1 metric=$2 out="$WORK/fabcheck-${1#storage.}-$round"
  "$FABCHECK" run --single-process --profile "$PROFILE" --probes "$probe" --storage-path "$TARGET" --out "$out" \
    --opt storage.engine=io_uring --opt storage.direct=1 --opt storage.file_size="$SIZE" \
    --opt storage.block_size=1M --opt storage.queue_depth=32 \
    --opt storage.duration_s="$SECONDS_PER_PATTERN" > "$out.console" 2>&1 ||
    { cat "$out.console" >&2; echo "fabcheck $probe failed" >&2; exit 1; }
  python3 - "$out/measurements.jsonl" "$probe" "$metric" <<'PY'
import json, sys
path, probe, metric = sys.argv[1:]
for line in open(path):
    record = json.loads(line)
    if record.get("probe") == probe and record.get("metric") == metric:
        print(record["value"])
        break
else:
    sys.exit(f"{probe} {metric} not in {path}")
PY
}

# fio_figure RW BS KIND: runs fio on its own file and prints GB/s (KIND=bw) or IOPS (KIND=iops).
fio_figure() {
  local rw=$1 bs=$2 kind=$3
  fio --name="fabcheck-compare-$rw" --filename="$FIO_DIR/fio.dat" --size="$SIZE" --bs="$bs" \
    --rw="$rw" --iodepth=32 --direct=1 --ioengine=io_uring --time_based \
    --runtime="$SECONDS_PER_PATTERN" --output-format=json > "$WORK/fio-$rw.json"
  python3 - "$WORK/fio-$rw.json" "$kind" <<'PY'
import json, sys
job = json.load(open(sys.argv[1]))["jobs"][0]
side = job["write"] if job["write"]["io_bytes"] > 0 else job["read"]
print(side["bw_bytes"] / 1e9 if sys.argv[2] == "bw" else side["iops"])
PY
}

# pair FABCHECK_FIGURE FIO_FIGURE: runs both commands, fabcheck first in odd rounds and fio first
# in even ones, and prints "fabcheck fio".
pair() {
  local mine theirs
  if ((round % 2 == 1)); then
    mine=$(eval "$1") || exit 1
    theirs=$(eval "$2") || exit 1
  else
    theirs=$(eval "$2") || exit 1
    mine=$(eval "$1") || exit 1
  fi
  echo "$mine $theirs"
}

fio_layout() {  # fio reads a fully written file, as fabcheck does
  fio --name=layout --filename="$FIO_DIR/fio.dat" --size="$SIZE" --bs=1M --rw=write --direct=1 \
    --ioengine=io_uring --iodepth=32 > /dev/null
}

echo "target: $TARGET, file $SIZE, $ROUNDS rounds of $SECONDS_PER_PATTERN s per pattern, io_uring," \
  "O_DIRECT, QD 32"
FIGURES="$WORK/figures"
for ((round = 1; round <= ROUNDS; ++round)); do
  write=$(pair "fabcheck_figure storage.seq_write bw" "fio_figure write 1M bw") || exit 1
  fio_layout
  read=$(pair "fabcheck_figure storage.seq_read bw" "fio_figure read 1M bw") || exit 1
  rand=$(pair "fabcheck_figure storage.rand_read iops_qd32" "fio_figure randread 4k iops") || exit 1
  echo "$round $write $read $rand" >> "$FIGURES"
done

python3 - "$FIGURES" <<'PY'
import statistics, sys
rounds = [list(map(float, line.split()[1:])) for line in open(sys.argv[1])]
rows = [("seq_write 1M QD32", "GB/s", 0, 0.95),
        ("seq_read 1M QD32", "GB/s", 2, 0.95),
        ("rand_read 4K QD32", "IOPS", 4, 0.90)]
print(f"{'pattern':<20}{'unit':<6}{'fabcheck':>12}{'fio':>12}{'ratio':>8}  target   per-round ratios")
worst = 0
for name, unit, column, target in rows:
    mine = [r[column] for r in rounds]
    theirs = [r[column + 1] for r in rounds]
    ratios = [m / t if t > 0 else 0 for m, t in zip(mine, theirs)]
    ratio = statistics.median(ratios)
    ok = ratio >= target
    worst |= not ok
    print(f"{name:<20}{unit:<6}{statistics.median(mine):>12.4g}{statistics.median(theirs):>12.4g}"
          f"{ratio:>8.3f}  >= {target} {'ok' if ok else 'BELOW'}  "
          + " ".join(f"{r:.3f}" for r in ratios))
sys.exit(1 if worst else 0)
PY
