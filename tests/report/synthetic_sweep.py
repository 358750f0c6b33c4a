#!/usr/bin/python3
"""Writes a SYNTHETIC nightly sweep for the report tests: one run directory per node (8 GPUs each,
figures shaped like an H200 node's) and one multi-host coll.node_pairs run, with known faults, in
the record formats of results/schema/ (schema version 1). Nothing here was measured.

    synthetic_sweep.py OUT_DIR [--nodes 5] [--seed 7]

Faults planted (the report must show each): node02 gpu3's NVLink pairs at PCIe level (gpu.p2p,
FAIL); node03 all-reduce busbw 35 % low (FAIL at 256 MiB and 1 GiB); node04 gpu5 host-to-device at
PCIe Gen4 level (FAIL) and gpu6's nearest HCA on the other NUMA node (WARN); node03 fsync p99 high
(FAIL against the profile's 2000 us); collective times carry their samples' stats (p99 15 % over the
median, node03's all-reduce 40 %), host-to-device copies their rates' (slowest 7 % under);
all-gather runs out-of-place and in-place;
in the node-pair run node03 slow with every partner and the link node01--node05 slow.
"""
import argparse
import json
import pathlib
import random

SIZES = [8 << (2 * k) for k in range(14)]  # 8 B .. 512 MiB, x4
SIZES.append(1 << 30)
PROFILE = """# SYNTHETIC profile for the report tests: thresholds like h200-sxm-8's, tiers in the [[path]] form.
[profile]
name = "synthetic-h200"
description = "synthetic: report tests only"

[[expect]]
probe = "coll.all_reduce"
metric = "busbw"
unit = "GB/s"
sizes = "1G:16G"
pass = 431
warn = 409.5
source = "synthetic"

[[expect]]
probe = "coll.all_reduce"
metric = "time_us"
unit = "us"
sizes = "8:32"
pass = 60
warn = 200
source = "synthetic: small-message latency ceiling"

[[expect]]
probe = "storage.fsync_lat"
metric = "fsync_p99_us"
unit = "us"
pass = 2000
warn = 4000
source = "synthetic: fsync p99 ceiling"

[[path]]
name = "host_device"
description = "host<->device copies over PCIe"
figures = ["gpu.h2d/bw"]
unit = "GB/s"
sizes = "32M:16G"
expect = "pcie-gen5-x16"
[[path.tier]]
name = "pcie-gen5-x16"
min = 33
max = 64
source = "synthetic"
[[path.tier]]
name = "pcie-gen4-x16"
min = 17
max = 32
source = "synthetic"

[[path]]
name = "gpu_gpu"
description = "GPU-to-GPU copies"
figures = ["gpu.p2p/ce_bw"]
unit = "GB/s"
sizes = "32M:16G"
expect = "nvlink4"
[[path.tier]]
name = "nvlink4"
min = 300
max = 460
source = "synthetic"
[[path.tier]]
name = "pcie"
min = 5
max = 64
source = "synthetic"
"""


def measurement(probe, metric, value, unit, host, rank=0, subject="world", peer="", size=None,
                params=None, status="ok", message="", stats=None):
    return {"schema_version": 1, "kind": "measurement", "probe": probe, "metric": metric,
            "value": value, "unit": unit, "host": host, "rank": rank, "subject": subject,
            "peer": peer, "size_bytes": size, "params": params or {}, "stats": stats,
            "status": status, "message": message, "time_utc": "2026-11-30T02:00:00Z"}


def finding(severity, m, expected=None, warn_at=None, message="", remedy="", source="synthetic"):
    return {"schema_version": 1, "kind": "finding", "severity": severity, "probe": m["probe"],
            "metric": m["metric"], "subject": m["subject"], "host": m["host"], "rank": m["rank"],
            "size_bytes": m["size_bytes"], "unit": m["unit"], "observed": m["value"],
            "expected": expected, "warn_at": warn_at, "message": message,
            "evidence": f"value {m['value']:.4g} {m['unit']} (synthetic)", "remedy": remedy,
            "source": source}


