#!/usr/bin/env python3
"""Cluster tests: real fabcheck runs under mpirun over simulated nodes (scripts/simcluster.sh:
network namespaces with their own host names, a bridge, Open MPI's TCP BTL). Each case brings up
its own cluster with a unique name and always takes it down.

Usage: cluster_test.py CASE --fabcheck PATH [--nodes N]
Cases: collectives, ckpt-read, slow-node, slow-link, healthy, sigstop (node 2), sigstop-root (node 0:
rank 0), sigkill, straggler (node 1's rank CPU-throttled), leaves-trunk and leaves-node-link (two leaf switches joined by a spine: healthy, the
trunk slowed with and without topology.conf, a node slowed, a path between two nodes slowed)
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SIMCLUSTER = ROOT / "scripts" / "simcluster.sh"
# Thresholds any working run meets (the sigkill case: its verdict must be incomplete, not fail).
INTEGRATION_PROFILE = ROOT / "tests" / "fixtures" / "profiles" / "integration.toml"
sys.path.insert(0, str(ROOT / "tests" / "lib"))
import cpu_cgroup  # noqa: E402
COLLECTIVES = ["all_reduce", "all_gather", "reduce_scatter", "broadcast", "alltoall", "sendrecv"]
# Every node has a line rate (tc tbf): without one, pairs are CPU-bound and, on a loaded 2-core
# machine, vary threefold. At 400 Mbit/s an idle machine's healthy sweep had a whole round at half
# the others (0.022 against 0.047-0.053 GB/s: four busy ranks on two cores), right at the slow
# threshold; at 200 Mbit/s the line, not the CPUs, bounds a pair, and ranks yield when idle. A slowed node or link: 40 Mbit/s. At 100 Mbit/s (12.5 MB/s) a slowed
# link's ceiling sat above half the cluster's level when CPU-bound pairs reached only 0.022 GB/s on a
# loaded machine: measured 0.0116 GB/s against a threshold of 0.0108, and cleared.
LINE_MBIT = "200"
SLOW_MBIT = "40"
# Sweeps: matrix figure at 1 MiB, 6 timed samples of one operation (a slowed pair takes ~0.3 s per
# 1 MiB exchange).
# host.sdc for a third of a second: every namespace node shares this machine's two cores.
SWEEP = ["--sizes", "64K,1M", "--iters", "6", "--warmup", "1", "--timeout", "60",
         "--opt", "sdc.duration_s=0.3"]


class Failure(Exception):
    pass


def fail(message):
    raise Failure(message)


def log(message):
    print(f"[cluster] {message}", flush=True)


class Cluster:
    """scripts/simcluster.sh up N ... down, whatever happens in between."""

    def __init__(self, nodes, leaves=1):
        self.nodes = nodes
        self.leaves = leaves
        self.name = None

    def __enter__(self):
        env = dict(os.environ, SIMCLUSTER_OWNER=str(os.getpid()))
        subprocess.run(["bash", str(SIMCLUSTER), "gc"], env=env, check=False)
        out = subprocess.run(["bash", str(SIMCLUSTER), "up", str(self.nodes), "--rate", LINE_MBIT,
                              "--leaves", str(self.leaves)],
                             env=env, capture_output=True, text=True)
        sys.stdout.write(out.stdout)
        sys.stderr.write(out.stderr)
        match = re.search(r"^export SIMCLUSTER=(\S+)$", out.stdout, re.M)
        if out.returncode != 0 or not match:
            fail(f"simcluster up {self.nodes} failed (exit {out.returncode})")
        self.name = match.group(1)
        return self

    def __exit__(self, *exc):
        if self.name:
            self.run("down", check=False)
        return False

    def host(self, index):
        return f"{self.name}-n{index}"

    def hosts(self):
        return [self.host(i) for i in range(self.nodes)]

    def env(self):
        return dict(os.environ, SIMCLUSTER=self.name)

    def run(self, *args, check=True):
        out = subprocess.run(["bash", str(SIMCLUSTER), *args], env=self.env(), capture_output=True,
                             text=True)
        sys.stdout.write(out.stdout)
        if check and out.returncode != 0:
            fail(f"simcluster {' '.join(args)}: exit {out.returncode}: {out.stderr.strip()}")
        return out

    def mpirun(self, np, args, timeout):
        """fabcheck under mpirun over the nodes; returns (exit code, console, seconds)."""
        started = time.monotonic()
        out = subprocess.run(["bash", str(SIMCLUSTER), "mpirun", str(np), *args], env=self.env(),
                             capture_output=True, text=True, timeout=timeout)
        seconds = time.monotonic() - started
        sys.stdout.write(out.stdout[-6000:])
        sys.stderr.write(out.stderr[-3000:])
        return out.returncode, out.stdout + out.stderr, seconds

    def fabcheck_pid(self, index):
        """The fabcheck rank running on node `index` (waits for it to appear): the process named
        fabcheck whose parent is its sentinel (fabcheck-watch). The process that starts is named
        fabcheck too until it forks the rank and renames itself the sentinel, so one caught before
        that is the sentinel, not the rank (a cgroup it was moved into then missed the rank:
        cluster_straggler failed so). A rank without a sentinel (it could not start one) is taken
        after 5 s."""
        def comm(pid):
            try:
                return Path(f"/proc/{pid}/comm").read_text().strip()
            except OSError:
                return ""

        def parent(pid):
            try:
                return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]
            except (OSError, IndexError):
                return ""

        for attempt in range(200):
            pids = self.run("pids", str(index), check=False).stdout.split()
            for pid in pids:
                if comm(pid) == "fabcheck" and (comm(parent(pid)) == "fabcheck-watch" or attempt >= 50):
                    return int(pid)
            time.sleep(0.1)
        fail(f"no fabcheck process on {self.host(index)}")


def read_run(out):
    for name in ("measurements.jsonl", "findings.jsonl", "summary.json"):
        if not (out / name).is_file():
            fail(f"{out / name} missing")
    measurements = [json.loads(line) for line in (out / "measurements.jsonl").read_text().splitlines() if line]
    findings = [json.loads(line) for line in (out / "findings.jsonl").read_text().splitlines() if line]
    summary = json.loads((out / "summary.json").read_text())
    return measurements, findings, summary


def check_hosts(cluster, measurements, summary, np):
    hosts = cluster.hosts()
    if summary["hosts"] != hosts:
        fail(f"summary hosts {summary['hosts']} != {hosts}")
    # --map-by node: rank r on node r % N.
    expected = {host: [r for r in range(np) if r % cluster.nodes == i] for i, host in enumerate(hosts)}
    if summary["host_ranks"] != expected:
        fail(f"summary host_ranks {summary['host_ranks']} != {expected}")
    for m in measurements:
        if m["rank"] >= 0:
            if m["host"] != hosts[m["rank"] % cluster.nodes]:
                fail(f"rank {m['rank']}'s record says host {m['host']}: {m['probe']} {m['metric']}")
        elif m["peer"]:
            if m["host"] not in hosts or m["peer"] not in hosts or m["host"] >= m["peer"]:
                fail(f"pair record with hosts {m['host']} / {m['peer']}")
        elif m["status"] == "ok" and m["host"].split(",") != hosts:
            fail(f"combined record covers {m['host']}, expected {','.join(hosts)}: {m['probe']}")
        for share in m.get("by_rank", []):
            if share["host"] != hosts[share["rank"] % cluster.nodes]:
                fail(f"by_rank names {share['host']} for rank {share['rank']}")


def pair_findings(findings):
    return [f for f in findings if f["probe"] == "coll.node_pairs" and f["severity"] in ("warn", "fail")]


def case_collectives(a):
    """Every collective across 4 hosts (2 ranks each), zero wrong elements, hosts in every record."""
    np = 2 * a.nodes
    with Cluster(a.nodes) as cluster, tempfile.TemporaryDirectory(prefix="fabcheck-cluster-") as tmp:
        out = Path(tmp) / "run"
        # Each rank reports its host name and address: the namespaces and UTS names are in effect.
        code, console, _ = cluster.mpirun(np, ["sh", "-c", "echo RANK $OMPI_COMM_WORLD_RANK $(hostname) "
                                               "$(ip -4 -o addr show eth0 | awk '{print $4}')"], 60)
        seen = dict(re.findall(r"^RANK (\d+) (\S+) \S+$", console, re.M))
        want = {str(r): cluster.host(r % cluster.nodes) for r in range(np)}
        if code != 0 or seen != want:
            fail(f"ranks' host names {seen}, expected {want}")
        probes = ",".join(f"coll.{c}" for c in COLLECTIVES)
        code, console, seconds = cluster.mpirun(
            np, [a.fabcheck, "run", "--probes", probes, "--sizes", "4K,128K", "--iters", "4",
                 "--warmup", "1", "--placement", "both", "--out", str(out)], 300)
        if code != 0:
            fail(f"exit code {code}, expected 0")
        if "no watchdog" in console:
            fail("the watchdog's channel did not reach across the nodes")
        measurements, findings, summary = read_run(out)
        check_hosts(cluster, measurements, summary, np)
        for c in COLLECTIVES:
            mine = [m for m in measurements if m["probe"] == f"coll.{c}"]
            wrong = [m for m in mine if m["metric"] == "wrong_elements"]
            if not wrong or any(m["value"] != 0 for m in wrong):
                fail(f"coll.{c}: wrong elements {[m['value'] for m in wrong]}")
            if any(len(m["by_rank"]) != np for m in wrong):
                fail(f"coll.{c}: by_rank does not cover {np} ranks")
            if not any(m["metric"] == "busbw" and m["value"] > 0 for m in mine):
                fail(f"coll.{c}: no busbw above 0")
        # No fabric profile: the default (generic-cpu) has floors for one host's shared memory only;
        # none of them may judge a run across hosts.
        if summary["profile"]["name"] != "generic-cpu":
            fail(f"profile {summary['profile']['name']}, expected the default generic-cpu")
        judged = [f for f in findings if f["probe"].startswith("coll.") and f["severity"] in ("pass", "warn", "fail")
                  and f["metric"] != "wrong_elements"]  # the data check's PASS is no floor
        if not any(f["metric"] == "wrong_elements" and f["severity"] == "pass" for f in findings):
            fail("no PASS for the verified data of the collectives")
        if judged:
            fail(f"single-host floors judged a multi-host run: {[f['message'] for f in judged][:3]}")
        log(f"6 collectives on {a.nodes} hosts x 2 ranks: {seconds:.1f} s, all verified, no single-host floor applied")


def case_ckpt_read(a):
    """storage.ckpt_read: each rank reads a checkpoint another host wrote on the shared path."""
    with Cluster(a.nodes) as cluster, tempfile.TemporaryDirectory(prefix="fabcheck-cluster-") as tmp:
        out = Path(tmp) / "run"
        shared = Path(tmp) / "shared"
        shared.mkdir()
        code, console, _ = cluster.mpirun(
            a.nodes, [a.fabcheck, "run", "--probes", "storage.ckpt_write,storage.ckpt_read",
                      "--storage-path", str(shared), "--opt", "storage.ckpt_size=8M",
                      "--out", str(out)], 300)
        measurements, findings, summary = read_run(out)
        check_hosts(cluster, measurements, summary, a.nodes)
        reads = [m for m in measurements if m["probe"] == "storage.ckpt_read" and m["metric"] == "bw_rank"]
        if len(reads) != a.nodes:
            fail(f"{len(reads)} per-rank reads, expected {a.nodes}")
        for m in reads:
            if m["params"].get("placement") != "other host":
                fail(f"rank {m['rank']} read {m['params'].get('read_from')} ({m['params'].get('placement')})")
            source = re.search(r"\((\S+)\)", m["params"]["read_from"]).group(1)
            if source == m["host"] or source not in cluster.hosts():
                fail(f"rank {m['rank']} on {m['host']} read a file from {source}")
            if m["params"].get("shared_across_hosts") != "1":
                fail("the scratch directory was not seen as shared")
        wrong = [m for m in measurements if m["probe"] == "storage.ckpt_read" and m["metric"] == "wrong_elements"]
        if len(wrong) != a.nodes or any(m["value"] != 0 for m in wrong):
            fail(f"read-back verification: {[m['value'] for m in wrong]}")
        if code != 0:
            fail(f"exit code {code}: {[f['message'] for f in findings if f['severity'] not in ('pass', 'waived')]}")
        if any(shared.iterdir()):
            fail(f"scratch files left in {shared}: {list(shared.iterdir())}")
        log("every rank read and verified a checkpoint written on another host")


def sweep(cluster, a, out, extra=()):
    return cluster.mpirun(a.nodes, [a.fabcheck, "sweep", *SWEEP, "--out", str(out), *extra], 300)


def case_slow_node(a):
    with Cluster(a.nodes) as cluster, tempfile.TemporaryDirectory(prefix="fabcheck-cluster-") as tmp:
        slow = cluster.host(2)
        cluster.run("slow-node", slow, SLOW_MBIT)
        code, console, seconds = sweep(cluster, a, Path(tmp) / "run")
        measurements, findings, summary = read_run(Path(tmp) / "run")
        check_hosts(cluster, measurements, summary, a.nodes)
        named = pair_findings(findings)
        subjects = [(f["severity"], f["subject"]) for f in named]
        if subjects != [("fail", slow)]:
            fail(f"findings {subjects}, expected one FAIL naming {slow}: {[f['message'] for f in named]}")
        if code != 1 or summary["verdict"] != "fail":
            fail(f"exit code {code}, verdict {summary['verdict']}, expected 1 / fail")
        if f"slow node {slow}" not in console:
            fail("the console does not name the slow node")
        if f"; drain: {slow} (coll.node_pairs: node {slow} is slow" not in console:
            fail("the verdict line does not name the slow node to drain")
        log(f"slowed node {slow} named alone, sweep {seconds:.1f} s")


def case_slow_link(a):
    with Cluster(a.nodes) as cluster, tempfile.TemporaryDirectory(prefix="fabcheck-cluster-") as tmp:
        ends = sorted([cluster.host(3), cluster.host(0)])
        cluster.run("slow-link", ends[1], ends[0], SLOW_MBIT)
        code, console, seconds = sweep(cluster, a, Path(tmp) / "run")
        measurements, findings, summary = read_run(Path(tmp) / "run")
        named = pair_findings(findings)
        subjects = [(f["severity"], f["subject"]) for f in named]
        link = f"{ends[0]}--{ends[1]}"
        if subjects != [("fail", link)]:
            fail(f"findings {subjects}, expected one FAIL naming {link}: {[f['message'] for f in named]}")
        if code != 1:
            fail(f"exit code {code}, expected 1")
        if f"slow link {link}" not in console:
            fail("the console does not name the slow link")
        verdict = re.search(r"^verdict: .*$", console, re.M)
        if verdict is None or "drain:" in verdict.group(0):
            fail(f"a slow link drains neither end, but the verdict line says {verdict and verdict.group(0)!r}")
        log(f"slowed link {link} named as a link, no node blamed, sweep {seconds:.1f} s")


class CpuLoad:
    """One busy process per core of this machine, killed (by PID) on the way out: other work the
    sweeps compete with."""

    def __enter__(self):
        self.processes = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                          for _ in range(os.cpu_count() or 1)]
        return self

    def __exit__(self, *exc):
        for process in self.processes:
            process.kill()
            process.wait()
        return False


def case_healthy(a):
    """A healthy cluster raises nothing, three sweeps back to back while a busy process runs on every
    core of the machine; the node x node matrix is in run.h5."""
    with Cluster(a.nodes) as cluster, tempfile.TemporaryDirectory(prefix="fabcheck-cluster-") as tmp, \
            CpuLoad() as load:
        log(f"competing load: {len(load.processes)} busy process(es)")
        for attempt in range(1, 4):
            out = Path(tmp) / f"run{attempt}"
            code, console, seconds = sweep(cluster, a, out)
            measurements, findings, summary = read_run(out)
            named = pair_findings(findings)
            if named:
                fail(f"sweep {attempt} on a healthy cluster: {[f['message'] for f in named]}")
            if code != 0 or summary["verdict"] not in ("pass", "warn"):
                fail(f"sweep {attempt}: exit {code}, verdict {summary['verdict']}: "
                     f"{[f['message'] for f in findings if f['severity'] in ('fail', 'error')]}")
            pairs = {(m["host"], m["peer"]) for m in measurements
                     if m["probe"] == "coll.node_pairs" and m["metric"] == "exchange_busbw"}
            if len(pairs) != a.nodes * (a.nodes - 1) // 2:
                fail(f"sweep {attempt}: {len(pairs)} pairs measured")
            log(f"healthy sweep {attempt}: nothing raised, {seconds:.1f} s")
        check_matrix_h5(out / "run.h5", cluster.hosts())


def check_matrix_h5(path, hosts):
    code = ("import h5py, sys, math\n"
            "f = h5py.File(sys.argv[1])\n"
            "names = [n for n in f['pair_matrices'] if n.startswith('coll.node_pairs:exchange_busbw:1048576:first')]\n"
            "d = f['pair_matrices'][names[0]]\n"
            "hosts = [h.decode() if isinstance(h, bytes) else h for h in d.attrs['hosts']]\n"
            "print(','.join(hosts))\n"
            "n = len(hosts)\n"
            "ok = all((i == j) == math.isnan(d[i, j]) and (i == j or d[i, j] > 0 and d[i, j] == d[j, i])"
            " for i in range(n) for j in range(n))\n"
            "print(d.shape, ok)\n")
    out = subprocess.run(["/usr/bin/python3", "-c", code, str(path)], capture_output=True, text=True)
    if out.returncode != 0:
        fail(f"run.h5 pair matrix: {out.stderr.strip()[-400:]}")
    lines = out.stdout.splitlines()
    if lines[0] != ",".join(sorted(hosts)) or lines[1] != f"({len(hosts)}, {len(hosts)}) True":
        fail(f"run.h5 pair matrix: {lines}")


def case_sigstop(a, node=2):
    """A node's rank stopped mid-sweep: exit 3 within timeout + 15 s, naming that host."""
    timeout = 20
    with Cluster(a.nodes) as cluster, tempfile.TemporaryDirectory(prefix="fabcheck-cluster-") as tmp:
        out = Path(tmp) / "run"
        stopped = cluster.host(node)
        args = [a.fabcheck, "sweep", "--sizes", "64K,4M", "--iters", "50", "--warmup", "2",
                "--timeout", str(timeout), "--opt", "sdc.duration_s=0.3", "--out", str(out)]
        process = subprocess.Popen(["bash", str(SIMCLUSTER), "mpirun", str(a.nodes), *args],
                                   env=cluster.env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   text=True)
        lines = []
        started = threading.Event()

        def reader():
            for line in process.stdout:
                lines.append(line)
                if "first round 1/" in line or "# coll.node_pairs:" in line:
                    started.set()
            started.set()

        thread = threading.Thread(target=reader, daemon=True)
        thread.start()
        if not started.wait(120):
            process.kill()
            fail("the sweep never reached coll.node_pairs")
        pid = cluster.fabcheck_pid(node)
        os.kill(pid, signal.SIGSTOP)
        stop_time = time.monotonic()
        try:
            code = process.wait(timeout=timeout + 15 + 30)
        except subprocess.TimeoutExpired:
            process.kill()
            fail(f"still running {timeout + 45} s after {stopped} was stopped")
        thread.join(5)
        waited = time.monotonic() - stop_time
        console = "".join(lines)
        sys.stdout.write(console[-4000:])
        if code != 3:
            fail(f"exit code {code}, expected 3")
        if waited > timeout + 15 + 10:
            fail(f"took {waited:.1f} s after the stop, limit {timeout} + 15 s (+10 s to start and end)")
        measurements, findings, summary = read_run(out)
        errors = [f for f in findings if f["severity"] == "error"]
        if not errors or not any(stopped in f["message"] for f in errors):
            fail(f"no ERROR finding naming {stopped}: {[f['message'] for f in errors]}")
        # The rank named as stopped (its sentinel saw it) or silent (the watchdog stopped hearing it).
        named = set(re.findall(r"rank \d+ \((\S+)\) (?:stopped|silent)",
                               " ".join(f["message"] for f in errors)))
        if named != {stopped}:
            fail(f"ranks named as stopped {named}, expected only {stopped}")
        if summary["verdict"] != "incomplete" or not summary["incomplete_reason"]:
            fail(f"summary verdict {summary['verdict']}, reason {summary['incomplete_reason']}")
        log(f"stopped {stopped}: exit 3 after {waited:.1f} s, named: {errors[0]['message'][:200]}")


