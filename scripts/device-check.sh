#!/usr/bin/env bash
# The one command that verifies fabcheck's GPU code on a GPU machine with CUDA, cmake and g++ but no
# MPI, HDF5 or internet: builds a CUDA configuration (header-only dependencies and GoogleTest from
# .deps/, see scripts/device-prepare.sh; warnings not errors, the compiler there is another), runs
# the GPU unit tests, the single-process NCCL probes, the gpu.* probes judged by the profile of the
# GPU's family (its one-GPU subset on a machine with fewer GPUs than the profile's node) and, when
# its source was carried, nccl-tests for comparison; fabcheck is built alone first, the figures
# come next, the unit tests last. Leaves three files in OUT_DIR: summary.md (one table, a verdict;
# also printed), steps.tsv and details.tar.gz (the results, a log per step, the environment).
# Bounded to under 8 minutes; every step's status is
# recorded and a failed step does not stop the later ones. The verdict (scripts/device_check_report.py):
# PASS only when every required step ran and passed and figures were measured; a skipped step is
# SKIPPED, never PASS; all probes WAIVED is INCOMPLETE. Exit 0 PASS, 1 FAIL, 3 INCOMPLETE, 2 usage.
#
# Usage: scripts/device-check.sh OUT_DIR
#   Needs beside the checkout: an NVIDIA driver and GPU, the CUDA toolkit (nvcc), cmake >= 3.25,
#   g++ >= 12, python3 >= 3.9, NCCL (system, NCCL_HOME or the nvidia-nccl Python wheel), and .deps/
#   from scripts/device-prepare.sh (header-only libraries, GoogleTest; nccl-tests' source for the
#   comparison, optional).
#   DEVICE_CHECK_BUDGET_S   seconds for everything (default 450)
#   FABCHECK_DEVICE_BUILD   build folder (default <checkout>/build-device)
#   NCCL_HOME               where NCCL is (include/nccl.h, lib/libnccl.so*), when not found alone
#   CUDA_ARCHS              CMake CUDA architectures (default: the first GPU's, else "80;90")
set -u

