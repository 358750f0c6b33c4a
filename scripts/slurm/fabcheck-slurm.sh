#!/usr/bin/env bash
# The fabcheck gate as a Slurm Prolog or Epilog (per node, run by slurmd), PrologSlurmctld (per
# job, run by slurmctld) or HealthCheckProgram (per node, run by slurmd every HealthCheckInterval):
# runs the gate, drains each node a FAIL names with the finding as reason,
# holds (drains with "fabcheck: incomplete ...") each node whose run did not finish or did not
# answer in time, and exits as Slurm expects. Configuration: docs/operations.md.
# Usage (from prolog.sh / epilog.sh / healthcheck.sh): fabcheck-slurm.sh prolog|epilog|health
# health: slurmd gives it SLURMD_NODENAME only and logs its output only when it fails, and Slurm
# kills it at 60 s. While a job runs on the node it runs no gate (answers 0, traced "busy"); when the
# node's last outcome (outcomes.jsonl) is a pass younger than FABCHECK_HEALTH_MAX_AGE it answers at
# once from it ("recent"); else (no outcome, a fail, a hold, too old, unreadable) it runs the gate now
# within FABCHECK_HEALTH_TIMEOUT and answers as the prolog does; with FABCHECK_RESUME_ON_PASS=yes
# its pass resumes the node when fabcheck drained it (reason "fabcheck: ...").
#
# Exit codes: 0 the job may run (gate passed, or only warnings; also a configuration error under
# the explicit opt-out FABCHECK_ON_CONFIG_ERROR=allow), 1 a FAIL (the nodes named are drained),
# 2 a configuration error (nodes held: FABCHECK_ON_CONFIG_ERROR=hold, the default), 3 incomplete
# (interrupted, timed out, or no answer: nodes held). Slurm: a non-zero Prolog drains the node
# (ours keeps its reason: Slurm does not replace the reason of a node already draining) and
# requeues a batch job (an interactive one is cancelled); a non-zero Epilog drains the node.
#
# Safety: nothing is read from the job (its environment, comment, script). Inputs: this node's
# Slurm variables (SLURMD_NODENAME, SLURM_JOB_ID, SLURM_JOB_NODELIST or SLURM_NODELIST, each
# checked) and the configuration FILE only (FABCHECK_SLURM_CONF, default /etc/fabcheck/slurm.conf;
# slurmd gives a prolog no other FABCHECK_* variable, and none is read): opened once, the open file
# and every folder above it owned by root (or this user) and writable by no one else. Node names
# pass scripts/lib/node_name.sh before any scontrol call; a refused name is never drained. The
# results folder must be root's and closed. Every command is an argument vector; no string is
# evaluated as shell. Every decision is one line in FABCHECK_TRACE (a file in a closed folder).
# FABCHECK_ACTION=report: report-only, every decision traced, no node changed, always exit 0.
set -uo pipefail

mode="${1:-}"
case "$mode" in
  prolog | epilog | health) ;;
  *)
    echo "usage: fabcheck-slurm.sh prolog|epilog|health" >&2
    exit 2
    ;;
esac

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../lib/interruptible.sh"
source "$here/../lib/node_name.sh"
source "$here/../lib/scheduler_reason.sh"
source "$here/../lib/closed_path.sh"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
started=$SECONDS

