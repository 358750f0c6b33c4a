#!/usr/bin/env bash
# The SDC screen's exact chains and unit paths on two instruction sets: sdc_units_digest built for
# x86-64 (AVX2/AVX-512, SSE 4.2 CRC) and cross-built for AArch64 (NEON FMA, ARMv8 CRC32C) and run
# under qemu-aarch64; each must use its units, agree with its own soft chains, and print the same
# digest bits as the other. Needs g++-aarch64-linux-gnu and qemu-user (scripts/setup.sh installs
# them); without them the test fails, naming what is missing.
set -euo pipefail
root="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for tool in aarch64-linux-gnu-g++ qemu-aarch64 g++; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool not found (scripts/setup.sh installs it)"; exit 1; }
done
sources=("$root/tests/cross/sdc_units_digest.cpp" "$root/bench/sdc/cpu_block.cpp"
         "$root/bench/sdc/crc32c_unit.cpp" "$root/bench/sdc/fma_lanes_unit.cpp")
g++ -std=c++20 -O2 -Wall -Werror -I"$root" "${sources[@]}" -o "$work/x86"
aarch64-linux-gnu-g++ -std=c++20 -O2 -Wall -Werror -static -I"$root" "${sources[@]}" -o "$work/arm64"
status=0
"$work/x86" > "$work/x86.out" || { echo "FAIL: x86-64: a unit disagrees with its soft twin"; status=1; }
# -cpu max: an ARMv8 core with the CRC extension and Advanced SIMD (NEON).
qemu-aarch64 -cpu max "$work/arm64" > "$work/arm64.out" ||
  { echo "FAIL: AArch64: a unit disagrees with its soft twin"; status=1; }
echo "== x86-64"; cat "$work/x86.out"
echo "== aarch64 (qemu -cpu max)"; cat "$work/arm64.out"
grep -qx 'lanes unit: neon fma' "$work/arm64.out" || { echo "FAIL: AArch64 did not use NEON"; status=1; }
grep -qx 'crc unit: armv8 crc32c' "$work/arm64.out" || { echo "FAIL: AArch64 did not use its CRC32C instruction"; status=1; }
grep -qx 'lanes unit: avx2 fma' "$work/x86.out" || { echo "FAIL: x86-64 did not use AVX2 FMA"; status=1; }
if ! diff <(grep '^block' "$work/x86.out") <(grep '^block' "$work/arm64.out"); then
  echo "FAIL: the digests differ between x86-64 and AArch64"
  status=1
fi
((status)) || echo "PASS: 4 blocks, every digest word the same bits on x86-64 and AArch64"
exit "$status"
