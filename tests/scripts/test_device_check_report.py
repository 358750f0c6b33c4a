#!/usr/bin/env python3
"""scripts/device_check_report.py on canned (synthetic, hand-written) device-check folders: the
verdict and the one summary table, without a GPU. A skipped step is never a pass, all WAIVED is not
a pass, fabcheck below nccl-tests or below its own memcpy reference is a FAIL naming the size."""
import importlib.util
import json
import os
import pathlib
import subprocess
import sys
import tarfile
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("report", ROOT / "scripts" / "device_check_report.py")
report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(report)

STEPS_OK = [("find_nccl", "PASS"), ("configure", "PASS"), ("build", "PASS"), ("unit_coll", "PASS"),
            ("unit_kernels", "PASS"), ("fabcheck_nccl", "PASS"), ("fabcheck_gpu", "PASS"),
            ("nccl_tests_build", "PASS")]
NCCL_TESTS_HEADER = """# nThread 1 nGpus 1 minBytes 1048576 maxBytes 1073741824 step: 4(factor) warmup iters: 5 iters: 20
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
"""


def measurement(probe, metric, value, unit="GB/s", subject="gpu0", size=None, status="ok", **params):
    return {"schema_version": 1, "kind": "measurement", "probe": probe, "metric": metric, "value": value,
            "unit": unit, "host": "gpu-host", "rank": 0, "subject": subject, "peer": "",
            "size_bytes": size, "params": params, "stats": None, "status": status,
            "message": params.pop("message", "") if "message" in params else "", "time_utc": ""}


def finding(m, severity, expected, warn_at):
    return {"schema_version": 1, "kind": "finding", "severity": severity, "probe": m["probe"],
            "metric": m["metric"], "subject": m["subject"], "host": m["host"], "rank": m["rank"],
            "size_bytes": m["size_bytes"], "observed": m["value"], "expected": expected,
            "warn_at": warn_at, "unit": m["unit"], "message": "", "evidence": "", "remedy": "",
            "source": "h200 datasheet"}


def shell_function(name):
    """The definition of function `name` in scripts/device-check.sh, to run on its own."""
    script = (ROOT / "scripts" / "device-check.sh").read_text()
    body = script[script.index(f"{name}() {{"):]
    return body[:body.index("\n}\n") + 3]


class Folder:
    def __init__(self, tmp, steps=STEPS_OK):
        self.out = pathlib.Path(tmp)
        (self.out / "logs").mkdir()
        lines = ["step\tstatus\tseconds\tnote"] + [f"{n}\t{s}\t1\tnote" for n, s in steps]
        (self.out / "steps.tsv").write_text("\n".join(lines) + "\n")

    def run(self, name, measurements, findings=()):
        (self.out / name).mkdir()
        (self.out / name / "measurements.jsonl").write_text("".join(json.dumps(m) + "\n" for m in measurements))
        (self.out / name / "findings.jsonl").write_text("".join(json.dumps(f) + "\n" for f in findings))

    def nccl_tests(self, collective, rows):
        text = NCCL_TESTS_HEADER + "".join(
            f"{size:>12} {size // 4:>12} float sum -1 {t:>8.1f} {alg:>7.2f} {bus:>7.2f} 0 {t:>8.1f} {alg:>7.2f} {bus:>7.2f} 0\n"
            for size, t, alg, bus in rows)
        (self.out / "logs" / f"nccl_tests_{collective}_perf.log").write_text(text)

    def healthy(self):
        """A healthy one-GPU machine's runs and nccl-tests' all-reduce at 64 MiB."""
        gpu, findings = healthy_gpu()
        self.run("fabcheck-gpu", gpu, findings)
        self.run("fabcheck-nccl", nccl_one_gpu(300.0))
        self.nccl_tests("all_reduce", [(64 << 20, 224.0, 299.0, 0.0)])
        return self

    def summarize(self):
        code = report.summarize(str(self.out))
        return code, (self.out / "summary.md").read_text()


