#!/usr/bin/env python3
"""MPI integration checks: runs fabcheck under mpirun as a user would and checks the run directory,
the figures, the verdict and the exit code. One scenario per invocation (see tests/mpi/CMakeLists.txt)."""
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
MPIRUN = str(ROOT / "scripts" / "mpirun.sh")
FIXTURES = ROOT / "tests" / "fixtures" / "profiles"
sys.path.insert(0, str(ROOT / "tests" / "lib"))
import cpu_cgroup  # noqa: E402


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def run(args, fabcheck, np, extra, timeout=600, env=None):
    command = [MPIRUN, str(np), fabcheck] + extra
    print("$ " + (" ".join(f"{k}={v}" for k, v in (env or {}).items()) + " ").lstrip()
          + " ".join(command), flush=True)
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                            env=dict(os.environ, **env) if env else None)
    print(result.stdout)
    print(result.stderr, file=sys.stderr)
    return result


def read_jsonl(path):
    records = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as error:
            fail(f"{path}:{number}: not JSON: {error}")
    return records


def check_files(out):
    for name in ("measurements.jsonl", "findings.jsonl", "summary.json"):
        if not (out / name).is_file():
            fail(f"{out / name} missing")
    measurements = read_jsonl(out / "measurements.jsonl")
    findings = read_jsonl(out / "findings.jsonl")
    summary = json.loads((out / "summary.json").read_text())
    for record in measurements + findings + [summary]:
        if record.get("schema_version") != 1:
            fail(f"record without schema_version 1: {record}")
    return measurements, findings, summary


def scenario_collective(a):
    """One collective probe: files, busbw > 0 at every size, no wrong element, verdict pass."""
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "run"
        result = run(a, a.fabcheck, a.np, ["run", "--probes", a.probe, "--sizes", "8:4M:8",
                                            "--iters", "5", "--warmup", "1", "--placement", "both",
                                            "--profile", str(FIXTURES / "integration.toml"),
                                            "--out", str(out)])
        if result.returncode != 0:
            fail(f"exit code {result.returncode}, expected 0")
        measurements, findings, summary = check_files(out)
        mine = [m for m in measurements if m["probe"] == a.probe]
        busbw = [m for m in mine if m["metric"] == "busbw"]
        wrong = [m for m in mine if m["metric"] == "wrong_elements"]
        if len(busbw) < 6:
            fail(f"expected busbw at 6 sizes or more (both placements), got {len(busbw)}")
        for m in busbw:
            if not m["value"] > 0:
                fail(f"busbw not above 0 at {m['size_bytes']} B: {m['value']}")
            if m["params"]["ranks"] != str(a.np):
                fail(f"ranks {m['params']['ranks']} != {a.np}")
        for m in wrong:
            if m["value"] != 0:
                fail(f"{m['value']} wrong elements at {m['size_bytes']} B ({m['params']})")
            if [f["rank"] for f in m["by_rank"]] != list(range(a.np)):
                fail(f"by_rank does not list ranks 0..{a.np - 1}: {m['by_rank']}")
            if any(not f["host"] or f["value"] != 0 for f in m["by_rank"]):
                fail(f"by_rank without a host or with wrong elements: {m['by_rank']}")
        if summary["verdict"] != "pass" or summary["exit_code"] != 0:
            fail(f"summary verdict {summary['verdict']} exit {summary['exit_code']}")
        if summary["ranks"] != a.np or a.probe not in summary["probes"]["run"]:
            fail(f"summary ranks/probes wrong: {summary['ranks']} {summary['probes']}")
        if not any(f["severity"] == "pass" and f["probe"] == a.probe for f in findings):
            fail("no PASS finding for the probe")
        if "#wrong" not in result.stdout or "busbw" not in result.stdout:
            fail("no nccl-tests-style table on the console")
        if a.h5:
            check_hdf5(out / "run.h5", len(measurements), len(findings))


def check_hdf5(path, measurements, findings):
    if not path.is_file():
        fail(f"{path} missing")
    code = ("import h5py,sys; f=h5py.File(sys.argv[1]); "
            "print(len(f['measurements']), len(f['findings']), f.attrs['schema_version'])")
    out = subprocess.run(["/usr/bin/python3", "-c", code, str(path)], capture_output=True, text=True)
    if out.returncode != 0:
        fail(f"h5py could not read {path}: {out.stderr}")
    got = out.stdout.split()
    if [int(got[0]), int(got[1]), int(got[2])] != [measurements, findings, 1]:
        fail(f"run.h5 holds {got}, JSONL holds {measurements} measurements, {findings} findings")

MPI_TYPES = ["int8", "uint8", "int32", "uint32", "int64", "uint64", "float", "double"]
MPI_OPS = ["sum", "prod", "min", "max"]
REDUCING = ("coll.all_reduce", "coll.reduce_scatter")
ALL_COLLECTIVES = REDUCING + ("coll.all_gather", "coll.broadcast", "coll.alltoall", "coll.sendrecv")


