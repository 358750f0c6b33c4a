#!/usr/bin/env bash
# Runs fabcheck's storage patterns and the fio jobs that do the same I/O, side by side on the same
# path, and prints fabcheck / fio ratios against targets (a benchmark: nothing in CI runs it).
#
#   seq_write, seq_read  1M, QD 32, io_uring, O_DIRECT, a FILE_SIZE file       target 0.95 (GB/s)
#   rand_read            4 KiB, QD 32, io_uring, O_DIRECT, a FILE_SIZE file    target 0.95 (IOPS)
#                        both visit every block once a pass in random order (fio's random map)
#   loader               storage.loader's small files against fio's --nrfiles job:  target 0.90
#                        LOADER_BYTES (1G) in files of LOADER_SAMPLE (128K), read whole at random,
#                        each once, by W threads for each W in LOADER_WORKERS (1,4); samples/s
#
# How the loader's small-file path and the fio job correspond, step for step (fio_loader):
#   fabcheck storage.loader                      fio
#   N small files, then as many bytes of         the same files (in P folders, P the most threads)
#     LOADER_SHARD shards, then one syncfs         and shards with --rw=write, then `sync -f`
#   for each W: page cache dropped               the same fadvise(DONTNEED) over every file
#   W threads share one shuffled list of all     W jobs (--thread): --opendir of all folders for
#     N files, each file read once                 W=1, one folder a job for W=P;
#                                                  --file_service_type=random, each file once
#   open, read the sample whole (buffered),      --ioengine=psync --direct=0 --bs=SAMPLE (open,
#     read to EOF, close                           one pread, close; --invalidate=0 and
#                                                  --fadvise_hint=0: no fadvise per open, as the
#                                                  loader makes none)
#   stops after all files or SECONDS             --runtime=SECONDS (without --time_based)
#   then the shards dropped and read             the same (not compared)
# The loader's target is 0.90, not 0.95: a point lasts 1-3 s (each of 8192 files read once, the
# data set bounds it, not SECONDS), on a VM it may meet the host's write-back of the 2 GB written
# just before, and fio's jobs each own a share of the files where the loader's threads share one
# list, so fio's jobs do not end together.
#
# A shared VM is noisy: each round runs both tools back to back (which goes first alternates by
# round), and the verdict is the median of the per-round ratios; every round's figures are printed.
# Usage: storage/compare_fio.sh PATH/TO/fabcheck DIRECTORY [FILE_SIZE=1G] [ROUNDS=5] [SECONDS=10]
# Environment: COMPARE_PATTERNS (default "seq_write seq_read rand_read loader"), LOADER_BYTES,
# LOADER_SAMPLE, LOADER_WORKERS (comma-separated), FABCHECK_PROFILE.
set -euo pipefail

USAGE="usage: $0 PATH/TO/fabcheck DIRECTORY [FILE_SIZE] [ROUNDS] [SECONDS]"
FABCHECK=${1:?$USAGE}
TARGET=${2:?$USAGE}
SIZE=${3:-1G}
ROUNDS=${4:-5}
SECONDS_PER_PATTERN=${5:-10}
PATTERNS=${COMPARE_PATTERNS:-seq_write seq_read rand_read loader}
LOADER_BYTES=${LOADER_BYTES:-1G}
LOADER_SAMPLE=${LOADER_SAMPLE:-128K}
LOADER_WORKERS=${LOADER_WORKERS:-1,4}
LOADER_SHARD=${LOADER_SHARD:-64M}
command -v fio > /dev/null || { echo "fio not found (scripts/setup.sh installs it)" >&2; exit 2; }
command -v python3 > /dev/null || { echo "python3 not found" >&2; exit 2; }
FABCHECK=$(realpath "$FABCHECK")

