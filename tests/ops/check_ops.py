#!/usr/bin/env python3
"""Operations tests (ctest label `ops`), one scenario per invocation (tests/ops/CMakeLists.txt).

  junit-hostile   junit.xml of hostile records (record_render junit) valid against the JUnit XSD
  junit-run       a real failing run's junit.xml: valid, and its counts match findings.jsonl
  prolog-fail     the Slurm prolog on a failing profile drains exactly this node, the finding as reason
  prolog-pass     a passing gate drains nothing, exit 0, the passed run's folder removed
  prolog-timeout  a gate past FABCHECK_TIMEOUT holds the node: "fabcheck: incomplete (...)", exit 3
  prolog-signal   SIGTERM to the prolog mid-run: the node held, exit 3 (as scripts/mpirun.sh does)
  prolog-config   configuration errors hold by default (exit 2): bad key, group-writable file, missing
                  profile, unstartable binary, no file, fabcheck's exit 2; allow is traced as ungated
  prolog-env-ignored   FABCHECK_* in the environment change nothing: the file only
  prolog-job-identity  the job's SLURM_*/PMI* variables never reach mpirun
  prolog-conf-unsafe   the configuration file or a folder above it another user's, group-writable,
                  a link, or swapped by rename in a loop: held every time
  prolog-node-names    names that are not one host name: exit 2, never drained
  prolog-results-unsafe  a results folder of another user or writable by others: held, nothing run
  reason-text     scheduler_reason: printable, quotes as `, no doubled spaces, <= 200 bytes
  prolog-job      job scope (PrologSlurmctld): mpirun across the job's nodes; of two nodes, only the
                  one the FAIL names is drained
  epilog-fail     the epilog drains a failing node too
  k8s-manifest    the MPIJob manifest parses as YAML with what an MPIJob needs
  k8s-node-action the cordon/taint/annotate commands printed, and run as argv only with --apply
  acceptance      scripts/acceptance.sh HOSTFILE: the acceptance plan under mpirun, report, verdicts
  sweep-sbatch    the nightly sbatch script (run directly): run, report, history, the drain applied
  sweep-names     the sweep refuses host names that are not one host name (a fabcheck double)
  node-names-random  the node-name check against Slurm's own host-list parser on random names
Slurm's scontrol, kubectl and (for prolog-job) mpirun are test doubles on PATH recording their
arguments; fabcheck, the gate and the scripts are the real ones.
"""
import argparse
import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROFILES = ROOT / "tests" / "fixtures" / "profiles"
XSD = ROOT / "tests" / "fixtures" / "junit" / "junit.xsd"
SLURM = ROOT / "scripts" / "slurm"


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


# ---- JUnit -------------------------------------------------------------------------------------

def validate_junit(path):
    from lxml import etree  # Debian's python3-lxml (scripts/setup.sh)
    schema = etree.XMLSchema(etree.parse(str(XSD)))
    document = etree.parse(str(path))
    if not schema.validate(document):
        fail(f"{path} is not valid against {XSD.name}: {schema.error_log}")
    return document


HOSTILE = ['node"7<', "a&b", "new\nline", "tab\tx", "ctl\x01\x1f", "ünïcødé-ノード", "]]>", "'single'"]


def scenario_junit_hostile(a):
    with tempfile.TemporaryDirectory(prefix="fabcheck_junit_") as tmp:
        run_dir = pathlib.Path(tmp)
        findings = []
        for k, text in enumerate(HOSTILE):
            findings.append({
                "schema_version": 1, "kind": "finding",
                "severity": ["fail", "error", "warn", "pass", "waived"][k % 5],
                "probe": "storage.fsync_lat", "metric": "fsync_p99_us", "subject": "/mnt/" + text,
                "host": text, "rank": k, "size_bytes": 4096, "unit": "us", "observed": 1.0,
                "expected": 2.0, "warn_at": 1.5, "message": "m " + text, "evidence": text,
                "remedy": text, "source": text})
        (run_dir / "measurements.jsonl").write_text("")
        (run_dir / "findings.jsonl").write_text("".join(json.dumps(f) + "\n" for f in findings))
        summary = {"schema_version": 1, "kind": "summary", "verdict": "incomplete", "exit_code": 3,
                   "plan": 'gate"<&', "hosts": HOSTILE, "started_utc": "2026-11-30T06:09:26Z",
                   "incomplete_reason": "stopped\n<here>",
                   "probes": {"run": ["storage.fsync_lat", "coll.all_reduce"],
                              "waived": [{"id": "gpu.p2p", "reason": "no <GPU>"}],
                              "errored": [{"id": "coll.all_reduce", "message": "x\x02y"}]},
                   "profile": {"name": "p&q"}, "run_dir": "/runs/\"odd\"",
                   "timing": {"wall_s": 3.5, "probes": [{"id": "storage.fsync_lat", "seconds": 1.25}]}}
        (run_dir / "summary.json").write_text(json.dumps(summary))
        result = subprocess.run([a.record_render, "junit", str(run_dir)], capture_output=True)
        check(result.returncode == 0, f"record_render junit failed: {result.stderr}")
        (run_dir / "junit.xml").write_bytes(result.stdout)
        document = validate_junit(run_dir / "junit.xml")
    root = document.getroot()
    suites = root.findall("testsuite")
    names = [s.get("name") for s in suites]
    check(names[:4] == ["fabcheck.run", "storage.fsync_lat", "coll.all_reduce", "gpu.p2p"],
          f"suites out of order: {names}")
    for attribute in ("tests", "failures", "errors", "skipped"):
        total = sum(int(s.get(attribute)) for s in suites)
        check(int(root.get(attribute)) == total, f"testsuites {attribute} {root.get(attribute)} != {total}")
    cases = root.findall("testsuite/testcase")
    check(int(root.get("tests")) == len(cases), "tests does not count the cases")
    fsync_cases = suites[1].findall("testcase")
    hosts_read_back = [c.get("name").split(": ")[0] for c in fsync_cases]
    expected = [h.replace("\x01", "\ufffd").replace("\x1f", "\ufffd") for h in HOSTILE]
    check(hosts_read_back == expected, f"hosts read back {hosts_read_back!r}, written {expected!r}")
    run_case = suites[0].find("testcase/error")
    check(run_case is not None and run_case.get("message") == "incomplete: stopped\n<here>",
          "the incomplete run is not an error with its reason")
    check(suites[1].get("time") == "1.250" and root.get("time") == "3.500", "times not carried")
    print(f"{len(cases)} cases in {len(suites)} suites, valid against {XSD.name}")


