# valid_node_name NAME: true when NAME is one host name and nothing else, so that
# `scontrol update nodename=NAME` (or kubectl NODE) acts on that one node: letters, digits, '.',
# '_' and '-', starting with a letter or digit, at most 253 bytes; never a Slurm host list
# (brackets, commas), never a second argument (spaces, '='), never an option (leading '-'), never
# Slurm's ALL (any case). The one check every script uses before naming a node to a scheduler;
# a name it refuses is reported, never acted on. Source this file, then call it.
valid_node_name() {
  local name="$1"
  [[ "$name" =~ ^[A-Za-z0-9][A-Za-z0-9._-]{0,252}$ ]] || return 1
  [[ "${name,,}" != all ]] || return 1
  return 0
}
