#!/usr/bin/env bash
# Integration: results written to a filesystem that fills up (a 64 KiB tmpfs made here, 8 to 60 KiB
# of it taken beforehand). Each run must end with exit 3 and a summary saying why, with every
# JSONL record whole (no half line), no run.h5 cut short, no temporary file left. Then a probe that
# errors (storage.metadata on a tmpfs without inodes to spare): the summary names the probe and
# the error, records the transport's variables, and no version string ends in a NUL.
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

mount -t tmpfs -o size=16m,nr_inodes=300 tmpfs "$WORK/fs" || fail "cannot mount a tmpfs"
out=$WORK/run-errored
UCX_TLS=tcp timeout 120 mpirun --oversubscribe -np 2 -x UCX_TLS "$FABCHECK" run --profile "$PROFILE" \
  --probes storage.metadata --storage-path "$WORK/fs" --opt storage.md_files=1000 --out "$out" \
  > "$WORK/console" 2>&1
rc=$?
umount "$WORK/fs"
echo "== storage.metadata out of inodes: exit $rc"
[ "$rc" -eq 3 ] || { fail "probe error: exit $rc, expected 3"; tail -20 "$WORK/console"; }
python3 - "$out" <<'PY' || FAILURES=$((FAILURES + 1))
import json, pathlib, sys
summary = json.loads((pathlib.Path(sys.argv[1]) / "summary.json").read_text())
reason = summary.get("incomplete_reason") or ""
problems = []
if not reason.startswith("storage.metadata errored: ") or "No space left on device" not in reason:
    problems.append(f"incomplete_reason {reason!r} does not name the probe and its error")
if summary["environment"].get("UCX_TLS") != "tcp":
    problems.append(f"environment does not record UCX_TLS: {summary['environment']}")
if any(isinstance(v, str) and "\0" in v for v in summary["versions"].values()):
    problems.append(f"a version string holds a NUL: {summary['versions']}")
for problem in problems:
    print("FAIL: " + problem)
print(f"   summary: {summary['verdict']}, exit_code {summary['exit_code']}, {reason[:100]}")
sys.exit(1 if problems else 0)
PY
if [ "$FAILURES" -eq 0 ]; then echo PASS; else echo "FAILED: $FAILURES"; exit 1; fi