usage="usage: $0 OUT_DIR
  needs beside the checkout: NVIDIA driver + GPU, CUDA toolkit (nvcc), cmake >= 3.25, g++ >= 12,
  python3 >= 3.9, NCCL (system, NCCL_HOME or the nvidia-nccl wheel), .deps/ from
  scripts/device-prepare.sh (header-only libraries, GoogleTest; optionally nccl-tests' source)"
if [[ $# -ne 1 ]]; then
  echo "$usage" >&2
  exit 2
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$(mkdir -p "$1" && cd "$1" && pwd)"
build="${FABCHECK_DEVICE_BUILD:-$root/build-device}"
budget_s="${DEVICE_CHECK_BUDGET_S:-450}"
jobs="$(nproc 2>/dev/null || echo 4)"
started_at="$(date +%s)"
mkdir -p "$out/logs" "$build"
printf 'step\tstatus\tseconds\tnote\n' >"$out/steps.tsv"

remaining_s() { echo $((budget_s - ($(date +%s) - started_at))); }
record() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$out/steps.tsv"; }
say() { echo "device-check: $*"; }

# run_step NAME LIMIT_S COMMAND...: runs under `timeout` (never past the budget), output in
# logs/NAME.log; records PASS, FAIL (exit code) or TIMEOUT, or SKIPPED when the budget is spent;
# returns the exit code (125 when skipped).
run_step() {
  local name="$1" limit="$2"
  shift 2
  local left=$(($(remaining_s) - 15))
  if ((left < 5)); then
    record "$name" SKIPPED 0 "time budget spent"
    say "$name: skipped, time budget spent"
    return 125
  fi
  ((limit > left)) && limit=$left
  local t0 rc took status note
  t0="$(date +%s)"
  timeout --kill-after=10 "$limit" "$@" >"$out/logs/$name.log" 2>&1
  rc=$?
  took=$(($(date +%s) - t0))
  if ((rc == 0)); then
    status=PASS note="exit 0"
  elif ((rc == 124 || rc == 137)); then
    status=TIMEOUT note="stopped after ${limit}s"
  else
    status=FAIL note="exit $rc"
  fi
  record "$name" "$status" "$took" "$note"
  say "$name: $status ($note, ${took}s; log: logs/$name.log)"
  return $rc
}

# set_last STATUS NOTE: rewrites the status and note of the last step recorded.
set_last() {
  local last
  last="$(tail -n 1 "$out/steps.tsv")"
  sed -i '$d' "$out/steps.tsv"
  printf '%s\t%s\t%s\t%s\n' "$(cut -f1 <<<"$last")" "$1" "$(cut -f3 <<<"$last")" "$2" >>"$out/steps.tsv"
}

# pack_details DIR: everything in DIR but summary.md and steps.tsv into DIR/details.tar.gz (logs,
# the runs' JSON lines, environment, JUnit files), then removed: a GPU machine may give back only a
# few files, two folders deep, so the top level holds three.
pack_details() {
  local dir="$1" entries=()
  mapfile -t entries < <(cd "$dir" && find . -mindepth 1 -maxdepth 1 ! -name summary.md ! -name steps.tsv \
    ! -name details.tar.gz -printf '%P\n' | sort)
  ((${#entries[@]})) || return 0
  if tar -C "$dir" -czf "$dir/details.tar.gz.part" -- "${entries[@]}" &&
    mv -f "$dir/details.tar.gz.part" "$dir/details.tar.gz"; then
    (cd "$dir" && rm -rf -- "${entries[@]}")
  else
    rm -f "$dir/details.tar.gz.part"
    echo "device-check: could not pack $dir (left as it is)" >&2
  fi
}

# After a fabcheck run: its exit code as a step status (3, a probe error or timeout, is INCOMPLETE).
fabcheck_status() {
  case "$1" in
    0) set_last PASS "exit 0: pass" ;;
    1) set_last FAIL "exit 1: a FAIL finding" ;;
    2) set_last FAIL "exit 2: usage or configuration error" ;;
    3) set_last INCOMPLETE "exit 3: a probe error or timeout" ;;
    124 | 137) ;;  # stopped by its limit: TIMEOUT, already recorded
    125) ;;  # skipped, already recorded
    *) set_last FAIL "exit $1" ;;
  esac
}

# ---- the machine ---------------------------------------------------------------------------------
{
  echo "date: $(date -u +%FT%TZ)  host: $(hostname)"
  echo "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-<unset>}"
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=index,name,pci.bus_id,compute_cap,driver_version,memory.total --format=csv
  command -v nvidia-smi >/dev/null && nvidia-smi topo -m
  for tool in nvcc cmake g++ ninja python3; do
    printf '%s: ' "$tool"
    if command -v "$tool" >/dev/null; then "$tool" --version 2>&1 | grep -m1 -iE 'release|version|[0-9]+\.[0-9]+'; else echo missing; fi
  done
} >"$out/environment.txt" 2>&1

export PATH="$PATH:/usr/local/cuda/bin"
cuda_home="$(dirname "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")"
gpus=0
if command -v nvidia-smi >/dev/null; then gpus="$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')"; fi
if [[ -n "${CUDA_VISIBLE_DEVICES-}" ]]; then gpus="$(awk -F, '{print NF}' <<<"$CUDA_VISIBLE_DEVICES")"; fi
archs="${CUDA_ARCHS:-}"
if [[ -z "$archs" ]] && command -v nvidia-smi >/dev/null; then
  archs="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '. ')"
fi
archs="${archs:-80;90}"
say "$gpus GPU(s), CUDA architectures $archs, budget ${budget_s}s, results in $out"

