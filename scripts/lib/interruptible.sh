# run_interruptible COMMAND [ARGS...]: runs a launcher (mpirun, srun) so that an interrupted run
# ends with exit code 3, as fabcheck's own processes do. Source this file, then call it.
#
# Why: Open MPI 4.1's mpirun, on SIGINT or SIGTERM, passes SIGTERM to the ranks (fabcheck's ranks
# then write their last words and exit 3) but itself returns 1, which a caller would read as FAIL.
# And a second signal within about a second makes mpirun exit at once without passing it on. So a
# signal to this script is passed to COMMAND only if COMMAND is still running 2 s later (when a
# whole process group or a job's processes are signalled, COMMAND had it too and is gone by then),
# and the exit code of a run interrupted before it finished becomes 3.
run_interruptible() {
  local interrupted="" child rc
  "$@" &
  child=$!
  _interruptible_forward() {
    interrupted="$1"
    local waited
    for waited in $(seq 1 20); do
      kill -0 "$child" 2>/dev/null || return 0
      sleep 0.1
    done
    kill "-$1" "$child" 2>/dev/null || true
  }
  trap '_interruptible_forward INT' INT
  trap '_interruptible_forward TERM' TERM
  trap '_interruptible_forward HUP' HUP
  while :; do
    wait "$child"
    rc=$?
    kill -0 "$child" 2>/dev/null || break  # wait also returns when a trapped signal arrives
  done
  trap - INT TERM HUP
  if [ -n "$interrupted" ] && [ "$rc" -ne 0 ]; then
    echo "$(basename "$1"): interrupted by SIG$interrupted (it returned $rc): exit code 3" >&2
    return 3
  fi
  return "$rc"
}
