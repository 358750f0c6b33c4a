#!/usr/bin/python3
"""Report tests, one scenario per invocation (tests/report/CMakeLists.txt):

  prom-parser   the strict text-format parser rejects each malformed form and accepts good text
  prom-hostile  the writer (record_render prom) fed hostile hosts and subjects: parsed strictly, every
                label value read back equal to what went in
  prom-bad-dir  fabcheck run --prometheus-dir to a missing directory: exit 2, nothing written
  prom-interrupt  a run stopped by SIGTERM replaces the collector's last verdict with incomplete
  bad-input     fabcheck-report on broken records: exit 2 naming file and line, no page written
  html-sweep    a synthetic sweep (synthetic_sweep.py) rendered and opened in headless Chromium
  mpi-run       a real mpirun -np 2 run (collectives, storage, topology) with --prometheus-dir,
                kept under --work for the scenarios below
  prom-run      that run's metrics.prom parsed strictly and checked against its records
  grafana       every metric and label the dashboard queries exists in that run's metrics.prom
  prom-scrape   that run's metrics.prom checked by Debian's promtool (check metrics) and scraped
                through a real prometheus-node-exporter textfile collector: every fabcheck sample
                served with its value, no scrape error; a broken file next to it raises one
  reader        fabcheck_results reads its JSONL, summary.json and run.h5 back, equal, and every
                record validates against results/schema/*.schema.json
  html-run      the report of that run rendered and opened in headless Chromium
  console       fabcheck run under mpirun -np 2, three ways: --json (every line parses and validates
                against results/schema/event.schema.json, the events come in order and match the
                run directory), --quiet (only the verdict line, no progress) and the plain console
                (progress lines on stdout among the tables, in order; the findings grouped by
                severity, the verdict)
"""
import argparse
import html.parser
import json
import math
import os
import pathlib
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import fabcheck_results  # noqa: E402
import prom_text  # noqa: E402

REPORT = ROOT / "scripts" / "fabcheck-report"
DASHBOARD = ROOT / "scripts" / "grafana" / "fabcheck-dashboard.json"
PROFILES = ROOT / "tests" / "fixtures" / "profiles"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars", "--mute-audio"]


def fail(message):
    print("FAIL: " + message, flush=True)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


def run(command, timeout=300, **kwargs):
    print("$ " + " ".join(map(str, command)), flush=True)
    return subprocess.run(list(map(str, command)), capture_output=True, text=True, timeout=timeout, **kwargs)


# ------------------------------------------------------------------------------------- Prometheus

def scenario_prom_parser(a):
    good = ('# HELP m_seconds a \\\\ help \\n text\n# TYPE m_seconds gauge\n'
            'm_seconds{a="x\\"y\\\\z\\nw",b=""} 1.5e-3\nm_seconds{a="2"} NaN\nm_seconds +Inf\n'
            '# a comment\n# HELP other_bytes x\n# TYPE other_bytes gauge\nother_bytes -1\n')
    families = prom_text.parse(good)
    check(families["m_seconds"].help == "a \\ help \n text", f"help unescaped wrong: {families['m_seconds'].help!r}")
    check(families["m_seconds"].samples[0][0]["a"] == 'x"y\\z\nw', "label value unescaped wrong")
    check(len(families["m_seconds"].samples) == 3 and families["other_bytes"].samples[0][1] == -1, "samples wrong")
    head = "# HELP m x\n# TYPE m gauge\n"
    bad = {
        "no final newline": head + "m 1",
        "invalid metric name": "# HELP 1m x\n# TYPE 1m gauge\n1m 1\n",
        "sample without HELP and TYPE": "m 1\n",
        "second HELP": head + "# HELP m y\nm 1\n",
        "second TYPE": head + "# TYPE m gauge\nm 1\n",
        "TYPE after samples": "# HELP m x\nm 1\n# TYPE m gauge\n",
        "not contiguous": head + "m{a=\"1\"} 1\n# HELP n x\n# TYPE n gauge\nn 1\nm{a=\"2\"} 2\n",
        "duplicate series": head + 'm{a="1",b="2"} 1\nm{b="2",a="1"} 2\n',
        "duplicate with empty label": head + 'm{a="1",b=""} 1\nm{a="1"} 2\n',
        "invalid escape": head + 'm{a="x\\t"} 1\n',
        "unterminated value": head + 'm{a="x} 1\n',
        "raw quote in value": head + 'm{a="x"y"} 1\n',
        "label twice": head + 'm{a="1",a="2"} 1\n',
        "reserved label": head + 'm{__name__="x"} 1\n',
        "bad label name": head + 'm{1a="x"} 1\n',
        "timestamp": head + "m 1 1700000000000\n",
        "bad value": head + "m one\n",
        "unknown type": "# HELP m x\n# TYPE m gaugee\nm 1\n",
        "camelCase": "# HELP fooBar x\n# TYPE fooBar gauge\nfooBar 1\n",
        "gauge named _total": "# HELP m_total x\n# TYPE m_total gauge\nm_total 1\n",
        "gauge named _count": "# HELP m_count x\n# TYPE m_count gauge\nm_count 1\n",
        "non-base unit": "# HELP m_milliseconds x\n# TYPE m_milliseconds gauge\nm_milliseconds 1\n",
        "colon": "# HELP a:b x\n# TYPE a:b gauge\na:b 1\n",
        "invalid help escape": '# HELP m a \\" b\n# TYPE m gauge\nm 1\n',
        "not UTF-8": (head + 'm{a="\xff"} 1\n').encode("latin-1"),
    }
    for what, text in bad.items():
        try:
            prom_text.parse(text)
        except prom_text.PromError as error:
            print(f"rejected ({what}): {error}")
            continue
        fail(f"the strict parser accepted {what}: {text!r}")


HOSTILE = [
    'node"quoted',
    "back\\slash\\",
    "new\nline",
    "tab\tand } brace, comma=equals",
    "ünïcødé-ノード-🚀",
    '\\"both\\n',
    "trailing backslash \\",
]


def scenario_prom_hostile(a):
    with tempfile.TemporaryDirectory(prefix="fabcheck_prom_hostile_") as tmp:
        run_dir = pathlib.Path(tmp)
        measurements, findings = [], []
        for k, text in enumerate(HOSTILE):
            measurements.append({
                "schema_version": 1, "kind": "measurement", "probe": "storage.fsync_lat",
                "metric": "fsync_p99_us", "value": 100.0 + k, "unit": "us", "host": text, "rank": k,
                "subject": "/mnt/" + text, "peer": "", "size_bytes": 4096,
                "params": {"placement": text}, "stats": None, "status": "ok", "message": "",
                "time_utc": "2026-11-30T06:09:26Z"})
            findings.append({
                "schema_version": 1, "kind": "finding", "severity": "fail", "probe": "storage.fsync_lat",
                "metric": "fsync_p99_us", "subject": "/mnt/" + text, "host": text, "rank": k,
                "size_bytes": 4096, "unit": "us", "observed": 100.0 + k, "expected": 50.0, "warn_at": 80.0,
                "message": "m", "evidence": "", "remedy": "", "source": ""})
        (run_dir / "measurements.jsonl").write_text("".join(json.dumps(m) + "\n" for m in measurements))
        (run_dir / "findings.jsonl").write_text("".join(json.dumps(f) + "\n" for f in findings))
        summary = {"schema_version": 1, "kind": "summary", "verdict": "fail", "exit_code": 1,
                   "fabcheck_version": 'v"1\\', "plan": "gate", "hosts": HOSTILE,
                   "counts": {"pass": 0, "warn": 0, "fail": len(HOSTILE), "waived": 0, "error": 0},
                   "probes": {"run": ["storage.fsync_lat"], "waived": [], "errored": []}, "ranks": 7,
                   "profile": {"name": "x\ny", "path": ""}, "started_utc": "2026-11-30T06:09:26Z",
                   "finished_utc": None, "run_dir": "/runs/\"odd\"\n"}
        (run_dir / "summary.json").write_text(json.dumps(summary))
        result = run([a.record_render, "prom", run_dir])
        check(result.returncode == 0, f"record_render failed: {result.stderr}")
        families = prom_text.parse(result.stdout.encode("utf-8"))
    samples = families["fabcheck_duration_seconds"].samples
    check(len(samples) == len(HOSTILE), f"{len(samples)} samples for {len(HOSTILE)} measurements")
    for k, text in enumerate(HOSTILE):
        labels, value = samples[k]
        check(labels["host"] == text, f"host read back as {labels['host']!r}, written {text!r}")
        check(labels["subject"] == "/mnt/" + text, f"subject read back as {labels['subject']!r}")
        check(labels["placement"] == text, f"placement read back as {labels['placement']!r}")
        check(abs(value - (100.0 + k) / 1e6) < 1e-15, f"value {value} for {100 + k} us")
    counted = families["fabcheck_findings"].samples
    check(sorted(s[0]["host"] for s in counted) == sorted(HOSTILE), "finding hosts not read back")
    info = families["fabcheck_run_info"].samples[0][0]
    check(info["profile"] == "x\ny" and info["version"] == 'v"1\\' and "hosts" not in info and "run_dir" not in info,
          f"run_info labels read back wrong: {info}")
    check(families["fabcheck_run_hosts"].samples[0][1] == len(HOSTILE), "fabcheck_run_hosts is not the host count")
    check("fabcheck_run_finished_timestamp_seconds" not in families, "an unfinished run has a finish time")
    print(f"{len(HOSTILE)} hostile values round-tripped through {len(families)} families")