def scenario_junit_run(a):
    with tempfile.TemporaryDirectory(prefix="fabcheck_junit_run_") as tmp:
        out = pathlib.Path(tmp) / "run"
        command = [str(ROOT / "scripts" / "mpirun.sh"), "2", a.fabcheck, "run", "--probes",
                   "coll.all_reduce,coll.all_gather,storage.seq_write", "--sizes", "64K,1M",
                   "--iters", "3", "--profile", str(PROFILES / "impossible.toml"), "--out", str(out)]
        result = subprocess.run(command, capture_output=True, text=True, timeout=300)
        check(result.returncode == 1, f"exit {result.returncode}, expected 1: {result.stderr[-2000:]}")
        document = validate_junit(out / "junit.xml")
        findings = [json.loads(line) for line in (out / "findings.jsonl").read_text().splitlines()]
    root = document.getroot()
    fails = sum(f["severity"] == "fail" for f in findings)
    errors = sum(f["severity"] == "error" for f in findings)
    waived = sum(f["severity"] == "waived" for f in findings)
    check(int(root.get("failures")) == fails, f"failures {root.get('failures')} != {fails} FAIL findings")
    check(int(root.get("errors")) == errors, f"errors {root.get('errors')} != {errors} ERROR findings")
    check(int(root.get("skipped")) >= waived, f"skipped {root.get('skipped')} < {waived} waived")
    failure = root.find("testsuite/testcase/failure")
    check(failure is not None and "remedy: drain " in failure.text,
          "a FAIL case does not carry the operator's action")
    print(f"junit.xml of a real run: {root.get('tests')} cases, {fails} failures, valid")


# ---- Slurm -------------------------------------------------------------------------------------

class SlurmNode:
    """A scratch folder with the test doubles (scontrol, optionally mpirun), a configuration file,
    and the prolog run against them."""

    def __init__(self, tmp, fabcheck, profile, extra=(), node="node07",
                 gate=("--sizes", "64K", "--iters", "3")):
        self.tmp = pathlib.Path(tmp)
        self.node = node
        self.bin = self.tmp / "bin"
        self.bin.mkdir()
        self.log = self.tmp / "scontrol.log"
        self.runs = self.tmp / "runs"
        self.trace = self.tmp / "log" / "gate.log"
        (self.bin / "scontrol").write_text(
            "#!/bin/sh\n"
            "# test double: each call's arguments, one a line, then a line '--'\n"
            'if [ "$1" = show ] && [ "$2" = hostnames ]; then\n'
            '  for h in $FAKE_SCONTROL_HOSTS; do echo "$h"; done\n'
            "  exit 0\n"
            "fi\n"
            'for a in "$@"; do printf "%s\\n" "$a"; done >> "$FAKE_SCONTROL_LOG"\n'
            'echo -- >> "$FAKE_SCONTROL_LOG"\n')
        (self.bin / "scontrol").chmod(0o755)
        self.conf = self.tmp / "slurm.conf"
        lines = [f"FABCHECK_BIN={fabcheck}", "FABCHECK_RANKS=2", f"FABCHECK_PROFILE={profile}",
                 f"FABCHECK_RESULTS_DIR={self.runs}", f"FABCHECK_TRACE={self.trace}",
                 f"FABCHECK_PATH={self.bin}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"]
        # By default a short gate: the collectives at one size.
        lines += [f"FABCHECK_GATE_ARG={arg}" for arg in gate]
        self.conf.write_text("\n".join(lines + list(extra)) + "\n")
        self.conf.chmod(0o644)

    def env(self, hosts=""):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("FABCHECK_", "SLURM"))}
        env.update({"SLURMD_NODENAME": self.node, "SLURM_JOB_ID": "4242",
                    "FABCHECK_SLURM_CONF": str(self.conf), "FAKE_SCONTROL_LOG": str(self.log),
                    "FAKE_SCONTROL_HOSTS": hosts})
        return env

    def command(self, script="prolog.sh"):
        """The script, in a mount namespace where the test doubles are also in /usr/local/sbin and
        /var/log is empty: a refused configuration file's FABCHECK_PATH and FABCHECK_TRACE are not
        used, so the script drains with the default PATH's scontrol and traces under /var/log;
        here those are the double and a scratch tmpfs, never this machine's."""
        wrap = ('mount --bind "$1" /usr/local/sbin && mount -t tmpfs tmpfs /var/log && shift && '
                'exec "$@"')
        return ["unshare", "--mount", "--", "sh", "-c", wrap, "_", str(self.bin), str(SLURM / script)]

    def run(self, script="prolog.sh", hosts="", timeout=300):
        start = time.monotonic()
        result = subprocess.run(self.command(script), capture_output=True, text=True,
                                env=self.env(hosts), timeout=timeout)
        print(f"$ {script}: exit {result.returncode} in {time.monotonic() - start:.1f} s")
        print(result.stderr[-3000:])
        return result

    def updates(self):
        """Each recorded scontrol call as its list of arguments."""
        if not self.log.exists():
            return []
        calls, current = [], []
        for line in self.log.read_text().splitlines():
            if line == "--":
                calls.append(current)
                current = []
            else:
                current.append(line)
        return calls

    def run_dirs(self):
        """The run folders (beside them: the outcome log, outcomes.jsonl)."""
        return sorted(p for p in self.runs.iterdir() if p.is_dir()) if self.runs.exists() else []

    def traced(self):
        """The trace file's lines (one a prolog decision)."""
        return self.trace.read_text().splitlines() if self.trace.exists() else []


def expect_traced(node, count, decision):
    lines = node.traced()
    check(len(lines) == count, f"expected {count} trace line(s), got {lines}")
    check(f" decision={decision} " in lines[-1], f"last trace line {lines[-1]!r} is not {decision}")
    return lines[-1]


