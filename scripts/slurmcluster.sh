#!/usr/bin/env bash
# A real Slurm cluster on one machine: the nodes of scripts/simcluster.sh (network namespaces on a
# bridge) each run a real slurmd, the machine runs munged and slurmctld. Debian 12's Slurm 22.05
# (slurmctld, slurmd, slurm-client, munge); root. Every daemon is started by this script under
# setsid (no inherited descriptor) and stopped by its recorded PID (then anything left in the nodes' namespaces or naming
# the cluster's state folder); `up` removes everything it made when it fails.
#
# Usage: scripts/slurmcluster.sh up N [--conf FILE] [--node-conf FILE] [--job-scope FILE]
#                                                    N nodes, idle; --conf: more slurm.conf lines
#                                                    (Prolog=..., PrologEpilogTimeout=...);
#                                                    --node-conf: each node's /etc/fabcheck/slurm.conf
#                                                    before its slurmd starts (@NODE_DIR@: the
#                                                    node's folder; a HealthCheckProgram runs at
#                                                    once); --job-scope: for PrologSlurmctld, a
#                                                    SlurmUser of the cluster's own (not root, a
#                                                    shell, removed by down) that reaches every node
#                                                    by ssh (an sshd in each node's namespaces, a
#                                                    key of its own; @SSH_AGENT@ for mpirun's
#                                                    plm_rsh_agent), and FILE as the controller's
#                                                    own /etc/fabcheck/slurm.conf (@CTLD_DIR@: a
#                                                    folder of that user's; @SUBNET@: the nodes'
#                                                    /24 without its last part); slurmctld then
#                                                    has its own /etc/fabcheck, /etc/slurm and
#                                                    /etc/hosts (the nodes' names); prints the
#                                                    name and its SLURM_CONF
#        scripts/slurmcluster.sh down               stop the daemons, remove the nodes and files
#        scripts/slurmcluster.sh env                export lines (SLURMCLUSTER, SIMCLUSTER, SLURM_CONF)
#        scripts/slurmcluster.sh exec NODE CMD...   run a command on a node (its net, uts, mount
#                                                   namespaces: its own /etc/fabcheck and /tmp)
#        scripts/slurmcluster.sh node-dir NODE      the node's folder on this machine (its
#                                                   etc-fabcheck/, tmp/, spool/, slurmd.log)
#        scripts/slurmcluster.sh restart-ctld       restart slurmctld (PrologSlurmctld changes)
#        scripts/slurmcluster.sh gc                 remove clusters whose owner process has ended
# Names: the cluster is the simcluster's (fcXXXX), nodes fcXXXX-n0..; every command but `up` acts
# on $SLURMCLUSTER or on the only cluster there is. SIMCLUSTER_OWNER=<pid> before `up` lets `gc`
# remove a cluster whose test died. Callers run up/down/gc under `flock /tmp/netns.lock` (as
# for simcluster.sh); no daemon keeps the lock's descriptor.
#
# How each node is made (each step cost time to find, see issue 22):
#  - slurmd runs under `nsenter --net=/run/netns/NODE unshare --uts --mount`: `ip netns exec`
#    remounts /sys and hides /sys/fs/cgroup, and slurmd 22.05 then refuses to start.
#  - the node's mount namespace binds its own etc-fabcheck/ on /etc/fabcheck, etc-slurm/ (the
#    cluster's slurm.conf) on /etc/slurm, tmp/ on /tmp (TmpFS; srun --mpi=pmix fails on a shared
#    /tmp) and its hosts file on /etc/hosts.
#  - per-node (%n) SlurmdSpoolDir, SlurmdPidFile, SlurmdLogFile; munge on its own socket
#    (AuthInfo=socket=...); SlurmctldHost=NAME(ADDR) (the name resolves to loopback otherwise);
#    slurmctld's state owned by SlurmUser (slurm).
set -euo pipefail

STATE_ROOT="${SLURMCLUSTER_STATE_ROOT:-/run/fabcheck-slurmcluster}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SIM="$here/simcluster.sh"
SLURM_USER="${SLURMCLUSTER_USER:-slurm}"

die() {
  echo "slurmcluster: $*" >&2
  exit 2
}

need_root() {
  [ "$(id -u)" -eq 0 ] || die "needs root (network namespaces, daemons)"
  local tool
  for tool in munged slurmctld slurmd scontrol sinfo nsenter unshare setsid; do
    command -v "$tool" >/dev/null || die "$tool not found (apt-get install slurmctld slurmd slurm-client munge util-linux)"
  done
  id "$SLURM_USER" >/dev/null 2>&1 || die "no user $SLURM_USER (SlurmUser; Debian's slurm-wlm packages add it)"
}

