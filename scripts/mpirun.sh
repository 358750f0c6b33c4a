#!/usr/bin/env bash
# mpirun for this node: N ranks here, allowed as root, oversubscribed when N exceeds the cores; an
# interrupted run exits 3 (mpirun itself returns 1 then: see scripts/lib/interruptible.sh). For
# fabcheck, the exit code is rank 0's own (it writes it into a folder made here for the run,
# $FABCHECK_EXIT_DIR): mpirun returns 1 both for a FAIL and when it could not start fabcheck, so a
# launch that ends without rank 0's code exits 3 (incomplete), never 1 (FAIL).
# Usage: scripts/mpirun.sh N COMMAND [ARGS...]
set -uo pipefail
source "$(dirname "$0")/lib/interruptible.sh"
ranks="$1"
shift
flags=()
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
if [ "$ranks" -gt "$(nproc)" ]; then flags+=(--oversubscribe); fi
launches_fabcheck=""
for word in "$@"; do [ "$(basename -- "$word")" = fabcheck ] && launches_fabcheck=1 && break; done
if [ -z "$launches_fabcheck" ]; then
  run_interruptible mpirun -np "$ranks" "${flags[@]}" "$@"
  exit $?
fi
exit_dir="$(mktemp -d "${TMPDIR:-/tmp}/fabcheck-exit.XXXXXX")" || exit 3
trap 'rm -rf "$exit_dir"' EXIT
export FABCHECK_EXIT_DIR="$exit_dir"
run_interruptible mpirun -np "$ranks" "${flags[@]}" "$@"
code=$?
reported=""
[ -f "$exit_dir/exit-code" ] && reported="$(head -c 16 "$exit_dir/exit-code" | tr -d '\n')"
if [[ "$reported" =~ ^[0-9]+$ ]]; then
  if [ "$reported" -eq 0 ] && [ "$code" -ne 0 ]; then
    echo "mpirun.sh: fabcheck's rank 0 ended with 0 but mpirun with $code (another rank failed): exit code 3" >&2
    exit 3
  fi
  exit "$reported"
fi
if [ "$code" -ne 0 ]; then
  echo "mpirun.sh: mpirun ended with $code and fabcheck's rank 0 left no exit code (it did not start, or died): exit code 3 (incomplete), not a FAIL" >&2
  exit 3
fi
exit 0
