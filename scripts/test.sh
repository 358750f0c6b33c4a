#!/usr/bin/env bash
# Every test: set up if needed, build, run the unit and MPI integration tests (ctest), then the
# parsers' fuzz targets briefly. Usage: scripts/test.sh [ctest options]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# Unit tests in parallel; MPI runs one at a time (they use every core).
ctest --test-dir build --output-on-failure -L unit -j"$(nproc)" "$@"
ctest --test-dir build --output-on-failure -LE unit "$@"
if [ -x tests/fuzz/run.sh ]; then
  tests/fuzz/run.sh "${FABCHECK_FUZZ_SECONDS:-20}"
fi
