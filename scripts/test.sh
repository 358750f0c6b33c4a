#!/usr/bin/env bash
# Every test: set up if needed, build, then each kind of test, and a count of each kind at the end.
# Kinds: unit (GoogleTest), mpi (mpirun runs of fabcheck), report (reports and Prometheus output),
# cluster (mpirun over simulated nodes, scripts/simcluster.sh: needs root), install (the binary with
# CUDA hidden, and the .deb built, installed, run and removed: needs root), slurm (real Slurm
# daemons over those nodes, scripts/slurmcluster.sh: needs root and Slurm), any other ctest label,
# and fuzz (libFuzzer targets of the parsers). A kind that cannot
# run here (GoogleTest or MPI missing, not root, fuzz targets not built, io_uring refused by the
# kernel) fails the script, naming why; FABCHECK_SKIP_KINDS="cluster fuzz" leaves kinds out on
# purpose (said so at the end). Usage: scripts/test.sh [ctest options]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

skip_kinds=" ${FABCHECK_SKIP_KINDS:-} "
reports=()    # one line per kind, printed at the end
problems=()   # why the run fails
junit_dir="$(mktemp -d /tmp/fabcheck-test-XXXXXX)"
trap 'rm -rf "$junit_dir"' EXIT

cache_has() { grep -q "^$1" build/CMakeCache.txt 2>/dev/null; }

# Why a kind has no tests in this build.
missing_reason() {
  case "$1" in
    unit) echo "GoogleTest not found when configuring (apt-get install libgtest-dev libgmock-dev)" ;;
    report) echo "none registered (tests/report)" ;;
    slurm) echo "none registered: was the build configured without MPI? (tests/slurm; Slurm: apt-get install slurmctld slurmd slurm-client munge)" ;;
    mpi | cluster)
      if ! command -v mpirun >/dev/null; then
        echo "MPI is not installed (apt-get install openmpi-bin libopenmpi-dev, then reconfigure)"
      else
        echo "none registered: was the build configured without MPI? (rm -rf build; scripts/setup.sh)"
      fi ;;
    install) echo "none registered (tests/install needs a build with MPI)" ;;
  esac
}

# Runs one ctest label; records "KIND: N run, P passed, S skipped" or a problem.
run_kind() {  # kind ctest-args...
  local kind="$1"
  shift
  if [[ "$skip_kinds" == *" $kind "* ]]; then
    reports+=("$kind: NOT RUN (left out by FABCHECK_SKIP_KINDS)")
    return 0
  fi
  local total
  total="$(ctest --test-dir build -N -L "^$kind\$" | sed -n 's/^Total Tests: //p')"
  if [ "${total:-0}" -eq 0 ]; then
    problems+=("$kind tests cannot run: $(missing_reason "$kind")")
    reports+=("$kind: 0 run")
    return 0
  fi
  local junit="$junit_dir/$kind.xml" status=0
  ctest --test-dir build --output-on-failure -L "^$kind\$" --output-junit "$junit" "$@" || status=$?
  local counts
  counts="$(python3 - "$junit" <<'EOF'
import sys, xml.etree.ElementTree as ET
suite = ET.parse(sys.argv[1]).getroot()
cases = suite.iter("testcase")
passed = failed = skipped = 0
names = []
for case in cases:
    status = case.get("status", "")
    if case.find("failure") is not None or status == "fail":
        failed += 1
    elif case.find("skipped") is not None or status in ("notrun", "disabled", "skipped"):
        skipped += 1
        names.append(case.get("name"))
    else:
        passed += 1
print(passed, failed, skipped, " ".join(names))
EOF
)"
  local passed failed skipped names
  read -r passed failed skipped names <<<"$counts"
  reports+=("$kind: $((passed + failed + skipped)) run, $passed passed, $failed failed, $skipped skipped${names:+ ($names)}")
  if [ "$status" -ne 0 ] || [ "$failed" -ne 0 ]; then
    problems+=("$kind: $failed test(s) failed")
  fi
}

# Unit tests in parallel; MPI and cluster runs one at a time (they use every core).
run_kind unit -j"$(nproc)" "$@"

# The storage engines the unit tests exercised (RealEngine/<engine>): io_uring must be among them
# when the build has liburing, or its tests silently did not run.
engines="$(ctest --test-dir build -N -L '^unit$' | grep -o 'RealEngine\.[A-Za-z]*/[a-z_]*' | sed 's#.*/##' | sort -u | tr '\n' ' ')"
reports+=("storage engine tests ran for: ${engines:-none}")
if cache_has "FABCHECK_URING_FOUND:INTERNAL=1" && [[ " $engines " != *" io_uring "* ]] &&
  [[ "$skip_kinds" != *" unit "* ]]; then
  problems+=("io_uring: built with liburing but the kernel refused io_uring here (only ${engines:-no} engine tests ran)")
fi

run_kind mpi "$@"
run_kind report "$@"
if [ "$(id -u)" -ne 0 ] && [[ "$skip_kinds" != *" cluster "* ]]; then
  problems+=("cluster tests cannot run: they need root for network namespaces (or FABCHECK_SKIP_KINDS=cluster)")
  reports+=("cluster: 0 run (not root)")
else
  run_kind cluster "$@"
fi
if [ "$(id -u)" -ne 0 ] && [[ "$skip_kinds" != *" install "* ]]; then
  problems+=("install tests cannot run: they need root for mount namespaces and dpkg (or FABCHECK_SKIP_KINDS=install)")
  reports+=("install: 0 run (not root)")
else
  run_kind install "$@"
fi
# Real Slurm daemons (scripts/slurmcluster.sh): root, and Debian's Slurm packages.
if [ "$(id -u)" -ne 0 ] && [[ "$skip_kinds" != *" slurm "* ]]; then
  problems+=("slurm tests cannot run: they need root for network namespaces and the Slurm daemons (or FABCHECK_SKIP_KINDS=slurm)")
  reports+=("slurm: 0 run (not root)")
else
  run_kind slurm "$@"
fi
# Labels added later are kinds too: none goes unrun.
for label in $(ctest --test-dir build --print-labels | sed -n 's/^  *//p'); do
  case " unit mpi report cluster install slurm " in *" $label "*) ;; *) run_kind "$label" "$@" ;; esac
done

if [[ "$skip_kinds" == *" fuzz "* ]]; then
  reports+=("fuzz: NOT RUN (left out by FABCHECK_SKIP_KINDS)")
else
  fuzz_log="$junit_dir/fuzz.log"
  if tests/fuzz/run.sh "${FABCHECK_FUZZ_SECONDS:-20}" 2>&1 | tee "$fuzz_log"; then
    targets="$(grep -c '^fuzz: running' "$fuzz_log" || true)"
    runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$fuzz_log" | awk '{s += $1} END {print s + 0}')"
    reports+=("fuzz: $targets target(s) run, $runs inputs executed, no crash")
    [ "${targets:-0}" -gt 0 ] || problems+=("fuzz: no target ran")
  else
    problems+=("fuzz: failed or could not build its targets (see above)")
    reports+=("fuzz: FAILED")
  fi
fi

echo
echo "== test kinds =="
for line in "${reports[@]}"; do echo "  $line"; done
if ((${#problems[@]})); then
  echo "== FAILED =="
  for line in "${problems[@]}"; do echo "  $line"; done
  exit 1
fi
echo "== all kinds ran and passed =="
