#!/usr/bin/env python3
"""Reliability under mpirun: a rank stopped (mid-collective, at start-up, after its last
checkpoint), killed, or interrupted, and the launcher killed. Each scenario checks that the run ends
within its bound with exit 3, naming the rank and host, and that what is on disk says so. One
scenario per invocation (see tests/mpi/CMakeLists.txt)."""
import argparse
import json
import os
import pathlib
import signal
import socket
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
MPIRUN = str(ROOT / "scripts" / "mpirun.sh")
PROFILE = str(ROOT / "tests" / "fixtures" / "profiles" / "integration.toml")
HOST = socket.gethostname()


def fail(message):
    print("FAIL: " + message, flush=True)
    sys.exit(1)


def processes(out, rank, comm):
    """Pids of this run's processes of `rank` whose name is `comm` ("fabcheck": the rank itself,
    "fabcheck-watch": its sentinel)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            name = pathlib.Path(f"/proc/{pid}/comm").read_text().strip()
            environ = pathlib.Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            cmdline = pathlib.Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if name == comm and str(out).encode() in cmdline and \
                f"OMPI_COMM_WORLD_RANK={rank}".encode() in environ:
            found.append(int(pid))
    return found


def wait_for(predicate, seconds, what):
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    fail(f"{what} within {seconds} s")


def start(out, args, launcher=None):
    command = (launcher or [MPIRUN, "2"]) + [ARGS.fabcheck, "run", "--profile", PROFILE,
                                             "--out", str(out)] + args
    print("$ " + " ".join(command), flush=True)
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True), time.time()


def finish(process, started, bound):
    try:
        stdout, stderr = process.communicate(timeout=bound + 30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        for pid in processes_of_session(process.pid):
            os.kill(pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        print(stdout, stderr)
        fail(f"still running {bound + 30:.0f} s after the start: hung")
    took = time.time() - started
    print(stdout)
    print(stderr, file=sys.stderr)
    print(f"exit {process.returncode} after {took:.1f} s", flush=True)
    if took > bound:
        fail(f"answered after {took:.1f} s, bound {bound} s")
    return process.returncode, stdout, stderr


def processes_of_session(session):
    pids = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if os.getsid(int(pid)) == session:
                    pids.append(int(pid))
            except OSError:
                pass
    return pids


def read_jsonl(path):
    records = []
    for number, line in enumerate(path.read_text().split("\n"), 1):
        if line == "":
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as error:
            fail(f"{path}:{number}: not a whole JSON record: {error}")
    if path.read_text() and not path.read_text().endswith("\n"):
        fail(f"{path}: last record cut short")
    return records


def check_incomplete(out, named, failed=True):
    """summary.json says incomplete (exit 3) naming `named`; with `failed`, an ERROR finding too."""
    summary = json.loads((out / "summary.json").read_text())
    findings = read_jsonl(out / "findings.jsonl")
    read_jsonl(out / "measurements.jsonl")
    reason = summary.get("incomplete_reason") or ""
    if summary["exit_code"] != 3 or named not in reason:
        fail(f"summary: exit_code {summary['exit_code']}, incomplete_reason {reason!r}; "
             f"expected 3 naming {named!r}")
    if summary.get("finished_utc") is not None:
        fail("summary of an incomplete run has a finished_utc")
    errors = [f for f in findings if f["severity"] == "error" and named in f["message"]]
    if failed and not errors:
        fail(f"no ERROR finding naming {named!r}: {findings}")
    # One event, one ERROR: the last words are written once, by whoever claims them first.
    if len(errors) > 1:
        fail(f"{len(errors)} ERROR findings naming {named!r}, expected one: {errors}")
    errored = [e for e in summary.get("probes", {}).get("errored", [])
               if named in (e.get("message") or "")]
    if len(errored) > 1:
        fail(f"summary lists {len(errored)} errored entries naming {named!r}, expected one")
    return summary


def no_process_left(out):
    time.sleep(0.5)
    for rank in (0, 1):
        for comm in ("fabcheck", "fabcheck-watch"):
            left = processes(out, rank, comm)
            if left:
                for pid in left:
                    os.kill(pid, signal.SIGKILL)
                fail(f"rank {rank} {comm} still running after the run ended: {left}")


def scenario_stop_rank0(tmp):
    """SIGSTOP of rank 0 mid-collective (the old watchdog lived there and was stopped with it)."""
    out = tmp / "run"
    process, started = start(out, ["--probes", "coll.all_reduce", "--sizes", "64M:256M:2",
                                   "--iters", "200", "--warmup", "0", "--timeout", "10"])
    wait_for(lambda: (out / "summary.json").exists(), 60, "no summary.json")
    time.sleep(1)
    pids = wait_for(lambda: processes(out, 0, "fabcheck"), 10, "rank 0 not found")
    stopped_at = time.time()
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    code, _, stderr = finish(process, stopped_at, 20)
    if code != 3:
        fail(f"exit {code}, expected 3")
    if f"rank 0 ({HOST}) stopped" not in stderr:
        fail("stderr does not name the stopped rank 0 and its host")
    check_incomplete(out, f"rank 0 ({HOST}) stopped")
    no_process_left(out)


def scenario_stop_startup(tmp):
    """SIGSTOP of rank 0 at start-up: the moment its process appears (before its sentinel is
    forked: its peers' sentinels on this host find it), and once its sentinel exists (in MPI_Init
    or the watch channel's set-up). The run ends within the start-up bound, naming rank 0."""
    for case in ("first sight", "after the fork"):
        out = tmp / ("run-" + case.replace(" ", "-"))
        process, started = start(out, ["--probes", "coll.all_reduce", "--sizes", "1K",
                                       "--iters", "5"])
        if case == "first sight":
            pids = wait_for(lambda: processes(out, 0, "fabcheck"), 30, "rank 0 not started")
        else:
            wait_for(lambda: processes(out, 0, "fabcheck-watch"), 30, "rank 0's sentinel not started")
            pids = processes(out, 0, "fabcheck")
        for pid in pids:
            os.kill(pid, signal.SIGSTOP)
        forked = bool(processes(out, 0, "fabcheck-watch"))
        code, _, stderr = finish(process, started, 25)
        print(f"{case}: stopped {pids} (sentinel forked: {forked}), exit {code}", flush=True)
        if code != 3:
            fail(f"{case}: exit {code}, expected 3")
        if f"rank 0 ({HOST}) stopped" not in stderr:
            fail(f"{case}: stderr does not name rank 0 and its host")
        no_process_left(out)


def scenario_stop_after_last_checkpoint(tmp):
    """SIGSTOP of rank 1 once the final summary is written (finalize, exit): still bounded, and
    the summary then says the run did not finish."""
    for attempt in range(5):
        out = tmp / f"run-{attempt}"
        process, started = start(out, ["--probes", "coll.all_reduce", "--sizes", "1K",
                                       "--iters", "5"])

        def final_summary():
            try:
                return json.loads((out / "summary.json").read_text()).get("finished_utc")
            except (OSError, ValueError):
                return None

        wait_for(final_summary, 60, "no final summary")
        pids = processes(out, 1, "fabcheck")
        for pid in pids:
            os.kill(pid, signal.SIGSTOP)
        code, _, stderr = finish(process, time.time(), 20)
        if not pids or code == 0:
            print(f"attempt {attempt}: rank 1 had already exited; again", flush=True)
            continue
        if code != 3:
            fail(f"exit {code}, expected 3")
        check_incomplete(out, f"rank 1 ({HOST}) stopped")
        no_process_left(out)
        return
    fail("rank 1 always exited before it could be stopped")


def scenario_kill_rank1(tmp):
    """SIGKILL of rank 1 (what the OOM killer does): the run ends at once, naming it."""
    out = tmp / "run"
    process, started = start(out, ["--probes", "coll.all_reduce", "--sizes", "1K",
                                   "--iters", "100000000", "--timeout", "30"])
    wait_for(lambda: (out / "summary.json").exists(), 60, "no summary.json")
    time.sleep(1)
    pids = wait_for(lambda: processes(out, 1, "fabcheck"), 10, "rank 1 not found")
    killed_at = time.time()
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    code, _, stderr = finish(process, killed_at, 10)
    if code != 3:
        fail(f"exit {code}, expected 3")
    check_incomplete(out, f"rank 1 ({HOST}) was killed by SIGKILL")
    no_process_left(out)


def scenario_kill_rank0(tmp):
    """SIGKILL of rank 0: its sentinel writes the last words, once (they were repeated on every
    pass of its loop until the others had gone: 7 ERROR findings for one kill)."""
    out = tmp / "run"
    process, started = start(out, ["--probes", "coll.all_reduce", "--sizes", "1K",
                                   "--iters", "100000000", "--timeout", "30"])
    wait_for(lambda: (out / "summary.json").exists(), 60, "no summary.json")
    time.sleep(1)
    pids = wait_for(lambda: processes(out, 0, "fabcheck"), 10, "rank 0 not found")
    killed_at = time.time()
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    code, _, stderr = finish(process, killed_at, 10)
    if code != 3:
        fail(f"exit {code}, expected 3")
    check_incomplete(out, f"rank 0 ({HOST}) was killed by SIGKILL")
    no_process_left(out)


def scenario_interrupt(tmp):
    """SIGINT/SIGTERM to the launcher, to its process group, and to one rank: exit 3 from
    scripts/mpirun.sh, and a summary saying the run was interrupted and by what."""
    cases = [("SIGINT to mpirun.sh", "launcher", signal.SIGINT, "interrupted by"),
             ("SIGTERM to mpirun.sh", "launcher", signal.SIGTERM, "interrupted by"),
             ("SIGINT to the process group", "group", signal.SIGINT, "interrupted by"),
             ("SIGTERM to rank 1", "rank 1", signal.SIGTERM, f"rank 1 ({HOST}): interrupted by SIGTERM")]
    for index, (name, target, number, named) in enumerate(cases):
        out = tmp / f"run-{index}"
        process, _ = start(out, ["--probes", "coll.all_reduce", "--sizes", "1K",
                                 "--iters", "100000000", "--timeout", "60"])
        wait_for(lambda: (out / "summary.json").exists(), 60, "no summary.json")
        time.sleep(1)
        signalled_at = time.time()
        if target == "launcher":
            os.kill(process.pid, number)
        elif target == "group":
            os.killpg(process.pid, number)
        else:
            for pid in wait_for(lambda: processes(out, 1, "fabcheck"), 10, "rank 1 not found"):
                os.kill(pid, number)
        code, _, _ = finish(process, signalled_at, 15)
        print(f"{name}: exit {code}", flush=True)
        if code != 3:
            fail(f"{name}: exit {code}, expected 3")
        check_incomplete(out, named, failed=False)
        no_process_left(out)


def scenario_launcher_killed(tmp):
    """SIGKILL of mpirun during storage.seq_write: the sentinels see their launcher gone and end
    their ranks, which remove their scratch files; nothing is left, no process stays."""
    target = tmp / "target"
    target.mkdir()
    out = tmp / "run"
    profile = str(ROOT / "tests" / "fixtures" / "storage" / "storage-smoke.toml")
    command = ["mpirun", "--oversubscribe", "-np", "2", ARGS.fabcheck, "run", "--profile", profile,
               "--probes", "storage.seq_write", "--storage-path", str(target), "--opt",
               "storage.file_size=64M", "--opt", "storage.duration_s=60", "--out", str(out)]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    print("$ " + " ".join(command), flush=True)
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, env=env, start_new_session=True)
    wait_for(lambda: list(target.glob(".fabcheck-*/*.dat")) or list(target.glob(".fabcheck-*/f*")),
             60, "no scratch file appeared")
    time.sleep(1)
    left_before = sorted(str(p) for p in target.rglob("*"))
    print(f"scratch before the kill: {left_before}", flush=True)
    process.kill()  # mpirun, SIGKILL
    process.communicate()
    deadline = time.time() + 10
    while time.time() < deadline and (list(target.iterdir()) or processes(out, 0, "fabcheck") or
                                      processes(out, 1, "fabcheck")):
        time.sleep(0.1)
    left = sorted(str(p) for p in target.rglob("*"))
    print(f"left {time.time() - deadline + 10:.1f} s after the kill: {left}", flush=True)
    no_process_left(out)
    if left:
        fail(f"scratch left behind after mpirun was killed: {left}")