def expect_one_drain(node, who, reason_start):
    calls = node.updates()
    check(len(calls) == 1, f"expected one scontrol call, got {calls}")
    call = calls[0]
    check(call[:3] == ["update", f"nodename={who}", "state=drain"], f"scontrol called as {call}")
    check(len(call) == 4 and call[3].startswith("reason=" + reason_start),
          f"reason {call[3:]!r} does not start with {reason_start!r}")
    return call[3][len("reason="):]


def scenario_prolog_fail(a, script="prolog.sh"):
    with tempfile.TemporaryDirectory(prefix="fabcheck_prolog_") as tmp:
        node = SlurmNode(tmp, a.fabcheck, PROFILES / "impossible.toml")
        result = node.run(script)
        check(result.returncode == 1, f"exit {result.returncode}, expected 1 (FAIL)")
        reason = expect_one_drain(node, "node07", "fabcheck: coll.all_reduce busbw")
        check("\n" not in reason and '"' not in reason and "  " not in reason and len(reason) <= 200,
              f"reason {reason!r}")
        check(reason in expect_traced(node, 1, "drain"), "the trace does not carry the reason")
        runs = node.run_dirs()
        check(len(runs) == 1, f"expected the failing run kept, found {runs}")
        summary = json.loads((runs[0] / "summary.json").read_text())
        check(summary["drain"] and re.sub(" +", " ", summary["drain"][0]["reason"]).strip() == reason,
              f"the reason is not summary.json's: {summary['drain']} vs {reason!r}")
        check((runs[0] / "evidence").is_dir(), "no evidence/ for a FAIL")
        check((runs[0] / "junit.xml").is_file(), "no junit.xml")
    print(f"drained node07 only: {reason}")


def scenario_epilog_fail(a):
    scenario_prolog_fail(a, "epilog.sh")


def scenario_prolog_pass(a):
    with tempfile.TemporaryDirectory(prefix="fabcheck_prolog_") as tmp:
        node = SlurmNode(tmp, a.fabcheck, PROFILES / "integration.toml")
        result = node.run()
        check(result.returncode == 0, f"exit {result.returncode}, expected 0")
        check(node.updates() == [], f"a passing gate called scontrol: {node.updates()}")
        check(node.run_dirs() == [], f"a passed run was kept: {node.run_dirs()}")
        expect_traced(node, 1, "pass")
        check(len(result.stderr.strip().splitlines()) <= 6, f"a passing prolog said more than a few lines")
        # FABCHECK_KEEP_PASSED=yes keeps it.
        with open(node.conf, "a") as conf:
            conf.write("FABCHECK_KEEP_PASSED=yes\n")
        result = node.run()
        check(result.returncode == 0 and len(node.run_dirs()) == 1, "FABCHECK_KEEP_PASSED=yes")
    print("a passing gate drained nothing")


def scenario_prolog_timeout(a):
    with tempfile.TemporaryDirectory(prefix="fabcheck_prolog_") as tmp:
        # Large messages, many iterations: minutes of work, stopped at 3 s. A results folder with a
        # long path: the hold reason stays within 200 bytes all the same.
        node = SlurmNode(tmp, a.fabcheck, PROFILES / "integration.toml", ["FABCHECK_TIMEOUT=3"],
                         gate=("--sizes", "64M", "--iters", "1000"))
        long_runs = node.tmp / ("r" * 120) / ("s" * 120)
        with open(node.conf, "a") as conf:
            conf.write(f"FABCHECK_RESULTS_DIR={long_runs}\n")
        node.runs = long_runs
        start = time.monotonic()
        result = node.run()
        took = time.monotonic() - start
        check(result.returncode == 3, f"exit {result.returncode}, expected 3 (incomplete)")
        check(took < 3 + 10 + 5, f"the prolog took {took:.1f} s past a 3 s limit")
        reason = expect_one_drain(node, "node07", "fabcheck: incomplete (no answer within 3 s")
        check(len(reason.encode()) + len("fabcheck: ") <= 210 and len(("reason=" + reason).encode()) <= 207,
              f"hold reason of {len(reason.encode())} bytes: {reason!r}")
        expect_traced(node, 1, "hold")
        time.sleep(0.5)
        left = subprocess.run(["pgrep", "-f", "--", str(long_runs)], capture_output=True, text=True).stdout.split()
        check(left == [], f"processes of the stopped gate left behind: {left}")
    print(f"held node07 after {took:.1f} s, reason {len(reason)} bytes, no process left")


def scenario_prolog_signal(a):
    with tempfile.TemporaryDirectory(prefix="fabcheck_prolog_") as tmp:
        node = SlurmNode(tmp, a.fabcheck, PROFILES / "integration.toml",
                         gate=("--sizes", "64M", "--iters", "1000"))
        process = subprocess.Popen([str(SLURM / "prolog.sh")], env=node.env(),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(3)
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=60)
        print(stderr[-2000:])
        check(process.returncode == 3, f"exit {process.returncode}, expected 3 (incomplete)")
        expect_one_drain(node, "node07", "fabcheck: incomplete")
    print("SIGTERM: node held, exit 3")