# ---- NCCL: system, NCCL_HOME, or the nvidia-nccl Python wheel; a folder shaped like NCCL_HOME -----
# Sets nccl_include, nccl_library and a folder shaped like NCCL_HOME in $build/nccl-home.
nccl_include=""
nccl_library=""
find_nccl() {
  local dir
  if [[ -n "${NCCL_HOME:-}" && -f "$NCCL_HOME/include/nccl.h" ]]; then
    nccl_include="$NCCL_HOME/include"
    nccl_library="$(compgen -G "$NCCL_HOME/lib*/libnccl.so*" | head -1)"
  fi
  if [[ -z "$nccl_library" ]]; then
    for dir in "$cuda_home/include" /usr/include /usr/local/include; do
      [[ -f "$dir/nccl.h" ]] && nccl_include="$dir" && break
    done
    for dir in "$cuda_home/lib64" /usr/lib/x86_64-linux-gnu /usr/local/lib; do
      nccl_library="$(compgen -G "$dir/libnccl.so*" | head -1)"
      [[ -n "$nccl_library" ]] && break
    done
  fi
  if [[ -z "$nccl_include" || -z "$nccl_library" ]] && command -v python3 >/dev/null; then
    dir="$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null)"
    if [[ -n "$dir" && -f "$dir/include/nccl.h" ]]; then
      nccl_include="$dir/include"
      nccl_library="$(compgen -G "$dir/lib/libnccl.so*" | head -1)"
    fi
  fi
  [[ -n "$nccl_include" && -n "$nccl_library" ]] || return 1
  rm -rf "$build/nccl-home"
  mkdir -p "$build/nccl-home/lib"
  ln -s "$nccl_include" "$build/nccl-home/include"
  ln -s "$nccl_library" "$build/nccl-home/lib/libnccl.so"
  LD_LIBRARY_PATH="$(dirname "$nccl_library")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export LD_LIBRARY_PATH
}
nccl_found=""
if find_nccl; then
  nccl_found="$nccl_include $nccl_library"
  record find_nccl PASS 0 "$nccl_found"
  say "NCCL: $nccl_found"
else
  record find_nccl FAIL 0 "no nccl.h/libnccl: set NCCL_HOME"
  say "NCCL not found: set NCCL_HOME (include/nccl.h, lib/libnccl.so)"
fi