def scenario_prom_bad_dir(a):
    with tempfile.TemporaryDirectory(prefix="fabcheck_prom_bad_") as tmp:
        out = pathlib.Path(tmp) / "run"
        missing = pathlib.Path(tmp) / "no-such-collector"
        result = run([a.fabcheck, "run", "--single-process", "--probes", "coll.all_reduce", "--sizes", "8",
                      "--out", out, "--prometheus-dir", missing])
        check(result.returncode == 2, f"exit {result.returncode}, expected 2")
        check(str(missing) in result.stderr and "--prometheus-dir" in result.stderr,
              f"the message does not name the option and directory: {result.stderr!r}")
        check(not out.exists() and not missing.exists(), "something was written")
        a_file = pathlib.Path(tmp) / "file"
        a_file.write_text("x")
        result = run([a.fabcheck, "run", "--single-process", "--probes", "coll.all_reduce", "--sizes", "8",
                      "--out", out, "--prometheus-dir", a_file])
        check(result.returncode == 2 and str(a_file) in result.stderr, f"a file as --prometheus-dir: {result.returncode} {result.stderr!r}")
        check(a_file.read_text() == "x" and not out.exists(), "something was written")


def scenario_prom_interrupt(a):
    """A run stopped by SIGTERM replaces the collector's last verdict with incomplete."""
    import signal
    import time
    with tempfile.TemporaryDirectory(prefix="fabcheck_prom_interrupt_") as tmp:
        tmp = pathlib.Path(tmp)
        collector = tmp / "collector"
        collector.mkdir()
        earlier = collector / "fabcheck_probes.prom"
        earlier.write_text('# HELP fabcheck_run_verdict x\n# TYPE fabcheck_run_verdict gauge\n'
                           'fabcheck_run_verdict{plan="probes",verdict="pass"} 1\n')
        command = [ROOT / "scripts" / "mpirun.sh", 2, a.fabcheck, "run", "--probes",
                   "coll.all_reduce,coll.all_gather,coll.alltoall", "--sizes", "8:64M:2", "--iters", "200",
                   "--out", tmp / "run", "--prometheus-dir", collector]
        print("$ " + " ".join(map(str, command)), flush=True)
        process = subprocess.Popen(list(map(str, command)), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        summary = tmp / "run" / "summary.json"  # written when the run starts, verdict incomplete
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and process.poll() is None and not summary.is_file():
            time.sleep(0.1)
        time.sleep(1)  # into the first probe
        check(process.poll() is None, "the run ended before it could be interrupted")
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=120)
        print(output[-2000:])
        check(process.returncode != 0, "the interrupted run exited 0")
        families = prom_text.parse(earlier.read_bytes())
        verdicts = {s[0]["verdict"]: s[1] for s in families["fabcheck_run_verdict"].samples}
        check(verdicts.get("incomplete") == 1 and verdicts.get("pass") == 0, f"verdict gauges after SIGTERM: {verdicts}")
        check(families["fabcheck_run_exit_code"].samples[0][1] == 3, "exit code gauge not 3")
        check("fabcheck_run_finished_timestamp_seconds" not in families, "an interrupted run has a finish time")
        check((tmp / "run" / "metrics.prom").read_bytes() == earlier.read_bytes(), "metrics.prom differs")
        check(sorted(p.name for p in collector.iterdir()) == ["fabcheck_probes.prom"],
              f"left in the collector: {sorted(p.name for p in collector.iterdir())}")


# ------------------------------------------------------------------------------------ the MPI run

def run_paths(a):
    base = pathlib.Path(a.work) / "mpi-run"
    return base / "run", base / "collector"


def scenario_mpi_run(a):
    run_dir, collector = run_paths(a)
    base = run_dir.parent
    if base.exists():
        shutil.rmtree(base)
    collector.mkdir(parents=True)
    storage = base / "storage"
    storage.mkdir()
    result = run([ROOT / "scripts" / "mpirun.sh", 2, a.fabcheck, "run", "--probes",
                  "coll.all_reduce,coll.all_gather,storage.fsync_lat,storage.rand_read,fabric.topology,gpu.p2p",
                  "--sizes", "8:1M:8", "--iters", "5", "--warmup", "1", "--placement", "both",
                  "--storage-path", storage, "--opt", "storage.duration_s=0.3", "--opt", "storage.file_size=8M",
                  "--profile", PROFILES / "integration.toml", "--out", run_dir, "--prometheus-dir", collector])
    print(result.stdout[-3000:])
    print(result.stderr[-3000:], file=sys.stderr)
    check(result.returncode == 0, f"exit {result.returncode}, expected 0")
    for name in ("measurements.jsonl", "findings.jsonl", "summary.json", "metrics.prom"):
        check((run_dir / name).is_file(), f"{run_dir / name} missing")
    check(sorted(p.name for p in collector.iterdir()) == ["fabcheck_probes.prom"],
          f"collector holds {sorted(p.name for p in collector.iterdir())}, expected fabcheck_probes.prom only")
    shutil.rmtree(storage)


def load_mpi_run(a):
    run_dir, collector = run_paths(a)
    check((run_dir / "summary.json").is_file(), f"{run_dir}: no run (report_mpi_run sets it up)")
    return run_dir, collector


