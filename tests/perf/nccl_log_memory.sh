#!/usr/bin/env bash
# Memory bound of `fabcheck nccl-log`: the peak RSS (/usr/bin/time -v) reading a large synthetic log
# (a recorded-format fixture repeated, each copy a new process, so nothing repeats exactly) against
# the peak reading the fixture alone, in one run. The reading streams and keeps bounded records, so
# the difference must stay under LIMIT_MIB whatever the size.
# Usage: tests/perf/nccl_log_memory.sh build/bench/cli/fabcheck [SIZE_MIB (256)] [LIMIT_MIB (64)]
set -euo pipefail
fabcheck=$(realpath "${1:?usage: $0 PATH/TO/fabcheck [SIZE_MIB] [LIMIT_MIB]}")
size_mib=${2:-256}
limit_mib=${3:-64}
fixture=$(cd "$(dirname "$0")/../fixtures/fabric/nccl" && pwd)/ib_gdr.node-a.1201.log
work=$(mktemp -d /tmp/fabcheck-nccl-log-memory.XXXXXX)
trap 'rm -rf "$work"' EXIT
python3 - "$fixture" "$work/big.log" "$size_mib" <<'PY'
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
peak_kib() {  # FILE...: peak RSS of nccl-log over the files, in KiB
  /usr/bin/time -v "$fabcheck" nccl-log "$@" 2> "$work/time.txt" > "$work/out.txt" || true
  awk '/Maximum resident set size/ {print $6}' "$work/time.txt"
}
small=$(peak_kib "$fixture")
big=$(peak_kib "$work/big.log")
grep -E "^NCCL log analysis|^  read" "$work/out.txt" || true
growth=$(((big - small) / 1024))
echo "nccl-log peak RSS: $((small / 1024)) MiB for the fixture, $((big / 1024)) MiB for" \
  "$(($(stat -c %s "$work/big.log") >> 20)) MiB of log: +$growth MiB (limit +$limit_mib MiB)"
if [ "$growth" -ge "$limit_mib" ]; then
  echo "FAIL: reading grew by $growth MiB"
  exit 1
fi
echo PASS
