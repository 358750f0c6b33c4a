#!/usr/bin/env bash
# Returns nodes that fabcheck took out of service, and only those: for each NODE, its Slurm reason
# (sinfo %E) must start with "fabcheck:" (NHC's convention for its "NHC:" notes); a node drained
# by someone else (maintenance, Slurm's own "Prolog error") is left alone and reported. Names pass
# scripts/lib/node_name.sh first. Run it once the node is fixed (and, for a FAIL, a gate or sweep
# passed on it).
# Usage: scripts/slurm/fabcheck-resume.sh [--dry-run] NODE...
# Exit code: 0 every node resumed (or would be, --dry-run), 1 one or more left alone, 2 usage.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../lib/node_name.sh"
dry=no
if [ "${1:-}" = --dry-run ]; then dry=yes; shift; fi
[ $# -ge 1 ] || { sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
status=0
for node in "$@"; do
  if ! valid_node_name "$node"; then
    echo "fabcheck-resume: \"$node\" is not one host name: left alone" >&2
    status=1
    continue
  fi
  reason="$(sinfo -h -N -n "$node" -o '%E' 2>/dev/null | head -1)"
  if [[ "$reason" != fabcheck:* ]]; then
    echo "fabcheck-resume: $node: reason \"$reason\" is not fabcheck's: left alone" >&2
    status=1
    continue
  fi
  command=(scontrol update "nodename=$node" state=resume)
  printf '%q ' "${command[@]}"
  echo
  if [ "$dry" = no ] && ! "${command[@]}"; then
    echo "fabcheck-resume: scontrol failed for $node" >&2
    status=1
  fi
done
exit "$status"