def scenario_prom_run(a):
    run_dir, collector = load_mpi_run(a)
    text = (run_dir / "metrics.prom").read_bytes()
    check(text == (collector / "fabcheck_probes.prom").read_bytes(), "collector file differs from metrics.prom")
    check(oct((collector / "fabcheck_probes.prom").stat().st_mode & 0o777) == "0o644", "collector file not 0644")
    families = prom_text.parse(text)
    run = fabcheck_results.load_run(run_dir)
    summary = run.summary
    verdicts = {s[0]["verdict"]: s[1] for s in families["fabcheck_run_verdict"].samples}
    check(verdicts == {v: (1.0 if v == summary["verdict"] else 0.0) for v in ("pass", "warn", "fail", "incomplete")},
          f"verdict gauges {verdicts} for verdict {summary['verdict']}")
    counts = {s[0]["severity"]: s[1] for s in families["fabcheck_run_findings"].samples}
    check(counts == {k: float(v) for k, v in summary["counts"].items()}, f"finding counts {counts} != {summary['counts']}")
    check(sum(s[1] for s in families["fabcheck_findings"].samples) == len(run.findings),
          "fabcheck_findings does not count every finding")
    status = {s[0]["probe"]: s[0]["status"] for s in families["fabcheck_probe_status"].samples}
    check(status.get("gpu.p2p") == "waived" and status.get("coll.all_reduce") == "ok", f"probe status {status}")
    scale = {"GB/s": ("fabcheck_bandwidth_bytes_per_second", 1e9), "us": ("fabcheck_duration_seconds", 1e-6),
             "count": ("fabcheck_counted", 1), "IOPS": ("fabcheck_operations_per_second", 1)}
    checked = 0
    for m in run.measurements:
        if m["status"] != "ok":
            continue
        check(m["unit"] in scale, f"unit {m['unit']} of {m['probe']} {m['metric']} not expected in this run")
        family, factor = scale[m["unit"]]
        # The label drops the suffix naming the converted unit: time_us in seconds is "time".
        metric = m["metric"].removesuffix("_us") if m["unit"] == "us" else m["metric"]
        wanted = {"plan": "probes", "probe": m["probe"], "metric": metric, "subject": m["subject"],
                  "host": m["host"], "placement": m["params"].get("placement", ""),
                  # A collective's element type and reduction (--dtype, --op), where it has them.
                  "dtype": m["params"].get("type", "") if "redop" in m["params"] else "",
                  "redop": m["params"].get("redop", ""),
                  "size": "" if m["size_bytes"] is None else str(m["size_bytes"]),
                  "rank": "" if m["rank"] < 0 else str(m["rank"]), "peer": m["peer"]}
        wanted = {k: v for k, v in wanted.items() if v != ""}
        found = [v for labels, v in families[family].samples if labels == wanted]
        check(len(found) == 1, f"no single sample for {m['probe']} {m['metric']} {wanted}: {len(found)}")
        check(abs(found[0] - m["value"] * factor) <= 1e-9 * abs(m["value"] * factor) + 1e-18,
              f"{m['probe']} {m['metric']}: {found[0]} != {m['value']} x {factor}")
        checked += 1
    placements = {labels.get("placement") for labels, _ in families["fabcheck_bandwidth_bytes_per_second"].samples}
    check(placements == {"in", "out"}, f"placements {placements}")
    print(f"{checked} measurements found in metrics.prom with their values; {len(families)} families")
    print(text.decode()[:1500])


def free_port():
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def scrape_textfiles(directory):
    """Starts Debian's prometheus-node-exporter with only the textfile collector on `directory`,
    returns one scrape of /metrics (text), and stops it."""
    import urllib.request
    exporter = shutil.which("prometheus-node-exporter")
    check(exporter is not None, "prometheus-node-exporter not installed (scripts/setup.sh installs it)")
    port = free_port()
    log = tempfile.TemporaryFile()  # not a pipe: a full pipe would stop node_exporter mid-reply
    process = subprocess.Popen([exporter, f"--web.listen-address=127.0.0.1:{port}",
                                "--collector.disable-defaults", "--collector.textfile",
                                f"--collector.textfile.directory={directory}"],
                               stdout=subprocess.DEVNULL, stderr=log)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
                    return reply.read().decode("utf-8")
            except OSError as error:
                if process.poll() is not None:
                    log.seek(0)
                    fail(f"node_exporter ended: {log.read().decode()[-500:]}")
                check(time.monotonic() < deadline, f"node_exporter on port {port} did not answer: {error}")
                time.sleep(0.2)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def scraped_samples(text):
    """{(name, frozenset of non-empty labels): value} of a scrape's sample lines."""
    samples = {}
    pattern = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
    label = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        match = pattern.match(line)
        check(match is not None, f"scrape line not understood: {line!r}")
        # node_exporter gives every sample of a family the same label names, "" where the file has
        # none: the same series to Prometheus, which reads an empty label as no label.
        labels = frozenset((k, v) for k, v in label.findall(match.group(2) or "") if v != "")
        samples[(match.group(1), labels)] = float(match.group(3))
    return samples


def scenario_prom_scrape(a):
    run_dir, collector = load_mpi_run(a)
    promtool = shutil.which("promtool")
    check(promtool is not None, "promtool not installed (scripts/setup.sh installs Debian's prometheus)")
    text = (run_dir / "metrics.prom").read_bytes()
    result = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, timeout=60)
    check(result.returncode == 0, f"promtool check metrics: exit {result.returncode}: {result.stdout!r} {result.stderr!r}")
    # promtool is no rubber stamp: a family without HELP is refused.
    result = subprocess.run([promtool, "check", "metrics"], input=b"fabcheck_x 1\n", capture_output=True, timeout=60)
    check(result.returncode != 0, "promtool accepted a family without HELP")
    families = prom_text.parse(text)
    wanted = {(name, frozenset(labels.items())): value
              for name, family in families.items() for labels, value in family.samples}
    with tempfile.TemporaryDirectory(prefix="fabcheck_scrape_") as tmp:
        shutil.copy(collector / "fabcheck_probes.prom", tmp)
        served = scraped_samples(scrape_textfiles(tmp))
        check(served.get(("node_textfile_scrape_error", frozenset())) == 0.0,
              f"node_textfile_scrape_error is {served.get(('node_textfile_scrape_error', frozenset()))}")
        fabcheck = {key: value for key, value in served.items() if key[0].startswith("fabcheck_")}
        missing = [key for key in wanted if key not in fabcheck]
        check(not missing, f"{len(missing)} sample(s) of metrics.prom not served, e.g. {missing[:2]}")
        differ = [key for key, value in wanted.items() if fabcheck[key] != value]
        check(not differ, f"served values differ: {[(k, wanted[k], fabcheck[k]) for k in differ[:2]]}")
        check(len(fabcheck) == len(wanted), f"served {len(fabcheck)} fabcheck samples, the file holds {len(wanted)}")
        # A file the collector cannot parse raises node_textfile_scrape_error: the check sees what a
        # collector would.
        (pathlib.Path(tmp) / "fabcheck_broken.prom").write_text('fabcheck_broken{plan="x" 1\n')
        broken = scraped_samples(scrape_textfiles(tmp))
        check(broken.get(("node_textfile_scrape_error", frozenset())) == 1.0,
              "a malformed file did not raise node_textfile_scrape_error")
    print(f"promtool check metrics: ok; node_exporter served {len(wanted)} fabcheck samples of "
          f"{len(families)} families, equal to the file")


PROMQL_WORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "offset",
                "and", "or", "unless", "inf", "nan"}


def metric_names(expr):
    """Metric names and (metric, label) pairs a PromQL expression uses."""
    names, labels = set(), set()
    variable = re.fullmatch(r"\s*label_values\((.*),\s*[a-zA-Z_][a-zA-Z0-9_]*\s*\)\s*", expr)
    if variable:  # a Grafana variable: label_values(SERIES, LABEL)
        expr = variable.group(1)
    for metric, matchers in re.findall(r"([a-zA-Z_:][a-zA-Z0-9_:]*)\s*\{([^}]*)\}", expr):
        for label in re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)\s*"', matchers):
            labels.add((metric, label))
    stripped = re.sub(r"\{[^}]*\}", " ", expr)
    stripped = re.sub(r'"[^"]*"', " ", stripped)
    stripped = re.sub(r"\b(by|without|on|ignoring)\s*\([^)]*\)", " ", stripped)
    for match in re.finditer(r"(?<![\w$.:])([a-zA-Z_:][a-zA-Z0-9_:]*)(?![\w:])(?!\s*\()", stripped):
        word = match.group(1)
        if word.lower() in PROMQL_WORDS or re.fullmatch(r"\d+[smhdwy]?", word):
            continue
        names.add(word)
    return names, labels


def dashboard_exprs(dashboard):
    exprs = []
    for panel in dashboard["panels"]:
        for target in panel.get("targets", []):
            exprs.append((panel["title"], target["expr"]))
    for variable in dashboard["templating"]["list"]:
        if variable["type"] == "query":
            query = variable["query"]
            exprs.append(("variable " + variable["name"], query["query"] if isinstance(query, dict) else query))
    return exprs


