#!/usr/bin/env python3
"""Tests through real Slurm (ctest label `slurm`): each scenario brings up its own cluster with
scripts/slurmcluster.sh (Debian 12's Slurm 22.05: munged, slurmctld, a slurmd per network-namespace
node), runs real jobs against it, and tears it down, also when it fails.

  prolog-pass     the per-node Prolog on two healthy nodes: the job runs, both nodes stay idle, each
                  node's trace has one pass line
  prolog-fail     one node's gate FAILs (impossible.toml): exactly that node is drained with the
                  finding as reason, the job requeued held, the other node not drained;
                  fabcheck-resume.sh returns it to idle and leaves a node drained by someone else
  prolog-streak   FABCHECK_FAIL_STREAK=2: a node failing a noisy figure (a bandwidth below its tier)
                  is watched, not drained, by its first failing run (the job runs) and drained by
                  its second; a fact (no GPU driver) drains at its first failing run
  healthcheck     the HealthCheckProgram (every 5 s): at slurmd's start it runs the gate (no outcome
                  yet); then answers at once from the recent pass; runs no gate while a job runs;
                  a gate older than FABCHECK_HEALTH_MAX_AGE runs again and its FAIL drains the node;
                  after the repair the next check runs the gate again and its pass resumes the
                  node (FABCHECK_RESUME_ON_PASS=yes), never one drained by someone else; a broken
                  configuration drains it
  health-preempt  a job scheduled onto the node while its health check's gate runs: the job's prolog
                  stops the check (SIGUSR1; traced "preempted", no answer, no outcome) and runs its
                  own gate alone; the job completes, the node stays idle
  prolog-timeout  a gate past FABCHECK_TIMEOUT: the node held "fabcheck: incomplete (...)"
  prolog-limit    a gate past slurmd's PrologEpilogTimeout: slurmd kills the prolog's group and no
                  process of the gate is left on the node
  epilog-fail     the Epilog after a job: the job COMPLETED, then the node drained with the finding
  srun-fail       an interactive srun on a node whose gate FAILs: cancelled, the node drained
  sweep           the nightly sbatch with srun --mpi=pmix across 3 nodes, one slowed by tc: only it
                  is drained, the history append judged by its own result
  sweep-mpirun    the same with mpirun inside the allocation
  prolog-job      PrologSlurmctld in job scope (FABCHECK_SCOPE=job) across 2 nodes, run by
                  slurmctld as a SlurmUser that is not root, its ranks started on the nodes over
                  ssh as that user: the job runs, the gate's run spans both nodes (an outcome of
                  each in the SlurmUser's outcome log), the nodes stay idle
Each case prints `scontrol show node` (state, reason), the job's state and `sinfo -R` before and
after, and its wall time. Needs root; a cluster that cannot come up fails the test (never a skip).
"""
import argparse
import json
import os
import pathlib
import re
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROFILES = ROOT / "tests" / "fixtures" / "profiles"
CLUSTER = ROOT / "scripts" / "slurmcluster.sh"
SIM = ROOT / "scripts" / "simcluster.sh"
LOCK = "/tmp/netns.lock"


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