def threshold(m, expected, warn_at, what):
    value = m["value"]
    severity = "pass" if value >= expected else "warn" if value >= warn_at else "fail"
    where = f" at {m['size_bytes'] >> 20}MiB" if m["size_bytes"] else ""
    text = (f"{m['probe']} {m['metric']}{where} on {m['host']} {m['subject']}: {value:.4g} {m['unit']}, "
            f"expected >= {expected:g} {m['unit']} (WARN from {warn_at:g}) {what}")
    return finding(severity, m, expected, warn_at, text,
                   "" if severity == "pass" else "check NVLink/NCCL state and rerun (synthetic)")


def node_run(name, rng, profile_path):
    host = name
    ms, fs = [], []
    # Collectives: time = latency + size / peak algbw; busbw = algbw x bus factor (8 ranks).
    # The time's samples: p99 15 % over the median (node03's all-reduce 40 %), as stats.
    for probe, factor, peak, latency, placement in (
            ("coll.all_reduce", 1.75, 268.0, 28.0, "out"), ("coll.all_gather", 0.875, 520.0, 18.0, "out"),
            ("coll.all_gather", 0.875, 505.0, 17.0, "in")):
        slow = 0.65 if (name == "node03" and probe == "coll.all_reduce") else 1.0
        tail = 1.4 if slow < 1 else 1.15
        for size in SIZES:
            time_us = latency + size / (peak * slow * 1e9) * 1e6 * rng.uniform(0.98, 1.02)
            algbw = size / (time_us * 1e-6) / 1e9
            params = {"backend": "nccl", "type": "float", "placement": placement, "ranks": "8"}
            stats = {"count": 20, "min": time_us * 0.97, "median": time_us, "max": time_us * (tail + 0.1),
                     "p99": time_us * tail, "mean": time_us * 1.02, "cv": 0.04}
            for metric, value, unit in (("time_us", time_us, "us"), ("algbw", algbw, "GB/s"),
                                        ("busbw", algbw * factor, "GB/s")):
                ms.append(measurement(probe, metric, value, unit, host, -1, size=size, params=params,
                                      stats=stats if metric == "time_us" else None))
            ms.append(measurement(probe, "wrong_elements", 0, "count", host, -1, size=size, params=params))
            if probe == "coll.all_reduce" and size in (256 << 20, 1 << 30):
                busbw = ms[-2]
                expected, warn_at = (431, 409.5) if size == 1 << 30 else (380, 360)
                fs.append(threshold(busbw, expected, warn_at, "(synthetic profile)"))
            if probe == "coll.all_reduce" and size <= 32:
                time = ms[-4]
                fs.append(finding("pass" if time_us <= 60 else "warn", time, 60, 200,
                                  f"coll.all_reduce time_us at {size}B on {host}: {time_us:.3g} us, expected <= 60 us "
                                  "(WARN up to 200) (synthetic profile)"))
    # GPU <-> GPU copies.
    for src in range(8):
        for dst in range(8):
            if src == dst:
                continue
            for metric, base in (("ce_bw", 392.0), ("sm_write_bw", 405.0)):
                value = base * rng.uniform(0.97, 1.03)
                if name == "node02" and 3 in (src, dst):
                    value = 48.0 * rng.uniform(0.97, 1.03)
                m = measurement("gpu.p2p", metric, value, "GB/s", host, src, f"gpu{src}", f"gpu{dst}",
                                256 << 20, {"peer_bus_id": f"0000:{0x18 + 0x10 * dst:02x}:00.0"})
                ms.append(m)
                if metric == "ce_bw" and value < 300:
                    fs.append(finding("fail", m, 300, None,
                                      f"gpu.p2p ce_bw {host} gpu{src}->gpu{dst}: {value:.0f} GB/s is tier pcie, "
                                      "expected nvlink4 (>= 300 GB/s)", "check nvidia-smi nvlink -s; reseat or RMA"))
    # Host <-> device per GPU against size.
    for gpu in range(8):
        peak = 26.0 if (name == "node04" and gpu == 5) else 53.0
        for size in (1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20, 1 << 30):
            value = peak * size / (size + (2 << 20)) * rng.uniform(0.98, 1.02)
            stats = {"count": 20, "min": value * 0.93, "median": value, "max": value * 1.01, "p99": value * 1.01,
                     "mean": value * 0.99, "cv": 0.02}  # of the samples' rates (GB/s)
            m = measurement("gpu.h2d", "bw", value, "GB/s", host, gpu, f"gpu{gpu}", "", size, stats=stats)
            ms.append(m)
            if size >= 32 << 20:
                fs.append(finding("pass" if value >= 33 else "fail", m, 33, None,
                                  f"gpu.h2d bw {host} gpu{gpu} at {size >> 20}MiB: {value:.1f} GB/s, tier "
                                  + ("pcie-gen5-x16" if value >= 33 else "pcie-gen4-x16, expected pcie-gen5-x16"),
                                  "" if value >= 33 else "check the PCIe link width and speed (lspci -vv)"))
    # Storage latency.
    for metric, base in (("fsync_p50_us", 180.0), ("fsync_p99_us", 900.0), ("fsync_p999_us", 2100.0)):
        value = base * (6 if (name == "node03" and metric != "fsync_p50_us") else 1) * rng.uniform(0.9, 1.1)
        ms.append(measurement("storage.fsync_lat", metric, value, "us", host, 0, "/mnt/ckpt", "", 4096))
        if metric == "fsync_p99_us":
            fs.append(finding("pass" if value <= 2000 else "warn" if value <= 4000 else "fail", ms[-1], 2000, 4000,
                              f"storage.fsync_lat fsync_p99_us on {host} /mnt/ckpt: {value:.0f} us, expected <= 2000 us "
                              "(WARN up to 4000) (synthetic profile)",
                              "" if value <= 2000 else "check the device's write cache and queue (synthetic)"))
    for depth in ("_qd1", "_qd32"):
        for metric, base in (("lat_p50_us", 80.0), ("lat_p99_us", 160.0), ("lat_p999_us", 420.0)):
            scale = 4 if depth == "_qd32" else 1
            ms.append(measurement("storage.rand_read", metric + depth, base * scale * rng.uniform(0.9, 1.1),
                                  "us", host, 0, "/local/nvme0", "", 4096))
    # Topology: GPUs 0-3 on NUMA 0, 4-7 on NUMA 1, one HCA per GPU.
    for gpu in range(8):
        numa = 0 if gpu < 4 else 1
        hca_numa = 0 if (name == "node04" and gpu == 6) else numa
        hops = 99 if (name == "node04" and gpu == 6) else 2
        params = {"gpu_numa_node": str(numa), "hca_numa_node": str(hca_numa), "nearest_hca": f"mlx5_{gpu}",
                  "pcie_path": f"0000:{0x15 + 0x10 * gpu:02x}:00.0/0000:{0x16 + 0x10 * gpu:02x}:00.0"}
        bdf = f"0000:{0x18 + 0x10 * gpu:02x}:00.0"
        peer = f"mlx5_{gpu} (0000:{0x1a + 0x10 * gpu:02x}:00.0)"
        ms.append(measurement("fabric.topology", "nearest_hca_hops", hops, "count", host, 0, bdf, peer, None, params))
        mismatch = measurement("fabric.topology", "numa_mismatch", 1 if hca_numa != numa else 0, "count", host, 0,
                               bdf, peer, None, params)
        ms.append(mismatch)
        if hca_numa != numa:
            fs.append(finding("warn", mismatch, 0, None,
                              f"fabric.topology {host} gpu6 ({bdf}): nearest HCA mlx5_6 on NUMA {hca_numa}, GPU on NUMA {numa}",
                              "check the NIC-to-GPU mapping (NCCL_IB_HCA, nvidia-smi topo -m)"))
    return ms, fs, summary_of(name, [host], 8, fs, profile_path,
                              ["coll.all_reduce", "coll.all_gather", "gpu.p2p", "gpu.h2d", "storage.fsync_lat",
                               "storage.rand_read", "fabric.topology"])