def dashboard_problems(dashboard, families):
    """What in the dashboard a real run's metrics.prom does not have: metric names, label names
    (instance and job come from Prometheus), panels with a fixed data source."""
    problems, used = [], set()
    labels_of = {name: {k for labels, _ in f.samples for k in labels} for name, f in families.items()}
    for where, expr in dashboard_exprs(dashboard):
        names, labels = metric_names(expr)
        if not names:
            problems.append(f"{where}: no metric in {expr!r}")
        for name in names:
            used.add(name)
            if name not in families:
                problems.append(f"{where}: {name} is not in a real run's metrics.prom")
        for metric, label in labels:
            if label not in labels_of.get(metric, set()) | {"instance", "job"}:
                problems.append(f"{where}: label {label} never appears on {metric} in a real run")
    for panel in dashboard["panels"]:
        if panel.get("datasource", {}).get("uid") != "${datasource}":
            problems.append(f"panel {panel['title']} has a fixed data source")
    return problems, used


def scenario_grafana(a):
    run_dir, _ = load_mpi_run(a)
    families = prom_text.parse((run_dir / "metrics.prom").read_bytes())
    text = DASHBOARD.read_text()
    dashboard = json.loads(text)
    check(dashboard.get("uid") and dashboard.get("panels"), "dashboard without uid or panels")
    check(metric_names('sum by (severity) (x_y{a="b"}) or vector(0)') == ({"x_y"}, {("x_y", "a")}),
          "the expression reader itself is wrong")
    problems, used = dashboard_problems(dashboard, families)
    check(not problems, "dashboard: " + "; ".join(problems))
    # The check catches a renamed metric and a label the writer does not emit.
    renamed = json.loads(text.replace("fabcheck_duration_seconds", "fabcheck_duration_microseconds"))
    check(any("fabcheck_duration_microseconds" in p for p in dashboard_problems(renamed, families)[0]),
          "a renamed metric went unnoticed")
    relabelled = json.loads(text.replace('metric=\\"busbw\\"', 'metrik=\\"busbw\\"'))
    check(any("label metrik" in p for p in dashboard_problems(relabelled, families)[0]),
          "a label the writer never emits went unnoticed")
    print(f"{len(dashboard_exprs(dashboard))} expressions, metrics used: {sorted(used)}")


# ---------------------------------------------------------------------------------------- reader

def scenario_reader(a):
    import jsonschema
    run_dir, _ = load_mpi_run(a)
    run = fabcheck_results.load_run(run_dir, with_h5=True)
    check(run.h5 is not None, "run.h5 missing (built without HDF5?)")
    check(len(run.measurements) > 20 and len(run.findings) > 0, "too few records")
    for kind, records in (("measurement", run.measurements), ("finding", run.findings), ("summary", [run.summary])):
        schema = json.loads((ROOT / "results" / "schema" / f"{kind}.schema.json").read_text())
        validator = jsonschema.Draft202012Validator(schema)
        for record in records:
            errors = list(validator.iter_errors(record))
            check(not errors, f"{kind} record fails its schema: {errors[0].message if errors else ''}: {record}")
    # run.h5 holds the same records as the JSONL files.
    for table in ("measurements", "findings"):
        from_json, from_h5 = getattr(run, table), run.h5[table]
        check(len(from_json) == len(from_h5), f"{table}: {len(from_json)} in JSONL, {len(from_h5)} in run.h5")
        for k, (j, h) in enumerate(zip(from_json, from_h5)):
            for key, value in h.items():
                if key in ("schema_version", "kind"):
                    continue
                if isinstance(value, float) and isinstance(j[key], (int, float)):
                    check(abs(value - j[key]) <= 1e-12 * abs(value), f"{table}[{k}].{key}: {value} != {j[key]}")
                elif isinstance(value, dict) and isinstance(j[key], dict):
                    check(value.keys() == j[key].keys(), f"{table}[{k}].{key}: {value} != {j[key]}")
                else:
                    check(value == j[key], f"{table}[{k}].{key}: run.h5 {value!r} != JSONL {j[key]!r}")
    # Versions: a newer record is refused, naming the file and line.
    with tempfile.TemporaryDirectory(prefix="fabcheck_reader_") as tmp:
        newer = pathlib.Path(tmp) / "measurements.jsonl"
        lines = (run_dir / "measurements.jsonl").read_text().splitlines()
        record = json.loads(lines[2])
        record["schema_version"] = 2
        lines[2] = json.dumps(record)
        newer.write_text("\n".join(lines) + "\n")
        try:
            fabcheck_results.read_jsonl(newer, "measurement")
            fail("schema_version 2 was read")
        except fabcheck_results.RecordError as error:
            check(f"{newer}:3:" in str(error) and "schema_version 2" in str(error), f"message: {error}")
            print(f"refused: {error}")
    print(f"read back {len(run.measurements)} measurements, {len(run.findings)} findings, summary and run.h5")


# ------------------------------------------------------------------------------- the HTML report

class DomFigures(html.parser.HTMLParser):
    """Figures of class plot in a dumped DOM: id -> {loaded: data-loaded, img: image source prefix,
    attrs: the figure's attributes, caption: its text}; the ids of the sections."""

    def __init__(self):
        super().__init__()
        self.figures, self.body, self.current, self.verdict = {}, {}, None, None
        self.first_section, self.sections, self.in_caption = None, [], False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "body":
            self.body = attrs
        if tag == "figure" and "plot" in (attrs.get("class") or "").split():
            self.current = attrs.get("id")
            self.figures[self.current] = {"loaded": attrs.get("data-loaded"), "img": None, "attrs": attrs, "caption": ""}
        if tag == "img" and self.current:
            self.figures[self.current]["img"] = (attrs.get("src") or "")[:22]
        if tag == "figcaption" and self.current:
            self.in_caption = True
        if tag in ("header", "section") and self.first_section is None:
            self.first_section = attrs.get("id")
        if tag == "section":
            self.sections.append(attrs.get("id"))
        if tag == "header" and attrs.get("data-verdict"):
            self.verdict = attrs["data-verdict"]

    def handle_data(self, data):
        if self.in_caption:
            self.figures[self.current]["caption"] += data

    def handle_endtag(self, tag):
        if tag == "figcaption":
            self.in_caption = False
        if tag == "figure":
            self.current = None


def legend_of(figure):
    return [label for label in figure["attrs"].get("data-legend", "").split(" | ") if label]


def check_drawn_whole(figures):
    """What fabcheck_plot_check measured on each figure: no point on or over the edge of its
    plot, none under a legend, no legend label a bare 'in'/'out', cell values of heat maps (and
    labels in curves and distributions) 8 pt or larger."""
    for fig_id, figure in figures.items():
        attrs = figure["attrs"]
        check(attrs.get("data-cut") == "0", f"{fig_id}: {attrs.get('data-cut')} points cut off at the plot's edge")
        check(attrs.get("data-covered") == "0", f"{fig_id}: {attrs.get('data-covered')} points under the legend")
        bare = [label for label in legend_of(figure) if re.search(r"(^|\s)(in|out)$", label)]
        check(not bare, f"{fig_id}: legend labels say in/out, not in-place/out-of-place: {bare}")
        smallest = attrs.get("data-min-text-pt", "")
        if attrs.get("data-kind") in ("p2p", "pairs", "curve", "distribution") and smallest:
            check(float(smallest) >= 8, f"{fig_id}: text of {smallest} pt in the plot (8 pt at least)")


# ---------------------------------------------------------------------------------------- Console

CONSOLE_PROBES = "coll.all_reduce,gpu.h2d,coll.all_gather"


def console_run(a, base, *flags):
    run_dir = base / ("run" + "".join(f.replace("-", "_") for f in flags))
    result = run([ROOT / "scripts" / "mpirun.sh", 2, a.fabcheck, "run", "--probes", CONSOLE_PROBES,
                  "--sizes", "1K,64K", "--iters", "3", "--warmup", "1", "--profile",
                  PROFILES / "integration.toml", "--out", run_dir, *flags], timeout=120)
    print(result.stdout[-4000:])
    print(result.stderr[-2000:], file=sys.stderr)
    return result, run_dir


