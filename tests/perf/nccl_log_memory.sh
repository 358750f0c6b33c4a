#!/usr/bin/env bash
# Memory bound of `fabcheck nccl-log`: the peak RSS (/usr/bin/time -v) reading a large synthetic log
# (a recorded-format fixture repeated, each copy a new process, so nothing repeats exactly) against
# the peak reading the fixture alone, in one run. The reading streams and keeps bounded records, so
# the difference must stay under LIMIT_MIB whatever the size, and a log a quarter the size must
# peak within 8 MiB of it (the bound is reached, not growing with the log).
# LIMIT_MIB 96: the kept records' bound measured +65 MiB for 64, 256 and 512 MiB of log alike, once
# the binary stopped loading cuBLAS and NCCL at start-up (their freed start-up heap, reused by the
# reading, had hidden half of it: +30 MiB over a 227 MiB baseline).
# Usage: tests/perf/nccl_log_memory.sh build/bench/cli/fabcheck [SIZE_MIB (256)] [LIMIT_MIB (96)]
set -euo pipefail
fabcheck=$(realpath "${1:?usage: $0 PATH/TO/fabcheck [SIZE_MIB] [LIMIT_MIB]}")
size_mib=${2:-256}
limit_mib=${3:-96}
fixture=$(cd "$(dirname "$0")/../fixtures/fabric/nccl" && pwd)/ib_gdr.node-a.1201.log
work=$(mktemp -d /tmp/fabcheck-nccl-log-memory.XXXXXX)
trap 'rm -rf "$work"' EXIT
make_log() {  # OUT SIZE_MIB
python3 - "$fixture" "$1" "$2" <<'PY'
import sys
text = open(sys.argv[1]).read()
target = int(sys.argv[3]) << 20
with open(sys.argv[2], "w") as out:
    written, copy = 0, 0
    while written < target:
        chunk = text.replace(":1201:", ":%d:" % (100000 + copy))
        out.write(chunk)
        written += len(chunk)
        copy += 1
PY
}
make_log "$work/big.log" "$size_mib"
make_log "$work/quarter.log" $((size_mib / 4))
peak_kib() {  # FILE...: peak RSS of nccl-log over the files, in KiB
  /usr/bin/time -v "$fabcheck" nccl-log "$@" 2> "$work/time.txt" > "$work/out.txt" || true
  awk '/Maximum resident set size/ {print $6}' "$work/time.txt"
}
small=$(peak_kib "$fixture")
big=$(peak_kib "$work/big.log")
quarter=$(peak_kib "$work/quarter.log")
grep -E "^NCCL log analysis|^  read" "$work/out.txt" || true
growth=$(((big - small) / 1024))
echo "nccl-log peak RSS: $((small / 1024)) MiB for the fixture, $((big / 1024)) MiB for" \
  "$(($(stat -c %s "$work/big.log") >> 20)) MiB of log: +$growth MiB (limit +$limit_mib MiB)"
echo "nccl-log peak RSS for a quarter of that log: $((quarter / 1024)) MiB"
if [ "$growth" -ge "$limit_mib" ]; then
  echo "FAIL: reading grew by $growth MiB"
  exit 1
fi
if [ $(((big - quarter) / 1024)) -ge 8 ]; then
  echo "FAIL: 4x the log took $(((big - quarter) / 1024)) MiB more: the records kept are not bounded"
  exit 1
fi
echo PASS