# ---- configuration: defaults, then the file (and nothing else) ---------------------------------
declare -A conf=(
  [FABCHECK_BIN]=/usr/local/bin/fabcheck
  [FABCHECK_LAUNCHER]=mpirun
  [FABCHECK_RANKS]=auto
  [FABCHECK_PROFILE]=auto
  [FABCHECK_PLAN]=gate
  [FABCHECK_SCOPE]=node
  [FABCHECK_TIMEOUT]=90
  [FABCHECK_RESULTS_DIR]=/var/lib/fabcheck/slurm
  [FABCHECK_TRACE]=/var/log/fabcheck/slurm-gate.log
  [FABCHECK_KEEP_PASSED]=no
  [FABCHECK_ON_CONFIG_ERROR]=hold
  [FABCHECK_ACTION]=drain
  [FABCHECK_FAIL_STREAK]=1
  [FABCHECK_HEALTH_MAX_AGE]=86400
  [FABCHECK_HEALTH_TIMEOUT]=45
  [FABCHECK_RESUME_ON_PASS]=no
  [FABCHECK_PROMETHEUS_DIR]=""
  [FABCHECK_PATH]=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
)
storage_paths=()
gate_args=()
mpirun_args=()
repeated_key() {
  case "$1" in
    FABCHECK_STORAGE_PATH) storage_paths+=("$2") ;;
    FABCHECK_GATE_ARG) gate_args+=("$2") ;;
    FABCHECK_MPIRUN_ARG) mpirun_args+=("$2") ;;
    *) return 1 ;;
  esac
}

config_error=""
check() { [ -n "$config_error" ] || config_error="$1"; }
conf_file="${FABCHECK_SLURM_CONF:-/etc/fabcheck/slurm.conf}"
closed_why=""
if open_closed_file conf_fd "$conf_file"; then
  number=0
  while IFS= read -r -u "$conf_fd" line || [ -n "$line" ]; do
    number=$((number + 1))
    case "$line" in '' | '#'*) continue ;; esac
    # The first error is kept; the rest of the file is still read (FABCHECK_ON_CONFIG_ERROR and
    # FABCHECK_TRACE may come after it).
    if [[ ! "$line" =~ ^(FABCHECK_[A-Z_]+)=(.*)$ ]]; then
      check "$conf_file:$number: expected KEY=VALUE, got: $line"
      continue
    fi
    key="${BASH_REMATCH[1]}"
    value="${BASH_REMATCH[2]}"
    if repeated_key "$key" "$value"; then continue; fi
    if [ -z "${conf[$key]+set}" ]; then
      check "$conf_file:$number: unknown key $key"
      continue
    fi
    conf[$key]="$value"
  done
  exec {conf_fd}<&-
elif [ ! -e "$conf_file" ] && [ ! -L "$conf_file" ]; then
  check "$conf_file: no such file (the gate's configuration; see docs/operations.md)"
else
  check "$closed_why"
fi
export PATH="${conf[FABCHECK_PATH]}"

log() { echo "fabcheck-slurm $mode: $*" >&2; }