cluster_dir() {
  local name="${SLURMCLUSTER:-}"
  if [ -z "$name" ]; then
    local found=() dir
    if [ -d "$STATE_ROOT" ]; then
      for dir in "$STATE_ROOT"/*/; do [ -f "$dir/slurm.conf" ] && found+=("$(basename "$dir")"); done
    fi
    case "${#found[@]}" in
      0) die "no cluster (scripts/slurmcluster.sh up N)" ;;
      1) name="${found[0]}" ;;
      *) die "several clusters (${found[*]}): set SLURMCLUSTER to one of them" ;;
    esac
  fi
  [[ "$name" =~ ^fc[0-9a-f]{4}$ ]] || die "\"$name\" is not a cluster name"
  [ -f "$STATE_ROOT/$name/slurm.conf" ] || die "no cluster named \"$name\" (in $STATE_ROOT)"
  echo "$STATE_ROOT/$name"
}

# A TCP port nothing on this machine listens on.
free_port() {
  local used port
  used="$(ss -ltnH 2>/dev/null | awk '{print $4}' | sed 's/.*://')"
  for _ in $(seq 1 100); do
    port=$((20000 + RANDOM % 30000))
    grep -qx "$port" <<<"$used" || { echo "$port"; return 0; }
  done
  die "no free TCP port"
}

# Starts a daemon in its own session, its output to `log`, without the lock's descriptor; records
# "PID WHAT" in pids. Echoes the PID.
start_daemon() {  # dir what log command...
  local dir="$1" what="$2" log="$3"
  shift 3
  (
    # No descriptor but the three: flock(1) hands its lock to its command as fd 3, and munged
    # (unlike slurmd) keeps what it inherits, which held /tmp/netns.lock for the daemon's life.
    for fd in $(ls "/proc/$BASHPID/fd"); do
      if [ "$fd" -gt 2 ]; then eval "exec $fd>&-"; fi
    done
    exec setsid "$@" </dev/null >>"$log" 2>&1
  ) &
  local pid=$!
  echo "$pid $what" >>"$dir/pids"
  echo "$pid"
}

# Waits until `test` (a command) succeeds, up to `seconds`, while process `pid` lives (0: any);
# else dies with `what` and the log.
wait_for() {  # seconds pid what log test...
  local seconds="$1" pid="$2" what="$3" log="$4"
  shift 4
  local tries=$((seconds * 10))
  for _ in $(seq 1 "$tries"); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    if [ "$pid" != 0 ] && ! kill -0 "$pid" 2>/dev/null; then
      echo "slurmcluster: $what ended (process $pid); its log ($log):" >&2
      tail -20 "$log" >&2 || true
      exit 2
    fi
    sleep 0.1
  done
  echo "slurmcluster: $what did not come up in $seconds s; its log ($log):" >&2
  tail -20 "$log" >&2 || true
  exit 2
}

# The recorded PID of node `host`'s slurmd (its namespaces are the node's); empty when none.
slurmd_pid() {  # dir host
  awk -v w="slurmd $2" '$2" "$3 == w {print $1}' "$1/pids" | tail -1
}

# Starts slurmctld (extra arguments after -D), in a mount namespace of its own where the cluster
# has a controller /etc/fabcheck (--job-scope); echoes its PID.
start_ctld() {  # dir [args...]
  local dir="$1"
  shift
  if [ -d "$dir/ctld-etc-fabcheck" ]; then
    mkdir -p /etc/fabcheck /etc/slurm
    start_daemon "$dir" slurmctld "$dir/ctld/slurmctld.out" \
      unshare --mount --propagation private -- /bin/sh -c \
      'mount --bind "$1/ctld-etc-fabcheck" /etc/fabcheck && mount --bind "$1/ctld-etc-slurm" /etc/slurm &&
       mount --bind "$1/ctld-hosts" /etc/hosts && shift && exec slurmctld -D "$@"' \
      slurmctld-ctld "$dir" "$@" -f "$dir/slurm.conf"
  else
    start_daemon "$dir" slurmctld "$dir/ctld/slurmctld.out" slurmctld -D "$@" -f "$dir/slurm.conf"
  fi
}

# --job-scope: an sshd in each node's namespaces (net, uts, mount: the node's own name and
# /etc/fabcheck) that lets in the cluster's SlurmUser alone, by a key of its own; $dir/ssh/agent
# is the rsh agent mpirun uses as that user.
start_sshds() {  # dir
  local dir="$1" user index host address veth pid
  user="$(cat "$dir/user")"
  mkdir -m 0755 "$dir/ssh"
  ssh-keygen -q -t ed25519 -N '' -f "$dir/ssh/host_key" -C "$(basename "$dir") host"
  ssh-keygen -q -t ed25519 -N '' -f "$dir/ssh/id" -C "$user"
  chown "$user:" "$dir/ssh/id"
  cp "$dir/ssh/id.pub" "$dir/ssh/authorized_keys"
  chmod 0644 "$dir/ssh/authorized_keys"
  printf '%s\n' "Port 22" "HostKey $dir/ssh/host_key" "AuthorizedKeysFile $dir/ssh/authorized_keys" \
    "AllowUsers $user" "PubkeyAuthentication yes" "PasswordAuthentication no" \
    "KbdInteractiveAuthentication no" "PermitRootLogin no" "UsePAM no" "StrictModes no" \
    "PidFile none" "LogLevel ERROR" >"$dir/ssh/sshd_config"
  printf '%s\n' "#!/bin/sh" \
    "# rsh agent of slurmcluster $(basename "$dir"): ssh to a node as $user with the cluster's key." \
    "exec ssh -i $dir/ssh/id -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR \"\$@\"" \
    >"$dir/ssh/agent"
  chmod 0755 "$dir/ssh/agent"
  mkdir -p -m 0755 /run/sshd  # sshd's privilege separation folder
  while read -r index host address veth; do
    pid="$(slurmd_pid "$dir" "$host")"
    start_daemon "$dir" "sshd $host" "$dir/nodes.d/$host/sshd.log" \
      nsenter --target "$pid" --net --uts --mount -- /usr/sbin/sshd -D -e -f "$dir/ssh/sshd_config" >/dev/null
  done <"$dir/nodes"
  while read -r index host address veth; do
    wait_for 10 0 "sshd on $host" "$dir/nodes.d/$host/sshd.log" \
      timeout 2 bash -c "exec 3<>/dev/tcp/$address/22"
  done <"$dir/nodes"
}

# --- up / down ------------------------------------------------------------------------------------

cmd_up() {
  need_root
  # Each node's mount namespace puts its own folder on /tmp: a checkout (scripts, binary) under
  # /tmp would vanish there and every prolog fail with Slurm's bare "Prolog error".
  case "$(readlink -f "$here/..")/" in
    /tmp/*) die "the checkout $(readlink -f "$here/..") is under /tmp, which each node replaces with its own; clone it elsewhere (e.g. /work or /root)" ;;
  esac
  local count="${1:-}" extra="" node_conf="" ctld_conf=""
  [[ "$count" =~ ^[0-9]+$ ]] && [ "$count" -ge 1 ] && [ "$count" -le 16 ] || die "up N: N must be 1..16, not \"$count\""
  shift
  while [ $# -gt 0 ]; do
    case "$1" in
      --conf) [ $# -ge 2 ] && [ -f "$2" ] || die "up: --conf needs a file"; extra="$2"; shift 2 ;;
      --node-conf) [ $# -ge 2 ] && [ -f "$2" ] || die "up: --node-conf needs a file"; node_conf="$2"; shift 2 ;;
      --job-scope) [ $# -ge 2 ] && [ -f "$2" ] || die "up: --job-scope needs a file"; ctld_conf="$2"; shift 2 ;;
      *) die "up: unknown option \"$1\"" ;;
    esac
  done
  local sim name
  sim="$("$SIM" up "$count")" || die "simcluster.sh up failed"
  name="$(sed -n 's/^export SIMCLUSTER=//p' <<<"$sim")"
  [[ "$name" =~ ^fc[0-9a-f]{4}$ ]] || { SIMCLUSTER="$name" "$SIM" down >/dev/null 2>&1 || true; die "simcluster.sh gave no name"; }
  local dir="$STATE_ROOT/$name"
  UP_DIR="$dir"
  trap on_up_exit EXIT
  trap 'exit 130' INT TERM
  mkdir -p -m 0755 "$STATE_ROOT"
  mkdir -m 0755 "$dir"
  : >"$dir/pids"
  if [ -n "${SIMCLUSTER_OWNER:-}" ]; then
    echo "$SIMCLUSTER_OWNER $(awk '{print $22}' "/proc/$SIMCLUSTER_OWNER/stat" 2>/dev/null)" >"$dir/owner"
  fi
  local simdir="${SIMCLUSTER_STATE_ROOT:-/run/fabcheck-simcluster}/$name"
  local subnet
  subnet="$(cat "$simdir/subnet")"
  cp "$simdir/nodes" "$dir/nodes"
  if [ -n "$ctld_conf" ]; then
    # PrologSlurmctld runs as SlurmUser: one of the cluster's own, with a shell (Debian's slurm
    # has none, so nothing could start on the nodes as it), no password, removed by down.
    SLURM_USER="$name-ctld"
    [ -x /usr/sbin/sshd ] || die "--job-scope needs sshd (apt-get install openssh-server)"
    useradd --system --no-create-home --home-dir /nonexistent --shell /bin/sh --password '*' \
      "$SLURM_USER" || die "useradd $SLURM_USER failed"
    echo "$SLURM_USER" >"$dir/user"
  fi

  # munge: its own key, socket and files.
  mkdir -m 0700 "$dir/munge"
  dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  chmod 0400 "$dir/munge/munge.key"
  local socket="$dir/munge/munge.socket.2"
  local pid
  pid="$(start_daemon "$dir" munged "$dir/munge/munged.out" munged -F --force \
    --socket="$socket" --key-file="$dir/munge/munge.key" --pid-file="$dir/munge/munged.pid" \
    --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed")"
  chmod 0711 "$dir/munge"
  wait_for 10 "$pid" munged "$dir/munge/munged.log" test -S "$socket"

  # slurm.conf
  mkdir -m 0755 "$dir/ctld"
  chown "$SLURM_USER:" "$dir/ctld"
  local ctld_port slurmd_port
  ctld_port="$(free_port)"
  slurmd_port="$(free_port)"
  local nodes="$name-n[0-$((count - 1))]"
  {
    echo "# slurmcluster $name: written by scripts/slurmcluster.sh"
    echo "ClusterName=$name"
    # slurmctld runs on this machine and must find its own (short) name here; the address is the
    # bridge's (the name may resolve to loopback, which the nodes cannot reach).
    echo "SlurmctldHost=$(hostname -s)($subnet.254)"
    echo "MailProg=/bin/true"
    echo "SlurmctldPort=$ctld_port"
    echo "SlurmdPort=$slurmd_port"
    echo "SlurmUser=$SLURM_USER"
    echo "SlurmdUser=root"
    echo "AuthType=auth/munge"
    echo "AuthInfo=socket=$socket"
    echo "CredType=cred/munge"
    echo "StateSaveLocation=$dir/ctld"
    echo "SlurmctldPidFile=$dir/ctld/slurmctld.pid"
    echo "SlurmctldLogFile=$dir/ctld/slurmctld.log"
    echo "SlurmdSpoolDir=$dir/nodes.d/%n/spool"
    echo "SlurmdPidFile=$dir/nodes.d/%n/slurmd.pid"
    echo "SlurmdLogFile=$dir/nodes.d/%n/slurmd.log"
    echo "TmpFS=/tmp"
    echo "ProctrackType=proctrack/linuxproc"
    echo "TaskPlugin=task/none"
    echo "JobAcctGatherType=jobacct_gather/none"
    echo "AccountingStorageType=accounting_storage/none"
    echo "SchedulerType=sched/backfill"
    echo "SelectType=select/cons_tres"
    echo "SelectTypeParameters=CR_Core"
    echo "MpiDefault=none"
    echo "ReturnToService=1"
    echo "SlurmdTimeout=60"
    echo "InactiveLimit=0"
    echo "KillWait=5"
    echo "MinJobAge=600"
    echo "SlurmctldDebug=info"
    echo "SlurmdDebug=info"
    echo "NodeName=DEFAULT CPUs=1 State=UNKNOWN"
    local index host address veth
    while read -r index host address veth; do echo "NodeName=$host NodeAddr=$address"; done <"$dir/nodes"
    echo "PartitionName=all Nodes=$nodes Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO"
    if [ -n "$extra" ]; then
      echo "# from $extra"
      cat "$extra"
    fi
  } >"$dir/slurm.conf"
  chmod 0644 "$dir/slurm.conf"
  echo "$nodes" >"$dir/nodelist"

  if [ -n "$ctld_conf" ]; then
    # The controller's own /etc/fabcheck (PrologSlurmctld reads /etc/fabcheck/slurm.conf there)
    # and a folder its user writes (@CTLD_DIR@: results, trace).
    # As on a real controller: /etc/slurm/slurm.conf (scontrol without SLURM_CONF) and the nodes'
    # names in /etc/hosts (mpirun's ssh to them).
    mkdir -m 0755 "$dir/ctld-etc-fabcheck" "$dir/ctld-etc-slurm" "$dir/ctld-files"
    chown "$SLURM_USER:" "$dir/ctld-files"
    ln -s "$dir/slurm.conf" "$dir/ctld-etc-slurm/slurm.conf"
    { cat /etc/hosts; while read -r index host address veth; do echo "$address $host"; done <"$dir/nodes"; } \
      >"$dir/ctld-hosts"
    sed -e "s|@CTLD_DIR@|$dir/ctld-files|g" -e "s|@SSH_AGENT@|$dir/ssh/agent|g" \
      -e "s|@SUBNET@|$subnet|g" "$ctld_conf" >"$dir/ctld-etc-fabcheck/slurm.conf"
    chmod 0644 "$dir/ctld-etc-fabcheck/slurm.conf" "$dir/ctld-hosts"
  fi
  pid="$(start_ctld "$dir" -i)"
  export SLURM_CONF="$dir/slurm.conf"
  wait_for 20 "$pid" slurmctld "$dir/ctld/slurmctld.log" scontrol ping

  # One slurmd a node, in the node's namespaces.
  while read -r index host address veth; do
    local nd="$dir/nodes.d/$host"
    mkdir -p -m 0755 "$nd/spool" "$nd/etc-fabcheck" "$nd/etc-slurm" "$nd/tmp"
    chmod 1777 "$nd/tmp"
    # /etc/slurm/slurm.conf as on a real node: what scontrol and squeue read when slurmd gives no
    # SLURM_CONF (a HealthCheckProgram, PrologSlurmctld).
    ln -sfn "$dir/slurm.conf" "$nd/etc-slurm/slurm.conf"
    if [ -n "$node_conf" ]; then
      sed "s|@NODE_DIR@|$nd|g" "$node_conf" >"$nd/etc-fabcheck/slurm.conf"
      chmod 0644 "$nd/etc-fabcheck/slurm.conf"
    fi
    cp "/etc/netns/$host/hosts" "$nd/hosts"
    start_daemon "$dir" "slurmd $host" "$nd/slurmd.out" \
      nsenter --net="/run/netns/$host" unshare --uts --mount --propagation private -- \
      /bin/sh -c 'hostname "$1" && mkdir -p /etc/fabcheck /etc/slurm &&
        mount --bind "$2/etc-fabcheck" /etc/fabcheck && mount --bind "$2/etc-slurm" /etc/slurm &&
        mount --bind "$2/tmp" /tmp &&
        mount --bind "$2/hosts" /etc/hosts && exec slurmd -D -N "$1" -f "$3"' \
      slurmd-node "$host" "$nd" "$dir/slurm.conf" >/dev/null
  done <"$dir/nodes"
  # /etc/fabcheck: the nodes' mount point; made here if this machine has none (removed by down).
  wait_for 30 0 "the nodes" "$dir/ctld/slurmctld.log" all_idle "$dir" "$count"
  [ -z "$ctld_conf" ] || start_sshds "$dir"
  UP_DIR=""
  trap - EXIT INT TERM
  echo "slurmcluster: $count node(s) idle: $nodes"
  echo "export SLURMCLUSTER=$name"
  echo "export SIMCLUSTER=$name"
  echo "export SLURM_CONF=$dir/slurm.conf"
}

all_idle() {  # dir count
  local idle
  idle="$(SLURM_CONF="$1/slurm.conf" sinfo -h -N -o '%t' 2>/dev/null | grep -c '^idle$' || true)"
  [ "$idle" -eq "$2" ]
}

UP_DIR=""
on_up_exit() {
  local status=$?
  if [ -n "$UP_DIR" ]; then
    echo "slurmcluster: up failed, removing $(basename "$UP_DIR")" >&2
    teardown "$UP_DIR"
  fi
  exit "$status"
}

# Stops `pid` if it is still the process started (TERM, then KILL after 3 s).
stop_pid() {  # pid
  local pid="$1"
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 30); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
}

# Removes everything of the cluster in `dir`: daemons by recorded PID (slurmd first, then
# slurmctld, munged last), then any process still naming the state folder, then the nodes (their
# namespaces' processes are killed by simcluster.sh) and the files. Never fails.
teardown() {
  local dir="$1" name pid what
  name="$(basename "$dir")"
  if [ -f "$dir/pids" ]; then
    while read -r pid what; do
      case "$what" in sshd*) stop_pid "$pid" ;; esac
    done <"$dir/pids"
    while read -r pid what; do
      case "$what" in slurmd*) stop_pid "$pid" ;; esac
    done <"$dir/pids"
    while read -r pid what; do
      case "$what" in slurmctld) stop_pid "$pid" ;; esac
    done <"$dir/pids"
    while read -r pid what; do
      case "$what" in munged) stop_pid "$pid" ;; esac
    done <"$dir/pids"
  fi
  # Anything else naming this cluster's folder (a job step, a prolog left by a killed daemon).
  for pid in $(pgrep -f -- "$STATE_ROOT/$name/" 2>/dev/null || true); do
    [ "$pid" != "$$" ] && kill -KILL "$pid" 2>/dev/null || true
  done
  SIMCLUSTER="$name" "$SIM" down >/dev/null 2>&1 || true
  # --job-scope's SlurmUser (its processes are gone with the daemons and the nodes).
  if [ -f "$dir/user" ]; then
    local user
    user="$(cat "$dir/user")"
    if [[ "$user" == "$name-ctld" ]] && id "$user" >/dev/null 2>&1; then
      pkill -KILL -u "$user" 2>/dev/null || true
      userdel "$user" 2>/dev/null || true
    fi
  fi
  # The mounts were private to the nodes' mount namespaces: gone with their processes.
  rm -rf "$dir"
}

cmd_down() {
  need_root
  local dir
  dir="$(cluster_dir)"
  teardown "$dir"
  echo "slurmcluster: $(basename "$dir") removed"
}

cmd_gc() {
  need_root
  [ -d "$STATE_ROOT" ] || return 0
  local dir pid started
  for dir in "$STATE_ROOT"/*/; do
    dir="${dir%/}"
    [ -f "$dir/owner" ] || continue
    read -r pid started <"$dir/owner"
    if [ "$(awk '{print $22}' "/proc/$pid/stat" 2>/dev/null)" != "$started" ]; then
      echo "slurmcluster: removing $(basename "$dir") (its owner, process $pid, has ended)"
      teardown "$dir"
    fi
  done
}

