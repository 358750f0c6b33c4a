#!/usr/bin/env bash
# The main job on this node: set up if needed, then the gate plan under mpirun -np 2, with its verdict.
# Usage: scripts/run.sh [fabcheck gate options, e.g. --profile FILE --out DIR --storage-path /mnt/x]
# Exit code: 0 pass, 1 a FAIL finding, 2 usage or configuration error, 3 incomplete.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/tmp/fabcheck-setup.log 2>&1 || { cat /tmp/fabcheck-setup.log; exit 2; }
set +e
scripts/mpirun.sh "${FABCHECK_RANKS:-2}" build/bench/cli/fabcheck gate "$@"
code=$?
set -e
echo "fabcheck gate exit code: $code"
exit "$code"
