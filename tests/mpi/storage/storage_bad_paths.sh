#!/usr/bin/env bash
# Integration: a missing path, a file, a read-only path and a path without room for the planned
# size each give exit 2 and a message naming the path, before anything is written.
# Usage: tests/mpi/storage/storage_bad_paths.sh build/bench/cli/fabcheck
source "$(dirname "$0")/common.sh"

# expect_exit2 NAME EXPECTED_TEXT ARGS... : runs fabcheck under mpirun, checks exit 2 and the text.
expect_exit2() {
  local name=$1 text=$2
  shift 2
  local out
  out=$("${MPIRUN[@]}" "$FABCHECK" run --profile "$PROFILE" --probes storage.seq_write --out "$WORK/out-$name" "$@" 2>&1)
  local rc=$?
  if [ "$rc" -ne 2 ]; then fail "$name: exit $rc (expected 2): $out"; return; fi
  if ! grep -qF -- "$text" <<< "$out"; then fail "$name: message lacks \"$text\": $out"; return; fi
  pass "$name: exit 2: $(grep -F -- "$text" <<< "$out" | head -1)"
}

expect_exit2 missing "\"$TARGET/absent\" does not exist" --storage-path "$TARGET/absent"
touch "$TARGET/plain-file"
expect_exit2 not-a-directory "\"$TARGET/plain-file\" is a regular file, not a directory" --storage-path "$TARGET/plain-file"
expect_exit2 no-space "fewer than the 1TiB" --storage-path "$TARGET" --opt storage.file_size=1T

# Read-only: a read-only tmpfs in a private mount namespace when root, else a directory without
# write permission.
if [ "$(id -u)" -eq 0 ] && command -v unshare > /dev/null; then
  mkdir -p "$TARGET/ro"
  out=$(unshare -m bash -c '
    mount -t tmpfs -o ro,size=1m tmpfs "$1" || exit 99
    shift
    "$@"' _ "$TARGET/ro" "${MPIRUN[@]}" "$FABCHECK" run --profile "$PROFILE" --probes storage.seq_write \
      --out "$WORK/out-ro" --storage-path "$TARGET/ro" 2>&1)
  rc=$?
  if [ "$rc" -eq 99 ]; then
    echo "skip: read-only mount not possible here"
  elif [ "$rc" -eq 2 ] && grep -qF "\"$TARGET/ro\" is on a read-only filesystem" <<< "$out"; then
    pass "read-only: exit 2: $(grep -F 'read-only' <<< "$out" | head -1)"
  else
    fail "read-only: exit $rc: $out"
  fi
else
  mkdir -p "$TARGET/ro"
  chmod 0555 "$TARGET/ro"
  expect_exit2 read-only "\"$TARGET/ro\" is not writable" --storage-path "$TARGET/ro"
  chmod 0755 "$TARGET/ro"
fi

leftover=$(find "$TARGET" -name '.fabcheck-*')
if [ -z "$leftover" ]; then pass "nothing written"; else fail "written: $leftover"; fi
finish
