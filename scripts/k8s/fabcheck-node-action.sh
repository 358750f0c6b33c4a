#!/usr/bin/env bash
# What Kubernetes should do with the nodes a fabcheck run did not pass: for each node it names,
# cordon it (no new pods), taint it fabcheck.io/unhealthy=<drain|hold>:NoSchedule and record the
# reason in the annotation fabcheck.io/reason. Printed; run (as argument vectors, never through a
# shell) only with --apply. Undo: kubectl uncordon NODE; kubectl taint nodes NODE
# fabcheck.io/unhealthy-; kubectl annotate node NODE fabcheck.io/reason-.
# Usage: scripts/k8s/fabcheck-node-action.sh RUN_DIR [--apply] [--namespace NS]
#   --namespace NS: the run's hosts are pod names in NS (workers without hostNetwork): each is
#                   mapped to the node it ran on (kubectl get pod -o jsonpath={.spec.nodeName})
# Environment: FABCHECK (default build/bench/cli/fabcheck of this checkout, else fabcheck in PATH).
# Exit code: the run's (0 pass, 1 FAIL, 3 incomplete); 2 for bad usage; 4 when --apply failed for
# a node.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../lib/node_name.sh"

usage() {
  sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
[ $# -ge 1 ] || usage
run_dir="$1"
shift
apply=no
namespace=""
while [ $# -gt 0 ]; do
  case "$1" in
    --apply) apply=yes; shift ;;
    --namespace)
      [ $# -ge 2 ] && [[ "$2" =~ ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ ]] || {
        echo "fabcheck-node-action: --namespace needs a namespace name" >&2
        exit 2
      }
      namespace="$2"
      shift 2
      ;;
    *) usage ;;
  esac
done

fabcheck="${FABCHECK:-$here/../../build/bench/cli/fabcheck}"
[ -x "$fabcheck" ] || fabcheck="$(command -v fabcheck || true)"
[ -n "$fabcheck" ] || { echo "fabcheck-node-action: no fabcheck binary (set FABCHECK)" >&2; exit 2; }

answer="$("$fabcheck" answer "$run_dir")"
verdict=$?
[ "$verdict" -ne 2 ] || exit 2

# One host name (scripts/lib/node_name.sh, as every script checks it) that Kubernetes allows (a DNS
# subdomain); anything else is reported, never used.
valid_node() { valid_node_name "$1" && [[ "$1" =~ ^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$ ]]; }

failed=0
run_or_print() {
  printf '%q ' "$@"
  echo
  if [ "$apply" = yes ] && ! "$@"; then
    echo "fabcheck-node-action: failed: $*" >&2
    failed=1
  fi
}

while IFS=$'\t' read -r action host reason code repair; do
  case "$action" in
    drain | hold) ;;
    across)
      echo "# FAIL across $host (drains nobody: the fault may be in any of them or between them): $reason"
      continue
      ;;
    *) continue ;;
  esac
  node="$host"
  if [ -n "$namespace" ]; then
    node="$(kubectl get pod "$host" --namespace "$namespace" -o 'jsonpath={.spec.nodeName}')" || node=""
  fi
  if ! valid_node "$node"; then
    echo "# $action $host: no Kubernetes node name for it (\"$node\"): $reason" >&2
    failed=1
    continue
  fi
  echo "# $action $node: $reason"
  run_or_print kubectl cordon "$node"
  run_or_print kubectl taint nodes "$node" "fabcheck.io/unhealthy=$action:NoSchedule" --overwrite
  run_or_print kubectl annotate node "$node" "fabcheck.io/reason=$reason" --overwrite
  # What is wrong and the first repair (lowercase words: nothing else is passed on).
  if [[ "$code" =~ ^[a-z-]+$ ]] && [[ "$repair" =~ ^[a-z-]+$ ]]; then
    run_or_print kubectl annotate node "$node" "fabcheck.io/code=$code" "fabcheck.io/repair=$repair" --overwrite
  fi
done <<<"$answer"

if [ "$failed" -ne 0 ] && [ "$apply" = yes ]; then exit 4; fi
exit "$verdict"