def check_event_sequence(events, probes):
    """run_started, then per probe: probe_started, notes, measurements, findings, probe_finished;
    then findings of the whole run and run_finished, last and once."""
    names = [e["event"] for e in events]
    check(names[0] == "run_started" and names[-1] == "run_finished" and names.count("run_finished") == 1,
          f"run_started ... run_finished expected, got {names}")
    check(events[0]["probes"] == probes, f"run_started probes {events[0]['probes']}, expected {probes}")
    order = {"probe_started": 0, "note": 1, "step": 1, "progress": 1, "measurement": 2, "finding": 3,
             "probe_finished": 4}
    position, in_probe, index = 4, None, 0
    for e in events[1:-1]:
        name = e["event"]
        if name == "probe_started":
            check(in_probe is None, f"{e['probe']} started inside {in_probe}")
            index += 1
            check(e["probe"] == probes[index - 1] and e["index"] == index and e["count"] == len(probes),
                  f"probe_started {e}, expected {probes[index - 1]} {index}/{len(probes)}")
            in_probe, position = e["probe"], 0
            continue
        if in_probe is None:
            check(name in ("finding", "evidence"), f"{name} outside a probe: {e}")
            continue
        check(name in order and order[name] >= position, f"{name} after {position} in {in_probe}: {names}")
        position = order[name]
        if name == "measurement":
            check(e["measurement"]["probe"] == in_probe, f"measurement of {e['measurement']['probe']} in {in_probe}")
        if name == "probe_finished":
            check(e["probe"] == in_probe, f"probe_finished {e['probe']} inside {in_probe}")
            in_probe = None
    check(index == len(probes), f"{index} probes started, expected {len(probes)}")


def scenario_console(a):
    import jsonschema
    base = pathlib.Path(a.work) / "console"
    if base.exists():
        shutil.rmtree(base)
    base.mkdir(parents=True)
    probes = CONSOLE_PROBES.split(",")
    schemas = {kind: jsonschema.Draft202012Validator(
        json.loads((ROOT / "results" / "schema" / f"{kind}.schema.json").read_text()))
        for kind in ("event", "measurement", "finding")}

    result, run_dir = console_run(a, base, "--json")
    check(result.returncode == 0, f"--json: exit {result.returncode}, expected 0")
    events = []
    for number, line in enumerate(result.stdout.splitlines(), 1):
        try:
            event = json.loads(line)
        except json.JSONDecodeError as error:
            fail(f"--json stdout line {number} is not JSON ({error}): {line!r}")
        errors = list(schemas["event"].iter_errors(event))
        check(not errors, f"line {number} fails event.schema.json: {errors[0].message if errors else ''}: {line}")
        for kind in ("measurement", "finding"):
            if event["event"] == kind:
                errors = list(schemas[kind].iter_errors(event[kind]))
                check(not errors, f"line {number}: the {kind} fails its schema: {errors[0].message if errors else ''}")
        events.append(event)
    check_event_sequence(events, probes)
    # Each collective's steps: one a size as it begins (done 0, 1, ...), then the last ended; each
    # size's figures as progress before the gathered measurements, the same records.
    for probe in ("coll.all_reduce", "coll.all_gather"):
        steps = [e for e in events if e["event"] == "step" and e["probe"] == probe]
        count = steps[0]["count"] if steps else 0
        check(count > 0 and [s["done"] for s in steps] == list(range(count + 1))
              and all(s["next"] for s in steps[:-1]) and steps[-1]["next"] == "",
              f"{probe}: step events {[(s['done'], s['next']) for s in steps]}")
        live = [e["measurement"] for e in events if e["event"] == "progress" and e["probe"] == probe]
        gathered = [e["measurement"] for e in events if e["event"] == "measurement"
                    and e["measurement"]["probe"] == probe]
        check(live and all(m in gathered for m in live)
              and {m["size_bytes"] for m in live} == {m["size_bytes"] for m in gathered if m.get("size_bytes")},
              f"{probe}: {len(live)} progress figures, not the gathered sizes' records")
    by_probe = {e["probe"]: e for e in events if e["event"] == "probe_finished"}
    check(by_probe["gpu.h2d"]["outcome"] == "waived" and by_probe["coll.all_reduce"]["outcome"] == "ran",
          f"outcomes {[(p, e['outcome']) for p, e in by_probe.items()]}")
    measurements = [e["measurement"] for e in events if e["event"] == "measurement"]
    findings = [e["finding"] for e in events if e["event"] == "finding"]
    on_disk = [json.loads(line) for line in (run_dir / "measurements.jsonl").read_text().splitlines()]
    check(measurements == on_disk, f"{len(measurements)} measurement events, {len(on_disk)} records on disk, or different")
    on_disk = [json.loads(line) for line in (run_dir / "findings.jsonl").read_text().splitlines()]
    check(findings == on_disk, f"{len(findings)} finding events, {len(on_disk)} records on disk, or different")
    summary = json.loads((run_dir / "summary.json").read_text())
    end = events[-1]
    check(end["verdict"] == summary["verdict"] and end["exit_code"] == summary["exit_code"] == 0
          and end["counts"] == summary["counts"] and end["last_words"] is False,
          f"run_finished {end} against summary verdict {summary['verdict']}")
    check("fabcheck [" not in result.stderr, "--json printed progress")

    result, _ = console_run(a, base, "--quiet")
    check(result.returncode == 0, f"--quiet: exit {result.returncode}, expected 0")
    check(re.fullmatch(r"verdict: PASS \(\d+ pass, 0 warn, 0 fail, \d+ waived, 0 error\); exit code 0\n",
                       result.stdout) is not None, f"--quiet printed more than the verdict line: {result.stdout!r}")
    check("fabcheck [" not in result.stderr, "--quiet printed progress")

    result, _ = console_run(a, base)
    check(result.returncode == 0, f"console: exit {result.returncode}, expected 0")
    out = result.stdout
    lines = out.splitlines()
    progress = [line for line in lines if line.startswith("fabcheck [")]
    check(progress and progress[0].startswith("fabcheck [1/3] coll.all_reduce started, 0:00 elapsed"),
          f"no progress lines on stdout (stderr not a terminal: plain lines among the tables): {progress}")
    check(any(line.startswith("fabcheck [3/3] coll.all_gather ran in ") for line in progress),
          f"no line for the last probe's end: {progress}")
    check("fabcheck [" not in result.stderr, f"progress lines on stderr: {result.stderr[-500:]!r}")
    # Each collective's table, then its closing lines, then its end: in one stream, in order.
    for probe in ("coll.all_reduce", "coll.all_gather"):
        note = out.index(f"# {probe}: backend mpi")
        closing = out.index("# Avg bus bandwidth", note)
        ended = out.index(f"] {probe} ran in ", note)
        check(note < closing < ended, f"{probe}: note, rows, closing and end out of order")
        check("# #wrong (elements unlike the expected result, every size and rank): 0 OK\n" in out[note:ended],
              f"{probe}: no closing #wrong line before its end")
    for text in ("#wrong", "busbw", "out-of-place", "# gpu.h2d: WAIVED (", "# findings by severity\nWAIVED (1)\n  gpu.h2d: ",
                 "verdict: PASS"):
        check(text in out, f"console lacks {text!r}")
    check(out.index("# coll.all_gather: backend mpi") < out.index("# findings by severity") < out.index("verdict: PASS"),
          "the console's end is out of order")


def render(a, inputs, output):
    result = run([REPORT, *inputs, "-o", output])
    print(result.stdout, result.stderr)
    check(result.returncode == 0, f"fabcheck-report exit {result.returncode}: {result.stderr}")
    page = output.read_text()
    check("http://" not in page.replace("http://www.w3.org", "") and "https://" not in page.replace("https://fabcheck.invalid", ""),
          "the page refers to the network")
    check("<link" not in page and "<script src" not in page, "the page loads external CSS or JS")
    return page


