#!/usr/bin/env bash
# Start-up of `fabcheck list` and `fabcheck answer RUN_DIR` against `true`: RUNS runs of each,
# interleaved (so machine load falls on all alike), median wall time in ms of each, and the
# fabcheck figures less `true`'s (the process start any command pays). Usage:
#   tests/perf/startup.sh FABCHECK [RUNS]    (a summary.json for `answer` is made in a temp folder)
# Prints one line per command; exits 1 when a median exceeds FABCHECK_STARTUP_LIMIT_MS (if set).
set -euo pipefail
fabcheck="$1"
runs="${2:-50}"
dir="$(mktemp -d /tmp/fabcheck-startup-XXXXXX)"
trap 'rm -rf "$dir"' EXIT
printf '{"kind":"summary","exit_code":0,"finished_utc":"2026-12-02T00:00:00Z","drain":[],"hold":[]}\n' >"$dir/summary.json"
"$fabcheck" answer "$dir" >/dev/null || { echo "startup: $fabcheck answer failed" >&2; exit 1; }
"$fabcheck" list >/dev/null || { echo "startup: $fabcheck list failed" >&2; exit 1; }
python3 - "$fabcheck" "$dir" "$runs" "${FABCHECK_STARTUP_LIMIT_MS:-}" <<'PY'
import statistics, subprocess, sys, time
fabcheck, run_dir, runs, limit = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
commands = {"true": ["true"], "list": [fabcheck, "list"], "answer": [fabcheck, "answer", run_dir]}
times = {name: [] for name in commands}
for _ in range(runs):
    for name, argv in commands.items():
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times[name].append((time.perf_counter() - start) * 1e3)
base = statistics.median(times["true"])
over = False
for name, samples in times.items():
    median = statistics.median(samples)
    extra = "" if name == "true" else f"  ({median - base:.1f} ms more than true)"
    print(f"startup {name:6s}: median {median:7.1f} ms over {runs} runs{extra}")
    if limit and name != "true" and median > float(limit):
        over = True
if over:
    print(f"startup: a median is over FABCHECK_STARTUP_LIMIT_MS={limit}")
    sys.exit(1)
PY
