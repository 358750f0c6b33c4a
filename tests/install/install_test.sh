#!/usr/bin/env bash
# Install tests (ctest label `install`; root, since they use mount namespaces and dpkg):
#   hidden-cuda FABCHECK SOURCE_DIR
#       the binary in a mount namespace where the CUDA folder and every CUDA, NCCL, cuBLAS and
#       driver library are hidden: `list`, `gate` (under scripts/mpirun.sh 2) and `answer` work,
#       the GPU probes WAIVED naming the missing library.
#   package BUILD_DIR SOURCE_DIR
#       cpack builds the .deb, dpkg installs it, the installed gate runs with the source and build
#       trees (and CUDA) hidden, fabcheck-report renders its run, then dpkg -r leaves nothing.
# Prints what it checked and the figures (package size, seconds per step); exit 0 pass, 1 fail.
set -euo pipefail
mode="${1:?usage: install_test.sh hidden-cuda FABCHECK SOURCE_DIR | package BUILD_DIR SOURCE_DIR}"
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "the install tests need root (mount namespaces, dpkg); run as root"
command -v unshare >/dev/null || fail "unshare (util-linux) is missing"
command -v mpirun >/dev/null || fail "mpirun is missing: the gate runs under scripts/mpirun.sh 2"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp="$(mktemp -d /tmp/fabcheck-install-XXXXXX)"
trap 'rm -rf "$tmp"' EXIT

# Runs inside the namespace (a string, so nothing is read from a tree it hides): hides every
# folder and file named in $hide_dirs / the GPU libraries, then runs "$@".
# shellcheck disable=SC2016
hide_and_run='
set -euo pipefail
for dir in $hide_dirs; do
  [ -d "$dir" ] && mount -t tmpfs -o size=1m,mode=0755 none "$dir"
done
# Any GPU library still on the loader path (a copy outside the CUDA folder): a file bound over it.
for lib in $(ldconfig -p | awk "/(libcuda|libcudart|libcublas|libcublasLt|libnccl|libnvidia-ml)\\.so/ {print \$NF}"); do
  real="$(readlink -f "$lib" || true)"
  if [ -f "$real" ]; then mount --bind /dev/null "$real"; fi
done
for soname in libcuda.so.1 libcudart.so.13 libcublas.so.13 libnccl.so.2 libnvidia-ml.so.1; do
  if python3 -c "import ctypes, sys; ctypes.CDLL(sys.argv[1])" "$soname" 2>/dev/null; then
    echo "FAIL: $soname still loads in the namespace"; exit 1
  fi
done
"$@"
'
cuda_dirs() {  # the CUDA folders: /usr/local/cuda, where it points, every /usr/local/cuda-*
  local dirs=()
  for dir in /usr/local/cuda /usr/local/cuda-*; do
    [ -e "$dir" ] || continue
    dirs+=("$(readlink -f "$dir")")
  done
  printf '%s\n' "${dirs[@]}" | sort -u | tr '\n' ' '
}

