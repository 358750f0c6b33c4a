#!/usr/bin/env bash
# mpirun for this node: N ranks here, allowed as root, oversubscribed when N exceeds the cores; an
# interrupted run exits 3 (mpirun itself returns 1 then: see scripts/lib/interruptible.sh).
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
run_interruptible mpirun -np "$ranks" "${flags[@]}" "$@"
exit $?