def open_in_chromium(page_path, expected_ids, verdict, work):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    check(chromium, "chromium is not installed (scripts/setup.sh installs Debian's chromium)")
    profile = work / "chromium-profile"
    flags = CHROMIUM_FLAGS + [f"--user-data-dir={profile}", "--virtual-time-budget=15000"]
    dom = run([chromium, *flags, "--dump-dom", page_path.resolve().as_uri()], timeout=180)
    check(dom.returncode == 0 and "<html" in dom.stdout, f"chromium --dump-dom failed: {dom.returncode} {dom.stderr[-2000:]}")
    parsed = DomFigures()
    parsed.feed(dom.stdout)
    figures = parsed.figures
    print(f"chromium loaded {len(figures)} plots: {sorted(figures)}")
    check(parsed.first_section == "verdict", f"the page starts with {parsed.first_section}, not the verdict")
    check(parsed.verdict == verdict, f"verdict on the page {parsed.verdict}, expected {verdict}")
    check(parsed.body.get("data-plots") == str(len(figures)), f"body data-plots {parsed.body.get('data-plots')}: the page script did not run")
    check(parsed.body.get("data-plots-loaded") == str(len(figures)),
          f"{parsed.body.get('data-plots-loaded')} of {len(figures)} plot images decoded")
    for fig_id, figure in figures.items():
        check(figure["img"] == "data:image/png;base64,", f"{fig_id}: image not an inline PNG: {figure['img']}")
        check(figure["loaded"] == "1", f"{fig_id}: image did not decode")
    missing = [i for i in expected_ids if i not in figures]
    check(not missing, f"plots missing: {missing} (present: {sorted(figures)})")
    check_drawn_whole(figures)
    shot = work / "screenshot.png"
    result = run([chromium, *flags, f"--screenshot={shot}", "--window-size=1280,1600", page_path.resolve().as_uri()], timeout=180)
    check(result.returncode == 0 and shot.is_file(), f"no screenshot: {result.stderr[-2000:]}")
    import matplotlib.image
    pixels = matplotlib.image.imread(str(shot))[:, :, :3]
    check(pixels.shape[0] == 1600 and pixels.shape[1] == 1280, f"screenshot {pixels.shape}")
    check(float(pixels.std()) > 0.05, f"screenshot blank (std {pixels.std():.3f})")
    colours = {tuple((p * 255).astype(int)) for p in pixels[::7, ::7].reshape(-1, 3)}
    check(len(colours) > 50, f"screenshot has {len(colours)} colours: blank or unstyled")
    banner = {"pass": (0x2e, 0x7d, 0x32), "fail": (0xc6, 0x28, 0x28), "warn": (0xf9, 0xa8, 0x25),
              "incomplete": (0x6a, 0x1b, 0x9a)}[verdict]
    top = pixels[:140].reshape(-1, 3)
    share = float(((abs(top * 255 - banner) < 3).all(axis=1)).mean())
    check(share > 0.2, f"the verdict banner's colour covers {share:.0%} of the top of the page")
    print(f"screenshot {shot}: {len(colours)} colours, banner {share:.0%} of the top 140 px")
    return figures, parsed.sections


def scenario_html_run(a):
    run_dir, _ = load_mpi_run(a)
    work = pathlib.Path(a.work) / "html-run"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    page = render(a, [run_dir], work / "report.html")
    summary = json.loads((run_dir / "summary.json").read_text())
    expected = ["fig-curve-coll.all_reduce", "fig-curve-coll.all_gather",
                "fig-storage-storage.fsync_lat-fsync", "fig-storage-storage.rand_read-lat_qd1",
                "fig-storage-storage.rand_read-lat_qd32"]
    figures, sections = open_in_chromium(work / "report.html", expected, summary["verdict"], work)
    drawn_anyway = [f for f in figures if f.split("-")[1] in ("p2p", "pairs", "dist", "topology")]
    check(not drawn_anyway, f"plots drawn from nothing (no GPU, one host): {drawn_anyway}")
    # What one host without GPUs cannot show is said once, on one line, with the records' reasons.
    empty = [s for s in ("p2p", "node-pairs", "distributions", "topology") if s in sections]
    check(not empty, f"sections printed with nothing to show: {empty}")
    check(page.count('id="not-measured"') == 1, "no single 'Not measured' line")
    line = page[page.index('id="not-measured"'):]
    line = re.sub(r"<[^>]+>", "", line[:line.index("</section>")])
    for text in ("GPU ↔ GPU bandwidth", "node-pair bandwidth", "per-node distributions",
                 "GPU – NIC – NUMA placement", "no figure was measured on two nodes or more; 1 node(s) measured on their own"):
        check(text in line, f"the 'Not measured' line does not name {text!r}: {line}")
    check(line.count("no GPU on this node") == 1, f"the topology's reason not said exactly once: {line}")
    for waived in summary["probes"]["waived"]:
        if waived["id"] in ("gpu.p2p", "fabric.topology"):
            check(html.escape(waived["reason"], quote=True) in line,
                  f"the 'Not measured' line lacks why {waived['id']} was waived ({waived['reason']!r}): {line}")
    # A real run's samples: the spread drawn from its time_us stats, in-place and out-of-place named.
    for probe in ("coll.all_reduce", "coll.all_gather"):
        figure = figures[f"fig-curve-{probe}"]
        check("under each line, shaded (dotted beyond 4 lines): the bandwidth at the p99 time" in figure["caption"]
              and "time: median, p99 above it" in figure["caption"], f"{probe}: no spread drawn: {figure['caption']}")
        labels = legend_of(figure)
        check("in-place" in labels and "out-of-place" in labels, f"{probe}: legend {labels}")
    # The integration profile judges busbw only: no latency limit is drawn, and none is said.
    judged_time = [f for f in fabcheck_results.read_jsonl(run_dir / "findings.jsonl", "finding")
                   if f["metric"] == "time_us" and f["expected"] is not None]
    for probe in ("coll.all_reduce", "coll.all_gather"):
        caption = figures[f"fig-curve-{probe}"]["caption"]
        check(("limit from the findings" in caption) == any(f["probe"] == probe for f in judged_time),
              f"{probe}: latency limit said {'limit from the findings' in caption}, findings judging time_us: "
              f"{len(judged_time)}")


def scenario_html_sweep(a):
    work = pathlib.Path(a.work) / "html-sweep"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    result = run([sys.executable, pathlib.Path(__file__).parent / "synthetic_sweep.py", work / "sweep"])
    check(result.returncode == 0, f"synthetic_sweep.py: {result.stderr}")
    page = render(a, [work / "sweep"], work / "report.html")
    expected = ["fig-curve-coll.all_reduce", "fig-curve-coll.all_gather", "fig-curve-gpu.h2d",
                "fig-p2p-20261130T020000Z-node02-node02", "fig-pairs-20261130T021000Z-pairs",
                "fig-dist-coll.all_reduce-busbw", "fig-dist-gpu.h2d-bw", "fig-dist-gpu.p2p-ce_bw",
                "fig-storage-storage.fsync_lat-fsync", "fig-topology-20261130T020000Z-node04-node04"]
    figures, sections = open_in_chromium(work / "report.html", expected + ["fig-curve-coll.node_pairs"], "fail", work)
    check('id="not-measured"' not in page, "a sweep that measured every section says something was not measured")
    # The planted faults are where a person looks for them.
    findings_part = page[page.index('id="findings"'):page.index('id="curves"')]
    for text in ("node03", "node01--node05", "gpu5", "gpu3", "0000:78:00.0"):
        check(text in findings_part, f"findings do not name {text}")
    check(findings_part.index("FAIL") < findings_part.index("WARN") < findings_part.index("PASS"),
          "findings not ordered FAIL, WARN, PASS")
    for text in ("tier bands from the profile: pcie-gen5-x16, pcie-gen4-x16",
                 "suspects boxed (from the findings): node03, node01--node05",
                 "GPUs named in WARN/FAIL findings in red", "outliers named by the findings: node04 gpu5",
                 "crossing NUMA nodes or root complexes: 0000:78:00.0",
                 "4 hosts with the same placement"):
        check(text in page, f"the page does not say {text!r}")
    check_sweep_plots(figures)
    # One run of the sweep alone renders too, and a folder of one run's directory is found.
    single = render(a, [work / "sweep" / "runs" / "20261130T020000Z-node01"], work / "one.html")
    check('data-verdict="pass"' in single, "node01 alone is not PASS")
    # The node-pair run alone: what the pairs measured at their two sizes is drawn, and the
    # sections it has nothing for are one line, not five empty sections.
    pairs_work = work / "pairs"
    pairs_work.mkdir()
    pairs = render(a, [work / "sweep" / "runs" / "20261130T021000Z-pairs"], pairs_work / "report.html")
    check("No bandwidth measured at two sizes or more" not in pairs and "no bandwidth measured" not in pairs,
          "the node-pair run's report says no bandwidth was measured at two sizes")
    figures, sections = open_in_chromium(pairs_work / "report.html", ["fig-curve-coll.node_pairs",
                                         "fig-pairs-20261130T021000Z-pairs"], "fail", pairs_work)
    figure = figures["fig-curve-coll.node_pairs"]
    check("(one line per node pair)" in figure["caption"], f"node-pair curve caption: {figure['caption']}")
    pair_labels = [label for label in legend_of(figure) if "--" in label]
    check(len(pair_labels) == 10 and "node01--node05" in pair_labels, f"node-pair curve legend: {legend_of(figure)}")
    empty = [s for s in ("p2p", "distributions", "storage", "topology") if s in sections]
    check(not empty, f"sections printed with nothing to show: {empty}")
    line = pairs[pairs.index('id="not-measured"'):]
    line = re.sub(r"<[^>]+>", "", line[:line.index("</section>")])
    for text in ("GPU ↔ GPU bandwidth (gpu.p2p did not run)", "storage latency (storage.fsync_lat and storage.rand_read did not run)",
                 "GPU – NIC – NUMA placement (fabric.topology did not run)", "per-node distributions"):
        check(text in line, f"the 'Not measured' line does not say {text!r}: {line}")
    check(pairs.count('id="not-measured"') == 1 and '<a href="#p2p">' not in pairs, "not one line, or a link to an absent section")
    check_heat_map_cells()
    check_spread_arithmetic()


