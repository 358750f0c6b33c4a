#!/usr/bin/env bash
# Integration: results written to a filesystem that fills up (a 64 KiB tmpfs made here, 8 to 60 KiB
# of it taken beforehand). Each run must end with exit 3 and a summary saying why, with every
# JSONL record whole (no half line), no run.h5 cut short, no temporary file left.
# Needs to mount a tmpfs: as root directly, otherwise in a user and mount namespace.
# Usage: tests/mpi/full_disk.sh build/bench/cli/fabcheck
set -u
FABCHECK=$(realpath "${1:?usage: $0 PATH/TO/fabcheck}")
if [ "$(id -u)" -ne 0 ] && [ -z "${FULL_DISK_IN_NAMESPACE:-}" ]; then
  FULL_DISK_IN_NAMESPACE=1 exec unshare --user --map-root-user --mount "$0" "$@"
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
PROFILE=$(cd "$(dirname "$0")/../fixtures/profiles" && pwd)/integration.toml
WORK=$(mktemp -d /tmp/fabcheck-full-disk.XXXXXX)
FAILURES=0
cleanup() {
  mountpoint -q "$WORK/fs" && umount "$WORK/fs"
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  FAILURES=$((FAILURES + 1))
}

mkdir "$WORK/fs"
for fill in 8 16 32 48 60; do
  mount -t tmpfs -o size=64k tmpfs "$WORK/fs" || { fail "cannot mount a tmpfs"; break; }
  head -c $((fill * 1024)) /dev/zero > "$WORK/fs/fill" 2>/dev/null
  out=$WORK/fs/run
  timeout 120 mpirun --oversubscribe -np 2 "$FABCHECK" run --profile "$PROFILE" \
    --probes coll.all_reduce,coll.all_gather --sizes 8:64K:8 --iters 2 --warmup 0 \
    --out "$out" > "$WORK/console" 2>&1
  rc=$?
  echo "== ${fill} KiB taken: exit $rc; files: $(ls -A "$out" 2>/dev/null | tr '\n' ' ')"
  [ "$rc" -eq 3 ] || { fail "${fill} KiB: exit $rc, expected 3"; tail -20 "$WORK/console"; }
  for file in "$out"/*.jsonl; do
    if [ -s "$file" ] && [ "$(tail -c 1 "$file" | od -An -c | tr -d ' ')" != '\n' ]; then
      fail "${fill} KiB: $(basename "$file") ends in half a record"
    fi
  done
  python3 - "$out" "$fill" <<'PY' || FAILURES=$((FAILURES + 1))
import json, pathlib, sys
out, fill = pathlib.Path(sys.argv[1]), sys.argv[2]
for name in ("measurements.jsonl", "findings.jsonl"):
    for number, line in enumerate((out / name).read_text().splitlines(), 1):
        json.loads(line)  # every record whole
summary = json.loads((out / "summary.json").read_text())
reason = summary.get("incomplete_reason") or ""
if summary["exit_code"] != 3 or "No space left on device" not in reason:
    print(f"FAIL: {fill} KiB: summary exit_code {summary['exit_code']}, reason {reason!r}")
    sys.exit(1)
print(f"   summary: {summary['verdict']}, exit_code 3, {reason}")
PY
  for left in "$out"/*.tmp "$out"/run.h5; do
    [ -e "$left" ] && ! python3 -c "import h5py,sys; h5py.File(sys.argv[1])" "$left" 2>/dev/null &&
      fail "${fill} KiB: $(basename "$left") left cut short"
  done
  umount "$WORK/fs"
done
if [ "$FAILURES" -eq 0 ]; then echo PASS; else echo "FAILED: $FAILURES"; exit 1; fi