# ---- the durable trace: one line a decision ---------------------------------------------------
trace_fd=""
trace_error=""
open_trace() {
  local file="${conf[FABCHECK_TRACE]}" folder why owner
  [[ "$file" == /* ]] || { trace_error="FABCHECK_TRACE=$file: not an absolute path"; return 1; }
  folder="$(dirname -- "$file")"
  why="$(closed_folders "$folder")" || { trace_error="FABCHECK_TRACE: $why"; return 1; }
  mkdir -p -m 0755 -- "$folder" 2>/dev/null
  why="$(closed_folders "$folder")" || { trace_error="FABCHECK_TRACE: $why"; return 1; }
  if [ -L "$file" ] || { [ -e "$file" ] && [ ! -f "$file" ]; }; then
    trace_error="FABCHECK_TRACE=$file: not a regular file"
    return 1
  fi
  exec {trace_fd}>>"$file" || { trace_error="FABCHECK_TRACE=$file: cannot be opened"; trace_fd=""; return 1; }
  owner="$(stat -L -c %u "/proc/$BASHPID/fd/$trace_fd")"
  if [ ! -f "/proc/$BASHPID/fd/$trace_fd" ] || { [ "$owner" != 0 ] && [ "$owner" != "$(id -u)" ]; }; then
    exec {trace_fd}>&-
    trace_fd=""
    trace_error="FABCHECK_TRACE=$file: not a regular file of root or this user"
    return 1
  fi
}
open_trace || true
# trace DECISION RC TEXT: "<UTC> prolog job=J node=N decision=D exit=RC secs=S: TEXT" in the trace
# file (and the console line the prolog ends with).
trace() {
  local line decision="$1" code="$2"
  # Report-only: the decision as it would have been, the exit code the job gets (0).
  if [ "${conf[FABCHECK_ACTION]}" = report ] && [ "$decision" != pass ]; then decision="report-$decision" code=0; fi
  line="$(date -u +%Y-%m-%dT%H:%M:%SZ) $mode job=${job:-?} node=${node:-?} decision=$decision exit=$code secs=$((SECONDS - started)): $(scheduler_reason "$3")"
  echo "fabcheck-slurm: $line" >&2
  if [ -n "$trace_fd" ]; then printf '%s\n' "$line" >&"$trace_fd"; fi
}

# ---- this node and job ------------------------------------------------------------------------
job="${SLURM_JOB_ID:-}"
if [ "$mode" = health ]; then
  job=0  # no job: slurmd runs the health check on its own clock
elif [[ ! "$job" =~ ^[0-9]+$ ]]; then
  check "SLURM_JOB_ID \"$job\" is not a number"
  job=0
fi
node="${SLURMD_NODENAME:-}"
nodes=()
if [ "${conf[FABCHECK_SCOPE]}" = job ]; then
  # PrologSlurmctld: SLURM_JOB_NODELIST ("gpu[01-04,07],login1"); slurmd's prolog: SLURM_NODELIST.
  nodelist="${SLURM_JOB_NODELIST:-${SLURM_NODELIST:-}}"
  if [[ ! "$nodelist" =~ ^[][A-Za-z0-9._,-]+$ ]]; then
    check "SLURM_JOB_NODELIST \"$nodelist\" is empty or odd"
  else
    while IFS= read -r host; do
      if valid_node_name "$host"; then nodes+=("$host"); else check "node name \"$host\" refused (not one host name)"; fi
    done < <(scontrol show hostnames "$nodelist")
    ((${#nodes[@]})) || check "scontrol show hostnames $nodelist gave no node"
  fi
  node="${node:-controller}"
elif [ -z "$node" ]; then
  check "SLURMD_NODENAME is not set: per node (FABCHECK_SCOPE=node) the script runs under slurmd (Prolog, Epilog)"
  node="?"
elif valid_node_name "$node"; then
  nodes=("$node")
else
  check "SLURMD_NODENAME \"$node\" refused (not one host name): no node is drained by name"
fi

# Takes `target` out of service with `reason` (one argument: never split, never evaluated); never a
# name valid_node_name refuses.
take_out() {  # node reason [code repair]
  local target="$1" reason note=""
  reason="$(scheduler_reason "$2")"
  # The answer's code and first repair (lowercase words only), for the log beside the reason.
  if [[ "${3:-}" =~ ^[a-z-]+$ ]] && [[ "${4:-}" =~ ^[a-z-]+$ ]]; then note=" [$3; repair: $4]"; fi
  if ! valid_node_name "$target"; then
    log "refused to drain \"$target\" (not one host name): $reason$note"
  elif [ "${conf[FABCHECK_ACTION]}" = report ]; then
    log "report-only (FABCHECK_ACTION=report): would drain $target: $reason$note"
  elif scontrol update "nodename=$target" state=drain "reason=$reason"; then
    log "drained $target: $reason$note"
  else
    log "could not drain $target (scontrol failed): $reason$note"
  fi
}

# Ends the script: the code Slurm acts on, 0 in report-only mode (no node changed, the job runs).
leave() {
  if [ "${conf[FABCHECK_ACTION]}" = report ]; then exit 0; fi
  exit "$1"
}

hold_and_exit() {  # code decision why
  local code="$1" decision="$2" why="$3" target
  for target in "${nodes[@]}"; do take_out "$target" "fabcheck: $why"; done
  trace "$decision" "$code" "${nodes[*]:-no valid node}: fabcheck: $why"
  leave "$code"
}

# ---- checks of the values ------------------------------------------------------------------------
[[ "${conf[FABCHECK_TIMEOUT]}" =~ ^[1-9][0-9]*$ ]] || check "FABCHECK_TIMEOUT=${conf[FABCHECK_TIMEOUT]}: seconds, a whole number above 0"
[[ "${conf[FABCHECK_RANKS]}" =~ ^(auto|[1-9][0-9]*)$ ]] || check "FABCHECK_RANKS=${conf[FABCHECK_RANKS]}: auto or a number above 0"
[[ "${conf[FABCHECK_LAUNCHER]}" =~ ^(mpirun|none)$ ]] || check "FABCHECK_LAUNCHER=${conf[FABCHECK_LAUNCHER]}: mpirun or none"
[[ "${conf[FABCHECK_SCOPE]}" =~ ^(node|job)$ ]] || check "FABCHECK_SCOPE=${conf[FABCHECK_SCOPE]}: node or job"
[[ "${conf[FABCHECK_ON_CONFIG_ERROR]}" =~ ^(allow|hold)$ ]] || {
  check "FABCHECK_ON_CONFIG_ERROR=${conf[FABCHECK_ON_CONFIG_ERROR]}: hold or allow"
  conf[FABCHECK_ON_CONFIG_ERROR]=hold
}
[[ "${conf[FABCHECK_ACTION]}" =~ ^(drain|report)$ ]] || {
  check "FABCHECK_ACTION=${conf[FABCHECK_ACTION]}: drain or report"
  conf[FABCHECK_ACTION]=drain
}
[[ "${conf[FABCHECK_FAIL_STREAK]}" =~ ^[1-9][0-9]{0,3}(/[1-9][0-9]{0,3})?$ ]] || check "FABCHECK_FAIL_STREAK=${conf[FABCHECK_FAIL_STREAK]}: N (failing runs in a row) or N/M (N of the last M runs)"
[[ "${conf[FABCHECK_RESUME_ON_PASS]}" =~ ^(yes|no)$ ]] || check "FABCHECK_RESUME_ON_PASS=${conf[FABCHECK_RESUME_ON_PASS]}: yes or no"
[[ "${conf[FABCHECK_HEALTH_MAX_AGE]}" =~ ^[1-9][0-9]*$ ]] || check "FABCHECK_HEALTH_MAX_AGE=${conf[FABCHECK_HEALTH_MAX_AGE]}: seconds, a whole number above 0"
[[ "${conf[FABCHECK_HEALTH_TIMEOUT]}" =~ ^[1-9][0-9]?$ ]] && ((conf[FABCHECK_HEALTH_TIMEOUT] <= 50)) ||
  check "FABCHECK_HEALTH_TIMEOUT=${conf[FABCHECK_HEALTH_TIMEOUT]}: seconds, 1 to 50 (Slurm kills a health check at 60 s)"
if [ "$mode" = health ] && [ "${conf[FABCHECK_SCOPE]}" != node ]; then
  check "FABCHECK_SCOPE=${conf[FABCHECK_SCOPE]}: the health check runs per node (FABCHECK_SCOPE=node)"
fi
[[ "${conf[FABCHECK_KEEP_PASSED]}" =~ ^(yes|no)$ ]] || check "FABCHECK_KEEP_PASSED=${conf[FABCHECK_KEEP_PASSED]}: yes or no"
[[ "${conf[FABCHECK_PLAN]}" =~ ^[a-z]+$ ]] || check "FABCHECK_PLAN=${conf[FABCHECK_PLAN]}: a plan name"
[ -z "$trace_error" ] || check "$trace_error"
bin="${conf[FABCHECK_BIN]}"
if [[ "$bin" != /* ]] || [ ! -f "$bin" ] || [ ! -x "$bin" ]; then
  check "FABCHECK_BIN=$bin: not an executable absolute path"
elif ! "$bin" --help >/dev/null 2>&1; then
  check "FABCHECK_BIN=$bin: does not start ($("$bin" --help 2>&1 >/dev/null | head -1))"
fi
profile="${conf[FABCHECK_PROFILE]}"
if [[ "$profile" == */* ]] && { [ ! -f "$profile" ] || [ ! -r "$profile" ]; }; then
  check "FABCHECK_PROFILE=$profile: not a readable file"
fi
results="${conf[FABCHECK_RESULTS_DIR]}"
if [[ "$results" != /* ]]; then
  check "FABCHECK_RESULTS_DIR=$results: not an absolute path"
elif why="$(closed_folders "$results")"; then
  # Made here if missing, then checked again: the run folders are created in it by fabcheck.
  mkdir -p -m 0755 -- "$results" 2>/dev/null || check "FABCHECK_RESULTS_DIR=$results: cannot be created"
  why="$(closed_folders "$results")" || check "FABCHECK_RESULTS_DIR: $why"
else
  check "FABCHECK_RESULTS_DIR: $why"
fi
if [ "${conf[FABCHECK_SCOPE]}" = job ] && [ "${conf[FABCHECK_LAUNCHER]}" != mpirun ]; then
  check "FABCHECK_SCOPE=job needs FABCHECK_LAUNCHER=mpirun (it starts ranks on the job's nodes)"
fi

if [ -n "$config_error" ]; then
  log "configuration error: $config_error"
  if [ "${conf[FABCHECK_ON_CONFIG_ERROR]}" = allow ]; then
    trace allow 0 "configuration error, FABCHECK_ON_CONFIG_ERROR=allow: the job runs WITHOUT a gate: $config_error"
    exit 0
  fi
  hold_and_exit 2 config-error "configuration error: $config_error"
fi

# ---- health: answer from the last outcome when it is a recent pass -----------------------------
# A job on the node (health): no gate while it runs (it would measure the job, and slow it).
busy_if_a_job_runs() {
  local running
  if running="$(squeue -h -w "$node" -t RUNNING,COMPLETING -o %i 2>/dev/null)" && [ -n "$running" ]; then
    trace busy 0 "$node: job(s) $(echo $running) running: no gate while they run"
    exit 0
  fi
}
limit="${conf[FABCHECK_TIMEOUT]}"
if [ "$mode" = health ]; then
  limit="${conf[FABCHECK_HEALTH_TIMEOUT]}"
  busy_if_a_job_runs
  # The node's last outcome, as `fabcheck answer --outcomes` writes it (keys sorted); a line of any
  # other shape is no outcome.
  log_file="$results/outcomes.jsonl"
  last=""
  if [ -f "$log_file" ] && [ ! -L "$log_file" ]; then
    last="$(grep -F "\"host\":\"$node\",\"kind\":\"node-outcome\"" -- "$log_file" | tail -n 1)"
  fi
  why="no outcome of $node in $log_file yet"
  if [[ "$last" =~ \"outcome\":\"(pass|fail|hold)\",\"run\":\"([^\"]*)\",\"utc\":\"([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z)\"\}$ ]]; then
    outcome="${BASH_REMATCH[1]}" last_run="${BASH_REMATCH[2]}"
    age=$(($(date -u +%s) - $(date -u -d "${BASH_REMATCH[3]}" +%s)))
    if [ "$outcome" = pass ] && ((age >= 0 && age <= conf[FABCHECK_HEALTH_MAX_AGE])); then
      trace recent 0 "$node: pass ${age} s ago (run $last_run; FABCHECK_HEALTH_MAX_AGE=${conf[FABCHECK_HEALTH_MAX_AGE]})"
      exit 0
    fi
    why="last outcome $outcome ${age} s ago (run $last_run)"
  elif [ -n "$last" ]; then
    why="the last outcome line of $node in $log_file is not one fabcheck writes"
  fi
  log "$why: the gate runs now (limit $limit s)"
fi

# ---- one gate at a time on a node ---------------------------------------------------------------
# A job can be scheduled onto the node while its health check's gate runs (the check found no job,
# then one started): two gates side by side measure each other, and a job's gate must not wait for
# a check nobody asked for. So in node scope every gate holds an flock on the node's lock file (in
# the closed results folder; "PID MODE JOB" in it) while it runs, its processes inheriting it. A
# health check that finds it held runs no gate ("busy": a job's gate runs). A prolog or epilog that
# finds a health check holding it stops that check (SIGUSR1, once a second: the check TERMs its gate
# and answers nothing, "preempted") and waits up to 15 s for the lock; one that finds another job's
# gate waits up to FABCHECK_TIMEOUT. A lock it cannot get holds the node (it cannot gate alone).
preempted=0
if [ "${conf[FABCHECK_SCOPE]}" = node ]; then
  lock="$results/gate-$node.lock"
  if [ -L "$lock" ] || { [ -e "$lock" ] && [ ! -f "$lock" ]; }; then
    hold_and_exit 3 hold "$lock: not a regular file (the gate's lock)"
  fi
  exec {lock_fd}<>"$lock" || hold_and_exit 3 hold "$lock: cannot be opened (the gate's lock)"
  # Who holds it: the line its holder wrote (read again each second while waiting: a holder that
  # has just taken it may not have written its line yet).
  read_lock_holder() { read -r holder_pid holder_mode holder_job <"/proc/$BASHPID/fd/$lock_fd" || true; }
  if ! flock -n "$lock_fd"; then
    read_lock_holder
    if [ "$mode" = health ]; then
      trace busy 0 "$node: the $holder_mode gate of job ${holder_job:-?} (pid ${holder_pid:-?}) runs: no second gate"
      exit 0
    fi
    waited=0
    until flock -n "$lock_fd"; do
      read_lock_holder
      wait_limit="$limit"
      if [ "$holder_mode" = health ]; then wait_limit=15; fi
      if ((waited >= wait_limit)); then
        hold_and_exit 3 hold "incomplete (the $holder_mode gate of job ${holder_job:-?}, pid ${holder_pid:-?}, held $lock for ${waited} s: no gate of job $job alone)"
      fi
      # Only a health check of this script is stopped: the pid's command line says which.
      if [ "$holder_mode" = health ] && [[ "$holder_pid" =~ ^[1-9][0-9]*$ ]] &&
        tr '\0' ' ' <"/proc/$holder_pid/cmdline" 2>/dev/null | grep -q 'fabcheck-slurm\.sh health'; then
        kill -USR1 "$holder_pid" 2>/dev/null
      fi
      sleep 1
      waited=$((waited + 1))
    done
    if [ "$holder_mode" = health ]; then log "stopped the node's health check (pid $holder_pid) in ${waited} s"; fi
  fi
  printf '%s %s %s\n' "$$" "$mode" "$job" >"/proc/$BASHPID/fd/$lock_fd"
  if [ "$mode" = health ]; then
    # The first USR1 stops the gate; the next ones (once a second) change nothing: a second TERM
    # within a second would make mpirun exit without passing it on to the ranks.
    trap 'if ((!preempted)); then preempted=1; [ -z "${_interruptible_child:-}" ] || kill -TERM "$_interruptible_child" 2>/dev/null; fi' USR1
    # A job may have started between the check above and the lock.
    busy_if_a_job_runs
  fi
fi

# ---- the run --------------------------------------------------------------------------------------
ranks="${conf[FABCHECK_RANKS]}"
if [ "$ranks" = auto ]; then
  # One rank per GPU (the /dev/nvidiaN devices), 2 on a node without GPUs.
  ranks=$(find /dev -maxdepth 1 -name 'nvidia[0-9]*' 2>/dev/null | wc -l)
  ((ranks > 0)) || ranks=2
fi
run_name="$(date -u +%Y%m%dT%H%M%SZ)-job$job-$mode-$node-$$"
out="$results/$run_name"

args=("$bin" run --plan "${conf[FABCHECK_PLAN]}" --profile "$profile" --out "$out" --quiet)
for path in "${storage_paths[@]}"; do args+=(--storage-path "$path"); done
if [ -n "${conf[FABCHECK_PROMETHEUS_DIR]}" ]; then args+=(--prometheus-dir "${conf[FABCHECK_PROMETHEUS_DIR]}"); fi
args+=("${gate_args[@]}")

# The launcher does not inherit the job's Slurm identity: slurmd gives the prolog SLURM_JOB_ID,
# SLURM_NODELIST and more, from which Open MPI's mpirun (and the fabcheck ranks) would conclude
# they run inside the job's allocation and use Slurm to start (and fail: no SLURM_TASKS_PER_NODE
# under a prolog). Every SLURM_*, PMI* and PMIX_* variable is removed from its environment, so any
# MPI starts its ranks itself (locally, or by ssh/rsh across the job's nodes).
launch=(env)
for name in $(compgen -e); do
  case "$name" in SLURM* | PMI* | PMIX_* | OMPI_MCA_ras* | OMPI_MCA_plm* | OMPI_MCA_ess*) launch+=(-u "$name") ;; esac
done
if [ "${conf[FABCHECK_LAUNCHER]}" = mpirun ]; then
  if [ "$(id -u)" -eq 0 ]; then launch+=(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1); fi
  launch+=(mpirun)
  if [ "${conf[FABCHECK_SCOPE]}" = job ]; then
    hosts=""
    for target in "${nodes[@]}"; do hosts+="${hosts:+,}$target:$ranks"; done
    launch+=(--host "$hosts" -np $((ranks * ${#nodes[@]})))
  else
    launch+=(-np "$ranks")
    if ((ranks > $(nproc))); then launch+=(--oversubscribe); fi
  fi
  launch+=("${mpirun_args[@]}")
else
  args+=(--single-process)
fi

log "job $job: ${conf[FABCHECK_PLAN]} on ${nodes[*]} ($ranks rank(s) a node, limit $limit s): $out"
# The limit: TERM at FABCHECK_TIMEOUT (fabcheck's ranks write their last words), KILL to the rest of
# this process group 10 s later. The launcher stays in this script's process group, so slurmd's own
# limit (PrologEpilogTimeout: TERM then KILL to the group) ends every process of the gate too.
if ((preempted)); then
  trace preempted 0 "$node: the gate of a job took the node before the gate of this check started: no answer"
  exit 0
fi
run_limited "$limit" 10 "${launch[@]}" "${args[@]}"
rc=$?
if ((preempted)); then
  trace preempted 0 "$node: the gate of a job took the node: the gate of this check stopped (run $run_name, exit $rc), no answer"
  exit 0
fi
if [ "$rc" -eq 124 ]; then
  hold_and_exit 3 hold "incomplete (no answer within $limit s; run $run_name)"
fi
if [ "$rc" -eq 2 ] && [ ! -e "$out/summary.json" ]; then
  log "fabcheck refused its configuration (exit 2): see the messages above"
  if [ "${conf[FABCHECK_ON_CONFIG_ERROR]}" = allow ]; then
    trace allow 0 "fabcheck refused its configuration (exit 2), FABCHECK_ON_CONFIG_ERROR=allow: the job runs WITHOUT a gate"
    exit 0
  fi
  hold_and_exit 2 config-error "configuration error (fabcheck exit 2, see the trace and slurmd log)"
fi

# ---- the answer: which node to drain or hold, and why -------------------------------------------
# fabcheck names hosts as they call themselves; Slurm names nodes its own way: a host maps to the
# node of the same name, or of the same short name (before the first dot).
slurm_node_of() {
  local host="$1" candidate
  for candidate in "${nodes[@]}"; do
    if [ "$candidate" = "$host" ] || [ "${candidate%%.*}" = "${host%%.*}" ]; then
      echo "$candidate"
      return 0
    fi
  done
  # One node (node scope): whatever the host calls itself, the run was on this node.
  if ((${#nodes[@]} == 1)); then
    echo "${nodes[0]}"
    return 0
  fi
  return 1
}

# Each node's outcome joins the outcome log; a drain for noisy figures only (a bandwidth below its
# tier) waits for FABCHECK_FAIL_STREAK failing runs and is a "watch" until then; facts drain now.
answer="$("$bin" answer "$out" --outcomes "$results/outcomes.jsonl" --fail-streak "${conf[FABCHECK_FAIL_STREAK]}")"
answer_rc=$?
verdict_rc=$answer_rc
taken=()
watched=()
first_reason=""
while IFS=$'\t' read -r action host reason code repair streak; do
  [ -n "$action" ] || continue
  case "$action" in
    drain | hold)
      if target="$(slurm_node_of "$host")"; then
        take_out "$target" "$reason" "$code" "$repair"
        taken+=("$target")
        first_reason="${first_reason:-$reason}"
      else
        log "$action $host: no node of this job has that name ($reason)"
      fi
      ;;
    watch)
      # Not taken out: the job runs; the run folder is kept as the evidence of this failing run.
      log "watching $host (not drained, FABCHECK_FAIL_STREAK=${conf[FABCHECK_FAIL_STREAK]}: $streak): $reason"
      watched+=("$host")
      first_reason="${first_reason:-($streak) $reason}"
      ;;
    across)
      # A FAIL of a figure across several of the job's nodes (job scope: the all-reduce between
      # them) names no one node: the fault may be in any of them or between them. The gate cannot
      # let the job run there, and a requeued job would land on the same nodes and fail again,
      # so each of them is held, the reason saying it is not that node's own finding.
      log "FAIL across $host (no single node at fault: each held): $reason"
      IFS=, read -r -a across_hosts <<<"$host"
      for one in "${across_hosts[@]}"; do
        if target="$(slurm_node_of "$one")"; then
          take_out "$target" "fabcheck: FAIL across $host (held: a fault in one of them or between them): ${reason#fabcheck: }"
          taken+=("$target")
          first_reason="${first_reason:-FAIL across $host: ${reason#fabcheck: }}"
        fi
      done
      ;;
  esac
done <<<"$answer"
# The launcher's code can only make it worse (mpirun: a rank killed, an interrupt), except a FAIL
# (exit 1) whose every node is watched (the answer's 0 then says the job may run).
if [ "$rc" -ne 0 ] && [ "$verdict_rc" -eq 0 ] && { [ "$rc" -ne 1 ] || ((${#watched[@]} == 0)); }; then
  verdict_rc=3
fi

case "$verdict_rc" in
  0)
    if ((${#watched[@]})); then
      trace watch 0 "${watched[*]} watched, run $run_name kept: $first_reason"
      exit 0
    fi
    kept="run $run_name kept"
    if [ "${conf[FABCHECK_KEEP_PASSED]}" = no ] && [ -d "$out" ] && [ ! -L "$out" ]; then
      rm -rf -- "$out"
      kept="run folder removed"
    fi
    # The health check's pass returns a node fabcheck took out (its reason starts "fabcheck:"),
    # never one drained by someone else, with FABCHECK_RESUME_ON_PASS=yes.
    if [ "$mode" = health ] && [ "${conf[FABCHECK_RESUME_ON_PASS]}" = yes ]; then
      reason_now="$(sinfo -h -N -n "$node" -o '%E' 2>/dev/null | head -1)"
      if [[ "$reason_now" == fabcheck:* ]]; then
        if [ "${conf[FABCHECK_ACTION]}" = report ]; then
          log "report-only (FABCHECK_ACTION=report): would resume $node (was: $reason_now)"
        elif scontrol update "nodename=$node" state=resume; then
          trace resume 0 "$node: pass ($kept); resumed, was: $reason_now"
          exit 0
        else
          log "could not resume $node (scontrol failed)"
        fi
      fi
    fi
    trace pass 0 "${nodes[*]}: pass ($kept)"
    exit 0
    ;;
  1)
    trace drain 1 "${taken[*]:-no node} drained: $first_reason; run $run_name"
    leave 1
    ;;
  *)
    if ((${#taken[@]} == 0)); then
      # A run that names no node (a rank stopped after its last probe, no summary): all held.
      hold_and_exit 3 hold "incomplete (exit $rc, verdict code $answer_rc, no node named; run $run_name)"
    fi
    trace hold 3 "${taken[*]} held: $first_reason; run $run_name"
    leave 3
    ;;
esac