def pairs_run(nodes, rng, profile_path):
    ms, fs = [], []
    for i, a in enumerate(nodes):
        for b in nodes[i + 1:]:
            value = 45.0 * rng.uniform(0.97, 1.03)
            if "node03" in (a, b):
                value = 11.0 * rng.uniform(0.95, 1.05)
            if (a, b) == ("node01", nodes[-1]):
                value = 19.0
            for size in (64 << 10, 4 << 20):
                scaled = value * (0.35 if size == 64 << 10 else 1)
                ms.append(measurement("coll.node_pairs", "exchange_busbw", scaled, "GB/s", a, -1, f"{a}--{b}", b, size,
                                      {"pass": "first", "backend": "nccl"}))
    ms.append(measurement("coll.node_pairs", "exchange_busbw", 44.0, "GB/s", "node01", -1, "node01--node02",
                          "node02", 4 << 20, {"pass": "confirm", "backend": "nccl"}))
    bad_node = next(m for m in ms if m["subject"].startswith("node01--node03") and m["size_bytes"] == 4 << 20)
    fs.append(dict(finding("fail", bad_node, 27.0, None,
                           "coll.node_pairs: node03 slow with every partner (11 GB/s against a cluster median of 45)",
                           "drain node03; check its HCAs and cables"), subject="node03", host="node03"))
    bad_link = next(m for m in ms if m["subject"] == f"node01--{nodes[-1]}" and m["size_bytes"] == 4 << 20)
    fs.append(finding("fail", bad_link, 27.0, None,
                      f"coll.node_pairs: link node01--{nodes[-1]} slow (19 GB/s) while both nodes are fast with others",
                      "check the cable and switch ports between the two nodes"))
    return ms, fs, summary_of("pairs", nodes, 8 * len(nodes), fs, profile_path, ["coll.node_pairs"])


