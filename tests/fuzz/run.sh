#!/usr/bin/env bash
# Builds the parsers' fuzz targets (NCCL log, sysfs, kernel log, JSON lines, the one-pass
# measurement scan against the strict reader, invalid UTF-8 through the gather and every JSON
# text written of it) with clang-14 + libFuzzer (ASan, UBSan) and runs each for SECONDS (default
# 20), seeded with the recorded fixtures (and TARGET.dict where there is one).
# Usage: tests/fuzz/run.sh [SECONDS]
set -euo pipefail
seconds="${1:-20}"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${FABCHECK_FUZZ_DIR:-$root/build-fuzz}"
cxx="${CXX_FUZZ:-clang++-14}"
if ! command -v "$cxx" >/dev/null; then
  echo "fuzz: $cxx not found: the fuzz targets cannot be built (apt-get install clang libclang-rt-14-dev)" >&2
  exit 1
fi
mkdir -p "$out"
flags=(-std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -I"$root" -DFMT_HEADER_ONLY=1)
# The layers under the families (bench/sys, results) are compiled whole, once, into one archive
# each target links (the linker takes what it uses): a file moved or split there needs no edit
# here. Builds without MPI, CUDA and HDF5 (their *.nompi/*.nocuda/*.nohdf5 variants).
layer_objects="$out/layers"
layers="$out/libfabcheck_layers.a"
mkdir -p "$layer_objects"
layer_sources=()
for dir in bench/sys results; do
  for f in "$root/$dir"/*.cpp; do
    case "$f" in *.mpi.cpp | *.cuda.cpp | *.hdf5.cpp) continue ;; esac
    layer_sources+=("$f")
  done
done
if [[ ! -f "$layers" || -n "$(find "$root/bench/sys" "$root/results" -newer "$layers" -name '*.[ch]pp' | head -1)" ]]; then
  echo "fuzz: building the layers (${#layer_sources[@]} files of bench/sys and results)"
  rm -f "$layer_objects"/*.o "$layers"
  printf '%s\n' "${layer_sources[@]}" | xargs -P "$(nproc)" -I{} sh -c \
    'f="$1"; shift; o="$(echo "${f#'"$root"'/}" | tr / _).o"; exec "$@" -c "$f" -o "'"$layer_objects"'/$o"' _ {} "$cxx" "${flags[@]}"
  ar rcs "$layers" "$layer_objects"/*.o
fi
build() {  # name sources...
  local name="$1"; shift
  if [[ ! -x "$out/$name" || "$layers" -nt "$out/$name" || -n "$(find "$here" "$root/fabric" "$root/host" "$root/tests/unit/results" \
    -newer "$out/$name" -name '*.[ch]pp' | head -1)" ]]; then
    echo "fuzz: building $name"
    "$cxx" "${flags[@]}" "$@" "$layers" -ldl -lpthread -o "$out/$name"
  fi
}
build nccl_log_fuzz "$here/nccl_log_fuzz.cpp" "$root/fabric/nccl_log.cpp" \
  "$root/fabric/nccl_transport_facts.cpp" "$root/fabric/nccl_transport_rules.cpp" "$root/fabric/nccl_transport_records.cpp"
build sysfs_fuzz "$here/sysfs_fuzz.cpp" "$root/fabric/pcie_link.cpp" "$root/fabric/ib_port.cpp" \
  "$root/fabric/pcie_affinity.cpp" "$root/fabric/perftest_output.cpp"
build kernel_log_fuzz "$here/kernel_log_fuzz.cpp" "$root/host/kernel_log_scan.cpp" \
  "$root/host/kernel_log_line.cpp" "$root/host/kernel_event.cpp"
build jsonl_fuzz "$here/jsonl_fuzz.cpp"
build measurement_scan_fuzz "$here/measurement_scan_fuzz.cpp"
build utf8_gather_fuzz "$here/utf8_gather_fuzz.cpp" "$root/bench/core/record_wire.cpp"

seed() {  # target fixture-dirs...
  local corpus="$out/corpus-$1"; shift
  mkdir -p "$corpus"
  for dir in "$@"; do find "$dir" -type f -size -64k -exec cp -n {} "$corpus/" \; 2>/dev/null || true; done
  echo "$corpus"
}
fixtures="$root/tests/fixtures/fabric"
nccl_corpus="$(seed nccl "$fixtures/nccl")"
sysfs_corpus="$(seed sysfs "$fixtures/perftest")"
kernel_log_corpus="$(seed kernel_log "$root/tests/fixtures/host/kernel-log")"
jsonl_corpus="$(seed jsonl "$root/tests/fixtures/gpu")"
scan_corpus="$(seed measurement_scan "$root/tests/fixtures/results/measurement-lines")"
utf8_corpus="$(seed utf8_gather "$root/tests/fixtures/host/kernel-log")"
printf 'coll.all_reduce\0busbw\0GB/s\0node\xff07\0/mnt/\xc3(ckpt\0node08\0path\0/scratch/\xed\xa0\x80\0NVRM: Xid 79 \xfe\0' \
  >"$utf8_corpus/invalid-utf8" 2>/dev/null || true
for f in current_link_speed max_link_speed aer_dev_correctable; do
  cp -n "$fixtures/sysfs/healthy/sys/devices/pci0000:16/0000:16:01.0/0000:17:01.0/0000:19:00.0/$f" \
    "$sysfs_corpus/$f" 2>/dev/null || true
done
cp -n "$fixtures/sysfs/healthy/sys/class/infiniband/mlx5_0/ports/1/rate" "$sysfs_corpus/rate" 2>/dev/null || true
cp -n "$fixtures/sysfs/degraded/sys/class/infiniband/mlx5_5/ports/1/state" "$sysfs_corpus/state" 2>/dev/null || true

status=0
for target in nccl_log_fuzz:"$nccl_corpus" sysfs_fuzz:"$sysfs_corpus" \
  kernel_log_fuzz:"$kernel_log_corpus" jsonl_fuzz:"$jsonl_corpus" \
  measurement_scan_fuzz:"$scan_corpus" utf8_gather_fuzz:"$utf8_corpus"; do
  name="${target%%:*}"; corpus="${target#*:}"
  dict=()
  [[ -f "$here/$name.dict" ]] && dict=(-dict="$here/$name.dict")
  echo "fuzz: running $name for ${seconds}s"
  (cd "$out" && "./$name" -max_total_time="$seconds" -max_len=65536 -timeout=10 -print_final_stats=1 \
     "${dict[@]}" "$corpus" 2>"$out/$name.log") || { status=1; echo "fuzz: $name FAILED, see $out/$name.log"; tail -30 "$out/$name.log"; }
  grep -E '^stat::number_of_executed_units' "$out/$name.log" || true
done
exit $status