cmd_env() {
  local dir name
  dir="$(cluster_dir)"
  name="$(basename "$dir")"
  echo "export SLURMCLUSTER=$name"
  echo "export SIMCLUSTER=$name"
  echo "export SLURM_CONF=$dir/slurm.conf"
}

node_host() {  # dir NODE -> host
  local dir="$1" want="$2" index host address veth
  while read -r index host address veth; do
    if [ "$want" = "$index" ] || [ "$want" = "$host" ] || [ "$(basename "$dir")-$want" = "$host" ]; then
      echo "$host"
      return 0
    fi
  done <"$dir/nodes"
  die "no node \"$want\" in $(basename "$dir")"
}

cmd_node_dir() {
  local dir host
  dir="$(cluster_dir)"
  host="$(node_host "$dir" "${1:-}")"
  echo "$dir/nodes.d/$host"
}

cmd_exec() {
  need_root
  local dir host pid
  dir="$(cluster_dir)"
  host="$(node_host "$dir" "${1:-}")"
  shift
  pid="$(slurmd_pid "$dir" "$host")"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || die "$host: its slurmd is not running"
  exec nsenter --target "$pid" --net --uts --mount -- "$@"
}

cmd_restart_ctld() {
  need_root
  local dir pid
  dir="$(cluster_dir)"
  pid="$(awk '$2 == "slurmctld" {print $1}' "$dir/pids" | tail -1)"
  [ -n "$pid" ] && stop_pid "$pid"
  pid="$(start_ctld "$dir")"
  SLURM_CONF="$dir/slurm.conf" wait_for 20 "$pid" slurmctld "$dir/ctld/slurmctld.log" scontrol ping
}

case "${1:-}" in
  up) shift; cmd_up "$@" ;;
  down) shift; cmd_down "$@" ;;
  env) shift; cmd_env "$@" ;;
  exec) shift; cmd_exec "$@" ;;
  node-dir) shift; cmd_node_dir "$@" ;;
  restart-ctld) shift; cmd_restart_ctld "$@" ;;
  gc) shift; cmd_gc "$@" ;;
  *) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