def check_sweep_plots(figures):
    """The synthetic sweep's plots show what its records hold: spread, limits, placements."""
    caption = figures["fig-curve-coll.all_reduce"]["caption"]
    for text in ("under each line, shaded (dotted beyond 4 lines): the bandwidth at the p99 time", "time: median, p99 above it",
                 "limit from the findings: time_us pass at or below 60 µs at 8B, 32B"):
        check(text in caption, f"all-reduce curve caption lacks {text!r}: {caption}")
    labels = legend_of(figures["fig-curve-coll.all_reduce"])
    check("limit (pass at or below)" in labels and "WARN up to" in labels, f"all-reduce legend: {labels}")
    caption = figures["fig-curve-coll.all_gather"]["caption"]
    check("limit" not in caption, f"a limit said where no finding gives one: {caption}")
    labels = legend_of(figures["fig-curve-coll.all_gather"])
    check("node01 in-place" in labels and "node01 out-of-place" in labels, f"all-gather legend: {labels}")
    caption = figures["fig-curve-gpu.h2d"]["caption"]
    check("under each line, shaded (dotted beyond 4 lines): the slowest sample" in caption, f"h2d caption: {caption}")
    caption = figures["fig-storage-storage.fsync_lat-fsync"]["caption"]
    check("limit from the findings: p99 pass at or below 2000 µs" in caption, f"fsync caption: {caption}")
    check("limit (pass at or below)" in legend_of(figures["fig-storage-storage.fsync_lat-fsync"]), "no limit in the fsync legend")
    for fig_id in ("fig-p2p-20261130T020000Z-node02-node02", "fig-pairs-20261130T021000Z-pairs"):
        size = figures[fig_id]["attrs"].get("data-min-text-pt")
        check(size and float(size) >= 8, f"{fig_id}: cell values {size!r} pt, or none written")


def check_heat_map_cells():
    """Cell values sized to the cells: 8 GPUs get 8 pt or more, 64 nodes none (and the page says
    they are in the table), never a size under 8 pt."""
    import matplotlib
    matplotlib.use("Agg")
    import fabcheck_report
    plt = fabcheck_report.plt
    for n, fits in ((8, True), (64, False)):
        fig, ax = plt.subplots(figsize=(4, 4))
        grid = [[float(100 + i + j) for j in range(n)] for i in range(n)]
        ax.imshow(grid)
        written = fabcheck_report.cell_values(fig, ax, grid, lambda v: f"{v:.0f}", lambda v: "black")
        sizes = [t.get_fontsize() for t in ax.texts]
        if fits:
            check(written is not None and len(sizes) == n * n and min(sizes) >= 8,
                  f"{n}x{n} cells: {written}, {len(sizes)} values, smallest {min(sizes, default=None)} pt")
        else:
            check(written is None and not sizes, f"{n}x{n} cells in 4 in: values written at {sizes[:1]} pt")
        plt.close(fig)
    table = fabcheck_report.matrix_table("t", ["a", "b"], [[math.nan, 1.0], [2.0, math.nan]], lambda v: f"{v:.0f}")
    check("<td>1</td>" in table and "<td>2</td>" in table and "<th>b</th>" in table, f"matrix table: {table}")


def check_spread_arithmetic():
    """The band of a time is median to p99; of a bandwidth from timed operations, the bandwidth at
    the p99 time (value x median / p99) to the median; of a bandwidth with its own samples, the
    slowest sample to the median; none without stats."""
    import fabcheck_report
    stats = {"count": 5, "min": 9.0, "median": 10.0, "max": 30.0, "p99": 25.0, "mean": 12.0, "cv": 0.3}
    time = {"unit": "us", "value": 10.0, "stats": stats}
    check(fabcheck_report.spread_of(time, None) == (10.0, 25.0), f"time band {fabcheck_report.spread_of(time, None)}")
    busbw = {"unit": "GB/s", "value": 50.0, "stats": None}
    check(fabcheck_report.spread_of(busbw, stats) == (20.0, 50.0), f"busbw band {fabcheck_report.spread_of(busbw, stats)}")
    copy = {"unit": "GB/s", "value": 50.0, "stats": dict(stats, min=41.0)}
    check(fabcheck_report.spread_of(copy, None) == (41.0, 50.0), f"copy band {fabcheck_report.spread_of(copy, None)}")
    check(fabcheck_report.spread_of(busbw, None) is None, "a band without stats")


def scenario_bad_input(a):
    with tempfile.TemporaryDirectory(prefix="fabcheck_report_bad_") as tmp:
        tmp = pathlib.Path(tmp)
        run([sys.executable, pathlib.Path(__file__).parent / "synthetic_sweep.py", tmp / "sweep", "--nodes", "2"])
        good = tmp / "sweep" / "runs" / "20261130T020000Z-node01"
        output = tmp / "report.html"
        output.write_text("earlier report")

        def expect_error(inputs, fragment, what):
            result = run([REPORT, *inputs, "-o", output])
            check(result.returncode == 2, f"{what}: exit {result.returncode}, expected 2 ({result.stderr})")
            check(fragment in result.stderr, f"{what}: message {result.stderr!r} lacks {fragment!r}")
            check(output.read_text() == "earlier report", f"{what}: the earlier report was written over")
            print(f"{what}: {result.stderr.strip()}")

        broken = tmp / "broken"
        shutil.copytree(good, broken)
        lines = (broken / "measurements.jsonl").read_text().splitlines()
        lines[4] = lines[4][:40]
        (broken / "measurements.jsonl").write_text("\n".join(lines) + "\n")
        expect_error([broken], f"{broken / 'measurements.jsonl'}:5: not JSON", "truncated line")

        mistyped = tmp / "mistyped"
        shutil.copytree(good, mistyped)
        lines = (mistyped / "findings.jsonl").read_text().splitlines()
        record = json.loads(lines[1])
        record["observed"] = "fast"
        lines[1] = json.dumps(record)
        (mistyped / "findings.jsonl").write_text("\n".join(lines) + "\n")
        expect_error([mistyped], f"{mistyped / 'findings.jsonl'}:2: field 'observed' is 'fast', expected a number or null",
                     "mistyped field")

        newer = tmp / "newer"
        shutil.copytree(good, newer)
        summary = json.loads((newer / "summary.json").read_text())
        summary["schema_version"] = 9
        (newer / "summary.json").write_text(json.dumps(summary))
        expect_error([newer], f"{newer / 'summary.json'}: schema_version 9 is not one this reader knows", "newer schema")

        binary = tmp / "binary"
        shutil.copytree(good, binary)
        with open(binary / "measurements.jsonl", "ab") as stream:
            stream.write(b'{"x": "\xff"}\n')
        expect_error([binary], f"{binary / 'measurements.jsonl'}:", "not UTF-8")

        expect_error([tmp / "absent"], f"{tmp / 'absent'}: no such file or directory", "missing directory")
        empty = tmp / "empty"
        empty.mkdir()
        expect_error([empty], f"{empty}: holds no run directory", "no run inside")
        nan = tmp / "nan"
        shutil.copytree(good, nan)
        text = (nan / "measurements.jsonl").read_text().replace('"value": 0,', '"value": NaN,', 1)
        (nan / "measurements.jsonl").write_text(text)
        if text != (good / "measurements.jsonl").read_text():
            expect_error([nan], f"{nan / 'measurements.jsonl'}:", "NaN in JSON")