def scenario_prolog_config(a):
    with tempfile.TemporaryDirectory(prefix="fabcheck_prolog_") as tmp:
        # Fail closed: a configuration error holds the node by default.
        node = SlurmNode(tmp, a.fabcheck, PROFILES / "impossible.toml", ["FABCHECK_COLOUR=red"])
        result = node.run()
        check(result.returncode == 2, f"default: exit {result.returncode}, expected 2 (held)")
        check("unknown key FABCHECK_COLOUR" in result.stderr, "the unknown key is not named")
        expect_one_drain(node, "node07", "fabcheck: configuration error")
        check(node.run_dirs() == [], "a bad configuration ran")
        expect_traced(node, 1, "config-error")
        # allow: an explicit opt-out, and the trace says the job ran without a gate.
        node.log.unlink()
        with open(node.conf, "a") as conf:
            conf.write("FABCHECK_ON_CONFIG_ERROR=allow\n")
        result = node.run()
        check(result.returncode == 0 and node.updates() == [], f"allow: exit {result.returncode}")
        check("WITHOUT a gate" in expect_traced(node, 2, "allow"), "allow not traced as ungated")
    cases = {
        "group-writable file": (lambda n: n.conf.chmod(0o664), "writable by group or others"),
        "missing profile": (lambda n: n.conf.write_text(n.conf.read_text().replace(
            str(PROFILES / "impossible.toml"), str(PROFILES / "no-such.toml"))), "not a readable file"),
        "binary that cannot start": (lambda n: n.conf.write_text(n.conf.read_text().replace(
            f"FABCHECK_BIN={a.fabcheck}", f"FABCHECK_BIN={n.tmp / 'broken'}")), "does not start"),
        "no file": (lambda n: n.conf.unlink(), "no such file"),
    }
    for name, (spoil, message) in cases.items():
        with tempfile.TemporaryDirectory(prefix="fabcheck_prolog_") as tmp:
            node = SlurmNode(tmp, a.fabcheck, PROFILES / "impossible.toml")
            (node.tmp / "broken").write_text("#!/no/such/interpreter\n")
            (node.tmp / "broken").chmod(0o755)
            spoil(node)
            result = node.run()
            check(result.returncode == 2 and message in result.stderr,
                  f"{name}: exit {result.returncode}, expected 2 naming {message!r}")
            expect_one_drain(node, "node07", "fabcheck: configuration error")
            check(not node.runs.exists() or node.run_dirs() == [], f"{name}: it still ran")
    with tempfile.TemporaryDirectory(prefix="fabcheck_prolog_") as tmp:
        # A value fabcheck itself refuses (exit 2): held too.
        node = SlurmNode(tmp, a.fabcheck, PROFILES / "impossible.toml", gate=("--iters", "0"))
        result = node.run()
        check(result.returncode == 2, f"fabcheck's exit 2: exit {result.returncode}")
        expect_one_drain(node, "node07", "fabcheck: configuration error")
    print("configuration errors: named, held by default (file, profile, binary, missing file, "
          "fabcheck's own), allowed only on request and traced as ungated")


def scenario_prolog_report(a):
    """FABCHECK_ACTION=report: the verdict traced, no node changed, the job runs (exit 0)."""
    with tempfile.TemporaryDirectory(prefix="fabcheck_prolog_") as tmp:
        node = SlurmNode(tmp, a.fabcheck, PROFILES / "impossible.toml", ["FABCHECK_ACTION=report"])
        result = node.run()
        check(result.returncode == 0 and node.updates() == [],
              f"report-only: exit {result.returncode}, scontrol {node.updates()}")
        line = expect_traced(node, 1, "report-drain")
        check("fabcheck: coll.all_reduce busbw" in line and " exit=0 " in line, f"trace {line!r}")
        check(len(node.run_dirs()) == 1, "the failing run is not kept")
    print("report-only: FAIL traced, nothing drained, exit 0")


def scenario_prolog_env_ignored(a):
    """slurmd gives a prolog no FABCHECK_* variable: the script reads the file and nothing else."""
    with tempfile.TemporaryDirectory(prefix="fabcheck_prolog_") as tmp:
        node = SlurmNode(tmp, a.fabcheck, PROFILES / "integration.toml")
        env = {**node.env(), "FABCHECK_KEEP_PASSED": "yes", "FABCHECK_PROFILE": str(PROFILES / "impossible.toml")}
        result = subprocess.run([str(SLURM / "prolog.sh")], capture_output=True, text=True, env=env, timeout=300)
        print(result.stderr[-2000:])
        check(result.returncode == 0 and node.updates() == [] and node.run_dirs() == [],
              f"FABCHECK_* in the environment changed the gate: exit {result.returncode}, {node.updates()}, "
              f"kept {node.run_dirs()}")
    print("FABCHECK_* variables in the environment are ignored; the file decides")


def scenario_prolog_job_identity(a):
    """Under slurmd the prolog has the job's SLURM_* variables: mpirun (and the ranks) must not see
    them (Open MPI would start through Slurm and abort)."""
    with tempfile.TemporaryDirectory(prefix="fabcheck_prolog_") as tmp:
        node = SlurmNode(tmp, a.fabcheck, PROFILES / "integration.toml")
        (node.bin / "mpirun").write_text(
            "#!/bin/sh\n"
            'env | grep -E "^(SLURM|PMI)" > "$FAKE_SCONTROL_LOG.env"\n'
            'exec /usr/bin/mpirun "$@"\n')
        (node.bin / "mpirun").chmod(0o755)
        # What slurmd 22.05 puts into a prolog's environment (issue 22).
        env = {**node.env(), "SLURM_JOBID": "4242", "SLURM_NODELIST": "node07", "SLURM_CONF": "/etc/slurm/slurm.conf",
               "SLURM_JOB_USER": "alice", "SLURM_JOB_UID": "1000", "SLURM_SCRIPT_CONTEXT": "prolog_slurmd",
               "PMIX_NAMESPACE": "x"}
        env["FAKE_SCONTROL_LOG"] = str(node.log)
        result = subprocess.run([str(SLURM / "prolog.sh")], capture_output=True, text=True, env=env, timeout=300)
        print(result.stderr[-2000:])
        seen = pathlib.Path(str(node.log) + ".env").read_text()
        check(seen == "", f"mpirun saw the job's Slurm identity: {seen!r}")
        check(result.returncode == 0, f"exit {result.returncode}")
    print("mpirun started without SLURM_*/PMI* variables")