# ---- nccl-tests, built in the background while fabcheck builds ------------------------------------
nccl_tests_src="$root/.deps/src/nccl-tests"
nccl_tests_bin="$build/nccl-tests"
nccl_tests_pid=""
if [[ -n "$nccl_found" && -f "$nccl_tests_src/src/common.cu" ]]; then
  gencode=""
  for arch in ${archs//;/ }; do gencode+=" -gencode=arch=compute_$arch,code=sm_$arch"; done
  # Few jobs: it builds beside fabcheck, which the figures wait for.
  JOBS=$((jobs / 4 > 2 ? jobs / 4 : 2))
  export JOBS
  # Its own process group (setsid), so it can be stopped whole if the budget runs out.
  # shellcheck disable=SC2016  # expanded by the inner bash
  setsid -w bash -c '
    src="$1" bin="$2"; shift 2
    cd "$src/src" &&
      timeout 300 make -j "$JOBS" "$@" "BUILDDIR=$bin" "$bin/all_reduce_perf" "$bin/all_gather_perf"
  ' _ "$nccl_tests_src" "$nccl_tests_bin" MPI=0 "CUDA_HOME=$cuda_home" \
    "NCCL_HOME=$build/nccl-home" "NVCC_GENCODE=$gencode" >"$out/logs/nccl_tests_build.log" 2>&1 &
  nccl_tests_pid=$!
  nccl_tests_t0="$(date +%s)"
else
  record nccl_tests_build SKIPPED 0 "no nccl-tests source in .deps/src (scripts/device-prepare.sh with NCCL_TESTS_SRC) or no NCCL"
fi

# ---- GoogleTest: the system's, or built from the carried source ----------------------------------
gtest_args=()
have_gtest=0
if find /usr /usr/local -maxdepth 6 -name GTestConfig.cmake 2>/dev/null | grep -q .; then
  have_gtest=1
  record gtest PASS 0 "system GoogleTest"
elif [[ -f "$root/.deps/src/googletest/CMakeLists.txt" ]]; then
  # shellcheck disable=SC2016  # expanded by the inner bash
  if run_step gtest 120 bash -c '
    cmake -S "$1/.deps/src/googletest" -B "$2/gtest-build" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_INSTALL_PREFIX="$2/gtest-install" -DBUILD_GMOCK=ON -DINSTALL_GTEST=ON &&
      cmake --build "$2/gtest-build" -j "$3" && cmake --install "$2/gtest-build"
  ' _ "$root" "$build" "$jobs"; then
    have_gtest=1
    gtest_args=(-DCMAKE_PREFIX_PATH="$build/gtest-install")
  fi
else
  record gtest SKIPPED 0 "no GoogleTest here or in .deps/src: unit tests not built"
fi
((have_gtest)) || gtest_args=(-DFABCHECK_BUILD_TESTS=OFF)

# ---- configure and build -------------------------------------------------------------------------
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
[[ -f "$build/CMakeCache.txt" ]] && generator=()  # keep the generator an earlier run chose
if [[ -n "$nccl_found" ]]; then
  if run_step configure 90 cmake -S "$root" -B "$build" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFABCHECK_WITH_CUDA=ON -DFABCHECK_WITH_MPI=OFF \
    -DFABCHECK_WITH_HDF5=OFF -DFABCHECK_WERROR=OFF -DCMAKE_CUDA_ARCHITECTURES="$archs" \
    -DFABCHECK_NCCL_INCLUDE="$build/nccl-home/include" \
    -DFABCHECK_NCCL_LIBRARY="$build/nccl-home/lib/libnccl.so" "${gtest_args[@]}"; then
    # fabcheck alone first: the figures wait for it; the unit tests are built after them.
    run_step build 240 cmake --build "$build" -j "$jobs" --target fabcheck
  fi
else
  record configure SKIPPED 0 "NCCL not found"
fi
fabcheck="$build/bench/cli/fabcheck"

# ---- the profile: the GPU family's, or its one-GPU subset with fewer GPUs than its node ----------
model="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
profile="$(python3 "$root/scripts/device_check_report.py" profile "$root/results/profiles" \
  "${model:-unknown}" "$gpus" "$out/profile.toml" 2>>"$out/logs/profile.log" || echo auto)"
say "profile: $profile (${model:-no GPU model} x $gpus)"

# ---- fabcheck: single-process NCCL collectives, then gpu.* probes ---------------------------------
# coll.nic_loopback is not among them: NCCL keeps what it forces for the process's life, so it runs
# in a fabcheck run of its own (below, where a node has two GPUs for it).
wanted_probes="coll.all_reduce coll.all_gather coll.reduce_scatter coll.broadcast coll.alltoall coll.sendrecv"
if [[ -x "$fabcheck" ]]; then
  "$fabcheck" list >"$out/logs/fabcheck_list.log" 2>&1
  # The ones this build has.
  coll_probes=""
  for probe in $wanted_probes; do
    grep -q "^$probe " "$out/logs/fabcheck_list.log" && coll_probes+="${coll_probes:+,}$probe"
  done
  if [[ -n "$coll_probes" ]]; then
    run_step fabcheck_nccl 150 "$fabcheck" run --single-process --backend nccl --probes "$coll_probes" \
      --sizes 1M:1G:4 --placement both --timeout 60 --profile "$profile" --out "$out/fabcheck-nccl"
    fabcheck_status $?
  else
    record fabcheck_nccl SKIPPED 0 "no coll.* probes in this build"
  fi
  if ((gpus >= 2)) && grep -q '^coll.nic_loopback ' "$out/logs/fabcheck_list.log"; then
    run_step fabcheck_loopback 90 "$fabcheck" run --single-process --probes coll.nic_loopback \
      --sizes 64M:256M:4 --timeout 60 --profile "$profile" --out "$out/fabcheck-loopback"
    fabcheck_status $?
  fi
  if grep -qE '^gpu\.' "$out/logs/fabcheck_list.log"; then
    run_step fabcheck_gpu 120 "$fabcheck" run --single-process --probes 'gpu.*' --timeout 60 \
      --profile "$profile" --out "$out/fabcheck-gpu"
    fabcheck_status $?
  else
    record fabcheck_gpu SKIPPED 0 "no gpu.* probes in this build"
  fi
else
  record fabcheck_nccl SKIPPED 0 "fabcheck not built"
  record fabcheck_gpu SKIPPED 0 "fabcheck not built"
fi

# ---- nccl-tests, the same sizes, for comparison --------------------------------------------------
if [[ -n "$nccl_tests_pid" ]]; then
  while kill -0 "$nccl_tests_pid" 2>/dev/null && (($(remaining_s) > 60)); do sleep 2; done
  if kill -0 "$nccl_tests_pid" 2>/dev/null; then
    kill -- "-$nccl_tests_pid" 2>/dev/null
    record nccl_tests_build TIMEOUT $(($(date +%s) - nccl_tests_t0)) "left unfinished to stay in budget"
  elif wait "$nccl_tests_pid"; then
    record nccl_tests_build PASS $(($(date +%s) - nccl_tests_t0)) "logs/nccl_tests_build.log"
    for test in all_reduce_perf all_gather_perf; do
      run_step "nccl_tests_$test" 60 "$nccl_tests_bin/$test" -b 1M -e 1G -f 4 -g "$((gpus > 0 ? gpus : 1))" -w 5 -n 20
    done
  else
    record nccl_tests_build FAIL $(($(date +%s) - nccl_tests_t0)) "logs/nccl_tests_build.log"
  fi
fi

# ---- GPU unit tests ------------------------------------------------------------------------------
# Last: built once the figures are in (fabcheck's own objects are built already).
unit_targets=()
if [[ -f "$build/CMakeCache.txt" ]]; then
  for unit in unit_coll unit_kernels; do
    cmake --build "$build" --target help 2>/dev/null | grep -qw "$unit" && unit_targets+=("$unit")
  done
fi
if ((${#unit_targets[@]})); then
  run_step build_unit_tests 240 cmake --build "$build" -j "$jobs" --target "${unit_targets[@]}"
fi
for unit in unit_coll unit_kernels; do
  binary="$build/tests/$unit"
  filter='*'
  [[ "$unit" == unit_coll ]] && filter='Nccl*'  # the GPU-facing part of coll; the rest is CI's
  if [[ -x "$binary" ]]; then
    run_step "$unit" 120 "$binary" --gtest_filter="$filter" --gtest_output="xml:$out/$unit.xml"
    rc=$?
    counts="$(grep -oE '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?' "$out/logs/$unit.log" |
      sed -E 's/\[ +([A-Z]+) +\] ([0-9]+).*/\2 \1/' | tr 'A-Z\n' 'a-z ')"
    if ((rc == 0)) && grep -qE '^\[  SKIPPED ' "$out/logs/$unit.log"; then
      set_last INCOMPLETE "exit 0 but tests skipped: ${counts}"  # a skipped test is not a pass
    elif ((rc != 125)); then
      set_last "$( ((rc == 0)) && echo PASS || echo FAIL)" "exit $rc: ${counts:-no test counts}"
    fi
  else
    record "$unit" SKIPPED 0 "not built (see configure/build)"
  fi
done

# ---- summary: one table and the verdict (scripts/device_check_report.py) -------------------------
if command -v python3 >/dev/null; then
  python3 "$root/scripts/device_check_report.py" summarize "$out"
  verdict=$?
else
  { echo "# device-check summary (python3 missing: steps only, no verdict)"; cat "$out/steps.tsv"; } >"$out/summary.md"
  cat "$out/summary.md"
  verdict=3
fi
pack_details "$out"
say "done in $(($(date +%s) - started_at))s; in $out: summary.md, steps.tsv, details.tar.gz"
exit "$verdict"