def scenario_size_refusal(tmp):
    """Sizes whose buffers cannot fit on this host (64G: 128 GiB a rank), or that move nothing
    (1 B: no element per rank): exit 2 before anything starts, naming the size and the memory;
    no run directory, no rank killed by the OOM killer."""
    for sizes, named in (("64G", "coll.all_reduce at 64GiB needs 128GiB"),
                         ("1", "has nothing to move")):
        out = tmp / f"run-{sizes}"
        process, started = start(out, ["--probes", "coll.all_reduce", "--sizes", sizes])
        code, _, stderr = finish(process, started, 20)
        if code != 2 or named not in stderr:
            fail(f"--sizes {sizes}: exit {code}, stderr {stderr!r}; expected 2 naming {named!r}")
        if sizes == "64G" and "of memory available" not in stderr:
            fail("the refusal does not say how much memory there is")
        if out.exists():
            fail(f"--sizes {sizes}: {out} was created")


def scenario_odd_paths(tmp):
    """Paths that are not what the option asks for are refused (exit 2) saying what they are, at
    once (a FIFO never blocks), and nothing is written."""
    (tmp / "folder").mkdir()
    os.mkfifo(tmp / "fifo")
    (tmp / "loop-a").symlink_to(tmp / "loop-b")
    (tmp / "loop-b").symlink_to(tmp / "loop-a")
    (tmp / "dangling").symlink_to(tmp / "nothing")
    out = str(tmp / "out")
    base = [ARGS.fabcheck, "run", "--single-process", "--probes", "coll.all_reduce"]
    cases = [
        (base + ["--profile", str(tmp / "folder"), "--out", out], "is a directory"),
        (base + ["--profile", str(tmp / "fifo"), "--out", out], "is a named pipe (FIFO)"),
        (base + ["--profile", str(tmp / "loop-a"), "--out", out], "symbolic link that loops"),
        (base + ["--out", str(tmp / "dangling")], "symbolic link to " + str(tmp / "nothing")),
        ([ARGS.fabcheck, "run", "--single-process", "--probes", "storage.seq_write",
          "--storage-path", "/proc", "--out", out], "is on procfs, a kernel interface"),
        ([ARGS.fabcheck, "nccl-log", str(tmp / "folder")], "is a directory, not an NCCL log"),
        ([ARGS.fabcheck, "nccl-log", str(tmp / "fifo")], "is a named pipe (FIFO), not an NCCL"),
    ]
    for command, named in cases:
        result = subprocess.run(command, capture_output=True, text=True, timeout=20)
        print(f"{' '.join(command[1:])}: exit {result.returncode}: {result.stderr.strip()}")
        if result.returncode != 2 or named not in result.stderr:
            fail(f"expected exit 2 saying {named!r}")
        if pathlib.Path(out).exists():
            fail(f"{out} was created")


