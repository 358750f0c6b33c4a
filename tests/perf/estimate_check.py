#!/usr/bin/python3
"""Estimates against measurements, per probe, in one session (label perf: a comparison, not a
timed test). Three runs of the collectives under scripts/mpirun.sh 2:

  assumed   no --estimate-from: the assumed rates (printed; cautious by design, so not bounded)
  replayed  the same plan --estimate-from the first run
  rescaled  other sizes, iterations, warm-up and both placements --estimate-from the first run

For the last two, each collective's estimate (summary.json "estimate") must be within a factor of
2 of the time it took (summary.json timing.probes), and its knobs must say where its times came
from. Then --estimate-from a missing folder, a folder that is not a run and a run whose summary.json
is malformed: exit 2 naming the folder or the file.
Usage: tests/perf/estimate_check.py build/bench/cli/fabcheck
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROBES = "coll.all_reduce,coll.all_gather"
BOUND = 2.0


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def run(fabcheck, out, *flags):
    command = [str(ROOT / "scripts" / "mpirun.sh"), "2", fabcheck, "run", "--probes", PROBES,
               "--profile", "generic-cpu", "--quiet", "--out", str(out), *flags]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        fail(f"{' '.join(command)}: exit {result.returncode}\n{result.stdout}\n{result.stderr}")
    return json.loads((out / "summary.json").read_text())


def ratios(name, summary):
    measured = {p["id"]: p["seconds"] for p in summary["timing"]["probes"]}
    rows = []
    for probe in summary["estimate"]["probes"]:
        seconds = measured[probe["id"]]
        rows.append((probe["id"], probe["seconds"], seconds, probe["seconds"] / seconds, probe["knobs"]))
        print(f"{name:>9} {probe['id']:<16} estimate {probe['seconds']:8.2f} s  measured {seconds:7.2f} s  "
              f"estimate/measured {probe['seconds'] / seconds:5.2f}  ({probe['knobs']})")
    return rows


def main():
    fabcheck = os.path.realpath(sys.argv[1])
    work = pathlib.Path(tempfile.mkdtemp(prefix="fabcheck-estimates-"))
    try:
        base = ["--sizes", "1K:16M:2", "--iters", "20", "--warmup", "3"]
        first = work / "assumed"
        ratios("assumed", run(fabcheck, first, *base))
        for name, flags in (("replayed", base),
                            ("rescaled", ["--sizes", "4K:32M:4", "--iters", "40", "--warmup", "1",
                                          "--placement", "both"])):
            for probe, estimate, seconds, ratio, knobs in ratios(
                    name, run(fabcheck, work / name, *flags, "--estimate-from", str(first))):
                if f"per-size times measured in {first}" not in knobs:
                    fail(f"{name} {probe}: the estimate does not say it came from {first}: {knobs!r}")
                if not 1 / BOUND <= ratio <= BOUND:
                    fail(f"{name} {probe}: estimate {estimate:.2f} s against {seconds:.2f} s measured "
                         f"({ratio:.2f}x), beyond a factor of {BOUND}")
        not_a_run = work / "not-a-run"
        not_a_run.mkdir()
        garbled = work / "garbled"
        shutil.copytree(first, garbled)
        (garbled / "summary.json").write_text('{"kind": "summary", "timing": {"probes": [{"id": 3}]}}')
        for folder, named in ((work / "missing", f"--estimate-from {work / 'missing'}"),
                              (not_a_run, f"--estimate-from {not_a_run}"),
                              (garbled, str(garbled / "summary.json"))):
            result = subprocess.run([fabcheck, "run", "--single-process", "--probes", "host.cpu",
                                     "--estimate-from", str(folder), "--dry-run"],
                                    capture_output=True, text=True, timeout=60)
            if result.returncode != 2 or named not in result.stderr:
                fail(f"--estimate-from {folder}: exit {result.returncode}, {result.stderr!r}")
            print(f"--estimate-from {folder}: exit 2: {result.stderr.strip()}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("estimates within a factor of", BOUND, "of the measured times")


main()