def scenario_prolog_conf_unsafe(a):
    """Issue 23 (5): the configuration file is opened once and the open file and every folder above
    it are checked; a file or folder another user can change is refused (held)."""
    nobody = 65534
    cases = {
        "folder of another user": lambda n: os.chown(n.tmp, nobody, nobody),
        "group-writable folder": lambda n: n.tmp.chmod(0o775),
        "file of another user": lambda n: os.chown(n.conf, nobody, nobody),
        "a link": lambda n: (n.conf.rename(n.tmp / "real.conf"), n.conf.symlink_to(n.tmp / "real.conf")),
    }
    for name, spoil in cases.items():
        with tempfile.TemporaryDirectory(prefix="fabcheck_prolog_") as tmp:
            node = SlurmNode(tmp, a.fabcheck, PROFILES / "integration.toml")
            node.tmp.chmod(0o755)
            spoil(node)
            result = node.run()
            check(result.returncode == 2, f"{name}: exit {result.returncode}, expected 2 (held)")
            expect_one_drain(node, "node07", "fabcheck: configuration error")
            check(node.run_dirs() == [], f"{name}: the gate ran from an unsafe configuration")
            node.tmp.chmod(0o700)
            os.chown(node.tmp, 0, 0)
    # The swap race of issue 23: root's file in another user's folder, who swaps their own file in
    # and out by rename while prologs run; on main the prolog ran their FABCHECK_BIN in 108 of 426.
    with tempfile.TemporaryDirectory(prefix="fabcheck_prolog_") as tmp:
        node = SlurmNode(tmp, a.fabcheck, PROFILES / "integration.toml")
        node.tmp.chmod(0o755)
        folder = node.tmp / "conf"
        folder.mkdir()
        conf, evil = folder / "slurm.conf", folder / "evil"
        conf.write_text(node.conf.read_text())
        evil.write_text(node.conf.read_text() + "FABCHECK_BIN=/bin/true\n")
        os.chown(evil, nobody, nobody)
        os.chown(folder, nobody, nobody)
        swapper = subprocess.Popen(["setpriv", f"--reuid={nobody}", f"--regid={nobody}", "--clear-groups",
                                    "sh", "-c", f"cd {folder} && while :; do mv -f slurm.conf keep; mv -f evil slurm.conf; "
                                    "mv -f slurm.conf evil; mv -f keep slurm.conf; done"],
                                   start_new_session=True)
        try:
            codes = []
            for _ in range(20):
                env = {**node.env(), "FABCHECK_SLURM_CONF": str(conf)}
                codes.append(subprocess.run(node.command(), capture_output=True, env=env,
                                            timeout=120).returncode)
        finally:
            # The whole group: an mv the shell had started would rename into the folder while it
            # is removed (seen once in CI: "Directory not empty: 'conf'").
            os.killpg(swapper.pid, signal.SIGKILL)
            swapper.wait()
            while subprocess.run(["pgrep", "-g", str(swapper.pid)], capture_output=True).returncode == 0:
                time.sleep(0.05)
        check(set(codes) == {2}, f"prologs under a swapping folder exited {codes}, expected all 2")
    print("unsafe configuration (another user's folder or file, group-writable, a link, a swap race): held")


def scenario_prolog_node_names(a):
    """Issue 23 (6): a node name that is not one host name is refused and never drained."""
    for bad in ["gpu[001-512]", "ALL", "node1 state=resume", "a,b", "-x", "n=1"]:
        with tempfile.TemporaryDirectory(prefix="fabcheck_prolog_") as tmp:
            node = SlurmNode(tmp, a.fabcheck, PROFILES / "impossible.toml", node=bad)
            result = node.run()
            check(result.returncode == 2, f"{bad!r}: exit {result.returncode}, expected 2")
            check(node.updates() == [], f"{bad!r}: scontrol was called: {node.updates()}")
    names = ["node07", "gpu-1.site", "n_2", "gpu[1-2]", "ALL", "all", "All", "", "-n", "a b", "a=b",
             "a,b", "a'b", 'a"b', "x" * 254]
    script = f'source {ROOT}/scripts/lib/node_name.sh; for n in "$@"; do valid_node_name "$n" && echo "ok:$n"; done'
    out = subprocess.run(["bash", "-c", script, "_", *names], capture_output=True, text=True).stdout.splitlines()
    check([line for line in out if line.startswith("ok:")] == ["ok:node07", "ok:gpu-1.site", "ok:n_2"],
          f"valid_node_name: {out}")
    print("refused node names: never drained; valid_node_name accepts exactly single host names")


def scenario_prolog_results_unsafe(a):
    """Issue 23 (7): a results folder that is not root's and closed is a configuration error."""
    nobody = 65534
    for name, spoil in {"another user's": lambda p: os.chown(p, nobody, nobody),
                        "writable by others": lambda p: p.chmod(0o777)}.items():
        with tempfile.TemporaryDirectory(prefix="fabcheck_prolog_") as tmp:
            node = SlurmNode(tmp, a.fabcheck, PROFILES / "integration.toml")
            node.runs.mkdir()
            spoil(node.runs)
            # What another user planted there is never read.
            result = node.run()
            check(result.returncode == 2, f"{name} results folder: exit {result.returncode}, expected 2")
            expect_one_drain(node, "node07", "fabcheck: configuration error")
            check(node.run_dirs() == [], f"{name} results folder: the gate ran in it")
    print("results folder of another user, or writable by others: held, nothing run")


def scenario_reason_text(a):
    """Reasons handed to scontrol: printable, quotes as `, no doubled spaces, at most 200 bytes."""
    lib = ROOT / "scripts" / "lib" / "scheduler_reason.sh"
    for text, expected in [('fabcheck: in step "probe coll.all_reduce"  x', "fabcheck: in step `probe coll.all_reduce` x"),
                           ("a\tb\nc\\d 'e'  ", "a b c`d `e`"), ("ü", "")]:
        got = subprocess.run(["bash", "-c", f'source {lib}; scheduler_reason "$1"', "_", text],
                             capture_output=True, text=True).stdout.rstrip("\n")
        check(got == expected, f"scheduler_reason({text!r}) = {got!r}, expected {expected!r}")
    got = subprocess.run(["bash", "-c", f'source {lib}; scheduler_reason "$1"', "_", "x" * 500],
                         capture_output=True, text=True).stdout.rstrip("\n")
    check(len(got) == 200 and got.endswith("..."), f"a long reason: {len(got)} bytes")
    print("reasons: printable, readable, within 200 bytes")