def case_sigkill(a):
    """A node killed mid-run: the probes before it are on disk, the summary says incomplete."""
    with Cluster(a.nodes) as cluster, tempfile.TemporaryDirectory(prefix="fabcheck-cluster-") as tmp:
        out = Path(tmp) / "run"
        args = [a.fabcheck, "run", "--probes", "coll.all_reduce,coll.node_pairs", "--sizes", "64K,4M",
                "--iters", "50", "--warmup", "2", "--timeout", "60", "--profile",
                str(INTEGRATION_PROFILE), "--out", str(out)]
        process = subprocess.Popen(["bash", str(SIMCLUSTER), "mpirun", str(a.nodes), *args],
                                   env=cluster.env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   text=True)
        for line in process.stdout:
            if "first round 1/" in line or "# coll.node_pairs:" in line:
                break
        os.kill(cluster.fabcheck_pid(3), signal.SIGKILL)
        try:
            process.communicate(timeout=90)
        except subprocess.TimeoutExpired:
            process.kill()
            fail("mpirun still running 90 s after a rank was killed")
        if process.returncode == 0:
            fail("exit code 0 after a rank was killed")
        measurements, findings, summary = read_run(out)
        if not any(m["probe"] == "coll.all_reduce" and m["metric"] == "busbw" for m in measurements):
            fail("coll.all_reduce's measurements are not on disk")
        if "coll.all_reduce" not in summary["probes"]["run"]:
            fail(f"summary does not list coll.all_reduce as run: {summary['probes']}")
        if summary["finished_utc"] is not None or not summary["incomplete_reason"] or summary["verdict"] != "incomplete":
            fail(f"summary not incomplete: verdict {summary['verdict']}, reason {summary['incomplete_reason']}")
        killed = cluster.host(3)
        if killed not in summary["incomplete_reason"]:
            fail(f"the summary does not name {killed}: {summary['incomplete_reason']}")
        log(f"killed {killed}: exit {process.returncode}, earlier probe on disk, summary incomplete: "
            f"{summary['incomplete_reason'][:160]}")