def scenario_dtypes(a):
    """--dtype all --op all over the MPI backend: every combination MPI has (8 types; sum, prod,
    min, max on the reducing collectives, redop none on the others) measured at every size with 0
    wrong elements on every rank; half, bfloat16 and avg left out, said once per probe as a WAIVED
    record naming why; the console's table has each combination under its own header.

    Open MPI 4.1's avx op component saturates MPI_SUM of 8-bit integers over vectors (a 64-element
    MPI_Allreduce of int8 100 + 100 gives 127, of uint8 200 + 200 gives 255; one element wraps to
    -56 and 144 as C and NCCL do): fabcheck counts those as wrong, as it should. This check of the
    machinery turns that component off (OMPI_MCA_op=^avx), so Open MPI's scalar ops, which wrap,
    run; scenario_dtypes_int8_saturation shows the count where the component is there."""
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "run"
        sizes = ["64", "4K"]
        result = run(a, a.fabcheck, a.np, ["run", "--probes", ",".join(ALL_COLLECTIVES),
                                            "--dtype", "all", "--op", "all",
                                            "--sizes", ",".join(sizes), "--iters", "2",
                                            "--warmup", "1", "--placement", "both",
                                            "--profile", str(FIXTURES / "integration.toml"),
                                            "--out", str(out)], env={"OMPI_MCA_op": "^avx"})
        if result.returncode != 0:
            fail(f"exit code {result.returncode}, expected 0")
        measurements, _, summary = check_files(out)
        for probe in ALL_COLLECTIVES:
            mine = [m for m in measurements if m["probe"] == probe]
            ops = MPI_OPS if probe in REDUCING else ["none"]
            wrong = {}
            for m in mine:
                if m["metric"] == "wrong_elements" and m["status"] == "ok":
                    key = (m["params"]["type"], m["params"]["redop"], m["size_bytes"],
                           m["params"]["placement"])
                    if key in wrong:
                        fail(f"{probe}: two wrong_elements records for {key}")
                    wrong[key] = m
            expected = {(t, o) for t in MPI_TYPES for o in ops}
            seen = {(t, o) for t, o, _, _ in wrong}
            if seen != expected:
                fail(f"{probe}: combinations {sorted(seen)} != {sorted(expected)}")
            for (t, o, size, _), m in wrong.items():
                if m["value"] != 0 or any(f["value"] != 0 for f in m["by_rank"]):
                    fail(f"{probe} {t}/{o} at {size} B: {m['value']} wrong ({m['by_rank']})")
                if len(m["by_rank"]) != a.np:
                    fail(f"{probe} {t}/{o}: by_rank {m['by_rank']}")
            sizes_of = {}
            for t, o, size, _ in wrong:
                sizes_of.setdefault((t, o), set()).add(size)
            if any(len(found) != len(sizes) for found in sizes_of.values()):
                fail(f"{probe}: not every size per combination: {sizes_of}")
            # The element size decides the count: 4 KiB of int8 is 4096 elements, of double 512.
            for m in mine:
                if m["metric"] == "busbw" and m["size_bytes"] == 4096 and probe == "coll.all_reduce":
                    width = {"int8": 1, "uint8": 1, "int32": 4, "uint32": 4, "float": 4}.get(
                        m["params"]["type"], 8)
                    if m["params"]["count"] != str(4096 // width):
                        fail(f"{probe} {m['params']['type']}: count {m['params']['count']}")
            left_out = [m for m in mine if m["status"] == "waived" and m["metric"] == "wrong_elements"]
            if len(left_out) != 1:
                fail(f"{probe}: {len(left_out)} records of what was left out, expected 1")
            said = left_out[0]["message"]
            needed = ["half", "bfloat16", "no standard 16-bit floating type"]
            if probe in REDUCING:
                needed += ["int8/avg, uint8/avg", "no average reduction", "half/sum, half/prod"]
            for words in needed:
                if words not in said:
                    fail(f"{probe}: left-out record does not say {words!r}: {said!r}")
            if probe not in REDUCING and "avg" in said:
                fail(f"{probe}: redop none, yet avg left out: {said!r}")
        # Each combination a table of its own: the header again, and rows naming type and redop.
        if result.stdout.count("#wrong") < 2 * 4 * 8 + 4 * 8:
            fail("fewer table headers than combinations on the console")
        if not re.search(r"^\s+4096\s+4096\s+int8\s+prod\s+-1\s", result.stdout, re.M):
            fail("no int8/prod row of 4096 elements on the console")
        if not re.search(r"^\s+4096\s+512\s+double\s+none\s+0\s", result.stdout, re.M):
            fail("no double broadcast row (512 elements, redop none, root 0) on the console")
        if "not run (--dtype/--op): int8/avg" not in result.stdout:
            fail("the console does not say what was left out")
        if summary["verdict"] != "pass":
            fail(f"summary verdict {summary['verdict']}")
        prom = (out / "metrics.prom")
        if prom.is_file():
            text = prom.read_text()
            if 'dtype="uint64"' not in text or 'redop="max"' not in text:
                fail("metrics.prom has no dtype/redop labels")
    print("dtypes: every MPI combination verified, the left-out ones stated")


def scenario_dtypes_int8_saturation(a):
    """A wrong result of a non-float type is counted: Open MPI 4.1's avx op component saturates
    MPI_SUM of 8-bit integers over vectors (int8 100 + 100 gives 127, not -56), so an int8 and a
    uint8 all-reduce sum with it show wrong elements on every rank, FAIL (exit 1) naming the type,
    while int32 beside them has none. Skipped (exit 77) where the component is absent or wraps."""
    info = subprocess.run(["ompi_info"], capture_output=True, text=True)
    if "MCA op: avx" not in info.stdout:
        print("SKIP: no avx op component in this Open MPI")
        sys.exit(77)
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "run"
        result = run(a, a.fabcheck, a.np, ["run", "--probes", "coll.all_reduce",
                                            "--dtype", "int8,uint8,int32", "--sizes", "4K",
                                            "--iters", "2", "--warmup", "1",
                                            "--profile", str(FIXTURES / "integration.toml"),
                                            "--out", str(out)], env={"OMPI_MCA_op": "avx"})
        measurements, findings, _ = check_files(out)
        wrong = {m["params"]["type"]: m for m in measurements
                 if m["metric"] == "wrong_elements" and m["status"] == "ok"}
        if set(wrong) != {"int8", "uint8", "int32"}:
            fail(f"types measured: {sorted(wrong)}")
        if wrong["int8"]["value"] == 0 and wrong["uint8"]["value"] == 0:
            print("SKIP: this Open MPI's avx component wraps 8-bit sums (nothing to catch)")
            sys.exit(77)
        if result.returncode != 1:
            fail(f"exit code {result.returncode}, expected 1 (FAIL)")
        for name in ("int8", "uint8"):
            m = wrong[name]
            if m["value"] == 0 or any(f["value"] == 0 for f in m["by_rank"]):
                fail(f"{name}: wrong elements not counted on every rank: {m['by_rank']}")
            said = [f for f in findings if f["severity"] == "fail" and f"(" + name + " sum)" in f["message"]]
            if not said:
                fail(f"no FAIL finding naming {name} sum: {[f['message'] for f in findings]}")
        if wrong["int32"]["value"] != 0:
            fail(f"int32: {wrong['int32']['value']} wrong elements")
        if "WRONG" not in result.stdout:
            fail("the console's table does not say WRONG")
    print(f"saturated 8-bit sums counted: int8 {wrong['int8']['value']:.0f}, "
          f"uint8 {wrong['uint8']['value']:.0f} wrong elements; int32 0")


def scenario_fail_threshold(a):
    """A profile no machine meets: exit 1 with a FAIL naming the probe and the size; evaluate agrees."""
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "run"
        result = run(a, a.fabcheck, a.np, ["run", "--probes", "coll.all_reduce", "--sizes", "64K",
                                            "--iters", "3", "--profile", str(FIXTURES / "impossible.toml"),
                                            "--out", str(out)])
        if result.returncode != 1:
            fail(f"exit code {result.returncode}, expected 1")
        _, findings, summary = check_files(out)
        failed = [f for f in findings if f["severity"] == "fail"]
        if not failed or failed[0]["probe"] != "coll.all_reduce" or failed[0]["size_bytes"] != 65536:
            fail(f"no FAIL finding naming coll.all_reduce at 65536 B: {failed}")
        if "coll.all_reduce" not in failed[0]["message"] or "64KiB" not in failed[0]["message"]:
            fail(f"FAIL message does not name probe and size: {failed[0]['message']}")
        if summary["verdict"] != "fail":
            fail(f"summary verdict {summary['verdict']}")
        # Re-judging the same measurements: against the impossible profile it fails again (1), against
        # the integration profile it passes (0); nothing is rerun.
        for profile, expected in (("impossible.toml", 1), ("integration.toml", 0)):
            again = subprocess.run([a.fabcheck, "evaluate", str(out), "--profile", str(FIXTURES / profile)],
                                   capture_output=True, text=True)
            print(again.stdout, again.stderr)
            if again.returncode != expected:
                fail(f"evaluate with {profile}: exit {again.returncode}, expected {expected}")


def scenario_bad_input(a):
    """Each bad input: exit 2, one message naming file/line/value, no run directory."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        syntax = tmp / "syntax.toml"
        syntax.write_text('[profile]\nname = "x"\n\n[[expect]]\nprobe = "coll.all_reduce"\nmetric = \n')
        unknown_key = tmp / "unknown-key.toml"
        unknown_key.write_text('[profile]\nname = "x"\n\n[[expect]]\nprobe = "coll.all_reduce"\n'
                               'metric = "busbw"\nunit = "GB/s"\npass = 1\nwarn = 0.5\nsource = "s"\n'
                               'colour = "red"\n')
        cases = [
            (["--profile", str(syntax)], f"{syntax}:6"),
            (["--profile", str(unknown_key)], f"{unknown_key}:11"),
            (["--profile", str(FIXTURES / "unknown-metric.toml")], "unknown-metric.toml:10"),
            (["--profile", str(tmp / "missing.toml")], "missing.toml"),
            (["--probes", "coll.all_reduse"], "coll.all_reduse"),
            (["--sizes", "8:1X:2"], "1X"),
            (["--sizes", "1M:8:2"], "1M"),
            (["--pairs", "some"], "some"),
            (["--opt", "pairs.min_gap=1.5"], "1.5"),
        ]
        for extra, named in cases:
            out = tmp / "out"
            args = ["run", "--probes", "coll.all_reduce", "--out", str(out)] + extra
            if "--probes" in extra:
                args = ["run", "--out", str(out)] + extra
            result = run(a, a.fabcheck, a.np, args)
            if result.returncode != 2:
                fail(f"{extra}: exit code {result.returncode}, expected 2")
            if named not in result.stderr:
                fail(f"{extra}: message does not name {named!r}: {result.stderr!r}")
            if out.exists():
                fail(f"{extra}: {out} was created")


def scenario_hang(a):
    """Every process of rank 1 stops (SIGSTOP: the rank and its sentinel) mid-probe: the watchdog
    no longer hears rank 1 and names it, results so far kept, exit 3."""
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "run"
        command = [MPIRUN, str(a.np), a.fabcheck, "run", "--probes", "coll.all_reduce", "--sizes", "1K",
                   "--iters", "100000000", "--timeout", "4", "--profile",
                   str(FIXTURES / "integration.toml"), "--out", str(out)]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 120
        while not (out / "summary.json").exists() and time.time() < deadline:
            time.sleep(0.1)
        time.sleep(1)
        stopped = None
        for pid in os.listdir("/proc"):
            if not pid.isdigit() or int(pid) == process.pid:
                continue
            try:
                environ = pathlib.Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
                cmdline = pathlib.Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if str(out).encode() in cmdline and b"OMPI_COMM_WORLD_RANK=1" in environ:
                os.kill(int(pid), signal.SIGSTOP)
                stopped = int(pid)
        if stopped is None:
            process.kill()
            fail("could not find rank 1 to stop")
        stdout, stderr = process.communicate(timeout=120)
        print(stdout, stderr)
        if process.returncode != 3:
            fail(f"exit code {process.returncode}, expected 3")
        _, findings, summary = check_files(out)
        errors = [f for f in findings if f["severity"] == "error"]
        if not errors or "rank 1" not in errors[0]["message"]:
            fail(f"no ERROR finding naming rank 1: {errors}")
        if "rank 1" not in stderr:
            fail("stderr does not name rank 1")
        if summary["verdict"] != "incomplete" or "rank 1" not in (summary["incomplete_reason"] or ""):
            fail(f"summary: {summary['verdict']} {summary['incomplete_reason']}")


def scenario_gate(a):
    """fabcheck gate: the gate plan runs, waives what does not apply here, exits by its verdict."""
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "run"
        result = run(a, a.fabcheck, a.np, ["gate", "--profile", str(FIXTURES / "integration.toml"),
                                            "--out", str(out)])
        if result.returncode != 0:
            fail(f"exit code {result.returncode}, expected 0")
        _, findings, summary = check_files(out)
        for probe in ("node.preflight", "node.kernel_log", "host.cpu", "host.numa", "coll.all_reduce"):
            if probe not in summary["probes"]["run"]:
                fail(f"{probe} did not run: {summary['probes']}")
        if summary["plan"] != "gate":
            fail(f"summary plan: {summary['plan']}")
        # On a shared machine other processes may take CPU during host.cpu's window: a warning
        # about them is the gate working, anything else must pass.
        warnings = [f for f in findings if f["severity"] == "warn"]
        if any(f["probe"] != "host.cpu" for f in warnings):
            fail(f"warnings beyond host.cpu: {warnings}")
        if "verdict: PASS" not in result.stdout and not (warnings and "verdict: WARN" in result.stdout):
            fail("no verdict line on the console")


def scenario_pieces(a):
    """Defect 12's path on real MPI: every collective with at most 1000 elements per MPI call, so each
    operation goes in pieces (derived block types, per-root reductions); every element verified."""
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "run"
        probes = ",".join("coll." + c for c in ("all_reduce", "all_gather", "reduce_scatter",
                                                 "broadcast", "alltoall", "sendrecv"))
        result = run(a, a.fabcheck, a.np, ["run", "--probes", probes, "--sizes", "16K:1M:8",
                                            "--iters", "4", "--warmup", "1", "--placement", "both",
                                            "--opt", "mpi.max_count=1000",
                                            "--profile", str(FIXTURES / "integration.toml"),
                                            "--out", str(out)])
        if result.returncode != 0:
            fail(f"exit code {result.returncode}, expected 0")
        measurements, _, _ = check_files(out)
        wrong = [m for m in measurements if m["metric"] == "wrong_elements"]
        if len(wrong) < 6 * 2:
            fail(f"expected wrong_elements for 6 collectives at 2 sizes or more, got {len(wrong)}")
        for m in wrong:
            if m["value"] != 0:
                fail(f"{m['probe']}: {m['value']} wrong elements at {m['size_bytes']} B ({m['params']})")
# Plans too long for CI run here with smaller sizes, fewer iterations and shorter storage phases;
# the plan's own options are still validated and read, and every family it includes still runs.
PLAN_BOUNDS = {
    "acceptance": ["--sizes", "8:64K:8", "--iters", "3", "--warmup", "1",
                   "--opt", "storage.file_size=8M", "--opt", "storage.ckpt_size=4M",
                   "--opt", "storage.duration_s=0.3", "--opt", "storage.md_files=50",
                   "--opt", "storage.loader_bytes=4M", "--opt", "storage.loader_shard=1M",
                   "--opt", "storage.loader_sample=32K", "--opt", "storage.loader_workers=1,2",
                   "--opt", "host.mem_bw.bytes=16M", "--opt", "host.mem_bw.repeats=1",
                   "--opt", "host.cpu.window_s=0.5", "--opt", "sdc.duration_s=0.3",
                   "--opt", "sdc.memory_fraction=0.01"],
    "sweep": ["--sizes", "64K", "--iters", "2", "--opt", "sdc.duration_s=0.3"],
}


def list_json(fabcheck, *flags):
    result = subprocess.run([fabcheck, "list", "--json", *flags], capture_output=True, text=True,
                            timeout=120)
    if result.returncode != 0:
        fail(f"fabcheck list --json {' '.join(flags)}: exit {result.returncode}: {result.stderr}")
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def scenario_plans(a):
    """Every built-in plan (from `fabcheck list --plans`), with and without --storage-path on /tmp:
    exit 0, every probe of the plan run or waived (none errored), storage probes run only with a
    path, nothing left in the storage directory. The gate goes through `fabcheck gate` as the
    README shows it; the others through `run --plan`."""
    plans = list_json(a.fabcheck, "--plans")
    families = {probe["id"]: probe["family"] for probe in list_json(a.fabcheck)}
    if {"gate", "acceptance", "quick"} - {plan["name"] for plan in plans}:
        fail(f"plans listed: {[plan['name'] for plan in plans]}")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        for plan in plans:
            name = plan["name"]
            storage_probes = [p for p in plan["probes"] if families.get(p) == "storage"]
            for with_storage in (False, True):
                out = tmp / f"{name}-{'storage' if with_storage else 'plain'}"
                storage = tmp / f"storage-{name}"
                storage.mkdir(exist_ok=True)
                command = ["gate"] if name == "gate" else ["run", "--plan", name]
                command += ["--profile", str(FIXTURES / "integration.toml"), "--out", str(out)]
                command += PLAN_BOUNDS.get(name, [])
                if with_storage:
                    command += ["--storage-path", str(storage)]
                started = time.monotonic()
                result = run(a, a.fabcheck, a.np, command)
                print(f"plan {name} {'with' if with_storage else 'without'} storage: "
                      f"{time.monotonic() - started:.1f} s wall", flush=True)
                if result.returncode != 0:
                    fail(f"plan {name} (storage {with_storage}): exit {result.returncode}")
                _, _, summary = check_files(out)
                ran = set(summary["probes"]["run"])
                waived = {w["id"]: w["reason"] for w in summary["probes"]["waived"]}
                if summary["plan"] != name:
                    fail(f"summary plan {summary['plan']!r}, expected {name!r}")
                if summary["probes"]["errored"]:
                    fail(f"plan {name}: errored probes {summary['probes']['errored']}")
                for probe in plan["probes"]:
                    if probe not in ran and probe not in waived:
                        fail(f"plan {name}: {probe} neither run nor waived")
                for probe in storage_probes:
                    if with_storage and probe not in ran:
                        fail(f"plan {name}: {probe} did not run with --storage-path "
                             f"({waived.get(probe)})")
                    if not with_storage and waived.get(probe) != "no --storage-path given":
                        fail(f"plan {name}: {probe} without a path: {waived.get(probe)!r}")
                left = list(storage.iterdir())
                if left:
                    fail(f"plan {name}: left in the storage directory: {left}")


def scenario_bad_options(a):
    """Option values nobody validated before: each exit 2 before anything runs, the message naming
    the key (and the family that would own it) or the value and its rule; no run directory."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        cases = [
            (["--opt", "foo=bar"], ["foo=bar", "unknown option", "no probe family reads it"]),
            (["--opt", "coll.sizes.mpi=garbage"],
             ["coll.sizes.mpi=garbage", "expected sizes: MIN:MAX:FACTOR"]),
            (["--opt", "storage.profile=gate"],
             ["storage.profile=gate", "unknown option", "the storage probes read"]),
            (["--opt", "storage.file_sise=1G"], ["did you mean storage.file_size?"]),
            (["--opt", "storage.duration_s=inf"],
             ["storage.duration_s=inf", "not a finite number", "at most 3600"]),
            (["--opt", "ib_counters.interval_s=nan"], ["ib_counters.interval_s=nan"]),
            # A rule across options of a probe this run does not select (storage.loader's) still
            # refuses the combination given, as it did when every storage probe checked it.
            (["--opt", "storage.loader_bytes=1M"],
             ["storage.loader_bytes=1MiB", "smaller than one sample"]),
            (["--placement", "sideways"], ["placement=sideways", "one of out, in, both"]),
            (["--dtype", "foo"], ['--dtype dtype=foo: "foo" is not an accepted value (did you mean '
                                  'float?)', "or all"]),
            (["--op", "sum,mean"], ['"mean" is not an accepted value', "sum, prod, min, max, avg"]),
            (["--dtype", "half"], ["--dtype half: the MPI backend has no half type"]),
            (["--op", "avg"], ["--op avg: the MPI backend has no avg operation"]),
            (["--timeout", "inf"], ['--timeout: "inf" is not a finite number']),
        ]
        for extra, named in cases:
            out = tmp / "out"
            result = run(a, a.fabcheck, a.np, ["run", "--probes", "coll.all_reduce", "--out",
                                               str(out)] + extra)
            if result.returncode != 2:
                fail(f"{extra}: exit code {result.returncode}, expected 2")
            for words in named:
                if words not in result.stderr:
                    fail(f"{extra}: message does not say {words!r}: {result.stderr!r}")
            if out.exists():
                fail(f"{extra}: {out} was created")
        for extra in (["--expect-ib-rate", "-5"], ["--expect-ib-rate", "nan"],
                      ["--counter-interval", "inf"]):
            result = subprocess.run([a.fabcheck, "inventory", *extra], capture_output=True,
                                    text=True, timeout=60)
            print(f"$ fabcheck inventory {' '.join(extra)} -> {result.returncode}: "
                  f"{result.stderr.strip()}")
            if result.returncode != 2 or any(word not in result.stderr for word in extra):
                fail(f"inventory {extra}: exit {result.returncode}: {result.stderr!r}")
        # A plan's command refuses another plan or a probe list with the line that does it.
        for command, said in ((["gate", "--plan", "quick"], "for plan quick: fabcheck run --plan quick"),
                              (["sweep", "--probes", "host.cpu"],
                               "to choose probes: fabcheck run --probes host.cpu")):
            out = tmp / "plan-out"
            result = run(a, a.fabcheck, a.np, command + ["--out", str(out)])
            if result.returncode != 2 or said not in result.stderr or out.exists():
                fail(f"{command}: exit {result.returncode}, {result.stderr!r}")