# Judged against thresholds any storage meets: the ratios are the point here (FABCHECK_PROFILE overrides).
PROFILE=${FABCHECK_PROFILE:-$(cd "$(dirname "$0")/../tests/fixtures/storage" && pwd)/storage-smoke.toml}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/fabcheck-compare-fio.XXXXXX")
FIO_DIR=$(mktemp -d "$TARGET/.fabcheck-compare-fio.XXXXXX")  # fio's files, removed at the end
trap 'rm -rf "$WORK" "$FIO_DIR"' EXIT

bytes_of() {  # 128K -> 131072
  python3 -c "import sys; s = sys.argv[1]; u = {'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30}
print(int(s[:-1]) * u[s[-1].upper()] if s[-1].upper() in u else int(s))" "$1"
}
LOADER_FILES=$(($(bytes_of "$LOADER_BYTES") / $(bytes_of "$LOADER_SAMPLE")))
# fio's jobs cannot share one list of files as the loader's threads do: the files are split into
# folders, one a job at the most threads, all of them for one thread.
LOADER_PARTS=1
for workers in ${LOADER_WORKERS//,/ }; do ((workers > LOADER_PARTS)) && LOADER_PARTS=$workers; done
for workers in ${LOADER_WORKERS//,/ }; do
  ((workers == 1 || workers == LOADER_PARTS)) ||
    { echo "LOADER_WORKERS: 1 and one other count only ($LOADER_WORKERS)" >&2; exit 2; }
done
((LOADER_FILES % LOADER_PARTS == 0)) ||
  { echo "LOADER_BYTES / LOADER_SAMPLE ($LOADER_FILES) not a multiple of $LOADER_PARTS" >&2; exit 2; }

# fabcheck_figures PROBE METRIC [OPTION...]: runs one probe single-process and prints the metric's
# value, one per record (the loader gives one per worker count, in LOADER_WORKERS' order).
fabcheck_figures() {
  local probe=$1 metric=$2 out="$WORK/fabcheck-${1#storage.}-$round"
  shift 2
  local options=()
  for option in "$@"; do options+=(--opt "$option"); done
  "$FABCHECK" run --single-process --profile "$PROFILE" --probes "$probe" --storage-path "$TARGET" \
    --out "$out" "${options[@]}" > "$out.console" 2>&1 ||
    { cat "$out.console" >&2; echo "fabcheck $probe failed" >&2; exit 1; }
  python3 - "$out/measurements.jsonl" "$probe" "$metric" <<'PY'
import json, sys
path, probe, metric = sys.argv[1:]
values = [r["value"] for r in map(json.loads, open(path))
          if r.get("probe") == probe and r.get("metric") == metric]
if not values:
    sys.exit(f"{probe} {metric} not in {path}")
print(" ".join(map(str, values)))
PY
}

local_pattern() {  # the options every local pattern gets
  echo storage.engine=io_uring storage.direct=1 storage.file_size="$SIZE" storage.block_size=1M \
    storage.queue_depth=32 storage.duration_s="$SECONDS_PER_PATTERN"
}

# fio_figure RW BS KIND: runs fio on its own file and prints GB/s (KIND=bw) or IOPS (KIND=iops).
# fio's defaults stand: random map (every block once a pass), latency taken per I/O, one job. A
# read reads a file written just before, as fabcheck's patterns read the file they just wrote (a
# VM's host may still cache it).
fio_figure() {
  local rw=$1 bs=$2 kind=$3
  [[ $rw == write ]] || fio_layout
  fio --name="fabcheck-compare-$rw" --filename="$FIO_DIR/fio.dat" --size="$SIZE" --bs="$bs" \
    --rw="$rw" --iodepth=32 --direct=1 --ioengine=io_uring --time_based \
    --runtime="$SECONDS_PER_PATTERN" --output-format=json > "$WORK/fio-$rw.json"
  fio_value "$WORK/fio-$rw.json" "$kind"
}

fio_value() {  # fio_value JSON bw|iops
  python3 - "$1" "$2" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
job = json.loads(text[text.index("{"):])["jobs"][0]  # after any "opendir added N files" line
side = job["write"] if job["write"]["io_bytes"] > 0 else job["read"]
print(side["bw_bytes"] / 1e9 if sys.argv[2] == "bw" else side["iops"])
PY
}

fio_layout() {  # writes fio's file whole
  fio --name=layout --filename="$FIO_DIR/fio.dat" --size="$SIZE" --bs=1M --rw=write --direct=1 \
    --ioengine=io_uring --iodepth=32 > /dev/null
}

drop_cached() {  # drop_cached DIR: fadvise(DONTNEED) over every file below DIR, as the loader does
  python3 - "$1" <<'PY'
import os, sys
for root, _, files in os.walk(sys.argv[1]):
    for name in files:
        fd = os.open(os.path.join(root, name), os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)
PY
}

# fio_loader: storage.loader's sequence with fio, point for point: the small files (in as many
# folders as the most threads asked for), then as many bytes of shards, one syncfs; then for each W
# the small files dropped from the page cache and read by W jobs (all folders for W=1, a folder a
# job for the most), then the shards dropped and read (not a figure: the I/O the loader does
# between its points). Prints small-file samples/s per W.
fio_loader() {
  local small="$FIO_DIR/loader/small" shards="$FIO_DIR/loader/shards" workers part
  local figures=() reads=(--ioengine=psync --direct=0 --thread --rw=read --invalidate=0
    --fadvise_hint=0 --group_reporting --runtime="$SECONDS_PER_PATTERN")
  rm -rf "$FIO_DIR/loader"
  for ((part = 0; part < LOADER_PARTS; ++part)); do
    mkdir -p "$small/$part"
    # shellcheck disable=SC2016  # fio expands $filenum
    fio --name=small --directory="$small/$part" --filename_format='$filenum' \
      --nrfiles=$((LOADER_FILES / LOADER_PARTS)) --filesize="$LOADER_SAMPLE" --bs="$LOADER_SAMPLE" \
      --ioengine=psync --rw=write --openfiles=1 > /dev/null
  done
  mkdir -p "$shards"
  # shellcheck disable=SC2016  # fio expands $filenum
  fio --name=shards --directory="$shards" --filename_format='$filenum' \
    --nrfiles=$(($(bytes_of "$LOADER_BYTES") / $(bytes_of "$LOADER_SHARD"))) \
    --filesize="$LOADER_SHARD" --bs=1M --ioengine=psync --rw=write --openfiles=1 > /dev/null
  sync -f "$FIO_DIR"
  for workers in ${LOADER_WORKERS//,/ }; do
    local jobs=(--name=small --opendir="$small")
    if ((workers > 1)); then
      jobs=()
      for ((part = 0; part < workers; ++part)); do
        jobs+=(--name="small$part" --opendir="$small/$part")
      done
    fi
    drop_cached "$small"
    fio "${reads[@]}" --bs="$LOADER_SAMPLE" --file_service_type=random --output-format=json \
      "${jobs[@]}" > "$WORK/fio-loader-$workers.json"
    figures+=("$(fio_value "$WORK/fio-loader-$workers.json" iops)")
    drop_cached "$shards"
    fio "${reads[@]}" --bs=1M --name=shards --opendir="$shards" > /dev/null
  done
  rm -rf "$FIO_DIR/loader"
  echo "${figures[*]}"
}

# pair FABCHECK_COMMAND FIO_COMMAND: runs both, fabcheck first in odd rounds and fio first in even
# ones; prints fabcheck's figures, "|", fio's.
pair() {
  local mine theirs
  if ((round % 2 == 1)); then
    mine=$(eval "$1") || exit 1
    theirs=$(eval "$2") || exit 1
  else
    theirs=$(eval "$2") || exit 1
    mine=$(eval "$1") || exit 1
  fi
  echo "$mine | $theirs"
}

# record NAME UNIT TARGET MINE THEIRS: one line in $FIGURES and the round's figures on the console.
record() {
  local name=$1 unit=$2 target=$3 mine=$4 theirs=$5
  echo "$name $unit $target $mine $theirs" >> "$FIGURES"
  printf 'round %d  %-28s %-9s fabcheck %12.6g  fio %12.6g  ratio %.3f\n' "$round" "$name" "$unit" \
    "$mine" "$theirs" "$(python3 -c "print($mine / $theirs)")"
}

# record_pair NAME UNIT TARGET "MINE | THEIRS" (a pair's output)
record_pair() { record "$1" "$2" "$3" "${4%% |*}" "${4##*| }"; }

wants() { [[ " $PATTERNS " == *" $1 "* ]]; }

echo "target: $TARGET, file $SIZE, $ROUNDS rounds of $SECONDS_PER_PATTERN s per pattern, io_uring," \
  "O_DIRECT, QD 32; loader: $LOADER_FILES files of $LOADER_SAMPLE, threads $LOADER_WORKERS;" \
  "patterns: $PATTERNS"
FIGURES="$WORK/figures"
: > "$FIGURES"
LOADER_NAMES=()
for workers in ${LOADER_WORKERS//,/ }; do LOADER_NAMES+=("loader_small_files_${workers}thr"); done
for ((round = 1; round <= ROUNDS; ++round)); do
  if wants seq_write; then
    record_pair "seq_write_1M_QD32" GB/s 0.95 "$(pair "fabcheck_figures storage.seq_write bw $(local_pattern)" \
      "fio_figure write 1M bw")"
  fi
  if wants seq_read; then
    record_pair "seq_read_1M_QD32" GB/s 0.95 "$(pair "fabcheck_figures storage.seq_read bw $(local_pattern)" \
      "fio_figure read 1M bw")"
  fi
  if wants rand_read; then
    record_pair "rand_read_4K_QD32" IOPS 0.95 "$(pair \
      "fabcheck_figures storage.rand_read iops_qd32 $(local_pattern)" "fio_figure randread 4k iops")"
  fi
  if wants loader; then
    result=$(pair "fabcheck_figures storage.loader small_files_samples_per_s \
      storage.loader_bytes=$LOADER_BYTES storage.loader_sample=$LOADER_SAMPLE \
      storage.loader_shard=$LOADER_SHARD storage.loader_workers=$LOADER_WORKERS storage.duration_s=$SECONDS_PER_PATTERN" fio_loader)
    read -r -a mine <<< "${result%%|*}"
    read -r -a theirs <<< "${result##*|}"
    ((${#mine[@]} == ${#LOADER_NAMES[@]} && ${#theirs[@]} == ${#LOADER_NAMES[@]})) ||
      { echo "loader: figures ${mine[*]} | ${theirs[*]} for ${LOADER_NAMES[*]}" >&2; exit 1; }
    for i in "${!LOADER_NAMES[@]}"; do
      record "${LOADER_NAMES[$i]}" samples/s 0.90 "${mine[$i]}" "${theirs[$i]}"
    done
  fi
done

python3 - "$FIGURES" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, unit, target, mine, theirs = line.split()
    rows.setdefault((name, unit, float(target)), []).append((float(mine), float(theirs)))
print(f"{'pattern':<30}{'unit':<10}{'fabcheck':>12}{'fio':>12}{'ratio':>8}  target      per-round ratios")
worst = 0
for (name, unit, target), figures in rows.items():
    ratios = [m / t if t > 0 else 0 for m, t in figures]
    ratio = statistics.median(ratios)
    ok = ratio >= target
    worst |= not ok
    print(f"{name:<30}{unit:<10}{statistics.median(m for m, _ in figures):>12.4g}"
          f"{statistics.median(t for _, t in figures):>12.4g}{ratio:>8.3f}  >= {target:<5}"
          f"{'ok' if ok else 'BELOW':<6}" + " ".join(f"{r:.3f}" for r in ratios)
          + f"  (spread {min(ratios):.3f}-{max(ratios):.3f})")
sys.exit(1 if worst else 0)
PY
