#!/usr/bin/env bash
# Installs fabcheck's Debian packages (only those missing) and configures and builds it into build/.
# Usage: scripts/setup.sh [--no-build] [extra cmake -D options...]
# CUDA is used when nvcc is found (/usr/local/cuda/bin/nvcc); MPI and HDF5 when installed.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  build-essential cmake pkg-config git
  openmpi-bin libopenmpi-dev
  libhdf5-dev python3-h5py
  hwloc libhwloc-dev
  liburing-dev
  rdma-core libibverbs-dev ibverbs-utils perftest
  libcli11-dev libtomlplusplus-dev nlohmann-json3-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  fio python3 python3-matplotlib time python3-jsonschema python3-lxml python3-yaml
  prometheus prometheus-node-exporter
  chromium
  iproute2 util-linux
  slurmctld slurmd slurm-client munge
  openssh-server openssh-client
  clang libclang-rt-14-dev clang-format
  g++-aarch64-linux-gnu qemu-user
)

build=1
cmake_args=()
for arg in "$@"; do
  case "$arg" in
    --no-build) build=0 ;;
    *) cmake_args+=("$arg") ;;
  esac
done

missing=()
for package in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

((build)) || exit 0
if [ ! -f build/CMakeCache.txt ] || ((${#cmake_args[@]})); then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo "${cmake_args[@]}"
fi
cmake --build build -j"$(nproc)"