def scenario_sweep_one_host(a):
    """fabcheck sweep on one host: each node's checks run, coll.node_pairs is waived saying why."""
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "run"
        result = run(a, a.fabcheck, a.np, ["sweep", "--sizes", "64K", "--iters", "2", "--out", str(out)])
        if result.returncode != 0:
            fail(f"exit code {result.returncode}, expected 0")
        _, findings, summary = check_files(out)
        if summary["plan"] != "sweep":
            fail(f"summary plan {summary['plan']}")
        waived = {w["id"]: w["reason"] for w in summary["probes"]["waived"]}
        if "at least 2 hosts" not in waived.get("coll.node_pairs", ""):
            fail(f"coll.node_pairs not waived for want of hosts: {waived}")
        if summary["host_ranks"] != {summary["hosts"][0]: list(range(a.np))}:
            fail(f"host_ranks {summary['host_ranks']}")


PLAN_LINE = re.compile(r"^#   (\S+) +(?:(\d+\.\d) s  (.*)|-  WAIVED here: (.*))$")
TOTAL_LINE = re.compile(r"^# estimated total (\d+\.\d) s \(probes (\d+\.\d) s \+ start-up and "
                        r"writing (\d+\.\d) s\)$")


def printed_plan(stdout):
    """The plan fabcheck printed: {probe: seconds or None when waived}, in order; the total."""
    probes = {}
    totals = None
    for line in stdout.splitlines():
        match = PLAN_LINE.match(line)
        if match and match.group(1) != "probe":
            if match.group(1) in probes:
                fail(f"{match.group(1)} printed twice (more than one rank printed?): {stdout!r}")
            probes[match.group(1)] = float(match.group(2)) if match.group(2) else None
        match = TOTAL_LINE.match(line)
        if match:
            if totals:
                fail(f"two totals printed (more than one rank printed?): {stdout!r}")
            totals = tuple(float(group) for group in match.groups())
    if not totals:
        fail(f"no estimated total printed: {stdout!r}")
    return probes, totals