def straggler_findings(findings):
    return [f for f in findings if f["metric"] == "held_back_us" and f["severity"] in ("warn", "fail")]


def case_straggler(a):
    """The rank on node 1 CPU-throttled (cgroup v1 cpu quota, 2 ms in every 10 ms, its process
    moved in from outside the node's namespace once it starts): the straggler rule names rank 1 on
    node 1, no other; the same run unthrottled names no one."""
    if cpu_cgroup.unavailable():
        fail(f"{cpu_cgroup.unavailable()}; the straggler case cannot run")
    args = [a.fabcheck, "run", "--probes", "coll.all_reduce", "--sizes", "4K:256K:4", "--iters",
            "200", "--warmup", "2", "--timeout", "120", "--profile", str(INTEGRATION_PROFILE)]
    # Two nodes, a rank each: this machine's two cores run one rank each. With four ranks on two
    # cores every rank spends about half of each sample off the CPU, and the throttled one held the
    # others back 40 % of all ranks' held-back time, below the rule's 75 % (no finding either way).
    nodes = 2
    with Cluster(nodes) as cluster, tempfile.TemporaryDirectory(prefix="fabcheck-cluster-") as tmp:
        code, console, seconds = cluster.mpirun(nodes, args + ["--out", str(Path(tmp) / "healthy")],
                                                300)
        measurements, findings, summary = read_run(Path(tmp) / "healthy")
        if code != 0 or straggler_findings(findings):
            fail(f"unthrottled: exit {code}, stragglers {[f['message'] for f in straggler_findings(findings)]}")
        log(f"unthrottled run over {nodes} nodes: no straggler ({seconds:.1f} s)")
        with cpu_cgroup.throttled_group("fabcheck-cluster-straggler", 10000, 2000) as group:
            started = time.monotonic()
            process = subprocess.Popen(
                ["bash", str(SIMCLUSTER), "mpirun", str(nodes), *args, "--out",
                 str(Path(tmp) / "throttled")], env=cluster.env(), stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, text=True)
            pid = cluster.fabcheck_pid(1)
            (group / "cgroup.procs").write_text(str(pid))
            output, _ = process.communicate(timeout=300)
            seconds = time.monotonic() - started
        sys.stdout.write(output[-3000:])
        if process.returncode not in (0, 1):
            fail(f"throttled run: exit {process.returncode}, expected 0 or 1")
        measurements, findings, summary = read_run(Path(tmp) / "throttled")
        lags = [m for m in measurements if m["metric"] == "held_back_us"]
        log("throttled held back (us a sample, rank 0 and 1 per size): " +
            str([[round(r["value"], 1) for r in m["by_rank"]] for m in lags]))
        named = straggler_findings(findings)
        if len(named) != 1 or named[0].get("rank") != 1 or named[0]["host"] != cluster.host(1):
            fail(f"expected one finding naming rank 1 on {cluster.host(1)}: "
                 f"{[(f.get('rank'), f['host'], f['message']) for f in named]}")
        log(f"throttled rank 1 on {cluster.host(1)} named ({seconds:.1f} s): {named[0]['message']}")


