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
  run_interruptible_start "$@"
  run_interruptible_wait "$1"
}

# The two halves of run_interruptible (run_limited puts its watchdog between them): start COMMAND
# in the background ($_interruptible_child) with the signal traps set, then wait for it.
run_interruptible_start() {
  _interruptible_signal=""
  "$@" &
  _interruptible_child=$!
  _interruptible_forward() {
    _interruptible_signal="$1"
    local waited
    for waited in $(seq 1 20); do
      kill -0 "$_interruptible_child" 2>/dev/null || return 0
      sleep 0.1
    done
    kill "-$1" "$_interruptible_child" 2>/dev/null || true
  }
  trap '_interruptible_forward INT' INT
  trap '_interruptible_forward TERM' TERM
  trap '_interruptible_forward HUP' HUP
}

run_interruptible_wait() {  # the command's name, for the message
  local rc
  while :; do
    wait "$_interruptible_child"
    rc=$?
    kill -0 "$_interruptible_child" 2>/dev/null || break  # wait also returns when a trapped signal arrives
  done
  trap - INT TERM HUP
  if [ -n "$_interruptible_signal" ] && [ "$rc" -ne 0 ]; then
    echo "$(basename "$1"): interrupted by SIG$_interruptible_signal (it returned $rc): exit code 3" >&2
    return 3
  fi
  return "$rc"
}

# run_limited SECONDS GRACE COMMAND [ARGS...]: run_interruptible with a time limit that keeps
# COMMAND in the caller's process group (GNU timeout makes a group of its own, so a scheduler that
# kills the caller's group - slurmd at PrologEpilogTimeout - left mpirun and its ranks running as
# orphans). At SECONDS, TERM to COMMAND (fabcheck's ranks write their last words); GRACE seconds
# later KILL to every other process of the caller's group when the caller leads it (else to
# COMMAND's descendants). Returns 124 when the limit was reached, else as run_interruptible.
run_limited() {
  local limit="$1" grace="$2" started=$SECONDS rc
  shift 2
  local leader="$$"
  [ "$(ps -o pgid= -p "$$" | tr -d ' ')" = "$$" ] || leader=""
  _limited_descendants() {  # pid: its descendants, deepest last
    local kid
    for kid in $(ps -o pid= --ppid "$1"); do
      echo "$kid"
      _limited_descendants "$kid"
    done
  }
  _limited_watch() {
    sleep "$limit"
    local victims
    victims="$(_limited_descendants "$$" | grep -vx "$BASHPID")"
    kill -TERM "$_limited_child" 2>/dev/null
    sleep "$grace"
    if [ -n "$leader" ]; then
      victims="$(ps -e -o pid=,pgid= | awk -v g="$leader" -v me="$BASHPID" -v top="$$" \
        '$2 == g && $1 != me && $1 != top {print $1}')"
    else
      victims="$victims $(_limited_descendants "$_limited_child")"
    fi
    local pid
    for pid in $victims; do [ "$pid" != "$BASHPID" ] && kill -KILL "$pid" 2>/dev/null; done
    exit 0
  }
  # The watchdog needs COMMAND's pid: run_interruptible starts it, so start it here the same way.
  _limited_child=""
  run_interruptible_start "$@"
  _limited_child="$_interruptible_child"
  _limited_watch &
  local watchdog=$!
  run_interruptible_wait "$1"
  rc=$?
  # The watchdog and its sleep, by id.
  local pid
  for pid in $(ps -o pid= --ppid "$watchdog") "$watchdog"; do kill -KILL "$pid" 2>/dev/null; done
  wait "$watchdog" 2>/dev/null
  if ((SECONDS - started >= limit)); then return 124; fi
  return "$rc"
}