def scenario_dry_run(a):
    """--dry-run for run, gate, acceptance and sweep under mpirun: exit 0, the plan printed once
    (rank 0) with every probe of the plan, an estimate or the reason it is waived here, and a total
    that adds up; no run directory, nothing under --storage-path; a bad --opt is still exit 2."""
    plans = {plan["name"]: plan["probes"] for plan in list_json(a.fabcheck, "--plans")}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        storage = tmp / "storage"
        storage.mkdir()
        for name, command in (("quick", ["run", "--plan", "quick"]), ("gate", ["gate"]),
                              ("acceptance", ["acceptance"]), ("sweep", ["sweep"])):
            out = tmp / f"out-{name}"
            result = run(a, a.fabcheck, a.np, command + ["--storage-path", str(storage), "--out",
                                                         str(out), "--dry-run"], timeout=120)
            if result.returncode != 0:
                fail(f"{name} --dry-run: exit {result.returncode}")
            if out.exists() or list(storage.iterdir()):
                fail(f"{name} --dry-run wrote: {out.exists()}, {list(storage.iterdir())}")
            if "results:" in result.stdout or "verdict:" in result.stdout:
                fail(f"{name} --dry-run ran something: {result.stdout!r}")
            if f"# plan {name}:" not in result.stdout:
                fail(f"{name}: no plan header")
            probes, (total, probes_s, startup_s) = printed_plan(result.stdout)
            if list(probes) != plans[name]:
                fail(f"{name}: printed {list(probes)}, the plan is {plans[name]}")
            estimated = [s for s in probes.values() if s is not None]
            if not estimated or any(s <= 0 for s in estimated):
                fail(f"{name}: a probe without a positive estimate: {probes}")
            if abs(sum(estimated) - probes_s) > 0.05 * len(estimated) + 0.1:
                fail(f"{name}: probes add up to {sum(estimated)}, the total says {probes_s}")
            if abs(probes_s + startup_s - total) > 0.11:
                fail(f"{name}: {probes_s} + {startup_s} != {total}")
        out = tmp / "out-bad"
        result = run(a, a.fabcheck, a.np, ["gate", "--dry-run", "--out", str(out), "--opt",
                                           "storage.file_sise=1G"], timeout=120)
        if result.returncode != 2 or "storage.file_sise" not in result.stderr or out.exists():
            fail(f"bad --opt with --dry-run: exit {result.returncode}")
        result = run(a, a.fabcheck, a.np, ["gate", "--dry-run", "--budget", "-1"], timeout=120)
        if result.returncode != 2 or "--budget" not in result.stderr:
            fail(f"--budget -1: exit {result.returncode}")
        # A profile's [sdc] table sets the SDC screens' options over the plan's; --opt wins.
        site = tmp / "site.toml"
        site.write_text('[profile]\nname = "site"\n\n[sdc]\nduration_s = 2\nrepeats = 3\n')
        for extra, knobs in (([], "3 pass(es) of 2 s on every CPU"),
                             (["--opt", "sdc.repeats=1"], "1 pass(es) of 2 s on every CPU")):
            result = run(a, a.fabcheck, a.np, ["run", "--probes", "host.sdc", "--profile",
                                               str(site), "--dry-run"] + extra, timeout=120)
            if result.returncode != 0 or knobs not in result.stdout:
                fail(f"[sdc] {extra}: exit {result.returncode}, no {knobs!r}: {result.stdout!r}")
        site.write_text('[profile]\nname = "site"\n\n[sdc]\nduration_s = -2\n')
        result = run(a, a.fabcheck, a.np, ["run", "--probes", "host.sdc", "--profile", str(site),
                                           "--dry-run"], timeout=120)
        if result.returncode != 2 or f"{site}:5 [sdc] sdc.duration_s=-2" not in result.stderr:
            fail(f"[sdc] duration_s = -2: exit {result.returncode}: {result.stderr!r}")