def summary_of(name, hosts, ranks, findings, profile_path, probes):
    counts = {s: sum(1 for f in findings if f["severity"] == s) for s in ("pass", "warn", "fail", "waived", "error")}
    verdict = "fail" if counts["fail"] else "incomplete" if counts["error"] else "warn" if counts["warn"] else "pass"
    return {"schema_version": 1, "kind": "summary", "fabcheck_version": "synthetic", "verdict": verdict,
            "exit_code": {"pass": 0, "warn": 0, "fail": 1, "incomplete": 3}[verdict], "counts": counts,
            "probes": {"run": probes, "waived": [], "errored": []}, "hosts": hosts, "ranks": ranks,
            "command_line": f"synthetic_sweep.py ({name})", "plan": "acceptance",
            "profile": {"name": "synthetic-h200", "path": str(profile_path)},
            "started_utc": "2026-11-30T02:00:00Z", "finished_utc": "2026-11-30T02:09:00Z",
            "incomplete_reason": None,
            "versions": {"fabcheck": "synthetic", "mpi": "", "cuda": "", "nccl": "", "compiler": ""},
            "environment": {}, "run_dir": name}


def write_run(directory, ms, fs, summary):
    directory.mkdir(parents=True)
    (directory / "measurements.jsonl").write_text("".join(json.dumps(m) + "\n" for m in ms))
    (directory / "findings.jsonl").write_text("".join(json.dumps(f) + "\n" for f in fs))
    summary["run_dir"] = str(directory)
    (directory / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--nodes", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    profile = out / "synthetic-h200.toml"
    profile.write_text(PROFILE)
    rng = random.Random(args.seed)
    nodes = [f"node{k:02d}" for k in range(1, args.nodes + 1)]
    for node in nodes:
        write_run(out / "runs" / f"20261130T020000Z-{node}", *node_run(node, rng, profile))
    write_run(out / "runs" / "20261130T021000Z-pairs", *pairs_run(nodes, rng, profile))
    print(out / "runs")


if __name__ == "__main__":
    main()