class Cluster:
    def __init__(self, nodes, conf_lines=(), node_conf=(), job_scope=()):
        self.nodes_count = nodes
        extra = pathlib.Path(f"/tmp/fabcheck-slurm-test-{os.getpid()}.conf")
        extra.write_text("".join(line + "\n" for line in conf_lines))
        # Each node's /etc/fabcheck/slurm.conf before its slurmd starts (@NODE_DIR@: its folder).
        per_node = pathlib.Path(f"/tmp/fabcheck-slurm-test-{os.getpid()}.node.conf")
        per_node.write_text("".join(line + "\n" for line in node_conf))
        node_args = ["--node-conf", str(per_node)] if node_conf else []
        # The controller's /etc/fabcheck/slurm.conf, and a SlurmUser of the cluster's own (ssh).
        ctld = pathlib.Path(f"/tmp/fabcheck-slurm-test-{os.getpid()}.ctld.conf")
        ctld.write_text("".join(line + "\n" for line in job_scope))
        if job_scope:
            node_args += ["--job-scope", str(ctld)]
        env = {**os.environ, "SIMCLUSTER_OWNER": str(os.getpid())}
        # Clusters of tests that died: removed first (their owner is gone).
        subprocess.run(["flock", LOCK, str(CLUSTER), "gc"], env=env, capture_output=True)
        start = time.monotonic()
        up = subprocess.run(["flock", LOCK, str(CLUSTER), "up", str(nodes), "--conf", str(extra), *node_args],
                            capture_output=True, text=True, env=env, timeout=120)
        extra.unlink()
        per_node.unlink()
        ctld.unlink()
        print(up.stdout + up.stderr)
        check(up.returncode == 0, f"the Slurm cluster did not come up (exit {up.returncode})")
        self.name = re.search(r"export SLURMCLUSTER=(\S+)", up.stdout).group(1)
        self.env = {**os.environ, "SLURMCLUSTER": self.name, "SIMCLUSTER": self.name,
                    "SLURM_CONF": re.search(r"export SLURM_CONF=(\S+)", up.stdout).group(1)}
        self.dir = pathlib.Path(self.env["SLURM_CONF"]).parent
        self.nodes = [f"{self.name}-n{i}" for i in range(nodes)]
        print(f"cluster {self.name} up in {time.monotonic() - start:.1f} s")

    def down(self):
        subprocess.run(["flock", LOCK, str(CLUSTER), "down"], env=self.env, capture_output=True, timeout=120)
        left = subprocess.run(["pgrep", "-f", str(self.dir)], capture_output=True, text=True).stdout.split()
        check(left == [], f"processes of {self.name} left after down: {left}")

    def sh(self, *argv, check_rc=True, timeout=120):
        result = subprocess.run(list(argv), capture_output=True, text=True, env=self.env, timeout=timeout,
                                cwd=ROOT)
        if check_rc and result.returncode != 0:
            fail(f"{' '.join(argv)}: exit {result.returncode}: {result.stdout}{result.stderr}")
        return result.stdout

    def node_dir(self, node):
        return self.dir / "nodes.d" / node

    @staticmethod
    def conf_lines(d, fabcheck, profile, *lines, gate=("--sizes", "64K", "--iters", "3")):
        """A node's /etc/fabcheck/slurm.conf, its folder `d`."""
        text = [f"FABCHECK_BIN={fabcheck}", "FABCHECK_RANKS=2", f"FABCHECK_PROFILE={profile}",
                f"FABCHECK_RESULTS_DIR={d}/results", f"FABCHECK_TRACE={d}/log/gate.log"]
        return text + [f"FABCHECK_GATE_ARG={arg}" for arg in gate] + list(lines)

    def configure(self, node, fabcheck, profile, *lines, gate=("--sizes", "64K", "--iters", "3")):
        """The node's /etc/fabcheck/slurm.conf (its own mount namespace)."""
        d = self.node_dir(node)
        text = self.conf_lines(d, fabcheck, profile, *lines, gate=gate)
        conf = d / "etc-fabcheck" / "slurm.conf"
        conf.write_text("\n".join(text) + "\n")
        conf.chmod(0o644)

    def run_dirs(self, node):
        """The node's run folders (beside them: the outcome log, outcomes.jsonl)."""
        return [p for p in (self.node_dir(node) / "results").iterdir() if p.is_dir()]

    def drained_by_job(self, node, title, *sbatch_args):
        """Submits a batch job, waits for `node` drained and the job requeued; prints the state
        after (`title`) and returns the job and the node's reason."""
        job = self.sbatch(*sbatch_args, "--wrap", "hostname")
        self.wait(f"{node} drained", lambda: "DRAIN" in self.state(node)[0], 90)
        self.wait("the job requeued", lambda: self.job_state(job)[0] == "PENDING", 30)
        self.record(title, job)
        return job, self.state(node)[1]

    def completes(self, title, *sbatch_args, seconds=90):
        """Submits a batch job, waits for it to complete, prints the state after (`title`) and
        checks that every node stayed idle, with no reason; returns the job."""
        job = self.sbatch(*sbatch_args, "--wrap", "hostname")
        self.wait("the job to complete", lambda: self.job_state(job)[0] == "COMPLETED", seconds)
        self.record(title, job)
        for node in self.nodes:
            state, reason = self.state(node)
            check(state == "IDLE" and reason == "", f"{node} {title}: {state} {reason!r}")
        return job

    def traced(self, node, job):
        """Waits for the gate's trace line of `job` on `node` (written after the node is taken
        out: a DRAIN is seen before it) and returns it."""
        def line():
            return next((l for l in self.trace(node) if f" job={job} " in l), None)
        self.wait(f"{node}'s trace line of job {job}", lambda: line() is not None, 30)
        return line()

    def trace(self, node):
        path = self.node_dir(node) / "log" / "gate.log"
        return path.read_text().splitlines() if path.exists() else []

    def state(self, node):
        line = self.sh("scontrol", "show", "node", "-o", node)
        state = re.search(r"\bState=(\S+)", line)
        reason = self.sh("sinfo", "-h", "-N", "-n", node, "-o", "%E").strip()
        return (state.group(1) if state else "?"), ("" if reason == "none" else reason)

    def job_state(self, job):
        line = self.sh("scontrol", "show", "job", "-o", job, check_rc=False)
        found = re.search(r"JobState=(\S+) Reason=(\S+)", line)
        return found.groups() if found else ("gone", "")

    def record(self, title, job=None):
        print(f"--- {title}")
        for node in self.nodes:
            state, reason = self.state(node)
            print(f"  scontrol show node {node}: State={state} Reason={reason}")
        if job:
            print(f"  job {job}: JobState=%s Reason=%s" % self.job_state(job))
        print("  sinfo -R -o '%100E %N':")
        for line in self.sh("sinfo", "-R", "-o", "%100E %N").splitlines():
            print("    " + line)
        # Each node's newest run: its verdict and why it did not finish (a failing case's evidence).
        for node in self.nodes:
            runs = sorted(self.run_dirs(node), key=lambda p: p.stat().st_mtime) if (
                self.node_dir(node) / "results").is_dir() else []
            summary = runs[-1] / "summary.json" if runs else None
            if summary and summary.is_file():
                s = json.loads(summary.read_text())
                print(f"  {node} newest run {runs[-1].name}: verdict={s.get('verdict')} "
                      f"exit_code={s.get('exit_code')} incomplete_reason={s.get('incomplete_reason')!r}")

    def sbatch(self, *args):
        # The job's output in the cluster's folder (sbatch's default is the submit folder: the checkout).
        output = [] if "-o" in args else ["-o", str(self.dir / "job-%j.out")]
        out = self.sh("sbatch", "--parsable", *output, *args)
        return out.strip().split(";")[0]

    def wait(self, what, predicate, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if predicate():
                return
            time.sleep(0.3)
        fail(f"{what}: not within {seconds} s")

    def node_pids(self, node):
        return subprocess.run(["ip", "netns", "pids", node], capture_output=True, text=True).stdout.split()


def scenario(function):
    """Runs one case on its own cluster, timed, torn down whatever happens."""
    def run(a):
        start = time.monotonic()
        function(a)
        print(f"wall time: {time.monotonic() - start:.1f} s")
    run.__name__ = function.__name__
    run.__wrapped__ = function
    return run


PROLOG = [f"Prolog={ROOT}/scripts/slurm/prolog.sh", "PrologFlags=Alloc", "PrologEpilogTimeout=60"]


@scenario
def scenario_prolog_pass(a):
    c = Cluster(2, PROLOG)
    try:
        for node in c.nodes:
            c.configure(node, a.fabcheck, PROFILES / "integration.toml")
        c.record("before")
        c.completes("after a passing gate", "-N2")
        for node in c.nodes:
            lines = c.trace(node)
            check(len(lines) == 1 and " decision=pass exit=0 " in lines[0], f"{node}'s trace: {lines}")
            print(f"  {node} trace: {lines[0]}")
    finally:
        c.down()


@scenario
def scenario_prolog_fail(a):
    c = Cluster(2, PROLOG)
    try:
        good, bad = c.nodes
        c.configure(good, a.fabcheck, PROFILES / "integration.toml")
        c.configure(bad, a.fabcheck, PROFILES / "impossible.toml")
        c.record("before")
        job, reason = c.drained_by_job(bad, "after", "-N2")
        check(reason.startswith("fabcheck: coll.all_reduce busbw on " + bad), f"{bad}'s reason: {reason!r}")
        check(len(reason) <= 200, f"reason of {len(reason)} bytes")
        check("DRAIN" not in c.state(good)[0], f"{good} was drained: {c.state(good)}")
        check(" decision=drain exit=1 " in c.traced(bad, job), f"{bad}'s trace: {c.trace(bad)}")
        runs = c.run_dirs(bad)
        check(len(runs) == 1 and (runs[0] / "evidence").is_dir(), f"the failing run kept with evidence: {runs}")
        # The operator fixes the node and returns it.
        c.configure(bad, a.fabcheck, PROFILES / "integration.toml")
        c.sh("scancel", job)
        # fabcheck-resume.sh returns what fabcheck drained, never a node drained by someone else.
        c.sh("scontrol", "update", f"nodename={good}", "state=drain", "reason=maintenance: PSU swap")
        refused = subprocess.run([str(ROOT / "scripts" / "slurm" / "fabcheck-resume.sh"), good, bad],
                                 capture_output=True, text=True, env=c.env)
        print(f"  fabcheck-resume.sh {good} {bad}: exit {refused.returncode}: {refused.stdout}{refused.stderr}")
        check(refused.returncode == 1 and "not fabcheck's" in refused.stderr, "the maintenance drain was not refused")
        c.wait(f"{bad} idle after resume", lambda: c.state(bad)[0] == "IDLE", 30)
        check(c.state(good) == ("DRAIN", "maintenance: PSU swap") or "DRAIN" in c.state(good)[0],
              f"{good} (drained by someone else) was resumed: {c.state(good)}")
        c.record("after fabcheck-resume.sh")
    finally:
        c.down()


@scenario
def scenario_prolog_streak(a):
    c = Cluster(1, PROLOG)
    try:
        node = c.nodes[0]
        outcomes = c.node_dir(node) / "results" / "outcomes.jsonl"
        c.configure(node, a.fabcheck, PROFILES / "impossible.toml", "FABCHECK_FAIL_STREAK=2")
        c.record("before")
        first = c.sbatch("-N1", "--wrap", "hostname")
        c.wait("the first job to complete", lambda: c.job_state(first)[0] == "COMPLETED", 90)
        c.record("after the first failing run", first)
        state, reason = c.state(node)
        check(state == "IDLE" and reason == "", f"{node} after its first noisy FAIL: {state} {reason!r}")
        lines = c.trace(node)
        check(len(lines) == 1 and " decision=watch exit=0 " in lines[0]
              and "1 failing run; a drain needs 2 runs in a row" in lines[0], f"{node}'s trace: {lines}")
        print(f"  {node} trace: {lines[0]}")
        check(len(outcomes.read_text().splitlines()) == 1, "one outcome a run")
        check(len(c.run_dirs(node)) == 1,
              "the watched run's folder kept")
        second, reason = c.drained_by_job(node, "after the second failing run", "-N1")
        check(reason.startswith("fabcheck: coll.all_reduce busbw on " + node), f"{node}'s reason: {reason!r}")
        check(" decision=drain exit=1 " in c.traced(node, second), f"{node}'s trace: {c.trace(node)}")
        print(f"  {node} trace: {c.trace(node)[-1]}")
        print("  outcomes.jsonl:\n    " + "\n    ".join(outcomes.read_text().splitlines()))
        # A fact drains at the first failing run whatever the streak: no driver on 8 GPUs (a
        # synthetic PCI tree), a rank per GPU.
        c.sh("scancel", second)
        c.sh("scontrol", "update", f"nodename={node}", "state=resume")
        c.wait(f"{node} idle", lambda: c.state(node)[0] == "IDLE", 30)
        c.configure(node, a.fabcheck, PROFILES / "integration.toml", "FABCHECK_FAIL_STREAK=2",
                    "FABCHECK_RANKS=8",
                    gate=("--sizes", "64K", "--iters", "3", "--sysfs-root",
                          str(ROOT / "tests" / "fixtures" / "host" / "pci" / "no-driver")))
        third = c.sbatch("-N1", "--wrap", "hostname")
        c.wait(f"{node} drained by a fact", lambda: "DRAIN" in c.state(node)[0], 90)
        c.record("after a fact's first failing run", third)
        state, reason = c.state(node)
        check(reason.startswith("fabcheck: 8 of the 8 NVIDIA GPUs"), f"{node}'s reason: {reason!r}")
        # Not watched: taken out at once with the fact as its reason. A run cut short after the
        # fact was found (CI saw one, 8 ranks on 2 cores) exits 3 and holds with that same reason;
        # `record` above printed the run's incomplete_reason.
        last = c.traced(node, third)
        check(" decision=drain exit=1 " in last or (" decision=hold exit=3 " in last and
                                                     " held: fabcheck: 8 of the 8 NVIDIA GPUs" in last),
              f"{node}'s trace: {c.trace(node)}")
        print(f"  {node} trace: {last}")
    finally:
        c.down()


@scenario
def scenario_healthcheck(a):
    health = [f"HealthCheckProgram={ROOT}/scripts/slurm/healthcheck.sh", "HealthCheckInterval=5"]
    fresh = "FABCHECK_HEALTH_MAX_AGE=12"
    c = Cluster(1, health, Cluster.conf_lines("@NODE_DIR@", a.fabcheck, PROFILES / "integration.toml", fresh))
    try:
        node = c.nodes[0]

        def decisions():
            return [re.search(r" decision=(\S+) ", line).group(1) for line in c.trace(node)]

        def wait_decision(decision, seconds):
            start = len(c.trace(node))
            c.wait(f"a health check deciding {decision}", lambda: decision in decisions()[start:], seconds)
            line = [x for x in c.trace(node)[start:] if f" decision={decision} " in x][0]
            print(f"  {node} trace: {line}")
            return line

        # slurmd ran it at its start (the node registered after it passed): the gate ran.
        check(decisions()[:1] == ["pass"], f"slurmd's first health check: {c.trace(node)}")
        print(f"  {node} trace: {c.trace(node)[0]}")
        c.record("after slurmd's start")
        line = wait_decision("recent", 15)  # the next: answered from that pass, no gate
        # SECONDS counts whole seconds: 0 or 1 for an answer that ran no gate (a gate takes 2-4 s).
        check(re.search(r" secs=[01]: ", line), "the recent answer took more than a second")
        job = c.sbatch("-N1", "--wrap", "sleep 20")
        c.wait("the job running", lambda: c.job_state(job)[0] == "RUNNING", 30)
        wait_decision("busy", 15)  # no gate while a job runs
        c.sh("scancel", job)
        # The node breaks; once the pass is older than FABCHECK_HEALTH_MAX_AGE the gate runs again.
        broken_at = len(c.trace(node))
        c.configure(node, a.fabcheck, PROFILES / "impossible.toml", fresh)
        c.wait(f"{node} drained by a health check", lambda: "DRAIN" in c.state(node)[0], 60)
        c.record("after the health check's FAIL")
        state, reason = c.state(node)
        check(reason.startswith("fabcheck: coll.all_reduce busbw on " + node), f"{node}'s reason: {reason!r}")
        # The trace line follows the drain.
        c.wait("the health check's drain traced", lambda: "drain" in decisions()[broken_at:], 15)
        print(f"  {node} trace: {c.trace(node)[-1]}")
        # Repaired: the last outcome is a fail, so each check runs the gate again; its pass returns
        # the node (FABCHECK_RESUME_ON_PASS=yes: the reason is fabcheck's).
        c.configure(node, a.fabcheck, PROFILES / "integration.toml", fresh, "FABCHECK_RESUME_ON_PASS=yes")
        c.wait(f"{node} resumed by a passing health check", lambda: c.state(node) == ("IDLE", ""), 40)
        line = wait_decision("pass", 15) if "resume" not in decisions() else \
            [x for x in c.trace(node) if " decision=resume " in x][-1]
        print(f"  {node} trace: {line}")
        check(" decision=resume " in line and "was: fabcheck: coll.all_reduce" in line, f"the resume: {line}")
        c.record("after the repair and a passing health check")
        # A node drained by someone else is never resumed by a pass.
        c.sh("scontrol", "update", f"nodename={node}", "state=drain", "reason=maintenance: PSU swap")
        c.wait("a health check after the maintenance drain", lambda: "recent" in decisions()[-1:] or "pass" in decisions()[-1:], 20)
        start = len(c.trace(node))
        c.wait("another check", lambda: len(c.trace(node)) > start, 20)
        check(c.state(node) == ("DRAIN", "maintenance: PSU swap") or "DRAIN" in c.state(node)[0],
              f"a maintenance drain was resumed: {c.state(node)}")
        c.sh("scontrol", "update", f"nodename={node}", "state=resume")
        # A broken configuration (an unknown key) drains the node at the next check (fails closed).
        c.configure(node, a.fabcheck, PROFILES / "integration.toml", fresh, "FABCHECK_HEALTH_MAXAGE=1")
        c.wait(f"{node} drained by a configuration error", lambda: "DRAIN" in c.state(node)[0], 30)
        state, reason = c.state(node)
        check(reason.startswith("fabcheck: configuration error: ") and "unknown key FABCHECK_HEALTH_MAXAGE" in reason,
              f"{node}'s reason: {reason!r}")
        check(decisions()[-1] == "config-error", f"{node}'s trace: {c.trace(node)[-1:]}")
        c.record("after a broken configuration")
        log = (c.node_dir(node) / "slurmd.log").read_text()
        print("  slurmd.log health_check lines:", [x for x in log.splitlines() if "health" in x.lower()][-3:])
    finally:
        c.down()


@scenario
def scenario_health_preempt(a):
    # Every check runs the gate (FABCHECK_HEALTH_MAX_AGE=1), a slow one (about 15 s here): a job
    # scheduled onto the node while it runs.
    health = [f"HealthCheckProgram={ROOT}/scripts/slurm/healthcheck.sh", "HealthCheckInterval=5"]
    slow = ("--sizes", "4M", "--iters", "400")
    c = Cluster(1, PROLOG + health, Cluster.conf_lines("@NODE_DIR@", a.fabcheck, PROFILES / "integration.toml",
                                                       "FABCHECK_HEALTH_MAX_AGE=1", "FABCHECK_KEEP_PASSED=yes",
                                                       gate=slow))
    try:
        node = c.nodes[0]

        def health_gate_running():
            # The health check's run folder is named ...-job0-health-NODE-PID: its mpirun and ranks.
            return subprocess.run(["pgrep", "-f", f"job0-health-{node}-"], capture_output=True).returncode == 0

        c.wait("a health check's gate running", health_gate_running, 60)
        c.record("while a health check's gate runs")
        before = len(c.trace(node))
        job = c.completes("after a job scheduled while the health check's gate ran", "-N1", seconds=150)
        lines = c.trace(node)[before:]
        for line in lines:
            print(f"  {node} trace: {line}")
        preempted = [i for i, line in enumerate(lines) if " decision=preempted " in line]
        prolog = [i for i, line in enumerate(lines) if f"prolog job={job} " in line]
        check(preempted and " exit=0 " in lines[preempted[0]] and "the gate of this check stopped" in lines[preempted[0]],
              f"no health check stopped for the job's gate: {lines}")
        check(prolog and " decision=pass exit=0 " in lines[prolog[0]], f"the job's gate: {lines}")
        check(preempted[0] < prolog[0], "the job's gate answered before the health check stopped")
        # The stopped check's run: incomplete, never counted as the node's outcome.
        outcomes = (c.node_dir(node) / "results" / "outcomes.jsonl").read_text().splitlines()
        runs = [json.loads(line)["run"] for line in outcomes]
        stopped = re.search(r"\(run (\S+), exit", lines[preempted[0]]).group(1)
        check(not any(stopped in run for run in runs), f"the stopped check's run {stopped} is an outcome: {runs}")
        # The job's gate ran alone: it started after the stopped check had traced its end (its
        # gate's processes gone: run_limited returned).
        health_run = json.loads((c.node_dir(node) / "results" / stopped / "summary.json").read_text())
        job_run = [json.loads((p / "summary.json").read_text()) for p in c.run_dirs(node) if f"-job{job}-prolog-" in p.name]
        check(len(job_run) == 1, f"the job's run folder: {[p.name for p in c.run_dirs(node)]}")
        check_ended = lines[preempted[0]].split()[0]  # 2026-12-04T22:01:51Z
        print(f"  stopped check: started {health_run['started_utc']}, {health_run['verdict']} "
              f"({health_run['incomplete_reason']}), traced {check_ended}; job's gate: "
              f"{job_run[0]['started_utc']} .. {job_run[0]['finished_utc']} ({job_run[0]['verdict']})")
        check(health_run["verdict"] == "incomplete" and check_ended[:19] <= job_run[0]["started_utc"][:19],
              "the job's gate started before the stopped check had ended")
    finally:
        c.down()


@scenario
def scenario_prolog_timeout(a):
    c = Cluster(1, PROLOG)
    try:
        node = c.nodes[0]
        c.configure(node, a.fabcheck, PROFILES / "integration.toml", "FABCHECK_TIMEOUT=3",
                    gate=("--sizes", "64M", "--iters", "1000"))
        c.record("before")
        start = time.monotonic()
        job = c.sbatch("-N1", "--wrap", "hostname")
        c.wait(f"{node} held", lambda: "DRAIN" in c.state(node)[0], 60)
        took = time.monotonic() - start
        c.record("after", job)
        reason = c.state(node)[1]
        check(reason.startswith("fabcheck: incomplete (no answer within 3 s"), f"reason {reason!r}")
        check(took < 3 + 10 + 10, f"held after {took:.1f} s")
        time.sleep(1)
        left = [p for p in c.node_pids(node)
                if "slurmd" not in pathlib.Path(f"/proc/{p}/cmdline").read_text(errors="replace")]
        check(left == [], f"processes left on {node}: {left}")
        print(f"  held after {took:.1f} s; trace: {c.trace(node)[-1]}")
    finally:
        c.down()


@scenario
def scenario_prolog_limit(a):
    c = Cluster(1, [f"Prolog={ROOT}/scripts/slurm/prolog.sh", "PrologFlags=Alloc", "PrologEpilogTimeout=6"])
    try:
        node = c.nodes[0]
        c.configure(node, a.fabcheck, PROFILES / "integration.toml", "FABCHECK_TIMEOUT=300",
                    gate=("--sizes", "64M", "--iters", "100000"))
        c.record("before")
        job = c.sbatch("-N1", "--wrap", "hostname")
        c.wait("the gate started", lambda: any("fabcheck" in pathlib.Path(f"/proc/{p}/cmdline").read_text(errors="replace")
                                               for p in c.node_pids(node) if os.path.exists(f"/proc/{p}")), 30)
        c.wait(f"{node} drained by slurmd's limit", lambda: "DRAIN" in c.state(node)[0], 40)
        c.record("after", job)
        time.sleep(2)
        left = []
        for p in c.node_pids(node):
            try:
                cmd = pathlib.Path(f"/proc/{p}/cmdline").read_text(errors="replace").replace("\0", " ")
            except OSError:
                continue
            if not cmd.startswith("slurmd"):
                left.append(f"{p}: {cmd[:100]}")
        check(left == [], f"processes of the killed prolog left on {node}: {left}")
        print(f"  slurmd's limit: {c.state(node)[1]!r}; nothing left on the node")
    finally:
        c.down()


@scenario
def scenario_epilog_fail(a):
    c = Cluster(1, [f"Epilog={ROOT}/scripts/slurm/epilog.sh", "PrologEpilogTimeout=60"])
    try:
        node = c.nodes[0]
        c.configure(node, a.fabcheck, PROFILES / "impossible.toml")
        c.record("before")
        job = c.sbatch("-N1", "--wrap", "hostname")
        c.wait(f"{node} drained after the job", lambda: "DRAIN" in c.state(node)[0], 90)
        c.wait("the job to complete", lambda: c.job_state(job)[0] == "COMPLETED", 30)
        c.record("after", job)
        reason = c.state(node)[1]
        check(reason.startswith(f"fabcheck: coll.all_reduce busbw on {node}"), f"reason {reason!r}")
        check(any(" epilog job=" in line and " decision=drain " in line for line in c.trace(node)),
              f"trace {c.trace(node)}")
        print(f"  the job ran (COMPLETED), then the epilog drained {node}")
    finally:
        c.down()


@scenario
def scenario_srun_fail(a):
    c = Cluster(1, PROLOG)
    try:
        node = c.nodes[0]
        c.configure(node, a.fabcheck, PROFILES / "impossible.toml")
        c.record("before")
        result = subprocess.run(["srun", "-N1", "hostname"], capture_output=True, text=True, env=c.env,
                                timeout=120)
        print(f"  srun: exit {result.returncode}: {result.stderr.strip()[-400:]}")
        c.record("after", "1")
        check(result.returncode != 0, "an interactive srun ran on a failing node")
        check(c.job_state("1")[0] == "CANCELLED" or c.job_state("1")[0].startswith("CANCEL"),
              f"the interactive job: {c.job_state('1')}")
        check(c.state(node)[1].startswith(f"fabcheck: coll.all_reduce busbw on {node}"), f"{c.state(node)}")
    finally:
        c.down()


@scenario
def scenario_sweep(a, launcher="srun"):
    c = Cluster(3)
    try:
        slow = c.nodes[2]
        c.sh(str(SIM), "slow-node", slow, "30")
        c.record("before")
        history = c.dir / "history.h5"
        # One small size: at 30 Mbit/s the slowed node's pairs at the default sizes take minutes.
        env_args = "\n".join(["--profile", str(PROFILES / "integration.toml"), "--sizes", "256K",
                              "--iters", "3", "--opt", "sdc.duration_s=0.3"])
        c.env.update({"FABCHECK": a.fabcheck, "FABCHECK_SWEEP_DIR": str(c.dir / "sweeps"),
                      "FABCHECK_SWEEP_LAUNCHER": launcher, "FABCHECK_SWEEP_DRAIN": "yes",
                      "FABCHECK_HISTORY": str(history), "FABCHECK_SWEEP_ARGS": env_args})
        job = c.sbatch("-N3", "--ntasks-per-node=1", "-o", str(c.dir / "sweep-%j.out"),
                       str(ROOT / "scripts" / "slurm" / "fabcheck-sweep.sbatch"))
        c.wait("the sweep to end", lambda: c.job_state(job)[0] in ("COMPLETED", "FAILED"), 200)
        output = (c.dir / f"sweep-{job}.out").read_text()
        print(output[-1500:])
        c.record("after", job)
        for node in c.nodes:
            state, reason = c.state(node)
            if node == slow:
                check("DRAIN" in state and reason.startswith(f"fabcheck: node {slow} is slow"),
                      f"the slowed node: {state} {reason!r}")
            else:
                check("DRAIN" not in state, f"{node} drained: {reason!r}")
        check("added to" in output and "could not add" not in output, "the history append")
        check(history.stat().st_size > 0, "no history")
    finally:
        c.down()


@scenario
def scenario_prolog_job(a):
    # One rank a node; Open MPI over ssh (the cluster's agent) on the nodes' bridge.
    mpirun = ["--mca", "plm_rsh_agent", "@SSH_AGENT@", "--mca", "plm_rsh_no_tree_spawn", "1",
              "--mca", "oob_tcp_if_include", "@SUBNET@.0/24", "--mca", "btl", "self,vader,tcp",
              "--mca", "btl_tcp_if_include", "@SUBNET@.0/24"]
    def ctld_conf(profile):
        return ([f"FABCHECK_BIN={a.fabcheck}", "FABCHECK_SCOPE=job", "FABCHECK_RANKS=1",
                 f"FABCHECK_PROFILE={profile}", "FABCHECK_RESULTS_DIR=@CTLD_DIR@/results",
                 "FABCHECK_TRACE=@CTLD_DIR@/log/gate.log", "FABCHECK_TIMEOUT=60",
                 "FABCHECK_KEEP_PASSED=yes"]
                + [f"FABCHECK_GATE_ARG={arg}" for arg in ("--sizes", "64K", "--iters", "3")]
                + [f"FABCHECK_MPIRUN_ARG={arg}" for arg in mpirun])
    c = Cluster(2, [f"PrologSlurmctld={ROOT}/scripts/slurm/prolog.sh", "PrologEpilogTimeout=90"],
                job_scope=ctld_conf(PROFILES / "integration.toml"))
    try:
        user = (c.dir / "user").read_text().strip()
        uid = int(subprocess.run(["id", "-u", user], capture_output=True, text=True).stdout)
        check(uid != 0, f"SlurmUser {user} is root")
        files = c.dir / "ctld-files"
        c.record("before")
        job = c.completes("after a passing job-scope gate", "-N2", seconds=120)
        trace = (files / "log" / "gate.log").read_text().splitlines()
        print("  controller trace:", *trace, sep="\n    ")
        check(len(trace) == 1 and f" job={job} " in trace[0] and " decision=pass exit=0 " in trace[0],
              f"the controller's trace: {trace}")
        runs = [p for p in (files / "results").iterdir() if p.is_dir()]
        check(len(runs) == 1, f"run folders of the job-scope gate (kept: FABCHECK_KEEP_PASSED=yes): {runs}")
        summary = json.loads((runs[0] / "summary.json").read_text())
        print(f"  run {runs[0].name}: verdict={summary['verdict']} ranks={summary.get('ranks')} "
              f"hosts={summary.get('hosts')} owner uid={runs[0].stat().st_uid}")
        check(summary["verdict"] in ("pass", "warn") and sorted(summary.get("hosts", [])) == sorted(c.nodes)
              and summary.get("ranks") == 2 and runs[0].stat().st_uid == uid,
              "the gate's run did not span both nodes with a rank each, as the SlurmUser")
        outcomes = [json.loads(line) for line in (files / "results" / "outcomes.jsonl").read_text().splitlines()]
        hosts = sorted(o["host"] for o in outcomes)
        print(f"  outcomes: {outcomes}")
        check(hosts == sorted(c.nodes) and all(o["outcome"] == "pass" for o in outcomes),
              f"outcomes of the job-scope gate: {outcomes}")
        check((files / "results" / "outcomes.jsonl").stat().st_uid == uid,
              "the outcome log is not the SlurmUser's")
        # A gate that fails (every node below an impossible tier): the job's nodes are taken out
        # by slurmctld's prolog as the SlurmUser, the job requeued.
        conf = c.dir / "ctld-etc-fabcheck" / "slurm.conf"
        conf.write_text(conf.read_text().replace(str(PROFILES / "integration.toml"), str(PROFILES / "impossible.toml")))
        job = c.sbatch("-N2", "--wrap", "hostname")
        c.wait("both nodes drained", lambda: all("DRAIN" in c.state(n)[0] for n in c.nodes), 120)
        c.wait("the job requeued", lambda: c.job_state(job)[0] == "PENDING", 30)
        c.record("after a failing job-scope gate", job)
        trace = (files / "log" / "gate.log").read_text().splitlines()
        print("  controller trace:", *trace, sep="\n    ")
        check(len(trace) == 2 and f" job={job} " in trace[1] and " exit=0 " not in trace[1], f"the controller's trace: {trace}")
        for node in c.nodes:
            check(c.state(node)[1].startswith("fabcheck:"), f"{node}'s reason: {c.state(node)[1]!r}")
    finally:
        # What the controller saw, for a case that fails: its trace and slurmctld's log.
        for log in (c.dir / "ctld-files" / "log" / "gate.log", c.dir / "ctld" / "slurmctld.log"):
            if log.exists():
                print(f"--- {log.name} (last lines)", *log.read_text().splitlines()[-12:], sep="\n  ")
        c.down()
    check(subprocess.run(["id", user], capture_output=True).returncode != 0, f"{user} left after down")


@scenario
def scenario_sweep_mpirun(a):
    # mpirun inside the allocation: Open MPI starts its daemons through Slurm.
    scenario_sweep.__wrapped__(a, "mpirun")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("scenario")
    parser.add_argument("--fabcheck", required=True)
    a = parser.parse_args()
    check(os.geteuid() == 0, "needs root (network namespaces, Slurm daemons)")
    scenarios = {name[len("scenario_"):].replace("_", "-"): function
                 for name, function in globals().items() if name.startswith("scenario_")}
    if a.scenario not in scenarios:
        fail(f"unknown scenario {a.scenario}; known: {', '.join(sorted(scenarios))}")
    scenarios[a.scenario](a)
    print("PASS")


if __name__ == "__main__":
    main()