BUDGET_S = 10


def scenario_budget(a):
    """fabcheck gate --storage-path TMP --budget 10 under mpirun: the plan over the budget shrinks
    (printed, and in summary.json's estimate), the run passes, and its measured wall time (timing)
    is within the budget; the trimmed plan differs from the untrimmed one."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        storage = tmp / "storage"
        storage.mkdir()
        base = ["gate", "--storage-path", str(storage), "--profile",
                str(FIXTURES / "integration.toml")]
        full = run(a, a.fabcheck, a.np, base + ["--dry-run"], timeout=120)
        full_probes, (full_total, _, _) = printed_plan(full.stdout)
        if full.returncode != 0 or full_total <= BUDGET_S:
            fail(f"the untrimmed gate's estimate {full_total} s is not over {BUDGET_S} s: the test "
                 "would prove nothing")
        out = tmp / "run"
        result = run(a, a.fabcheck, a.np, base + ["--budget", str(BUDGET_S), "--out", str(out)],
                     timeout=300)
        if result.returncode != 0:
            fail(f"exit code {result.returncode}")
        trimmed_probes, (trimmed_total, _, _) = printed_plan(result.stdout)
        if f"# budget {BUDGET_S} s: the plan's estimate {full_total:.1f} s is over it" not in \
                result.stdout:
            fail("no trimming printed")
        if trimmed_total > BUDGET_S or trimmed_probes == full_probes:
            fail(f"trimmed plan {trimmed_probes} ({trimmed_total} s) against {full_probes}")
        _, _, summary = check_files(out)
        estimate, timing = summary["estimate"], summary["timing"]
        print(f"budget {BUDGET_S} s: estimated {estimate['estimated_s']:.1f} s (untrimmed "
              f"{estimate['untrimmed_s']:.1f} s), measured {timing['wall_s']:.1f} s; trimmed: "
              f"{estimate['trimmed']}", flush=True)
        if estimate["budget_s"] != BUDGET_S or not estimate["fits"] or not estimate["trimmed"]:
            fail(f"summary estimate: {estimate}")
        if abs(estimate["estimated_s"] - trimmed_total) > 0.06:
            fail(f"summary estimate {estimate['estimated_s']} against the printed {trimmed_total}")
        if abs(estimate["untrimmed_s"] - full_total) > 0.06:
            fail(f"summary untrimmed {estimate['untrimmed_s']} against the dry run's {full_total}")
        if timing["wall_s"] > BUDGET_S:
            fail(f"measured {timing['wall_s']} s, over the budget of {BUDGET_S} s")
        ran = set(summary["probes"]["run"]) | {w["id"] for w in summary["probes"]["waived"]}
        if ran != {p for p in trimmed_probes}:
            fail(f"ran {sorted(ran)}, the trimmed plan was {sorted(trimmed_probes)}")
        # The trimmed sizes reached every rank: the collective ran its trimmed sweep.
        sizes = {m["size_bytes"] for m in read_jsonl(out / "measurements.jsonl")
                 if m["probe"] == "coll.all_reduce" and m["metric"] == "time_us"}
        if "coll.all_reduce" in trimmed_probes and (not sizes or max(sizes) >= 64 << 20):
            fail(f"coll.all_reduce sizes {sorted(sizes)}: the 64 MiB size was not trimmed")


def scenario_history(a):
    """run --history FILE.h5, twice under mpirun: each finished run appended (h5py reads two runs and
    their figures back), `compare --against` the file finds the earlier run; a folder as --history
    is exit 2 with nothing run."""
    with tempfile.TemporaryDirectory() as tmp:
        history = pathlib.Path(tmp) / "fleet.h5"
        runs = []
        for night in ("a", "b"):
            out = pathlib.Path(tmp) / night
            result = run(a, a.fabcheck, a.np, [
                "run", "--probes", "coll.all_reduce", "--sizes", "1K,64K", "--iters", "3",
                "--warmup", "1", "--profile", str(FIXTURES / "integration.toml"),
                "--out", str(out), "--history", str(history)])
            if result.returncode != 0:
                fail(f"exit code {result.returncode}, expected 0")
            if f"history: appended to {history}" not in result.stdout:
                fail("no 'history: appended' line")
            runs.append(out)
        # Debian's h5py, as people read the history (the interpreter running this may lack it).
        code = ("import h5py,sys; f=h5py.File(sys.argv[1],'r'); "
                "print(f.attrs['kind'] if isinstance(f.attrs['kind'], str) else "
                "f.attrs['kind'].decode(), len(f['runs']), len(f['figures']))")
        out = subprocess.run(["/usr/bin/python3", "-c", code, str(history)], capture_output=True,
                             text=True)
        if out.returncode != 0:
            fail(f"h5py could not read {history}: {out.stderr}")
        kind, run_count, figure_count = out.stdout.split()
        print(f"history: kind {kind}, {run_count} runs, {figure_count} figures")
        if kind != "fabcheck-history" or int(run_count) != 2 or int(figure_count) < 4:
            fail(f"history read back: {out.stdout}")
        compared = subprocess.run([a.fabcheck, "compare", str(runs[1]), "--against", str(history)],
                                  capture_output=True, text=True, timeout=120)
        print(compared.stdout, compared.stderr)
        if compared.returncode not in (0, 1) or "no reference" in compared.stdout:
            fail(f"compare against the history: exit {compared.returncode}")
        bad = run(a, a.fabcheck, a.np, ["run", "--probes", "coll.all_reduce", "--out",
                                        str(pathlib.Path(tmp) / "bad"), "--history", tmp])
        if bad.returncode != 2 or "--history" not in bad.stderr:
            fail(f"--history FOLDER: exit {bad.returncode}, expected 2 naming --history")
        if (pathlib.Path(tmp) / "bad").exists():
            fail("a run directory was made for a refused --history")


def straggler_findings(findings):
    return [f for f in findings if f["metric"] == "held_back_us"]


def scenario_straggler(a):
    """One rank's CPU throttled (cgroup v1 cpu quota, 1 ms in every 10 ms, on rank 1's process alone):
    the straggler rule names rank 1 and this host, no other; the same run unthrottled names no one.
    Every size records each rank's arrival lag and own time."""
    if cpu_cgroup.unavailable():
        fail(f"{cpu_cgroup.unavailable()}; the straggler test cannot run")
    with tempfile.TemporaryDirectory() as tmp:
        args = ["run", "--probes", "coll.all_reduce", "--sizes", "4K:1M:4", "--iters", "1000",
                "--warmup", "2", "--profile", str(FIXTURES / "integration.toml")]
        healthy_out = pathlib.Path(tmp) / "healthy"
        healthy = run(a, a.fabcheck, a.np, args + ["--out", str(healthy_out)])
        if healthy.returncode != 0:
            fail(f"unthrottled run: exit {healthy.returncode}, expected 0")
        measurements, findings, _ = check_files(healthy_out)
        lags = [m for m in measurements if m["metric"] == "held_back_us"]
        own = [m for m in measurements if m["metric"] == "rank_time_us"]
        if len(lags) != 5 or len(own) != 5:
            fail(f"expected held_back_us and rank_time_us at 5 sizes, got {len(lags)} and {len(own)}")
        for m in lags + own:
            if len(m.get("by_rank", [])) != a.np:
                fail(f"{m['metric']} at {m['size_bytes']} B: by_rank of {len(m.get('by_rank', []))}")
        print("healthy lags (us):", [[round(r["value"], 1) for r in m["by_rank"]] for m in lags])
        if straggler_findings(findings):
            fail(f"an unthrottled run named a straggler: {straggler_findings(findings)}")

        with cpu_cgroup.throttled_group("fabcheck-straggler", 10000, 1000) as group:
            wrapper = pathlib.Path(tmp) / "throttle-rank1.sh"
            wrapper.write_text("#!/bin/sh\n"
                               f'[ "$OMPI_COMM_WORLD_RANK" = 1 ] && echo $$ > {group}/tasks\n'
                               'exec "$@"\n')
            wrapper.chmod(0o755)
            throttled_out = pathlib.Path(tmp) / "throttled"
            started = time.monotonic()
            throttled = run(a, str(wrapper), a.np, [a.fabcheck] + args + ["--out", str(throttled_out)])
            print(f"throttled run: {time.monotonic() - started:.1f} s")
        if throttled.returncode not in (0, 1):
            fail(f"throttled run: exit {throttled.returncode}, expected 0 or 1")
        measurements, findings, _ = check_files(throttled_out)
        lags = [m for m in measurements if m["metric"] == "held_back_us"]
        print("throttled lags (us):", [[round(r["value"], 1) for r in m["by_rank"]] for m in lags])
        named = straggler_findings(findings)
        if len(named) != 1:
            fail(f"expected one straggler finding, got {len(named)}: {named}")
        host = subprocess.run(["hostname"], capture_output=True, text=True).stdout.strip()
        finding = named[0]
        print("straggler:", finding["message"])
        if finding.get("rank") != 1 or finding["host"] != host or finding["severity"] != "warn":
            fail(f"the straggler finding names rank {finding.get('rank')} on {finding['host']}, "
                 f"expected a WARN for rank 1 on {host}")
        if "rank 1 (" + host + ") holds the others back" not in finding["message"]:
            fail(f"message does not name rank 1 and {host}: {finding['message']}")
        if "straggler" not in throttled.stdout and "holds the others back" not in throttled.stdout:
            fail("the console does not show the straggler")


