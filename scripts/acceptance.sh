#!/usr/bin/env bash
# Acceptance of new nodes: `fabcheck acceptance` across the nodes of an Open MPI hostfile under
# mpirun, then the HTML report and each node's verdict. Run it as the user who can mpirun (ssh) to
# every node; fabcheck must be at the same path on each (FABCHECK, default build/bench/cli/fabcheck
# of this checkout).
# Usage: scripts/acceptance.sh HOSTFILE [--ranks-per-node N] [--out DIR] [-- FABCHECK_ARGS...]
#   HOSTFILE: one node a line, "node07" or "node07 slots=8" (# comments allowed)
#   --ranks-per-node N: N ranks on each node (one per GPU on GPU nodes); default: the hostfile's
#                       slots (1 where it gives none)
#   --out DIR: the run directory (must not exist); default ./acceptance-<UTC time>
#   FABCHECK_ARGS: more options for `fabcheck acceptance` (--storage-path /mnt/nvme, --profile P)
# Exit code: fabcheck's: 0 every node passed (or warnings), 1 a FAIL, 2 usage or configuration
# error, 3 incomplete (also when interrupted: scripts/lib/interruptible.sh).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib/interruptible.sh"

usage() {
  sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

[ $# -ge 1 ] || usage
hostfile="$1"
shift
per_node=""
out="acceptance-$(date -u +%Y%m%dT%H%M%SZ)"
while [ $# -gt 0 ]; do
  case "$1" in
    --ranks-per-node)
      [ $# -ge 2 ] && [[ "$2" =~ ^[1-9][0-9]*$ ]] || {
        echo "acceptance.sh: --ranks-per-node needs a number above 0" >&2
        exit 2
      }
      per_node="$2"
      shift 2
      ;;
    --out)
      [ $# -ge 2 ] || usage
      out="$2"
      shift 2
      ;;
    --)
      shift
      break
      ;;
    -h | --help) usage ;;
    *)
      echo "acceptance.sh: unknown option $1 (fabcheck's own options go after --)" >&2
      exit 2
      ;;
  esac
done

# The hostfile: every line a host name, optionally with slots=N.
if [ ! -f "$hostfile" ] || [ ! -r "$hostfile" ]; then
  echo "acceptance.sh: $hostfile: not a readable file" >&2
  exit 2
fi
hosts=()
slots_total=0
number=0
while IFS= read -r line || [ -n "$line" ]; do
  number=$((number + 1))
  line="${line%%#*}"
  read -r -a words <<<"$line"
  ((${#words[@]})) || continue
  if [[ ! "${words[0]}" =~ ^[A-Za-z0-9._-]+$ ]] || ((${#words[@]} > 2)) ||
    { ((${#words[@]} == 2)) && [[ ! "${words[1]}" =~ ^slots=[1-9][0-9]*$ ]]; }; then
    echo "acceptance.sh: $hostfile:$number: expected \"HOST\" or \"HOST slots=N\", got: $line" >&2
    exit 2
  fi
  hosts+=("${words[0]}")
  slots=1
  ((${#words[@]} == 2)) && slots="${words[1]#slots=}"
  slots_total=$((slots_total + slots))
done <"$hostfile"
if ((${#hosts[@]} == 0)); then
  echo "acceptance.sh: $hostfile: no host in it" >&2
  exit 2
fi
if [ -e "$out" ] || [ -L "$out" ]; then
  echo "acceptance.sh: --out $out: exists; give a path that does not exist yet" >&2
  exit 2
fi

fabcheck="${FABCHECK:-$here/../build/bench/cli/fabcheck}"
if [ ! -x "$fabcheck" ]; then
  echo "acceptance.sh: $fabcheck: not built (run scripts/setup.sh, or set FABCHECK)" >&2
  exit 2
fi
fabcheck="$(cd "$(dirname "$fabcheck")" && pwd)/$(basename "$fabcheck")"

launch=(mpirun --hostfile "$hostfile")
if [ -n "$per_node" ]; then
  launch+=(--map-by "ppr:$per_node:node" -np $((per_node * ${#hosts[@]})))
else
  launch+=(-np "$slots_total")
fi
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
# More ranks than this machine's cores when every host is this machine (a try-out on one node).
if [ "${#hosts[@]}" -eq 1 ]; then launch+=(--oversubscribe); fi

echo "acceptance: ${#hosts[@]} node(s) from $hostfile: ${hosts[*]}; results in $out" >&2
run_interruptible "${launch[@]}" "$fabcheck" acceptance --out "$out" "$@"
rc=$?

if [ -f "$out/summary.json" ]; then
  if "$here/fabcheck-report" "$out" -o "$out/report.html" >/dev/null 2>"$out.report-errors"; then
    echo "report: $out/report.html" >&2
    rm -f -- "$out.report-errors"
  else
    echo "report: not written (see $out.report-errors)" >&2
  fi
  # Each node's verdict, then what to do with the nodes that did not pass.
  python3 - "$out/summary.json" <<'PY' >&2 || true
import json, sys
summary = json.load(open(sys.argv[1]))
print(f"verdict: {summary.get('verdict', '?').upper()} (exit code {summary.get('exit_code')})")
for node in summary.get("nodes", []):
    worst = node.get("worst") or [{}]
    print(f"  {node['host']:<24} {node['verdict'].upper():<10} {worst[0].get('message', '')}")
for action in ("drain", "hold"):
    for entry in summary.get(action, []):
        print(f"{action} {entry['host']}: {entry['reason']}")
for entry in summary.get("across_nodes", []):
    print(f"FAIL across {entry['hosts']}: {entry['message']}")
PY
elif [ "$rc" -ne 0 ]; then
  # mpirun returns non-zero both for a FAIL and when it could not start fabcheck: without a summary
  # the run is incomplete, never a FAIL.
  echo "acceptance: mpirun ended with $rc and no $out/summary.json was written: exit code 3 (incomplete)" >&2
  exit 3
fi
exit "$rc"
