#!/usr/bin/env bash
# Integration: SIGTERM in the middle of a storage run exits 3 and leaves no file behind.
# Case 1 signals the ranks (what a scheduler's kill does on each node); case 2 signals mpirun.
# Usage: tests/mpi/storage/storage_sigterm.sh build/bench/cli/fabcheck
source "$(dirname "$0")/common.sh"

# start_long_run OUT PROBES [--opt ...]: starts a long run in the background and waits for a file in
# its scratch directory to appear.
start_long_run() {
  local out=$1 probes=$2
  shift 2
  "${MPIRUN[@]}" "$FABCHECK" run --profile "$PROFILE" --probes "$probes" \
    --storage-path "$TARGET" --out "$out" --opt storage.file_size=32M \
    --opt storage.duration_s=60 "$@" > "$out.console" 2>&1 &
  RUN_PID=$!
  for _ in $(seq 1 300); do
    if compgen -G "$TARGET/.fabcheck-*/*" > /dev/null; then return 0; fi
    sleep 0.1
  done
  fail "no scratch file appeared within 30 s"
  return 1
}

plant_existing_file

# signal_ranks_and_check NAME: SIGTERM to every rank of the run in flight; expects exit 3 and no
# scratch left.
signal_ranks_and_check() {
  local name=$1 out=$2
  sleep 1
  local ranks
  ranks=$(pgrep -P "$RUN_PID" || true)  # mpirun starts the local ranks as its children
  [ -n "$ranks" ] || fail "$name: no rank processes under mpirun $RUN_PID"
  for pid in $ranks; do kill -TERM "$pid" 2>/dev/null; done
  wait "$RUN_PID"
  local rc=$?
  cat "$out.console"
  if [ "$rc" -eq 3 ]; then pass "$name: exit 3"; else fail "$name: exit $rc (expected 3)"; fi
  check_no_scratch_left
}

# Case 1: SIGTERM to every rank during a per-node pattern (a scratch directory per host).
if start_long_run "$WORK/out1" storage.seq_read; then
  signal_ranks_and_check "ranks signalled in seq_read" "$WORK/out1"
fi

# Case 2: the same during checkpoint writes (one directory shared by the ranks, rank 0's).
if start_long_run "$WORK/out3" storage.ckpt_write --opt storage.ckpt_size=2G; then
  signal_ranks_and_check "ranks signalled in ckpt_write" "$WORK/out3"
fi

# Case 3: SIGTERM to mpirun, which forwards it to the ranks (Open MPI's own exit code is not 3).
if start_long_run "$WORK/out2" storage.seq_read; then
  sleep 1
  kill -TERM "$RUN_PID"
  wait "$RUN_PID"
  rc=$?
  cat "$WORK/out2.console"
  echo "mpirun signalled: exit $rc"
  sleep 1  # ranks finish their clean-up after mpirun returns
  check_no_scratch_left
fi

check_existing_file_untouched
finish