def scenario_unknown_values(tmp):
    """What cannot be read or understood is never a pass: a sysfs tree with a width "banana" and a
    rate "fast" is ERROR naming each file (exit 3); a mistyped tree, or an absurd port count, is
    refused (exit 2) naming it."""
    tree = tmp / "sysfs"
    shutil.copytree(ROOT / "tests" / "fixtures" / "fabric" / "sysfs" / "healthy", tree,
                    symlinks=True)
    gpu = (tree / "sys" / "bus" / "pci" / "devices" / "0000:18:00.0").resolve()
    port = (tree / "sys" / "class" / "infiniband" / "mlx5_0").resolve() / "ports" / "1"
    (gpu / "current_link_width").write_text("banana\n")
    (port / "rate").write_text("fast\n")
    inventory = [ARGS.fabcheck, "inventory", "--expect-ib-rate", "400"]
    result = subprocess.run(inventory + ["--sysfs-root", str(tree)], capture_output=True,
                            text=True, timeout=20)
    print(f"garbage values: exit {result.returncode}")
    for named in ['current_link_width: holds "banana"', 'ports/1/rate: holds "fast"']:
        if named not in result.stdout:
            fail(f"not named: {named!r}\n{result.stdout}")
    if result.returncode != 3 or "verdict: PASS" in result.stdout:
        fail(f"expected exit 3 and no PASS, got {result.returncode}\n{result.stdout}")
    profile = tmp / "ports.toml"
    profile.write_text('[profile]\nname = "p"\n[node]\nib_ports = 4294967296\n')
    cases = [
        (inventory + ["--sysfs-root", str(tmp / "no-such-tree")], "--sysfs-root"),
        (inventory + ["--sysfs-root", str(tree), "--counters-after", str(tmp / "typo")],
         "--counters-after " + str(tmp / "typo") + ": is missing"),
        (inventory + ["--sysfs-root", str(tree), "--profile", str(profile)],
         "ib_ports = \"4294967296\": expected a whole number from 0 to 1024"),
    ]
    for command, named in cases:
        result = subprocess.run(command, capture_output=True, text=True, timeout=20)
        print(f"{' '.join(command[1:])}: exit {result.returncode}: {result.stderr.strip()}")
        if result.returncode != 2 or named not in result.stderr:
            fail(f"expected exit 2 saying {named!r}")


