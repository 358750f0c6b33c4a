#!/usr/bin/env bash
# A cluster on one machine: N "nodes", each a network namespace whose processes get their own host
# name (unshare --uts), joined by a bridge; Open MPI reaches them through an rsh agent that enters
# the namespace, and its TCP BTL runs over the bridge. With --leaves L the nodes hang off L leaf
# bridges, each joined to the spine bridge by its own veth pair (the leaf's uplink), and the matching
# Slurm topology.conf is written. tc slows one node (tbf), only the traffic between two nodes (htb
# class + u32 filter on both ends), or a leaf's uplink (tbf on both ends). Needs root, iproute2
# and util-linux.
#
# Usage: scripts/simcluster.sh up N [--rate MBIT] [--leaves L]
#                                                make N nodes (each with a line rate of MBIT Mbit/s
#                                                each way; default: as fast as the CPUs go), under L
#                                                leaf switches (consecutive nodes share a leaf);
#                                                prints the cluster's name and mpirun flags
#        scripts/simcluster.sh down              remove the nodes, links, bridge and files
#        scripts/simcluster.sh slow-node NODE MBIT    limit all of NODE's traffic to MBIT Mbit/s
#        scripts/simcluster.sh slow-link A B MBIT     limit only the traffic between A and B
#        scripts/simcluster.sh slow-uplink LEAF MBIT  limit leaf LEAF's uplink (leaf0, or 0) to MBIT
#        scripts/simcluster.sh topology          the path of the cluster's topology.conf
#        scripts/simcluster.sh heal [NODE]       remove the limits (of NODE, or everywhere, uplinks
#                                                included)
#        scripts/simcluster.sh status            nodes, addresses, limits, processes
#        scripts/simcluster.sh flags             the mpirun flags (one per line)
#        scripts/simcluster.sh mpirun NP ARGS... mpirun over the nodes (ranks spread node by node)
#        scripts/simcluster.sh exec NODE CMD...  run a command on a node
#        scripts/simcluster.sh pids NODE         the processes running on a node
#        scripts/simcluster.sh gc                remove clusters whose owner process has ended
# NODE is a node's host name (<cluster>-n2), its short name (n2) or its index (2). Every command but `up` acts on the
# cluster named by $SIMCLUSTER, or on the only one there is. Names are unique per `up`, so several
# clusters (parallel test runs) never collide; `up` removes what it made when it fails. A test that
# sets SIMCLUSTER_OWNER=<its pid> before `up` lets `gc` remove its cluster should it die without
# `down`.
set -euo pipefail

STATE_ROOT="${SIMCLUSTER_STATE_ROOT:-/run/fabcheck-simcluster}"
MAX_NODES=64

die() {
  echo "simcluster: $*" >&2
  exit 2
}

need_root() {
  [ "$(id -u)" -eq 0 ] || die "needs root (network namespaces, veth, bridge, tc)"
  for tool in ip tc unshare; do
    command -v "$tool" >/dev/null || die "$tool not found (apt-get install iproute2 util-linux)"
  done
}

# --- the cluster's state: $STATE_ROOT/<name>/{nodes,subnet,agent,hostfile} -------------------------