def verdict_line(console):
    verdict = re.search(r"^verdict: .*$", console, re.M)
    if verdict is None:
        fail("no verdict line on the console")
    return verdict.group(0)


def leaf_sweep(cluster, a, out, topology):
    extra = ["--opt", f"pairs.topology={topology}"] if topology else []
    code, console, seconds = sweep(cluster, a, out, extra)
    measurements, findings, summary = read_run(out)
    named = pair_findings(findings)
    return code, console, seconds, named, summary


def case_leaves_trunk(a):
    """Two leaves of two nodes under a spine: healthy raises nothing; the trunk slowed is one switch
    link, FAIL with topology.conf naming the leaves and route, WARN about inferred groups without;
    no node is drained either way."""
    with Cluster(a.nodes, leaves=2) as cluster, \
            tempfile.TemporaryDirectory(prefix="fabcheck-cluster-") as tmp:
        topology = cluster.run("topology").stdout.strip()
        code, console, seconds, named, summary = leaf_sweep(cluster, a, Path(tmp) / "healthy", topology)
        if named or code != 0:
            fail(f"healthy leaves: exit {code}: {[f['message'] for f in named]}")
        if "switch links exercised: leaf0--leaf1 4 pair(s)" not in console:
            fail("the console does not report which switch links the pairs exercised")
        log(f"healthy leaf/spine cluster: nothing raised, {seconds:.1f} s")

        cluster.run("slow-uplink", "leaf0", SLOW_MBIT)
        code, console, seconds, named, summary = leaf_sweep(cluster, a, Path(tmp) / "trunk", topology)
        subjects = [(f["severity"], f["subject"]) for f in named]
        if subjects != [("fail", "leaf0--leaf1")]:
            fail(f"trunk slowed: findings {subjects}, expected one FAIL leaf0--leaf1: "
                 f"{[f['message'] for f in named]}")
        message = named[0]["message"]
        for part in ["route leaf0 > spine > leaf1", "measured again", "no node is at fault",
                     f"leaf0 ({cluster.host(0)},{cluster.host(1)})"]:
            if part not in message:
                fail(f"the switch finding lacks {part!r}: {message}")
        if code != 1 or summary["verdict"] != "fail" or summary["drain"]:
            fail(f"trunk slowed: exit {code}, verdict {summary['verdict']}, drain {summary['drain']}")
        if "drain:" in verdict_line(console):
            fail(f"a switch link drains no node: {verdict_line(console)}")
        log(f"trunk slowed, topology given: {message[:200]}... ({seconds:.1f} s)")
        # fabcheck evaluate re-judges the stored run the same way (the whole matrix, its groups).
        out = subprocess.run([a.fabcheck, "evaluate", str(Path(tmp) / "trunk")], capture_output=True,
                             text=True)
        listed = [line for line in out.stdout.splitlines() if re.match(r"^(FAIL|WARN)\s", line)]
        if (out.returncode != 1 or len(listed) != 1
                or "the switch link between leaf0" not in listed[0]
                or not re.search(r"^\s+FAIL\s+leaf0--leaf1 coll.node_pairs", out.stdout, re.M)):
            fail(f"evaluate of the trunk run: exit {out.returncode}, findings {listed}")
        if not re.search(r"^drain \(0\): none$", out.stdout, re.M):
            fail("evaluate drains a node for a switch link")

        code, console, seconds, named, summary = leaf_sweep(cluster, a, Path(tmp) / "inferred", None)
        subjects = [(f["severity"], f["subject"]) for f in named]
        if subjects != [("warn", "group 1--group 2")]:
            fail(f"trunk slowed, no topology: findings {subjects}: {[f['message'] for f in named]}")
        if "groups inferred from the matrix" not in named[0]["message"] or summary["drain"]:
            fail(f"inferred groups: {named[0]['message']}, drain {summary['drain']}")
        log(f"trunk slowed, no topology: WARN about inferred groups, exit {code} ({seconds:.1f} s)")


