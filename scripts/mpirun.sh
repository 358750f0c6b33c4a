#!/usr/bin/env bash
# mpirun for this node: N ranks here, allowed as root, oversubscribed when N exceeds the cores.
# Usage: scripts/mpirun.sh N COMMAND [ARGS...]
set -euo pipefail
ranks="$1"
shift
flags=()
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
if [ "$ranks" -gt "$(nproc)" ]; then flags+=(--oversubscribe); fi
exec mpirun -np "$ranks" "${flags[@]}" "$@"