cluster_dir() {
  local name="${SIMCLUSTER:-}"
  if [ -z "$name" ]; then
    local found=()
    if [ -d "$STATE_ROOT" ]; then
      for dir in "$STATE_ROOT"/*/; do [ -f "$dir/nodes" ] && found+=("$(basename "$dir")"); done
    fi
    case "${#found[@]}" in
      0) die "no cluster (scripts/simcluster.sh up N)" ;;
      1) name="${found[0]}" ;;
      *) die "several clusters (${found[*]}): set SIMCLUSTER to one of them" ;;
    esac
  fi
  [ -f "$STATE_ROOT/$name/nodes" ] || die "no cluster named \"$name\" (in $STATE_ROOT)"
  echo "$STATE_ROOT/$name"
}

# Node lines: "index host address veth-on-the-bridge".
node_line() {  # dir NODE
  local dir="$1" want="$2" index host address veth
  while read -r index host address veth; do
    if [ "$want" = "$index" ] || [ "$want" = "$host" ] || [ "$(basename "$dir")-$want" = "$host" ]; then
      echo "$index $host $address $veth"
      return 0
    fi
  done <"$dir/nodes"
  die "no node \"$want\" in $(basename "$dir") (nodes: $(awk '{printf "%s ", $2}' "$dir/nodes"))"
}

check_mbit() {
  [[ "$1" =~ ^[0-9]+$ ]] && [ "$1" -ge 1 ] || die "MBIT must be a whole number of Mbit/s >= 1, not \"$1\""
}

# A /24 in 10.0.0.0/8 that no interface or route of this machine uses yet.
free_subnet() {
  local used candidate
  used="$(ip -4 -o addr show; ip -4 route show)"
  for _ in $(seq 1 200); do
    candidate="10.$((200 + RANDOM % 50)).$((RANDOM % 256))"
    if ! grep -q "${candidate//./\\.}\." <<<"$used"; then
      echo "$candidate"
      return 0
    fi
  done
  die "no free 10.x.y.0/24 subnet found"
}

# --- up / down ------------------------------------------------------------------------------------

cmd_up() {
  need_root
  local count="${1:-}" rate="" leaves=1
  [[ "$count" =~ ^[0-9]+$ ]] && [ "$count" -ge 1 ] && [ "$count" -le "$MAX_NODES" ] ||
    die "up N: N must be 1..$MAX_NODES, not \"$count\""
  shift
  while [ $# -gt 0 ]; do
    case "$1" in
      --rate) [ $# -ge 2 ] || die "up: --rate needs MBIT"; check_mbit "$2"; rate="$2"; shift 2 ;;
      --leaves)
        [ $# -ge 2 ] && [[ "$2" =~ ^[0-9]+$ ]] && [ "$2" -ge 1 ] && [ "$2" -le "$count" ] ||
          die "up: --leaves needs a number of leaf switches from 1 to N ($count)"
        leaves="$2"; shift 2 ;;
      *) die "up: unknown option \"$1\"" ;;
    esac
  done
  local name
  for _ in $(seq 1 20); do
    name="fc$(printf '%04x' $((RANDOM % 65536)))"
    [ ! -e "$STATE_ROOT/$name" ] && ! ip link show "${name}br" >/dev/null 2>&1 && break
  done
  local dir="$STATE_ROOT/$name"
  mkdir -p "$dir"
  # From here on, a failure (or an interrupt) removes everything made so far.
  UP_DIR="$dir"
  trap on_up_exit EXIT
  trap 'exit 130' INT TERM
  local subnet
  subnet="$(free_subnet)"
  echo "$subnet" >"$dir/subnet"
  if [ -n "${SIMCLUSTER_OWNER:-}" ]; then
    echo "$SIMCLUSTER_OWNER $(awk '{print $22}' "/proc/$SIMCLUSTER_OWNER/stat" 2>/dev/null)" >"$dir/owner"
  fi
  : >"$dir/nodes"
  local bridge="${name}br"
  ip link add "$bridge" type bridge
  echo "bridge $bridge" >"$dir/links"
  ip addr add "$subnet.254/24" dev "$bridge"
  ip link set "$bridge" up
  # Leaf switches: a bridge each, its uplink a veth pair to the spine bridge ("leaf index bridge
  # spine-end leaf-end" lines).
  : >"$dir/leaves"
  if [ "$leaves" -ge 2 ]; then
    for ((j = 0; j < leaves; j++)); do
      ip link add "${name}l$j" type bridge
      ip link set "${name}l$j" up
      ip link add "${name}u$j" type veth peer name "${name}d$j"
      ip link set "${name}u$j" master "$bridge" up
      ip link set "${name}d$j" master "${name}l$j" up
      echo "$j ${name}l$j ${name}u$j ${name}d$j" >>"$dir/leaves"
    done
  fi

  local hosts="127.0.0.1 localhost
$subnet.254 $name-head"
  for ((i = 0; i < count; i++)); do
    hosts+="
$subnet.$((i + 1)) $name-n$i"
  done
  for ((i = 0; i < count; i++)); do
    local node="$name-n$i" veth="${name}h$i" address="$subnet.$((i + 1))"
    ip netns add "$node"
    echo "$i $node $address $veth" >>"$dir/nodes"
    ip link add "$veth" type veth peer name "${name}c$i"
    ip link set "${name}c$i" netns "$node"
    ip -n "$node" link set "${name}c$i" name eth0
    ip -n "$node" addr add "$address/24" dev eth0
    ip -n "$node" link set eth0 up
    ip -n "$node" link set lo up
    if [ "$leaves" -ge 2 ]; then
      ip link set "$veth" master "${name}l$((i * leaves / count))" up
    else
      ip link set "$veth" master "$bridge" up
    fi
    # `ip netns exec` mounts /etc/netns/<node>/* over /etc: the nodes know each other by name, and
    # name lookups never wait for a DNS server they cannot reach.
    mkdir -p "/etc/netns/$node"
    echo "$hosts" >"/etc/netns/$node/hosts"
    echo "# simcluster $name: no DNS inside the nodes" >"/etc/netns/$node/resolv.conf"
  done
  awk '{print $2" slots=64"}' "$dir/nodes" >"$dir/hostfile"
  write_topology "$dir" "$name" "$count" "$leaves"
  echo "$rate" >"$dir/rate"
  : >"$dir/slowed"
  while read -r _ node _ veth; do line_rate "$dir" "$node" "$veth"; done <"$dir/nodes"

  # Open MPI calls the agent as `agent [options] HOST COMMAND...` (like ssh: COMMAND is shell text).
  cat >"$dir/agent" <<EOF
#!/bin/sh
# rsh agent of simcluster $name: runs COMMAND on node HOST (its namespace, its own host name).
while [ \$# -gt 0 ]; do case "\$1" in -*) shift ;; *) break ;; esac; done
host="\$1"; shift
[ -f "/etc/netns/\$host/hosts" ] || { echo "simcluster agent: no node \$host" >&2; exit 255; }
exec ip netns exec "\$host" unshare --uts -- /bin/sh -c 'hostname "\$0" && exec /bin/sh -c "\$*"' "\$host" "\$@"
EOF
  chmod +x "$dir/agent"
  UP_DIR=""
  trap - EXIT INT TERM
  echo "simcluster: $count node(s) up${rate:+, line rate $rate Mbit/s}: $(awk '{printf "%s ", $2}' "$dir/nodes")"
  echo "export SIMCLUSTER=$name"
  echo "mpirun flags:"
  mpirun_flags "$dir" | sed 's/^/  /'
}

# Slurm's topology.conf (topology/tree) for the layout: leaf<j> over its consecutive nodes, spine
# over the leaves (one leaf: one switch over every node).
write_topology() {  # dir name count leaves
  local dir="$1" name="$2" count="$3" leaves="$4" j first last
  {
    echo "# simcluster $name: $count node(s) under $leaves leaf switch(es)"
    for ((j = 0; j < leaves; j++)); do
      first=$(((j * count + leaves - 1) / leaves))
      last=$((((j + 1) * count + leaves - 1) / leaves - 1))
      echo "SwitchName=leaf$j Nodes=$name-n[$first-$last]"
    done
    [ "$leaves" -lt 2 ] || echo "SwitchName=spine Switches=leaf[0-$((leaves - 1))]"
  } >"$dir/topology.conf"
}

UP_DIR=""
on_up_exit() {
  local status=$?
  if [ -n "$UP_DIR" ]; then
    echo "simcluster: up failed, removing $(basename "$UP_DIR")" >&2
    teardown "$UP_DIR"
  fi
  exit "$status"
}

# Removes everything of the cluster in `dir`, whatever state it is in; never fails.
teardown() {
  local dir="$1" name index host address veth
  name="$(basename "$dir")"
  if [ -f "$dir/nodes" ]; then
    while read -r index host address veth; do
      # Processes still on the node (a stopped or hung rank): they belong to this cluster.
      local pids
      pids="$(ip netns pids "$host" 2>/dev/null || true)"
      if [ -n "$pids" ]; then
        kill -KILL $pids 2>/dev/null || true
      fi
      ip netns del "$host" 2>/dev/null || true
      ip link del "$veth" 2>/dev/null || true
      rm -rf "/etc/netns/$host"
    done <"$dir/nodes"
  fi
  # Interfaces and namespaces of this name even if the state file was not complete.
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$name-n" || true); do
    ip netns del "$ns" 2>/dev/null || true
    rm -rf "/etc/netns/$ns"
  done
  for link in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1 | grep "^$name" || true); do
    ip link del "$link" 2>/dev/null || true
  done
  rm -rf "$dir"
}

cmd_down() {
  need_root
  local dir
  dir="$(cluster_dir)"
  teardown "$dir"
  echo "simcluster: $(basename "$dir") removed"
}

# Clusters whose owner (pid and start time) is gone: left behind by a test that was killed.
cmd_gc() {
  need_root
  [ -d "$STATE_ROOT" ] || return 0
  local dir pid started
  for dir in "$STATE_ROOT"/*/; do
    dir="${dir%/}"
    [ -f "$dir/owner" ] || continue
    read -r pid started <"$dir/owner"
    if [ "$(awk '{print $22}' "/proc/$pid/stat" 2>/dev/null)" != "$started" ]; then
      echo "simcluster: removing $(basename "$dir") (its owner, process $pid, has ended)"
      teardown "$dir"
    fi
  done
}