def scenario_prolog_job(a):
    with tempfile.TemporaryDirectory(prefix="fabcheck_prolog_") as tmp:
        host = subprocess.run(["hostname"], capture_output=True, text=True).stdout.strip()
        node = SlurmNode(tmp, a.fabcheck, PROFILES / "impossible.toml", ["FABCHECK_SCOPE=job"],
                         node="controller")
        # mpirun test double: records its arguments, then starts the program's two ranks here with
        # the real mpirun (the job's other node does not exist on this machine).
        (node.bin / "mpirun").write_text(
            "#!/bin/sh\n"
            'printf "%s\\n" "$@" > "$FAKE_SCONTROL_LOG.mpirun"\n'
            'while [ $# -gt 0 ] && [ "${1#/}" = "$1" ]; do shift; done\n'
            'exec /usr/bin/mpirun -np 2 --oversubscribe "$@"\n')
        (node.bin / "mpirun").chmod(0o755)
        env_hosts = f"{host} node08"
        result = subprocess.run([str(SLURM / "prolog.sh")], capture_output=True, text=True,
                                env={**node.env(env_hosts), "SLURM_JOB_NODELIST": f"{host},node08"},
                                timeout=300)
        print(result.stderr[-3000:])
        check(result.returncode == 1, f"exit {result.returncode}, expected 1")
        launched = (pathlib.Path(str(node.log) + ".mpirun")).read_text().splitlines()
        check(launched[:4] == ["--host", f"{host}:2,node08:2", "-np", "4"],
              f"mpirun not started across the job's nodes: {launched[:6]}")
        expect_one_drain(node, host, "fabcheck: coll.all_reduce busbw")
    print(f"job scope: of {env_hosts}, only {host} drained")


# ---- Kubernetes, acceptance, sweep --------------------------------------------------------------

MANIFEST = ROOT / "scripts" / "k8s" / "fabcheck-sweep-mpijob.yaml"


def scenario_k8s_manifest(a):
    import yaml  # Debian's python3-yaml (scripts/setup.sh)
    documents = list(yaml.safe_load_all(MANIFEST.read_text()))
    check(len(documents) == 1, f"{len(documents)} documents in {MANIFEST.name}")
    job = documents[0]
    check(job.get("apiVersion") == "kubeflow.org/v2beta1" and job.get("kind") == "MPIJob",
          f"not a v2beta1 MPIJob: {job.get('apiVersion')} {job.get('kind')}")
    check(job["metadata"].get("name") and job["metadata"].get("namespace"), "no name or namespace")
    spec = job["spec"]
    check(isinstance(spec.get("slotsPerWorker"), int) and spec["slotsPerWorker"] >= 1, "slotsPerWorker")
    check(spec.get("mpiImplementation") in ("OpenMPI", "Intel", "MPICH"), "mpiImplementation")
    check(spec.get("runPolicy", {}).get("cleanPodPolicy") in ("None", "Running", "All"), "cleanPodPolicy")
    replicas = spec["mpiReplicaSpecs"]
    check(set(replicas) == {"Launcher", "Worker"}, f"replica specs {set(replicas)}")
    check(replicas["Launcher"]["replicas"] == 1, "one launcher")
    check(replicas["Worker"]["replicas"] >= 2, "a sweep needs two workers or more")
    for role, replica in replicas.items():
        check(replica.get("restartPolicy") in ("Never", "OnFailure", "Always", "ExitCode"),
              f"{role}: restartPolicy")
        containers = replica["template"]["spec"]["containers"]
        check(len(containers) == 1 and containers[0].get("image") and containers[0].get("name"),
              f"{role}: one container with a name and an image")
    launcher = replicas["Launcher"]["template"]["spec"]["containers"][0]
    command = " ".join(launcher["command"])
    check("mpirun" in command and "fabcheck sweep" in command and "--out /results/" in command,
          f"the launcher does not run the sweep into /results: {command}")
    mounts = {m["mountPath"] for m in launcher["volumeMounts"]}
    check("/results" in mounts, "the results volume is not mounted on the launcher")
    worker = replicas["Worker"]["template"]["spec"]
    limits = worker["containers"][0]["resources"]["limits"]
    check(limits.get("nvidia.com/gpu") == spec["slotsPerWorker"], "GPUs per worker != slotsPerWorker")
    check(worker.get("hostNetwork") is True, "workers without hostNetwork: host names are pod names")
    anti = worker["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    check(anti[0]["topologyKey"] == "kubernetes.io/hostname", "two workers could share a node")
    print(f"{MANIFEST.name}: MPIJob {job['metadata']['name']}, {replicas['Worker']['replicas']} workers "
          f"x {spec['slotsPerWorker']} slots")


def failing_run(a, tmp, extra=()):
    out = pathlib.Path(tmp) / "run"
    command = [str(ROOT / "scripts" / "mpirun.sh"), "2", a.fabcheck, "run", "--probes",
               "coll.all_reduce", "--sizes", "64K", "--iters", "3",
               "--profile", str(PROFILES / "impossible.toml"), "--out", str(out), *extra]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    check(result.returncode == 1, f"the failing run exited {result.returncode}: {result.stderr[-1500:]}")
    return out


def scenario_k8s_node_action(a):
    with tempfile.TemporaryDirectory(prefix="fabcheck_k8s_") as tmp:
        out = failing_run(a, tmp)
        host = json.loads((out / "summary.json").read_text())["drain"][0]["host"]
        bin_dir = pathlib.Path(tmp) / "bin"
        bin_dir.mkdir()
        log = pathlib.Path(tmp) / "kubectl.log"
        (bin_dir / "kubectl").write_text(
            "#!/bin/sh\n"
            'for a in "$@"; do printf "%s\\n" "$a"; done >> "$KUBECTL_LOG"\n'
            'echo -- >> "$KUBECTL_LOG"\n')
        (bin_dir / "kubectl").chmod(0o755)
        env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "KUBECTL_LOG": str(log),
               "FABCHECK": a.fabcheck}
        script = str(ROOT / "scripts" / "k8s" / "fabcheck-node-action.sh")
        printed = subprocess.run([script, str(out)], capture_output=True, text=True, env=env)
        print(printed.stdout, printed.stderr)
        check(printed.returncode == 1, f"exit {printed.returncode}, expected the run's 1")
        check(not log.exists(), "kubectl ran without --apply")
        check(f"kubectl cordon {host}" in printed.stdout and
              f"kubectl taint nodes {host} fabcheck.io/unhealthy=drain:NoSchedule --overwrite"
              in printed.stdout, "the cordon and taint commands are not printed")
        applied = subprocess.run([script, str(out), "--apply"], capture_output=True, text=True, env=env)
        check(applied.returncode == 1, f"--apply: exit {applied.returncode}")
        calls = [c.strip("\n").split("\n") for c in log.read_text().split("--\n") if c.strip()]
        check(calls[0] == ["cordon", host], f"first call {calls[0]}")
        check(calls[1] == ["taint", "nodes", host, "fabcheck.io/unhealthy=drain:NoSchedule", "--overwrite"],
              f"second call {calls[1]}")
        check(calls[2][:3] == ["annotate", "node", host] and
              calls[2][3].startswith("fabcheck.io/reason=fabcheck: coll.all_reduce busbw"),
              f"third call {calls[2]}")
        # The code and first repair of the run's answer (a collective below its tier: inspect).
        check(calls[3] == ["annotate", "node", host, "fabcheck.io/code=collective-slow",
                           "fabcheck.io/repair=inspect", "--overwrite"], f"fourth call {calls[3:]}")
        check(len(calls) == 4, f"{len(calls)} kubectl calls for one node")
    print(f"cordon + taint + annotate {host}, printed, and run as argument vectors with --apply")