def healthy_gpu():
    h2d = measurement("gpu.h2d", "bw", 53.0, size=256 << 20, concurrent_gpus="1")
    return [h2d,
            measurement("gpu.h2d", "plain_memcpy_bw", 54.0, size=256 << 20),
            measurement("gpu.hbm_bw", "copy_bw", 4000.0, size=1 << 30),
            measurement("gpu.hbm_bw", "memcpy_bw", 4200.0, size=1 << 30),
            measurement("gpu.h2d", "wrong_elements", 0, unit="count", size=256 << 20)], \
        [finding(h2d, "pass", 50.4, 48)]


def nccl_one_gpu(alg=300.0, size=64 << 20):
    return [measurement("coll.all_reduce", "algbw", alg, subject="world", size=size, placement="out"),
            measurement("coll.all_reduce", "busbw", 0, subject="world", size=size, status="waived",
                        placement="out", message="one rank: the bus factor of all_reduce is 0")]


class DeviceCheckReport(unittest.TestCase):
    def test_healthy_one_gpu_machine_passes_with_one_table(self):
        with tempfile.TemporaryDirectory() as tmp:
            f = Folder(tmp).healthy()
            code, text = f.summarize()
            self.assertEqual(code, 0, text)
            self.assertIn("**Verdict: PASS**", text)
            self.assertIn("| gpu.h2d | bw | gpu0 | 256 MiB | 53 GB/s | >= 50.4 GB/s (h200 datasheet) | PASS |", text)
            self.assertIn("| gpu.hbm_bw | copy_bw / memcpy_bw | gpu0 | 1 GiB | 0.952", text)
            self.assertIn("| gpu.h2d | bw / plain_memcpy_bw | gpu0 | 256 MiB | 0.981", text)
            self.assertIn("algbw (busbw 0: one rank): fabcheck / nccl-tests | world | 64 MiB | 1.003", text)
            self.assertIn("| coll.all_reduce | busbw | world (out) | 64 MiB | WAIVED |", text)
            self.assertEqual(text.count("## Figures"), 1)

    def test_each_gemm_hash_is_a_row_of_its_own_and_a_waived_fp8_hash_says_why(self):
        with tempfile.TemporaryDirectory() as tmp:
            f = Folder(tmp)
            gpu, findings = healthy_gpu()
            waiver = ("no FP8 GEMM hash: compute capability 8.0 has no FP8 tensor cores "
                      "(FP8 GEMMs need 8.9 or 9.0 and later)")
            gpu += [measurement("gpu.gemm", "output_hash_changes", 0, unit="count", dtype="bf16"),
                    measurement("gpu.gemm", "output_hash_changes", 0, unit="count", status="waived",
                                dtype="fp8", message=waiver)]
            f.run("fabcheck-gpu", gpu, findings)
            f.run("fabcheck-nccl", nccl_one_gpu(300.0))
            f.nccl_tests("all_reduce", [(64 << 20, 224.0, 299.0, 0.0)])
            code, text = f.summarize()
            self.assertEqual(code, 0, text)  # a waiver is no failure
            self.assertIn("| gpu.gemm | output_hash_changes | gpu0 bf16 |  | 0 count |", text)
            self.assertIn(f"| gpu.gemm | output_hash_changes | gpu0 fp8 |  | WAIVED | - | {waiver} |", text)

    def test_a_skipped_step_is_never_a_pass(self):
        steps = [(n, "SKIPPED" if n == "unit_kernels" else s) for n, s in STEPS_OK]
        with tempfile.TemporaryDirectory() as tmp:
            f = Folder(tmp, steps)
            gpu, findings = healthy_gpu()
            f.run("fabcheck-gpu", gpu, findings)
            code, text = f.summarize()
            self.assertEqual(code, 3, text)
            self.assertIn("**Verdict: INCOMPLETE**", text)
            self.assertIn("| unit_kernels | SKIPPED |", text)
            self.assertIn("step unit_kernels: SKIPPED", text)

    def test_a_run_cut_off_mid_line_is_incomplete_naming_the_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            f = Folder(tmp).healthy()
            path = f.out / "fabcheck-gpu" / "measurements.jsonl"
            path.write_text(path.read_text() + '{"probe": "gpu.hbm_bw", "met')  # killed mid-write
            code, text = f.summarize()
            self.assertEqual(code, 3, text)
            self.assertIn("**Verdict: INCOMPLETE**", text)
            self.assertIn("measurements.jsonl:6: not a whole JSON line", text)
            self.assertIn("| gpu.h2d | bw | gpu0 | 256 MiB | 53 GB/s |", text)  # what was whole

    def test_a_fabcheck_step_stopped_by_its_limit_stays_timeout(self):
        body = shell_function("fabcheck_status")
        with tempfile.TemporaryDirectory() as tmp:
            steps = pathlib.Path(tmp) / "steps.tsv"
            steps.write_text("step\tstatus\tseconds\tnote\nfabcheck_gpu\tTIMEOUT\t120\tstopped after 120s\n")
            subprocess.run(["bash", "-c", body + "\nset_last() { echo \"$1 $2\" >\"$out/set\"; }\nfabcheck_status 124"],
                           env={**os.environ, "out": tmp}, check=True)
            self.assertFalse((pathlib.Path(tmp) / "set").exists(), "a timed-out step was rewritten")
            subprocess.run(["bash", "-c", body + "\nset_last() { echo \"$1 $2\" >\"$out/set\"; }\nfabcheck_status 7"],
                           env={**os.environ, "out": tmp}, check=True)
            self.assertEqual((pathlib.Path(tmp) / "set").read_text().strip(), "FAIL exit 7")

    def test_the_results_come_back_as_three_files_at_the_top(self):
        """A GPU machine gives back at most 8 files, two folders deep: summary, steps, one archive."""
        body = shell_function("pack_details")
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp)
            (out / "summary.md").write_text("# summary\n")
            (out / "steps.tsv").write_text("step\tstatus\n")
            (out / "environment.txt").write_text("env\n")
            for name in ("fabcheck-gpu", "fabcheck-nccl"):
                deep = out / name / "evidence" / "host-a"
                deep.mkdir(parents=True)
                (deep / "nvidia-smi.txt").write_text("x\n")
                (out / name / "measurements.jsonl").write_text("{}\n")
            (out / "logs").mkdir()
            for i in range(30):
                (out / "logs" / f"step{i}.log").write_text("log\n")
            subprocess.run(["bash", "-c", body + '\npack_details "$1"', "_", str(out)], check=True)
            self.assertEqual(sorted(p.name for p in out.iterdir()), ["details.tar.gz", "steps.tsv", "summary.md"])
            with tarfile.open(out / "details.tar.gz") as archive:
                names = archive.getnames()
            self.assertIn("fabcheck-gpu/evidence/host-a/nvidia-smi.txt", names)
            self.assertIn("logs/step29.log", names)
            self.assertIn("environment.txt", names)

    def test_nothing_built_on_a_machine_without_a_gpu_is_incomplete(self):
        steps = [("find_nccl", "FAIL"), ("configure", "SKIPPED"), ("fabcheck_nccl", "SKIPPED"),
                 ("fabcheck_gpu", "SKIPPED")]
        with tempfile.TemporaryDirectory() as tmp:
            code, text = Folder(tmp, steps).summarize()
            self.assertEqual(code, 1, text)  # a failed step fails
            self.assertIn("step build: never ran", text)
            self.assertIn("no gpu.* or coll.* figure was measured", text)

    def test_every_probe_waived_is_not_a_pass(self):
        with tempfile.TemporaryDirectory() as tmp:
            f = Folder(tmp)
            f.run("fabcheck-gpu", [measurement("gpu.h2d", "bw", 0, status="waived", message="no CUDA device")])
            f.run("fabcheck-nccl", [measurement("coll.all_reduce", "busbw", 0, subject="world",
                                                status="waived", message="no CUDA device")])
            code, text = f.summarize()
            self.assertEqual(code, 3, text)
            self.assertIn("everything was WAIVED", text)

    def test_fabcheck_below_nccl_tests_from_64_mib_fails_naming_the_size(self):
        with tempfile.TemporaryDirectory() as tmp:
            f = Folder(tmp)
            gpu, findings = healthy_gpu()
            f.run("fabcheck-gpu", gpu, findings)
            f.run("fabcheck-nccl", nccl_one_gpu(270.0, 256 << 20) + nccl_one_gpu(50.0, 1 << 20))
            f.nccl_tests("all_reduce", [(1 << 20, 10.0, 100.0, 0.0), (256 << 20, 900.0, 300.0, 0.0)])
            code, text = f.summarize()
            self.assertEqual(code, 1, text)
            self.assertIn("coll.all_reduce algbw (busbw 0: one rank) is 0.900 of nccl-tests at 256 MiB", text)
            self.assertIn("| 1 MiB | 0.500 (50 / 100 GB/s) | >= 0.97 from 64 MiB | info |", text)

    def test_busbw_is_compared_where_both_have_one(self):
        with tempfile.TemporaryDirectory() as tmp:
            f = Folder(tmp)
            gpu, findings = healthy_gpu()
            f.run("fabcheck-gpu", gpu, findings)
            f.run("fabcheck-nccl", [measurement("coll.all_reduce", "busbw", 480.0, subject="world",
                                                size=1 << 30, placement="out")])
            f.nccl_tests("all_reduce", [(1 << 30, 4000.0, 274.0, 479.0)])
            code, text = f.summarize()
            self.assertEqual(code, 0, text)
            self.assertIn("| coll.all_reduce | busbw: fabcheck / nccl-tests | world | 1 GiB | 1.002", text)

    def test_hbm_copy_below_its_memcpy_reference_fails(self):
        with tempfile.TemporaryDirectory() as tmp:
            f = Folder(tmp)
            f.run("fabcheck-gpu", [measurement("gpu.hbm_bw", "copy_bw", 3000.0, size=1 << 30),
                                   measurement("gpu.hbm_bw", "memcpy_bw", 4200.0, size=1 << 30)])
            code, text = f.summarize()
            self.assertEqual(code, 1, text)
            self.assertIn("gpu.hbm_bw copy_bw is 0.714 of memcpy_bw at 1 GiB on gpu0 (needs >= 0.9)", text)
            self.assertIn("nccl-tests PASS: note", text)  # built, yet nothing to compare: said so

    def test_a_fail_finding_fails(self):
        with tempfile.TemporaryDirectory() as tmp:
            f = Folder(tmp)
            gpu, _ = healthy_gpu()
            f.run("fabcheck-gpu", gpu, [finding(gpu[0], "fail", 60.0, 55.0)])
            code, text = f.summarize()
            self.assertEqual(code, 1, text)
            self.assertIn("gpu.h2d bw gpu0 256 MiB: FAIL", text)


class OneGpuProfile(unittest.TestCase):
    def test_an_h200_with_one_gpu_keeps_only_per_gpu_expectations(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "profile.toml")
            self.assertEqual(report.write_profile(str(ROOT / "results" / "profiles"), "NVIDIA H200", 1, out), out)
            text = pathlib.Path(out).read_text()
            self.assertIn('probe = "gpu.h2d"', text)
            self.assertIn('probe = "gpu.hbm_bw"', text)
            self.assertNotIn("gpu.p2p", text)
            self.assertNotIn("coll.", text)
            self.assertNotIn("[node]", text)
            self.assertNotIn("gpu_nvlinks", text)

    def test_eight_gpus_use_the_shipped_profile_and_unknown_models_auto(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "profile.toml")
            profiles = ROOT / "results" / "profiles"
            self.assertEqual(report.write_profile(str(profiles), "NVIDIA H100 80GB HBM3", 8, out),
                             str(profiles / "h100-sxm-8.toml"))
            self.assertEqual(report.write_profile(str(profiles), "Tesla T4", 1, out), "auto")
            self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main(verbosity=2)