# --- flags and launching --------------------------------------------------------------------------

mpirun_flags() {  # dir
  local dir="$1" subnet
  subnet="$(cat "$dir/subnet")"
  cat <<EOF
--hostfile $dir/hostfile
--map-by node
--mca plm_rsh_agent $dir/agent
--mca plm_rsh_no_tree_spawn 1
--mca oob_tcp_if_include $subnet.0/24
--mca btl self,vader,tcp
--mca btl_tcp_if_include $subnet.0/24
--mca mpi_yield_when_idle 1
EOF
}

cmd_flags() {
  mpirun_flags "$(cluster_dir)"
}

cmd_mpirun() {
  local dir np
  dir="$(cluster_dir)"
  np="${1:-}"
  [[ "$np" =~ ^[0-9]+$ ]] && [ "$np" -ge 1 ] || die "mpirun NP ARGS...: NP must be a number, not \"$np\""
  shift
  local flags=()
  mapfile -t lines < <(mpirun_flags "$dir")
  for line in "${lines[@]}"; do read -ra words <<<"$line"; flags+=("${words[@]}"); done
  if [ "$(id -u)" -eq 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  fi
  # Every simulated node shares this machine's cores.
  exec mpirun -np "$np" --oversubscribe "${flags[@]}" "$@"
}

cmd_exec() {
  need_root
  local dir line host
  dir="$(cluster_dir)"
  line="$(node_line "$dir" "${1:-}")"
  host="$(awk '{print $2}' <<<"$line")"
  shift
  exec ip netns exec "$host" unshare --uts -- /bin/sh -c 'hostname "$0" && exec "$@"' "$host" "$@"
}

cmd_pids() {
  need_root
  local dir host
  dir="$(cluster_dir)"
  host="$(node_line "$dir" "${1:-}" | awk '{print $2}')"
  ip netns pids "$host"
}

# --- traffic limits -------------------------------------------------------------------------------

# tbf's bucket: at least 64 KiB, else 4 ms at the rate (a smaller bucket caps TCP below the rate).
tbf_burst() {  # MBIT
  local bytes=$(($1 * 1000000 / 8 / 250))
  ((bytes < 65536)) && bytes=65536
  echo "$bytes"
}

# The kind of a node's root qdisc on its eth0 ("tbf", "htb", or something else when unlimited).
node_root_qdisc() {  # host
  tc -n "$1" qdisc show dev eth0 | awk '/ root /{print $2; exit}'
}

cmd_slow_node() {
  need_root
  local dir line index host address veth
  dir="$(cluster_dir)"
  [ $# -eq 2 ] || die "slow-node NODE MBIT"
  line="$(node_line "$dir" "$1")"
  check_mbit "$2"
  read -r index host address veth <<<"$line"
  if [ "$(node_root_qdisc "$host")" = "htb" ]; then
    die "$host has a slowed link: heal it first (scripts/simcluster.sh heal $host)"
  fi
  limit_node "$host" "$veth" "$2"
  grep -qx "$host" "$dir/slowed" || echo "$host" >>"$dir/slowed"
  echo "simcluster: $host limited to $2 Mbit/s each way"
}

# All of a node's traffic at `mbit`: out of the node (its eth0) and into it (the bridge's side of
# its veth).
limit_node() {  # host veth mbit
  local burst
  burst="$(tbf_burst "$3")"
  tc -n "$1" qdisc replace dev eth0 root tbf rate "${3}mbit" burst "$burst" latency 100ms
  tc qdisc replace dev "$2" root tbf rate "${3}mbit" burst "$burst" latency 100ms
}

# A node back to the cluster's line rate (none: no limit at all).
line_rate() {  # dir host veth
  tc -n "$2" qdisc del dev eth0 root 2>/dev/null || true
  tc qdisc del dev "$3" root 2>/dev/null || true
  local rate
  rate="$(cat "$1/rate" 2>/dev/null || true)"
  [ -z "$rate" ] || limit_node "$2" "$3" "$rate"
}

# On node `host`, traffic to `peer_address` goes through an htb class of `mbit`; the rest through
# the default class at the line rate (unlimited in practice without one).
limit_towards() {  # dir host peer-index peer-address mbit
  local dir="$1" host="$2" peer="$3" peer_address="$4" mbit="$5"
  if [ "$(node_root_qdisc "$host")" != "htb" ]; then
    local line
    line="$(cat "$dir/rate" 2>/dev/null || true)"
    line="${line:+${line}mbit}"
    tc -n "$host" qdisc replace dev eth0 root handle 1: htb default 1
    tc -n "$host" class add dev eth0 parent 1: classid 1:1 htb rate "${line:-100gbit}" \
      ceil "${line:-100gbit}" quantum 60000
  fi
  local class="1:$((peer + 10))"
  tc -n "$host" class replace dev eth0 parent 1: classid "$class" htb rate "${mbit}mbit" \
    ceil "${mbit}mbit" burst "$(tbf_burst "$mbit")" quantum 60000
  if ! tc -n "$host" filter show dev eth0 parent 1: | grep -q "flowid $class\b"; then
    tc -n "$host" filter add dev eth0 parent 1: protocol ip prio 1 u32 \
      match ip dst "$peer_address/32" flowid "$class"
  fi
}

cmd_slow_link() {
  need_root
  local dir a b
  dir="$(cluster_dir)"
  [ $# -eq 3 ] || die "slow-link NODE_A NODE_B MBIT"
  a="$(node_line "$dir" "$1")"
  b="$(node_line "$dir" "$2")"
  check_mbit "$3"
  local a_index a_host a_address a_veth b_index b_host b_address b_veth
  read -r a_index a_host a_address a_veth <<<"$a"
  read -r b_index b_host b_address b_veth <<<"$b"
  [ "$a_host" != "$b_host" ] || die "slow-link needs two different nodes"
  for host in "$a_host" "$b_host"; do
    if grep -qx "$host" "$dir/slowed"; then
      die "$host is slowed as a whole: heal it first (scripts/simcluster.sh heal $host)"
    fi
  done
  limit_towards "$dir" "$a_host" "$b_index" "$b_address" "$3"
  limit_towards "$dir" "$b_host" "$a_index" "$a_address" "$3"
  echo "simcluster: traffic between $a_host and $b_host limited to $3 Mbit/s each way"
}

# Leaf lines: "index bridge spine-end leaf-end".
leaf_line() {  # dir LEAF
  local dir="$1" want="$2" index bridge up down
  while read -r index bridge up down; do
    if [ "$want" = "$index" ] || [ "$want" = "leaf$index" ]; then
      echo "$index $bridge $up $down"
      return 0
    fi
  done <"$dir/leaves"
  die "no leaf \"$want\" in $(basename "$dir") (leaves: $(awk '{printf "leaf%s ", $1}' "$dir/leaves"))"
}

cmd_slow_uplink() {
  need_root
  local dir index bridge up down burst
  dir="$(cluster_dir)"
  [ $# -eq 2 ] || die "slow-uplink LEAF MBIT"
  read -r index bridge up down <<<"$(leaf_line "$dir" "$1")"
  check_mbit "$2"
  burst="$(tbf_burst "$2")"
  tc qdisc replace dev "$up" root tbf rate "${2}mbit" burst "$burst" latency 100ms
  tc qdisc replace dev "$down" root tbf rate "${2}mbit" burst "$burst" latency 100ms
  echo "simcluster: uplink of leaf$index limited to $2 Mbit/s each way"
}

cmd_topology() {
  local dir
  dir="$(cluster_dir)"
  echo "$dir/topology.conf"
}

cmd_heal() {
  need_root
  local dir index host address veth
  dir="$(cluster_dir)"
  local want="${1:-}"
  [ -z "$want" ] || node_line "$dir" "$want" >/dev/null
  if [ -z "$want" ] && [ -f "$dir/leaves" ]; then
    local bridge up down
    while read -r index bridge up down; do
      tc qdisc del dev "$up" root 2>/dev/null || true
      tc qdisc del dev "$down" root 2>/dev/null || true
    done <"$dir/leaves"
  fi
  while read -r index host address veth; do
    if [ -n "$want" ] && [ "$(node_line "$dir" "$want" | awk '{print $2}')" != "$host" ]; then continue; fi
    line_rate "$dir" "$host" "$veth"
    sed -i "/^$host\$/d" "$dir/slowed"
  done <"$dir/nodes"
  echo "simcluster: limits removed${want:+ from $want} (back to the line rate: $(cat "$dir/rate" 2>/dev/null | sed 's/^$/none/'))"
}

# One node's limits in words: "tbf 200Mbit", "htb: to n2 100Mbit", or "none".
limits_of() {  # dir host
  local dir="$1" host="$2"
  case "$(node_root_qdisc "$host")" in
    tbf) tc -n "$host" qdisc show dev eth0 | awk '/ root /{for (i = 1; i < NF; i++) if ($i == "rate") print "tbf " $(i + 1)}' ;;
    htb)
      local text="htb:" class rate peer
      while read -r class rate; do
        peer="$(awk -v i="$((${class#1:} - 10))" '$1 == i {print $2}' "$dir/nodes")"
        text+=" to $peer $rate"
      done < <(tc -n "$host" class show dev eth0 | awk '$3 != "1:1" {for (i = 1; i < NF; i++) if ($i == "rate") print $3, $(i + 1)}')
      echo "$text" ;;
    *) echo "none" ;;
  esac
}

cmd_status() {
  need_root
  local dir index host address veth
  dir="$(cluster_dir)"
  local rate
  rate="$(cat "$dir/rate" 2>/dev/null || true)"
  echo "cluster $(basename "$dir"): subnet $(cat "$dir/subnet").0/24, bridge $(basename "$dir")br, line rate ${rate:-none}${rate:+ Mbit/s}"
  while read -r index host address veth; do
    printf '  %-3s %-10s %-15s processes: %-4s limits: %s\n' "$index" "$host" "$address" \
      "$(ip netns pids "$host" 2>/dev/null | wc -l)" "$(limits_of "$dir" "$host")"
  done <"$dir/nodes"
}

case "${1:-}" in
  up) shift; cmd_up "$@" ;;
  down) shift; cmd_down "$@" ;;
  slow-node) shift; cmd_slow_node "$@" ;;
  slow-link) shift; cmd_slow_link "$@" ;;
  slow-uplink) shift; cmd_slow_uplink "$@" ;;
  topology) shift; cmd_topology "$@" ;;
  heal) shift; cmd_heal "$@" ;;
  status) shift; cmd_status "$@" ;;
  flags) shift; cmd_flags "$@" ;;
  mpirun) shift; cmd_mpirun "$@" ;;
  exec) shift; cmd_exec "$@" ;;
  pids) shift; cmd_pids "$@" ;;
  gc) shift; cmd_gc "$@" ;;
  *) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
