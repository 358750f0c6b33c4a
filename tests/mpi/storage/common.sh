# Shared helpers for the storage integration tests (sourced): mpirun as the launcher, a scratch
# target under /tmp, and checks that print what failed.
set -u

FABCHECK=${1:?usage: $0 PATH/TO/fabcheck}
NP=${FABCHECK_TEST_NP:-2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
MPIRUN=(mpirun -np "$NP" --oversubscribe)
# Judged against thresholds any working storage meets: only data corruption or an error can fail.
PROFILE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../fixtures/storage" && pwd)/storage-smoke.toml

WORK=$(mktemp -d /tmp/fabcheck-storage-it.XXXXXX)
TARGET=$WORK/target
mkdir -p "$TARGET"
FAILURES=0

cleanup_work() { rm -rf "$WORK"; }
trap cleanup_work EXIT

fail() {
  echo "FAIL: $*" >&2
  FAILURES=$((FAILURES + 1))
}

pass() { echo "ok: $*"; }

# Leaves a file the run must not touch, and records its checksum.
plant_existing_file() {
  head -c 1048576 /dev/urandom > "$TARGET/precious.bin"
  PRECIOUS_SUM=$(sha256sum < "$TARGET/precious.bin")
}

check_existing_file_untouched() {
  if [ "$(sha256sum < "$TARGET/precious.bin")" = "$PRECIOUS_SUM" ]; then
    pass "pre-existing file unchanged"
  else
    fail "pre-existing file changed"
  fi
}

check_no_scratch_left() {
  local left
  left=$(find "$TARGET" -mindepth 1 -name '.fabcheck-*' -print)
  if [ -z "$left" ]; then pass "no scratch directory left in $TARGET"; else fail "left behind: $left"; fi
}

finish() {
  if [ "$FAILURES" -eq 0 ]; then
    echo "PASS"
    exit 0
  fi
  echo "$FAILURES check(s) failed"
  exit 1
}
