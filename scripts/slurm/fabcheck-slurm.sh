#!/usr/bin/env bash
# The fabcheck gate as a Slurm Prolog or Epilog (per node, run by slurmd) or PrologSlurmctld (per
# job, run by slurmctld): runs the gate, drains each node a FAIL names with the finding as reason,
# holds (drains with "fabcheck: incomplete ...") each node whose run did not finish or did not
# answer in time, and exits as Slurm expects. Configuration: docs/operations.md.
# Usage (from prolog.sh / epilog.sh / prolog-slurmctld.sh): fabcheck-slurm.sh prolog|epilog
#
# Exit codes: 0 the job may run (gate passed, or only warnings; also a configuration error under
# FABCHECK_ON_CONFIG_ERROR=allow, the default), 1 a FAIL (the nodes named are drained), 2 a
# configuration error under FABCHECK_ON_CONFIG_ERROR=hold (node held), 3 incomplete (interrupted,
# timed out, or no answer: nodes held). Slurm: a non-zero Prolog drains the node (ours keeps its
# reason: Slurm does not replace the reason of a node already draining) and requeues the job; a
# non-zero PrologSlurmctld requeues a batch job (interactive ones are cancelled); a non-zero Epilog
# drains the node.
#
# Safety: nothing is read from the job (its environment, comment, script); the only inputs are this
# node's Slurm variables (SLURMD_NODENAME, SLURM_JOB_ID, SLURM_JOB_NODELIST, checked) and the
# operator's configuration (FABCHECK_* variables, then the file FABCHECK_SLURM_CONF, default
# /etc/fabcheck/slurm.conf, which must be owned by root or this user and writable by no one else).
# Every command is an argument vector; no string is ever evaluated as shell.
set -uo pipefail

mode="${1:-}"
case "$mode" in
  prolog | epilog) ;;
  *)
    echo "usage: fabcheck-slurm.sh prolog|epilog" >&2
    exit 2
    ;;
esac