def case_leaves_node_link(a):
    """On the leaf/spine cluster with topology.conf: a slowed node is a node (drained), a slowed path
    between two nodes on different leaves is a link; neither is called a switch."""
    with Cluster(a.nodes, leaves=2) as cluster, \
            tempfile.TemporaryDirectory(prefix="fabcheck-cluster-") as tmp:
        topology = cluster.run("topology").stdout.strip()
        slow = cluster.host(1)
        cluster.run("slow-node", slow, SLOW_MBIT)
        code, console, seconds, named, summary = leaf_sweep(cluster, a, Path(tmp) / "node", topology)
        subjects = [(f["severity"], f["subject"]) for f in named]
        if subjects != [("fail", slow)] or code != 1:
            fail(f"node slowed: exit {code}, findings {subjects}: {[f['message'] for f in named]}")
        log(f"node {slow} slowed on a leaf: named alone ({seconds:.1f} s)")
        cluster.run("heal")
        ends = sorted([cluster.host(0), cluster.host(3)])
        cluster.run("slow-link", ends[0], ends[1], SLOW_MBIT)
        code, console, seconds, named, summary = leaf_sweep(cluster, a, Path(tmp) / "link", topology)
        subjects = [(f["severity"], f["subject"]) for f in named]
        link = f"{ends[0]}--{ends[1]}"
        if subjects != [("fail", link)] or summary["drain"]:
            fail(f"link slowed: findings {subjects}, drain {summary['drain']}: "
                 f"{[f['message'] for f in named]}")
        log(f"path {link} across the leaves slowed: a link, no node, no switch ({seconds:.1f} s)")


