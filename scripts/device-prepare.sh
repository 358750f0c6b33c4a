#!/usr/bin/env bash
# Prepares what scripts/device-check.sh needs on a GPU machine that has CUDA, cmake and g++ but no
# internet: copies the header-only dependencies (toml++, nlohmann-json, CLI11, fmt), GoogleTest's
# source and, when given, nccl-tests' source into the git-ignored folder .deps/ of the checkout.
#
# Usage: scripts/device-prepare.sh
#   NCCL_TESTS_SRC=DIR   an nccl-tests checkout (or bare git repository) to carry for comparison
#   INCLUDE_DIR=DIR      where the headers are (default /usr/include)
#   GTEST_SRC=DIR        GoogleTest source (default /usr/src/googletest, Debian's googletest)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
deps="$root/.deps"
include_dir="${INCLUDE_DIR:-/usr/include}"
gtest_src="${GTEST_SRC:-/usr/src/googletest}"

mkdir -p "$deps/include" "$deps/src"
for header_dir in toml++ nlohmann CLI fmt; do
  if [[ ! -d "$include_dir/$header_dir" ]]; then
    echo "device-prepare: $include_dir/$header_dir not found (run scripts/setup.sh first)" >&2
    exit 1
  fi
  rm -rf "${deps:?}/include/$header_dir"
  cp -a "$include_dir/$header_dir" "$deps/include/"
  echo "device-prepare: carried $include_dir/$header_dir"
done

if [[ -f "$gtest_src/CMakeLists.txt" ]]; then
  rm -rf "$deps/src/googletest"
  cp -a "$gtest_src" "$deps/src/googletest"
  echo "device-prepare: carried GoogleTest source from $gtest_src"
else
  echo "device-prepare: no GoogleTest source at $gtest_src: the GPU unit tests will be skipped there"
fi

if [[ -n "${NCCL_TESTS_SRC:-}" ]]; then
  rm -rf "$deps/src/nccl-tests"
  mkdir -p "$deps/src/nccl-tests"
  if [[ -f "$NCCL_TESTS_SRC/src/common.cu" ]]; then
    cp -a "$NCCL_TESTS_SRC/." "$deps/src/nccl-tests/"
    rm -rf "$deps/src/nccl-tests/.git" "$deps/src/nccl-tests/build"
  elif git --git-dir="$NCCL_TESTS_SRC" rev-parse --verify -q HEAD >/dev/null; then
    git --git-dir="$NCCL_TESTS_SRC" archive HEAD | tar -x -C "$deps/src/nccl-tests"
  else
    echo "device-prepare: NCCL_TESTS_SRC=$NCCL_TESTS_SRC is neither an nccl-tests checkout nor a git repository" >&2
    exit 1
  fi
  echo "device-prepare: carried nccl-tests from $NCCL_TESTS_SRC"
fi

du -sh "$deps" | sed 's/^/device-prepare: .deps holds /'