# ---- configuration: defaults, FABCHECK_* environment, then the file -------------------------
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
declare -A conf=(
  [FABCHECK_BIN]=/usr/local/bin/fabcheck
  [FABCHECK_LAUNCHER]=mpirun
  [FABCHECK_RANKS]=auto
  [FABCHECK_PROFILE]=auto
  [FABCHECK_PLAN]=gate
  [FABCHECK_SCOPE]=node
  [FABCHECK_TIMEOUT]=90
  [FABCHECK_RESULTS_DIR]=/var/lib/fabcheck/slurm
  [FABCHECK_KEEP_PASSED]=no
  [FABCHECK_ON_CONFIG_ERROR]=allow
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
for key in "${!conf[@]}"; do
  if [ -n "${!key+set}" ]; then conf[$key]="${!key}"; fi
done
if [ -n "${FABCHECK_STORAGE_PATH+set}" ] && [ -n "$FABCHECK_STORAGE_PATH" ]; then
  storage_paths+=("$FABCHECK_STORAGE_PATH")
fi

config_error=""
conf_file="${FABCHECK_SLURM_CONF:-/etc/fabcheck/slurm.conf}"
if [ -e "$conf_file" ]; then
  # Owned by root or by this user, not a link, writable by no one else.
  owner="$(stat -c %u -- "$conf_file")"
  mode_bits="$(stat -c %a -- "$conf_file")"
  if [ -L "$conf_file" ] || [ ! -f "$conf_file" ]; then
    config_error="$conf_file: not a regular file"
  elif [ "$owner" != 0 ] && [ "$owner" != "$(id -u)" ]; then
    config_error="$conf_file: owned by uid $owner, not by root or this user"
  elif (((8#$mode_bits & 8#022) != 0)); then
    config_error="$conf_file: writable by group or others (mode $mode_bits)"
  else
    number=0
    while IFS= read -r line || [ -n "$line" ]; do
      number=$((number + 1))
      case "$line" in '' | '#'*) continue ;; esac
      # The first error is kept; the rest of the file is still read (FABCHECK_ON_CONFIG_ERROR
      # may come after it).
      if [[ ! "$line" =~ ^(FABCHECK_[A-Z_]+)=(.*)$ ]]; then
        config_error="${config_error:-$conf_file:$number: expected KEY=VALUE, got: $line}"
        continue
      fi
      key="${BASH_REMATCH[1]}"
      value="${BASH_REMATCH[2]}"
      if repeated_key "$key" "$value"; then continue; fi
      if [ -z "${conf[$key]+set}" ]; then
        config_error="${config_error:-$conf_file:$number: unknown key $key}"
        continue
      fi
      conf[$key]="$value"
    done <"$conf_file"
  fi
elif [ -n "${FABCHECK_SLURM_CONF:-}" ]; then
  config_error="FABCHECK_SLURM_CONF=$conf_file: no such file"
fi
export PATH="${conf[FABCHECK_PATH]}"
source "$here/../lib/interruptible.sh"

log() {
  echo "fabcheck-slurm $mode: $*" >&2
  if command -v logger >/dev/null 2>&1; then logger -t fabcheck-slurm -- "$mode: $*" 2>/dev/null; fi
}

# ---- this node and job ------------------------------------------------------------------------
node="${SLURMD_NODENAME:-$(hostname -s)}"
job="${SLURM_JOB_ID:-0}"
[[ "$node" =~ ^[A-Za-z0-9._-]+$ ]] || config_error="${config_error:-node name \"$node\" has characters a host name cannot have}"
[[ "$job" =~ ^[0-9]+$ ]] || config_error="${config_error:-SLURM_JOB_ID \"$job\" is not a number}"

# Takes `node` out of service with `reason` (one argument: never split, never evaluated).
take_out() {
  local target="$1" reason="$2"
  if scontrol update "nodename=$target" state=drain "reason=$reason"; then
    log "drained $target: $reason"
  else
    log "could not drain $target (scontrol failed): $reason"
  fi
}

hold_and_exit() {
  local code="$1" why="$2"
  shift 2
  local target
  for target in "$@"; do take_out "$target" "fabcheck: incomplete ($why)"; done
  exit "$code"
}

# The job's nodes (job scope) or this node.
nodes=("$node")
if [ "${conf[FABCHECK_SCOPE]}" = job ]; then
  nodes=()
  nodelist_pattern='^[][A-Za-z0-9._,-]+$'  # "gpu[01-04,07],login1"
  if [[ ! "${SLURM_JOB_NODELIST:-}" =~ $nodelist_pattern ]]; then
    config_error="${config_error:-SLURM_JOB_NODELIST \"${SLURM_JOB_NODELIST:-}\" is empty or odd}"
  else
    while IFS= read -r host; do
      [[ "$host" =~ ^[A-Za-z0-9._-]+$ ]] && nodes+=("$host")
    done < <(scontrol show hostnames "$SLURM_JOB_NODELIST")
    ((${#nodes[@]})) || config_error="${config_error:-scontrol show hostnames gave no node}"
  fi
fi

# ---- checks of the values ------------------------------------------------------------------------
check() { [ -n "$config_error" ] || config_error="$1"; }
[[ "${conf[FABCHECK_TIMEOUT]}" =~ ^[1-9][0-9]*$ ]] || check "FABCHECK_TIMEOUT=${conf[FABCHECK_TIMEOUT]}: seconds, a whole number above 0"
[[ "${conf[FABCHECK_RANKS]}" =~ ^(auto|[1-9][0-9]*)$ ]] || check "FABCHECK_RANKS=${conf[FABCHECK_RANKS]}: auto or a number above 0"
[[ "${conf[FABCHECK_LAUNCHER]}" =~ ^(mpirun|none)$ ]] || check "FABCHECK_LAUNCHER=${conf[FABCHECK_LAUNCHER]}: mpirun or none"
[[ "${conf[FABCHECK_SCOPE]}" =~ ^(node|job)$ ]] || check "FABCHECK_SCOPE=${conf[FABCHECK_SCOPE]}: node or job"
[[ "${conf[FABCHECK_ON_CONFIG_ERROR]}" =~ ^(allow|hold)$ ]] || check "FABCHECK_ON_CONFIG_ERROR=${conf[FABCHECK_ON_CONFIG_ERROR]}: allow or hold"
[[ "${conf[FABCHECK_KEEP_PASSED]}" =~ ^(yes|no)$ ]] || check "FABCHECK_KEEP_PASSED=${conf[FABCHECK_KEEP_PASSED]}: yes or no"
[[ "${conf[FABCHECK_PLAN]}" =~ ^[a-z]+$ ]] || check "FABCHECK_PLAN=${conf[FABCHECK_PLAN]}: a plan name"
[ -x "${conf[FABCHECK_BIN]}" ] && [[ "${conf[FABCHECK_BIN]}" == /* ]] || check "FABCHECK_BIN=${conf[FABCHECK_BIN]}: not an executable absolute path"
[[ "${conf[FABCHECK_RESULTS_DIR]}" == /* ]] || check "FABCHECK_RESULTS_DIR=${conf[FABCHECK_RESULTS_DIR]}: not an absolute path"
if [ "${conf[FABCHECK_SCOPE]}" = job ] && [ "${conf[FABCHECK_LAUNCHER]}" != mpirun ]; then
  check "FABCHECK_SCOPE=job needs FABCHECK_LAUNCHER=mpirun (it starts ranks on the job's nodes)"
fi

if [ -n "$config_error" ]; then
  log "configuration error: $config_error"
  if [ "${conf[FABCHECK_ON_CONFIG_ERROR]}" = hold ]; then
    for target in "${nodes[@]}"; do take_out "$target" "fabcheck: configuration error (see the slurmd log)"; done
    exit 2
  fi
  log "FABCHECK_ON_CONFIG_ERROR=allow: the job runs without a gate"
  exit 0
fi

# ---- the run --------------------------------------------------------------------------------------
ranks="${conf[FABCHECK_RANKS]}"
if [ "$ranks" = auto ]; then
  # One rank per GPU (the /dev/nvidiaN devices), 2 on a node without GPUs.
  ranks=$(find /dev -maxdepth 1 -name 'nvidia[0-9]*' 2>/dev/null | wc -l)
  ((ranks > 0)) || ranks=2
fi
mkdir -p -m 0755 -- "${conf[FABCHECK_RESULTS_DIR]}" || hold_and_exit 3 "cannot create ${conf[FABCHECK_RESULTS_DIR]}" "${nodes[@]}"
out="${conf[FABCHECK_RESULTS_DIR]}/$(date -u +%Y%m%dT%H%M%SZ)-job$job-$mode-$node-$$"

args=("${conf[FABCHECK_BIN]}" run --plan "${conf[FABCHECK_PLAN]}" --profile "${conf[FABCHECK_PROFILE]}" --out "$out")
for path in "${storage_paths[@]}"; do args+=(--storage-path "$path"); done
if [ -n "${conf[FABCHECK_PROMETHEUS_DIR]}" ]; then args+=(--prometheus-dir "${conf[FABCHECK_PROMETHEUS_DIR]}"); fi
args+=("${gate_args[@]}")

launch=()
if [ "${conf[FABCHECK_LAUNCHER]}" = mpirun ]; then
  if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
  launch=(mpirun)
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

log "job $job: ${conf[FABCHECK_PLAN]} on ${nodes[*]} ($ranks rank(s) a node, limit ${conf[FABCHECK_TIMEOUT]} s): $out"
# The limit: TERM at FABCHECK_TIMEOUT (fabcheck's ranks then write their last words), KILL 10 s
# later. A signal to this script (slurmd's own limit) is passed on as mpirun.sh does.
run_interruptible timeout --kill-after=10 "${conf[FABCHECK_TIMEOUT]}" "${launch[@]}" "${args[@]}"
rc=$?
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
  hold_and_exit 3 "no answer within ${conf[FABCHECK_TIMEOUT]} s; see $out" "${nodes[@]}"
fi
if [ "$rc" -eq 2 ] && [ ! -e "$out/summary.json" ]; then
  log "fabcheck refused its configuration (exit 2): see the messages above"
  if [ "${conf[FABCHECK_ON_CONFIG_ERROR]}" = hold ]; then
    for target in "${nodes[@]}"; do take_out "$target" "fabcheck: configuration error (see the slurmd log)"; done
    exit 2
  fi
  exit 0
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

answer="$("${conf[FABCHECK_BIN]}" answer "$out")"
answer_rc=$?
verdict_rc=$answer_rc
# The launcher's code can only make it worse (mpirun: a rank killed, an interrupt).
if [ "$rc" -ne 0 ] && [ "$verdict_rc" -eq 0 ]; then verdict_rc=3; fi
taken=0
while IFS=$'\t' read -r action host reason; do
  [ -n "$action" ] || continue
  case "$action" in
    drain | hold)
      if target="$(slurm_node_of "$host")"; then
        take_out "$target" "$reason"
        taken=$((taken + 1))
      else
        log "$action $host: no node of this job has that name ($reason)"
      fi
      ;;
    across) log "FAIL across $host (drains nobody: the fault may be in any of them or between them): $reason" ;;
  esac
done <<<"$answer"

case "$verdict_rc" in
  0)
    log "job $job: pass"
    if [ "${conf[FABCHECK_KEEP_PASSED]}" = no ] && [ -d "$out" ] && [ ! -L "$out" ]; then
      rm -rf -- "$out"
    fi
    exit 0
    ;;
  1)
    log "job $job: FAIL, $taken node(s) drained; results in $out"
    exit 1
    ;;
  *)
    if ((taken == 0)); then
      hold_and_exit 3 "exit $rc, no answer in $out" "${nodes[@]}"
    fi
    log "job $job: incomplete, $taken node(s) held; results in $out"
    exit 3
    ;;
esac