def scenario_hostile_input(a):
    """Input that made fabcheck-report answer a Python traceback and exit 1 (a FAIL to CI): wrongly
    typed nested fields, an integer of 401 digits, 100,000-deep nesting, a lone surrogate escape,
    a 5 GB sparse line. Each is now FILE:LINE: what, exit 2, nothing written; then a property test:
    60 random mutations of a good run's records, each answered with exit 0 or 2, never a
    traceback."""
    with tempfile.TemporaryDirectory(prefix="fabcheck_report_hostile_") as tmp:
        tmp = pathlib.Path(tmp)
        run([sys.executable, pathlib.Path(__file__).parent / "synthetic_sweep.py", tmp / "sweep", "--nodes", "2"])
        good = tmp / "sweep" / "runs" / "20261130T020000Z-node01"
        output = tmp / "report.html"
        output.write_text("earlier report")

        def expect_error(inputs, fragment, what):
            result = run([REPORT, *inputs, "-o", output], timeout=120)
            check("Traceback" not in result.stderr, f"{what}: a traceback:\n{result.stderr[-2000:]}")
            check(result.returncode == 2, f"{what}: exit {result.returncode}, expected 2 ({result.stderr[-500:]})")
            check(fragment in result.stderr, f"{what}: message {result.stderr[-500:]!r} lacks {fragment!r}")
            check(output.read_text() == "earlier report", f"{what}: the earlier report was written over")
            print(f"{what}: {result.stderr.strip()[:300]}")

        def with_summary(name, change):
            folder = tmp / name
            shutil.copytree(good, folder)
            summary = json.loads((folder / "summary.json").read_text())
            change(summary)
            (folder / "summary.json").write_text(json.dumps(summary))
            return folder

        def with_line(name, file, text):
            folder = tmp / name
            shutil.copytree(good, folder)
            with open(folder / file, "a") as stream:
                stream.write(text + "\n")
            return folder

        summary_file = "summary.json"
        bad = with_summary("counts-string", lambda s: s["counts"].update({"fail": "many"}))
        expect_error([bad], f"{bad / summary_file}: field 'counts.fail' is 'many', expected an integer",
                     "a string in counts")
        bad = with_summary("hosts-numbers", lambda s: s.update({"hosts": [1, 2]}))
        expect_error([bad], f"{bad / summary_file}: field 'hosts[0]' is 1, expected a string", "numbers in hosts[]")
        bad = with_summary("waived-shape", lambda s: s["probes"].update({"waived": [["gpu.p2p", "no GPU"]]}))
        expect_error([bad], f"{bad / summary_file}: field 'probes.waived[0]' is an array of 2, expected an object",
                     "an object of the wrong shape")
        bad = with_summary("profile-list", lambda s: s.update({"profile": {"name": ["x"]}}))
        expect_error([bad], f"{bad / summary_file}: field 'profile.name'", "a list as the profile's name")

        record = json.loads((good / "measurements.jsonl").read_text().splitlines()[0])
        record["size_bytes"] = 10 ** 400
        bad = with_line("huge-int", "measurements.jsonl", json.dumps(record))
        lines = len((bad / "measurements.jsonl").read_text().splitlines())
        expect_error([bad], f"{bad / 'measurements.jsonl'}:{lines}: size_bytes is an integer of 401 digits",
                     "size_bytes 10**400")
        bad = with_line("deep", "findings.jsonl", "[" * 100000 + "]" * 100000)
        lines = len((bad / "findings.jsonl").read_text().splitlines())
        expect_error([bad], f"{bad / 'findings.jsonl'}:{lines}: nested deeper than", "100,000-deep nesting")
        bad = with_summary("deep-summary", lambda s: None)
        text = (bad / summary_file).read_text()
        (bad / summary_file).write_text(text[:-1] + ', "x": ' + "[" * 100000 + "]" * 100000 + "}")
        expect_error([bad], f"{bad / summary_file}: nested deeper than", "100,000-deep summary")
        record = json.loads((good / "findings.jsonl").read_text().splitlines()[0])
        bad = with_line("surrogate", "findings.jsonl",
                        json.dumps(record).replace('"message": "', '"message": "\\ud800', 1))
        lines = len((bad / "findings.jsonl").read_text().splitlines())
        expect_error([bad], f"{bad / 'findings.jsonl'}:{lines}: message holds a lone surrogate",
                     "a lone surrogate escape")
        bad = with_summary("surrogate-host", lambda s: s.update({"hosts": ["node\ud800"]}))
        expect_error([bad], f"{bad / summary_file}: hosts[0] holds a lone surrogate", "a surrogate in hosts[]")

        sparse = tmp / "sparse"
        shutil.copytree(good, sparse)
        with open(sparse / "measurements.jsonl", "r+b") as stream:
            stream.truncate(5 << 30)  # 5 GB of zero bytes, no newline: a hole on disk
        started = time.time()
        expect_error([sparse], f"{sparse / 'measurements.jsonl'}:", "a 5 GB sparse line")
        check(time.time() - started < 60, "the sparse line was read whole")

        # Property: random mutations of every record of a good run: exit 0 or 2, never a traceback.
        rng = random.Random(21)
        values = [None, True, -1, 10 ** 30, 1.5, "", "\ud800", "x", [], [1, "a"], {}, {"a": [1]}]
        for round_number in range(60):
            folder = tmp / f"mutated-{round_number}"
            shutil.copytree(good, folder)
            file = rng.choice(["measurements.jsonl", "findings.jsonl", "summary.json"])
            if file == "summary.json":
                documents = [json.loads((folder / file).read_text())]
            else:
                documents = [json.loads(line) for line in (folder / file).read_text().splitlines() if line]
            document = rng.choice(documents)
            node = document
            for _ in range(rng.randint(0, 2)):  # down into a nested value now and then
                keys = list(node.keys()) if isinstance(node, dict) else list(range(len(node)))
                inner = [k for k in keys if isinstance(node[k], (dict, list)) and node[k]]
                if not inner:
                    break
                node = node[rng.choice(inner)]
            keys = list(node.keys()) if isinstance(node, dict) else list(range(len(node)))
            key = rng.choice(keys) if keys else None
            if key is not None:
                node[key] = rng.choice(values)
            text = (json.dumps(documents[0]) if file == "summary.json"
                    else "\n".join(json.dumps(d) for d in documents) + "\n")
            (folder / file).write_text(text, encoding="utf-8", errors="surrogatepass")
            result = run([REPORT, folder, "-o", tmp / "mutated.html"], timeout=120)
            check("Traceback" not in result.stderr,
                  f"mutation {round_number} ({file} {key!r}): a traceback:\n{result.stderr[-3000:]}")
            check(result.returncode in (0, 2), f"mutation {round_number}: exit {result.returncode}")
            shutil.rmtree(folder)
        print("60 mutations: exit 0 or 2, no traceback")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("scenario")
    parser.add_argument("--work", required=True)
    parser.add_argument("--fabcheck", required=True)
    parser.add_argument("--record-render", required=True)
    args = parser.parse_args()
    pathlib.Path(args.work).mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    globals()["scenario_" + args.scenario.replace("-", "_")](args)
    print(f"PASS: {args.scenario}")


if __name__ == "__main__":
    main()