def scenario_unreadable_values(tmp):
    """As an unprivileged user (setpriv to nobody), sysfs values it cannot read are ERRORs naming
    each file (exit 3): a GPU's link width, and the RDMA folder itself, which must not be reported
    as "no RDMA device"; a FIFO in place of an attribute is named for what it is."""
    tmp.chmod(0o755)
    tree = tmp / "sysfs"
    shutil.copytree(ROOT / "tests" / "fixtures" / "fabric" / "sysfs" / "healthy", tree,
                    symlinks=True)
    for path in [tree, *tree.rglob("*")]:
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)
    gpu = (tree / "sys" / "bus" / "pci" / "devices" / "0000:18:00.0").resolve()
    (gpu / "current_link_width").chmod(0o000)
    nvme_width = tree / "sys" / "bus" / "pci" / "devices" / "0000:0b:00.0"
    (tree / "sys" / "class" / "infiniband").chmod(0o000)
    command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", ARGS.fabcheck,
               "inventory", "--sysfs-root", str(tree), "--expect-ib-ports", "8"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=20)
    print(f"as nobody: exit {result.returncode}")
    named = [f"{tree}/sys/bus/pci/devices/0000:18:00.0/current_link_width: cannot read: Permission denied",
             f"{tree}/sys/class/infiniband: cannot list: Permission denied"]
    for text in named:
        if text not in result.stdout:
            fail(f"not named: {text!r}\n{result.stdout}")
    if "no RDMA device" in result.stdout or "no PCIe link state" in result.stdout:
        fail("an unreadable value was reported as absent")
    if result.returncode != 3 or "verdict: PASS" in result.stdout:
        fail(f"expected exit 3 and no PASS, got {result.returncode}\n{result.stdout}")
    (tree / "sys" / "class" / "infiniband").chmod(0o755)
    (gpu / "current_link_width").chmod(0o644)
    width = nvme_width / "current_link_width"
    width.unlink()
    os.mkfifo(width)
    result = subprocess.run([ARGS.fabcheck, "inventory", "--sysfs-root", str(tree)],
                            capture_output=True, text=True, timeout=20)
    print(f"a FIFO for an attribute: exit {result.returncode}")
    if f"{width}: is a named pipe (FIFO), not an attribute file" not in result.stdout or \
            result.returncode != 3:
        fail(f"the FIFO was not named (exit {result.returncode})\n{result.stdout}")


SCENARIOS = {
    "stop-rank0": scenario_stop_rank0,
    "stop-startup": scenario_stop_startup,
    "stop-after-last-checkpoint": scenario_stop_after_last_checkpoint,
    "kill-rank1": scenario_kill_rank1,
    "kill-rank0": scenario_kill_rank0,
    "interrupt": scenario_interrupt,
    "launcher-killed": scenario_launcher_killed,
    "size-refusal": scenario_size_refusal,
    "odd-paths": scenario_odd_paths,
    "unknown-values": scenario_unknown_values,
    "unreadable-values": scenario_unreadable_values,
}

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("scenario", choices=SCENARIOS)
    parser.add_argument("--fabcheck", required=True)
    ARGS = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        SCENARIOS[ARGS.scenario](pathlib.Path(directory))
    print("PASS")