def scenario_acceptance(a):
    with tempfile.TemporaryDirectory(prefix="fabcheck_acceptance_") as tmp:
        host = subprocess.run(["hostname"], capture_output=True, text=True).stdout.strip()
        hostfile = pathlib.Path(tmp) / "hosts"
        hostfile.write_text(f"# new rack\n{host} slots=2\n")
        out = pathlib.Path(tmp) / "acceptance"
        command = [str(ROOT / "scripts" / "acceptance.sh"), str(hostfile), "--out", str(out), "--",
                   "--profile", str(PROFILES / "integration.toml"), "--sizes", "4K,64K",
                   "--iters", "2", "--warmup", "0", "--opt", "sdc.duration_s=0.5"]
        env = {**os.environ, "FABCHECK": a.fabcheck}
        start = time.monotonic()
        result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
        print(result.stderr[-3000:])
        check(result.returncode == 0, f"exit {result.returncode}, expected 0")
        summary = json.loads((out / "summary.json").read_text())
        check(summary["plan"] == "acceptance" and summary["ranks"] == 2, "not the acceptance plan on 2 ranks")
        check(len(summary["probes"]["run"]) >= 6, f"acceptance ran only {summary['probes']['run']}")
        check((out / "report.html").is_file(), "no report at the end")
        check((out / "junit.xml").is_file(), "no junit.xml")
        # PASS, or WARN where another process took CPU time meanwhile (host.cpu), exit 0 either way.
        check(f"{host}" in result.stderr and re.search(r"verdict: (PASS|WARN)", result.stderr),
              "the nodes' verdicts are not printed at the end")
        bad = pathlib.Path(tmp) / "bad-hosts"
        bad.write_text("node1 slots=two\n")
        refused = subprocess.run([str(ROOT / "scripts" / "acceptance.sh"), str(bad)],
                                 capture_output=True, text=True, env=env)
        check(refused.returncode == 2 and "bad-hosts:1" in refused.stderr,
              f"a bad hostfile: exit {refused.returncode}: {refused.stderr}")
    print(f"acceptance on {host}: {len(summary['probes']['run'])} probes, report written, "
          f"{time.monotonic() - start:.0f} s")


def scenario_sweep_sbatch(a):
    with tempfile.TemporaryDirectory(prefix="fabcheck_sweep_") as tmp:
        node = SlurmNode(tmp, a.fabcheck, PROFILES / "impossible.toml")
        sweeps = pathlib.Path(tmp) / "sweeps"
        env = {**node.env(), "PATH": f"{node.bin}:{os.environ['PATH']}", "FABCHECK": a.fabcheck,
               "FABCHECK_SWEEP_DIR": str(sweeps), "FABCHECK_SWEEP_PLAN": "quick",
               "FABCHECK_SWEEP_NP": "2", "FABCHECK_SWEEP_DRAIN": "yes",
               "FABCHECK_HISTORY": str(pathlib.Path(tmp) / "history.h5"),
               "FABCHECK_SWEEP_ARGS": "\n".join(["--profile", str(PROFILES / "impossible.toml"),
                                                 "--sizes", "64K", "--iters", "2"])}
        env.pop("FABCHECK_SLURM_CONF")
        result = subprocess.run(["bash", str(SLURM / "fabcheck-sweep.sbatch")], capture_output=True,
                                text=True, env=env, timeout=300)
        print(result.stdout, result.stderr[-2000:])
        check(result.returncode == 1, f"exit {result.returncode}, expected 1")
        runs = sorted(p for p in sweeps.iterdir() if p.is_dir())
        check(len(runs) == 1 and runs[0].name.endswith("-job4242"), f"runs {runs}")
        outcomes = (sweeps / "outcomes.jsonl").read_text().splitlines()
        check(len(outcomes) == 1 and '"outcome":"fail"' in outcomes[0], f"the outcome log: {outcomes}")
        check((runs[0] / "report.html").is_file(), "no report")
        check("scontrol update nodename=" in result.stdout, "the drain command is not printed")
        # The FAIL night's exit code (1) is not the append's: the run is in the history.
        check("could not add" not in result.stderr and "added to" in result.stderr,
              "the history append was judged by evaluate's verdict")
        check((pathlib.Path(tmp) / "history.h5").stat().st_size > 0, "no history written")
        calls = node.updates()
        check(len(calls) == 1 and calls[0][2] == "state=drain" and
              calls[0][3].startswith("reason=fabcheck: coll.all_reduce"), f"scontrol calls {calls}")
    print("sweep: run, report, history appended, drain printed and applied")