# The checks on one binary with the GPU stack hidden: list, gate, answer. $1 the binary, $2 the
# mpirun.sh to launch with, $3 a folder for the run.
checks_on() {
  local fabcheck="$1" mpirun_sh="$2" work="$3"
  echo "== ldd $fabcheck (GPU stack hidden)"
  ldd "$fabcheck" | sed 's/ (0x[0-9a-f]*)//'
  ! ldd "$fabcheck" | grep -q 'not found' || { echo "FAIL: a load-time library is missing"; exit 1; }
  echo "== $fabcheck list"
  "$fabcheck" list >"$work/list.txt" 2>&1 || { cat "$work/list.txt"; echo "FAIL: list exit $?"; exit 1; }
  grep -E '^(gpu\.|coll\.nic_loopback)' "$work/list.txt"
  local gpu_lines waived_named
  gpu_lines="$(grep -cE '^gpu\.(hbm_bw|h2d|d2h|bidir|p2p|launch_latency|gemm) ' "$work/list.txt")"
  waived_named="$(grep -cE '^gpu\.(hbm_bw|h2d|d2h|bidir|p2p|launch_latency|gemm) +WAIVED +no CUDA device \(libcuda\.so\.1 not found: no NVIDIA driver\)' "$work/list.txt")"
  [ "$gpu_lines" -eq 7 ] && [ "$waived_named" -eq 7 ] || { echo "FAIL: $waived_named of $gpu_lines CUDA probes WAIVED naming libcuda.so.1"; exit 1; }
  grep -qE '^gpu\.health +WAIVED .*libnvidia-ml\.so\.1 not found' "$work/list.txt" || { echo "FAIL: gpu.health does not name libnvidia-ml.so.1"; exit 1; }
  echo "== $mpirun_sh 2 $fabcheck gate"
  local rc=0 start=$SECONDS
  (cd "$work" && "$mpirun_sh" 2 "$fabcheck" gate --out "$work/gate" >"$work/gate.txt" 2>&1) || rc=$?
  grep -E '^(verdict|results|time):' "$work/gate.txt" || true
  echo "gate exit $rc in $((SECONDS - start)) s"
  [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || { tail -40 "$work/gate.txt"; echo "FAIL: the gate did not judge (exit $rc)"; exit 1; }
  grep -q '^verdict: ' "$work/gate.txt" || { echo "FAIL: no verdict line"; exit 1; }
  # The pre-flight records why NCCL is not there.
  grep -o '"nccl":"[^"]*"' "$work/gate/measurements.jsonl" | head -1
  grep -q '"nccl":"none (libnccl.so.2 not found' "$work/gate/measurements.jsonl" || { echo "FAIL: the pre-flight does not record libnccl.so.2 as missing"; exit 1; }
  echo "== $fabcheck answer"
  local answer_rc=0
  "$fabcheck" answer "$work/gate" || answer_rc=$?
  [ "$answer_rc" -eq "$rc" ] || { echo "FAIL: answer exit $answer_rc, the gate's $rc"; exit 1; }
  echo "answer exit $answer_rc (the gate's)"
}

case "$mode" in
  hidden-cuda)
    fabcheck="$(readlink -f "$2")" source_dir="$3"
    export -f checks_on
    hide_dirs="$(cuda_dirs)" unshare --mount bash -c "$hide_and_run" hide \
      bash -c 'checks_on "$@"' checks "$fabcheck" "$source_dir/scripts/mpirun.sh" "$tmp"
    echo "PASS: hidden-cuda"
    ;;
  package)
    build_dir="$(readlink -f "$2")" source_dir="$(readlink -f "$3")"
    exec 9>/tmp/fabcheck-dpkg.lock
    flock 9
    if dpkg-query -W -f '${Status}' fabcheck 2>/dev/null | grep -q 'install ok installed'; then
      fail "a fabcheck package is installed already; this test installs and removes its own"
    fi
    start=$SECONDS
    cpack -G DEB --config "$build_dir/CPackConfig.cmake" -B "$tmp/pkg" >"$tmp/cpack.txt" 2>&1 || { cat "$tmp/cpack.txt"; fail "cpack failed"; }
    echo "cpack: $((SECONDS - start)) s"
    deb="$(ls "$tmp"/pkg/fabcheck_*.deb)"
    dbg="$(ls "$tmp"/pkg/fabcheck-dbg_*.deb)"
    ls -l "$deb" "$dbg" | awk '{print $5, $NF}'
    echo "== dpkg-deb -I (control)"
    dpkg-deb -f "$deb" Package Version Depends Recommends Suggests
    depends="$(dpkg-deb -f "$deb" Depends)"
    [[ "$depends" == *libc6* && "$depends" == *openmpi* || "$depends" == *libopenmpi* ]] || fail "Depends lacks libc6 or Open MPI: $depends"
    ! grep -qiE 'cuda|nccl|cublas|nvidia' <<<"$depends" || fail "Depends names a GPU library: $depends"
    echo "== dpkg-deb -c"
    dpkg-deb -c "$deb" >"$tmp/contents.txt"
    dpkg-deb -c "$dbg" >"$tmp/dbg-contents.txt"
    awk '{path = $6; for (i = 7; i <= NF; i++) path = path " " $i; print $3, path}' "$tmp/contents.txt" "$tmp/dbg-contents.txt" | grep -v '/$'
    for path in ./usr/bin/fabcheck ./usr/bin/fabcheck-report ./usr/share/fabcheck/profiles/generic-cpu.toml \
        ./usr/share/fabcheck/profiles/h100-sxm-8.toml ./usr/share/fabcheck/scripts/slurm/prolog.sh \
        ./usr/share/fabcheck/scripts/slurm/fabcheck-slurm.sh ./usr/share/fabcheck/scripts/lib/interruptible.sh \
        ./usr/share/fabcheck/scripts/k8s/fabcheck-sweep-mpijob.yaml ./usr/share/fabcheck/scripts/fabcheck_results.py \
        ./usr/share/fabcheck/scripts/fabcheck_report.py ./usr/share/fabcheck/scripts/fabcheck_plot_check.py \
        ./usr/share/fabcheck/scripts/mpirun.sh ./usr/share/doc/fabcheck/operations.md ./usr/share/man/man1/fabcheck.1; do
      grep -q " $path\( \|$\)" "$tmp/contents.txt" || fail "the package lacks $path"
    done
    # Every scheduler script and every helper they source: a prolog whose `source` fails drains
    # every node with Slurm's bare "Prolog error" (node_name.sh and three others were left out).
    for file in "$source_dir"/scripts/slurm/* "$source_dir"/scripts/k8s/* "$source_dir"/scripts/lib/*; do
      path="./usr/share/fabcheck/scripts/${file#"$source_dir"/scripts/}"
      grep -q " $path\( \|$\)" "$tmp/contents.txt" || fail "the package lacks $path"
    done
    for file in "$source_dir"/scripts/slurm/* "$source_dir"/scripts/k8s/* "$source_dir"/scripts/*.sh; do
      for sourced in $(sed -n 's|^ *source "\$here/\([^"]*\)".*|\1|p' "$file"); do
        rel="$(realpath -m --relative-to="$source_dir/scripts" "$(dirname "$file")/$sourced")"
        grep -q " ./usr/share/fabcheck/scripts/$rel\( \|$\)" "$tmp/contents.txt" ||
          fail "${file#"$source_dir"/} sources $sourced, which the package lacks"
      done
    done
    echo "every scheduler script and every file they source is in the package"
    grep -q ' ./usr/lib/debug/usr/bin/fabcheck.debug$' "$tmp/dbg-contents.txt" || fail "fabcheck-dbg lacks /usr/lib/debug/usr/bin/fabcheck.debug"
    start=$SECONDS
    dpkg -i "$deb" >"$tmp/dpkg-i.txt" 2>&1 || { cat "$tmp/dpkg-i.txt"; dpkg -r fabcheck >/dev/null 2>&1 || true; fail "dpkg -i failed"; }
    trap 'dpkg -r fabcheck >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
    echo "dpkg -i: $((SECONDS - start)) s"
    readelf -S /usr/bin/fabcheck | grep -q '\.debug_info' && fail "/usr/bin/fabcheck is not stripped"
    readelf -S /usr/bin/fabcheck | grep -q '\.gnu_debuglink' || fail "/usr/bin/fabcheck names no debug file"
    ls -l /usr/bin/fabcheck | awk '{print "installed binary:", $5, "bytes"}'
    export -f checks_on
    hide_dirs="$source_dir $build_dir $(cuda_dirs)" unshare --mount bash -c "$hide_and_run" hide bash -c '
      set -euo pipefail
      [ ! -e "$1/CMakeLists.txt" ] && [ ! -e "$2/CMakeCache.txt" ] || { echo "FAIL: the trees are not hidden"; exit 1; }
      checks_on /usr/bin/fabcheck /usr/share/fabcheck/scripts/mpirun.sh "$3"
      echo "== fabcheck-report"
      fabcheck-report "$3/gate" -o "$3/report.html" && [ -s "$3/report.html" ] || { echo "FAIL: fabcheck-report"; exit 1; }
      echo "report.html: $(stat -c %s "$3/report.html") bytes"' installed "$source_dir" "$build_dir" "$tmp"
    start=$SECONDS
    dpkg -r fabcheck >"$tmp/dpkg-r.txt" 2>&1 || { cat "$tmp/dpkg-r.txt"; fail "dpkg -r failed"; }
    trap 'rm -rf "$tmp"' EXIT
    echo "dpkg -r: $((SECONDS - start)) s"
    ! dpkg-query -W -f '${Status}' fabcheck 2>/dev/null | grep -q 'installed' || fail "still installed after dpkg -r"
    for path in /usr/bin/fabcheck /usr/bin/fabcheck-report /usr/share/fabcheck /usr/share/doc/fabcheck /usr/share/man/man1/fabcheck.1; do
      [ ! -e "$path" ] && [ ! -L "$path" ] || fail "$path is left after dpkg -r"
    done
    echo "PASS: package"
    ;;
  *) fail "unknown mode $mode" ;;
esac