BISECT_STEP = re.compile(r"coll\.node_bisect: (\d+) step\(s\) in ([\d.]+) s")
PAIR_PASSES = re.compile(r"coll\.node_pairs: first pass (\d+) rounds ([\d.]+) s, .*second pass (\d+) rounds ([\d.]+) s")


def bisect_findings(findings):
    return [f for f in findings if f["probe"] == "coll.node_bisect" and f["severity"] in ("warn", "fail")]


def case_bisect(a):
    """The nightly sweep's log2 mode on 8 nodes: nothing raised on the healthy cluster; a slowed
    node named alone by `sweep --pairs bisect` (drained, and again by `fabcheck evaluate` of the
    run dir); the full pair sweep at the same size and iterations on the same cluster, both timed
    in this one run, with the cost projected to 1,024 and 16,384 nodes from the measured step."""
    nodes = 8
    same = ["--sizes", "1M", "--iters", "6", "--warmup", "1", "--timeout", "120"]
    with Cluster(nodes) as cluster, tempfile.TemporaryDirectory(prefix="fabcheck-cluster-") as tmp:
        out = Path(tmp) / "healthy"
        code, console, _ = cluster.mpirun(nodes, [a.fabcheck, "run", "--probes", "coll.node_bisect",
                                                  *same, "--out", str(out)], 300)
        _, findings, _ = read_run(out)
        steps = BISECT_STEP.search(console)
        if code != 0 or bisect_findings(findings) or not steps or steps.group(1) != "2":
            fail(f"healthy bisection: exit {code}, steps {steps and steps.group(1)}: "
                 f"{[f['message'] for f in bisect_findings(findings)]}")
        log(f"healthy: nothing raised, 2 steps in {steps.group(2)} s")

        slow = cluster.host(5)
        cluster.run("slow-node", slow, SLOW_MBIT)
        out = Path(tmp) / "sweep"
        code, console, seconds = cluster.mpirun(
            nodes, [a.fabcheck, "sweep", *SWEEP, "--pairs", "bisect", "--out", str(out)], 300)
        measurements, findings, summary = read_run(out)
        subjects = [(f["severity"], f["subject"]) for f in bisect_findings(findings)]
        if subjects != [("fail", slow)] or pair_findings(findings):
            fail(f"sweep --pairs bisect: findings {subjects}, expected one FAIL naming {slow}")
        if any(m["probe"] == "coll.node_pairs" for m in measurements):
            fail("sweep --pairs bisect ran coll.node_pairs too")
        drained = [entry["host"] for entry in summary["drain"]]
        if code != 1 or drained != [slow] or f"; drain: {slow} (coll.node_bisect: node {slow} is slow" not in console:
            fail(f"sweep --pairs bisect: exit {code}, drain {drained}")
        evaluated = subprocess.run([a.fabcheck, "evaluate", str(out)], capture_output=True, text=True)
        if evaluated.returncode != 1 or f"drain (1): {slow}" not in evaluated.stdout:
            fail(f"fabcheck evaluate of the bisection: exit {evaluated.returncode}: {evaluated.stdout[-600:]}")
        steps = BISECT_STEP.search(console)
        bisect_steps, bisect_s = int(steps.group(1)), float(steps.group(2))
        log(f"slowed {slow}: named by the bisection in {bisect_steps} steps, {bisect_s:.1f} s "
            f"(sweep {seconds:.1f} s in all); evaluate agrees")

        out = Path(tmp) / "pairs"
        code, console, _ = cluster.mpirun(nodes, [a.fabcheck, "run", "--probes", "coll.node_pairs",
                                                  *same, "--out", str(out)], 300)
        _, findings, _ = read_run(out)
        subjects = [(f["severity"], f["subject"]) for f in pair_findings(findings)]
        passes = PAIR_PASSES.search(console)
        if subjects != [("fail", slow)] or code != 1 or not passes:
            fail(f"pair sweep: exit {code}, findings {subjects}")
        rounds = int(passes.group(1)) + int(passes.group(3))
        pair_s = float(passes.group(2)) + float(passes.group(4))
        step_s = bisect_s / bisect_steps
        round_s = float(passes.group(2)) / int(passes.group(1))
        projected = []
        for n in (1024, 16384):
            # One slow node: the world, log2(N) halvings down to a pair, its partners
            # (tests/unit/coll/node_bisection_test.cpp); the pairs: N - 1 rounds and one more.
            steps_n = (n - 1).bit_length() + 1
            projected.append(f"{n} nodes: bisection {steps_n} steps ~{steps_n * step_s:.0f} s, "
                             f"pairs {n} rounds ~{n * round_s / 3600:.1f} h")
        log(f"pair sweep: {rounds} rounds, {pair_s:.1f} s; bisection/pairs time {bisect_s / pair_s:.2f}; "
            f"projected from {step_s:.2f} s a step, {round_s:.2f} s a round: " + "; ".join(projected))


CASES = {"collectives": case_collectives, "ckpt-read": case_ckpt_read, "slow-node": case_slow_node,
         "slow-link": case_slow_link, "healthy": case_healthy, "sigstop": case_sigstop,
         "sigstop-root": lambda a: case_sigstop(a, node=0), "sigkill": case_sigkill,
         "straggler": case_straggler, "leaves-trunk": case_leaves_trunk, "leaves-node-link": case_leaves_node_link,
         "bisect": case_bisect}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--fabcheck", required=True)
    parser.add_argument("--nodes", type=int, default=4)
    a = parser.parse_args()
    if os.geteuid() != 0:
        print("cluster tests need root (network namespaces)", file=sys.stderr)
        return 1
    # ctest's timeout kills with SIGTERM first: take the cluster down on the way out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        CASES[a.case](a)
    except Failure as error:
        print(f"FAIL {a.case}: {error}", file=sys.stderr)
        return 1
    print(f"PASS {a.case}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
