#!/usr/bin/env bash
# The main job on this node: set up if needed, then the gate plan under mpirun -np 2, with its verdict.
# Usage: scripts/run.sh [fabcheck gate options, e.g. --profile FILE --out DIR --storage-path /mnt/x]
# Runs where it is called from: a relative --out (and the default ./fabcheck-results/) is below the
# caller's folder, not the checkout's. The setup log is a private temporary file, kept on failure.
# Exit code: 0 pass, 1 a FAIL finding, 2 usage or configuration error, 3 incomplete.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
log="$(mktemp "${TMPDIR:-/tmp}/fabcheck-setup.XXXXXX")"
if ! (cd "$root" && scripts/setup.sh) >"$log" 2>&1; then
  cat "$log"
  echo "scripts/run.sh: setup failed (log kept in $log)" >&2
  exit 2
fi
rm -f "$log"
set +e
"$root/scripts/mpirun.sh" "${FABCHECK_RANKS:-2}" "$root/build/bench/cli/fabcheck" gate "$@"
code=$?
set -e
echo "fabcheck gate exit code: $code"
exit "$code"