def scenario_sweep_names(a):
    """Issue 23 (6): the sweep passes only single host names to scontrol; a failing node named
    gpu[001-512], ALL or 'node1 state=resume' is refused, never drained (fabcheck is a double
    here: its answer is what a hostile host name would make it print)."""
    with tempfile.TemporaryDirectory(prefix="fabcheck_sweep_") as tmp:
        node = SlurmNode(tmp, a.fabcheck, PROFILES / "impossible.toml")
        double = node.bin / "fabcheck"
        double.write_text(
            "#!/bin/bash\n"
            'if [ "$1" = answer ]; then\n'
            "  printf 'drain\\tgpu[001-512]\\tr1\\ndrain\\tALL\\tr2\\ndrain\\tnode1 state=resume\\tr3\\n'\n"
            "  printf 'hold\\t-x\\tr4\\ndrain\\tnode3\\tfabcheck: \\\"quoted\\\"  twice\\n'\n"
            "  exit 1\n"
            "fi\n"
            'while [ $# -gt 0 ]; do [ "$1" = --out ] && mkdir -p "$2" && echo {} > "$2/summary.json"; shift; done\n'
            "exit 1\n")
        double.chmod(0o755)
        mpirun = node.bin / "mpirun"
        mpirun.write_text('#!/bin/sh\nwhile [ "${1#-}" != "$1" ]; do shift 2; done\nexec "$@"\n')
        mpirun.chmod(0o755)
        env = {**node.env(), "PATH": f"{node.bin}:{os.environ['PATH']}", "FABCHECK": str(double),
               "FABCHECK_SWEEP_DIR": str(pathlib.Path(tmp) / "sweeps"), "FABCHECK_SWEEP_DRAIN": "yes"}
        result = subprocess.run(["bash", str(SLURM / "fabcheck-sweep.sbatch")], capture_output=True,
                                text=True, env=env, timeout=120)
        print(result.stdout, result.stderr[-2000:])
        calls = node.updates()
        check(calls == [["update", "nodename=node3", "state=drain", "reason=fabcheck: `quoted` twice"]],
              f"scontrol calls {calls}")
        check(result.stdout.count("refused") == 4, "the refused names are not reported")
    print("sweep: only node3 drained; gpu[001-512], ALL, 'node1 state=resume', -x refused")


def scenario_node_names_random(a):
    """Issue 23 (6), a property test of the one node-name check (scripts/lib/node_name.sh) with
    Slurm's own host-list parser as the oracle: 4000 random names, hostile characters among them
    (brackets, commas, '=', spaces, quotes, '$', leading '-', ALL in any case, non-ASCII, 254+
    bytes). Every name it accepts, `scontrol show hostnames` (real Slurm, a local slurm.conf)
    expands to exactly that one name, which is not an option, not ALL and holds no '='; and every
    plain host name (labels of letters, digits and '-' joined by '.') is accepted."""
    import random
    rng = random.Random(23)
    hostile = list("[]{},=; \t'\"$`\\*?!&|<>()#~%^:/@+") + ["\u00e9", "\u200b", "\uff0c"]
    plain = list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    names, hosts = [], []
    for _ in range(4000):
        kind = rng.randrange(5)
        if kind == 0:  # a plain host name: must be accepted
            labels = ["".join(rng.choice(plain) for _ in range(rng.randint(1, 12)))
                      for _ in range(rng.randint(1, 3))]
            name = ".".join(labels)
            hosts.append(name)
        elif kind == 1:  # names around Slurm's keywords and host lists
            name = rng.choice(["ALL", "all", "All", "aLl", "gpu[001-512]", "n1,n2", "n1 state=resume",
                               "-x", "--help", "a=b", "n[1]", "n1\nn2", "", " n1"])
        elif kind == 2:  # too long
            name = "n" * rng.randint(253, 300)
        else:  # mostly plain with hostile characters mixed in
            alphabet = plain + list("._-") + hostile
            name = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 20)))
        names.append(name)
    with tempfile.TemporaryDirectory(prefix="fabcheck_names_") as tmp:
        tmp = pathlib.Path(tmp)
        (tmp / "names").write_bytes(b"\0".join(n.encode() for n in names) + b"\0")
        verdicts = subprocess.run(
            ["bash", "-c", 'source "$1"; while IFS= read -r -d "" name; do '
             'if valid_node_name "$name"; then echo yes; else echo no; fi; done < "$2"', "names",
             str(ROOT / "scripts" / "lib" / "node_name.sh"), str(tmp / "names")],
            capture_output=True, text=True, check=True).stdout.split()
        check(len(verdicts) == len(names), f"{len(verdicts)} verdicts for {len(names)} names")
        accepted = [n for n, v in zip(names, verdicts) if v == "yes"]
        for host in hosts:
            check(verdicts[names.index(host)] == "yes", f"the plain host name {host!r} is refused")
        (tmp / "slurm.conf").write_text("ClusterName=names\nSlurmctldHost=localhost\n"
                                        "NodeName=n1\nPartitionName=p Nodes=n1\n")
        env = {**os.environ, "SLURM_CONF": str(tmp / "slurm.conf")}
        distinct = sorted(set(accepted))
        for name in distinct:
            check(not name.startswith("-") and "=" not in name and name.lower() != "all",
                  f"accepted {name!r}")
        # Slurm's parser on every distinct accepted name, in batches (one scontrol call each).
        for name in distinct:
            expanded = subprocess.run(["scontrol", "show", "hostnames", name], capture_output=True,
                                      text=True, env=env, timeout=30).stdout.split("\n")
            check(expanded[:-1] == [name] and expanded[-1] == "",
                  f"accepted {name!r}, which Slurm reads as {expanded[:-1]!r}")
    refused = len(names) - len(accepted)
    print(f"node names: {len(names)} random, {len(accepted)} accepted ({len(distinct)} distinct, "
          f"each one host to Slurm), {refused} refused; {len(hosts)} plain host names all accepted")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("scenario")
    parser.add_argument("--fabcheck", required=True)
    parser.add_argument("--record-render")
    a = parser.parse_args()
    scenarios = {name[len("scenario_"):].replace("_", "-"): function
                 for name, function in globals().items() if name.startswith("scenario_")}
    if a.scenario not in scenarios:
        fail(f"unknown scenario {a.scenario}; known: {', '.join(sorted(scenarios))}")
    scenarios[a.scenario](a)
    print("PASS")


if __name__ == "__main__":
    main()