def scenario_launch_failure(a):
    """scripts/mpirun.sh exits with rank 0's own code: 1 for a FAIL, but 3 (incomplete, with a line
    saying why) when mpirun could not start fabcheck, where plain mpirun returns non-zero too; a
    FABCHECK_EXIT_DIR open to others is refused (no file written there)."""
    missing = run(a, "/nonexistent/fabcheck", a.np, ["version"])
    plain = subprocess.run(["mpirun", "-np", str(a.np), "--oversubscribe", "/nonexistent/fabcheck",
                            "version"], capture_output=True, text=True,
                           env=dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1",
                                    OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1"))
    print(f"plain mpirun with a missing binary: exit {plain.returncode}")
    if plain.returncode == 0:
        fail("plain mpirun returned 0 for a missing binary: this test cannot tell anything")
    if missing.returncode != 3 or "left no exit code" not in missing.stderr:
        fail(f"a launch failure: exit {missing.returncode}, expected 3 with the reason")
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "run"
        failed = run(a, a.fabcheck, a.np, ["run", "--probes", "coll.all_reduce", "--sizes", "64K",
                                           "--iters", "3", "--profile",
                                           str(FIXTURES / "impossible.toml"), "--out", str(out)])
        if failed.returncode != 1:
            fail(f"a FAIL through scripts/mpirun.sh: exit {failed.returncode}, expected 1")
        open_dir = pathlib.Path(tmp) / "open"
        open_dir.mkdir()
        open_dir.chmod(0o777)
        refused = subprocess.run([a.fabcheck, "version"], capture_output=True, text=True,
                                 env=dict(os.environ, FABCHECK_EXIT_DIR=str(open_dir)))
        if (open_dir / "exit-code").exists() or "exit-code not written" not in refused.stderr:
            fail(f"exit-code written into a folder open to others: {refused.stderr}")
        own = pathlib.Path(tmp) / "own"
        own.mkdir(mode=0o700)
        subprocess.run([a.fabcheck, "version"], capture_output=True,
                       env=dict(os.environ, FABCHECK_EXIT_DIR=str(own)))
        if (own / "exit-code").read_text() != "0\n":
            fail(f"exit-code in a private folder: {(own / 'exit-code').read_text()!r}")
    print("launch failure: exit 3; FAIL: exit 1; a folder open to others refused")


SCENARIOS = {
    "launch-failure": scenario_launch_failure,
    "pieces": scenario_pieces,
    "collective": scenario_collective,
    "fail-threshold": scenario_fail_threshold,
    "bad-input": scenario_bad_input,
    "hang": scenario_hang,
    "gate": scenario_gate,
    "sweep-one-host": scenario_sweep_one_host,
    "plans": scenario_plans,
    "bad-options": scenario_bad_options,
    "dtypes": scenario_dtypes,
    "dtypes-int8-saturation": scenario_dtypes_int8_saturation,
    "dry-run": scenario_dry_run,
    "budget": scenario_budget,
    "history": scenario_history,
    "straggler": scenario_straggler,
}

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("scenario", choices=SCENARIOS)
    parser.add_argument("--fabcheck", required=True)
    parser.add_argument("--np", type=int, default=2)
    parser.add_argument("--probe", default="coll.all_reduce")
    parser.add_argument("--h5", action="store_true", help="also check run.h5 with h5py")
    arguments = parser.parse_args()
    SCENARIOS[arguments.scenario](arguments)
    print("PASS")
