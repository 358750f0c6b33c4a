#!/usr/bin/env python3
"""How a sweep's wall time grows with the number of nodes: `fabcheck sweep` on simulated clusters
(scripts/simcluster.sh) of each size given, one rank per node, and its split read from the console
as the lines arrive: start-up (mpirun launching into the nodes and the World up), each node's own
checks, the node-pair rounds (first pass and second pass), and judgement (localisation, the judges
and the verdict). Needs root. Usage: bench/sweep_scaling.py FABCHECK [N ...] (default 2 4 6)."""
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIMCLUSTER = ROOT / "scripts" / "simcluster.sh"
SWEEP = ["--sizes", "64K,1M", "--iters", "6", "--warmup", "1", "--timeout", "120"]
LINE_MBIT = "400"


def measure(fabcheck, nodes):
    up = subprocess.run(["bash", str(SIMCLUSTER), "up", str(nodes), "--rate", LINE_MBIT],
                        capture_output=True, text=True, check=True)
    name = re.search(r"^export SIMCLUSTER=(\S+)$", up.stdout, re.M).group(1)
    env = dict(os.environ, SIMCLUSTER=name)
    try:
        out = Path(f"/tmp/fabcheck-sweep-scaling-{name}")
        started = time.monotonic()
        marks = {}
        process = subprocess.Popen(["bash", str(SIMCLUSTER), "mpirun", str(nodes), fabcheck, "sweep",
                                    *SWEEP, "--out", str(out)], env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True)
        timing = ""
        for line in process.stdout:
            now = time.monotonic() - started
            if line.startswith("# fabcheck ") and "world" not in marks:
                marks["world"] = now
            if line.startswith("# coll.node_pairs: backend") and "pairs" not in marks:
                marks["pairs"] = now
            if line.startswith("# coll.node_pairs: first pass"):
                marks["pairs_done"] = now
                timing = line.strip()
            if line.startswith("verdict:"):
                marks["verdict"] = now
        process.wait()
        wall = time.monotonic() - started
        subprocess.run(["rm", "-rf", str(out)])
    finally:
        subprocess.run(["bash", str(SIMCLUSTER), "down"], env=env, capture_output=True)
    numbers = re.search(r"first pass (\d+) rounds ([\d.]+) s, localisation ([\d.]+) ms, "
                        r"second pass (\d+) rounds ([\d.]+) s", timing)
    first_rounds, first_s, local_ms, second_rounds, second_s = numbers.groups()
    return {
        "nodes": nodes,
        "pairs": nodes * (nodes - 1) // 2,
        "rounds": f"{first_rounds}+{second_rounds}",
        "wall": wall,
        "startup": marks["world"],
        "node_checks": marks["pairs"] - marks["world"],
        "rounds_s": float(first_s) + float(second_s),
        "per_round": float(first_s) / int(first_rounds),
        "judgement": float(local_ms) / 1e3 + (marks["verdict"] - marks["pairs_done"]),
        "exit": process.returncode,
    }


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    fabcheck = sys.argv[1]
    sizes = [int(n) for n in sys.argv[2:]] or [2, 4, 6]
    print(f"{'nodes':>5} {'pairs':>5} {'rounds':>6} {'wall s':>7} {'start-up':>8} "
          f"{'node checks':>11} {'rounds s':>8} {'s/round':>7} {'judgement':>9} {'exit':>4}")
    for nodes in sizes:
        r = measure(fabcheck, nodes)
        print(f"{r['nodes']:>5} {r['pairs']:>5} {r['rounds']:>6} {r['wall']:>7.1f} {r['startup']:>8.1f} "
              f"{r['node_checks']:>11.1f} {r['rounds_s']:>8.1f} {r['per_round']:>7.2f} "
              f"{r['judgement']:>9.2f} {r['exit']:>4}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
