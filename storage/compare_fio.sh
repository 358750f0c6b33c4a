#!/usr/bin/env bash
# Runs fabcheck's sequential write, sequential read and 4 KiB random read (QD 32) and the same
# patterns with fio (same file size, block size, queue depth, O_DIRECT, io_uring), one after the
# other on the same path, and prints fabcheck / fio ratios (targets: >= 0.95 bandwidth, >= 0.9 IOPS).
# Usage: storage/compare_fio.sh PATH/TO/fabcheck DIRECTORY [FILE_SIZE=1G] [SECONDS=10]
set -euo pipefail

FABCHECK=${1:?usage: $0 PATH/TO/fabcheck DIRECTORY [FILE_SIZE] [SECONDS]}
TARGET=${2:?usage: $0 PATH/TO/fabcheck DIRECTORY [FILE_SIZE] [SECONDS]}
SIZE=${3:-1G}
SECONDS_PER_PATTERN=${4:-10}
command -v fio > /dev/null || { echo "fio not found" >&2; exit 2; }
command -v python3 > /dev/null || { echo "python3 not found" >&2; exit 2; }

# Judged against no expected figures: the ratios are the point here (FABCHECK_PROFILE overrides).
PROFILE=${FABCHECK_PROFILE:-$(cd "$(dirname "$0")/../tests/fixtures/storage" && pwd)/no-expectations.toml}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/fabcheck-compare-fio.XXXXXX")
FIO_DIR=$(mktemp -d "$TARGET/.fabcheck-compare-fio.XXXXXX")  # fio's files, removed at the end
trap 'rm -rf "$WORK" "$FIO_DIR"' EXIT

# fabcheck_figure PROBE METRIC: runs one probe single-process and prints the metric's value.
fabcheck_figure() {
  local probe=$1 metric=$2 out="$WORK/fabcheck-${1#storage.}"
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

echo "target: $TARGET, file $SIZE, $SECONDS_PER_PATTERN s per pattern, io_uring, O_DIRECT, QD 32"
fc_write=$(fabcheck_figure storage.seq_write bw)
fio_write=$(fio_figure write 1M bw)
fc_read=$(fabcheck_figure storage.seq_read bw)
fio --name=layout --filename="$FIO_DIR/fio.dat" --size="$SIZE" --bs=1M --rw=write --direct=1 \
  --ioengine=io_uring --iodepth=32 > /dev/null  # fio reads a fully written file, as fabcheck does
fio_read=$(fio_figure read 1M bw)
fc_rand=$(fabcheck_figure storage.rand_read iops_qd32)
fio_rand=$(fio_figure randread 4k iops)

python3 - "$fc_write" "$fio_write" "$fc_read" "$fio_read" "$fc_rand" "$fio_rand" <<'PY'
import sys
fw, iw, fr, ir, fq, iq = map(float, sys.argv[1:])
rows = [("seq_write 1M QD32", "GB/s", fw, iw, 0.95),
        ("seq_read 1M QD32", "GB/s", fr, ir, 0.95),
        ("rand_read 4K QD32", "IOPS", fq, iq, 0.90)]
print(f"{'pattern':<20}{'unit':<6}{'fabcheck':>12}{'fio':>12}{'ratio':>8}  target")
worst = 0
for name, unit, mine, theirs, target in rows:
    ratio = mine / theirs if theirs > 0 else 0
    ok = ratio >= target
    worst |= not ok
    print(f"{name:<20}{unit:<6}{mine:>12.4g}{theirs:>12.4g}{ratio:>8.3f}  >= {target} {'ok' if ok else 'BELOW'}")
sys.exit(1 if worst else 0)
PY
