// SpinGate: a host-mapped flag and the streams held on it.
#include "bench/cuda/spin_gate.hpp"

#include <stdexcept>
#include <string>

namespace fabcheck {
namespace {

void require(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return;
  throw std::runtime_error(std::string("CUDA: ") + what + " failed: " + cudaGetErrorString(error));
}

}  // namespace

SpinGate::SpinGate() {
  void* memory = nullptr;
  require(cudaHostAlloc(&memory, sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable),
          "cudaHostAlloc of the spin gate");
  flag_ = static_cast<int*>(memory);
  *flag_ = 1;
  void* device = nullptr;
  const cudaError_t mapped = cudaHostGetDevicePointer(&device, memory, 0);
  if (mapped != cudaSuccess) {
    (void)cudaFreeHost(memory);
    require(mapped, "cudaHostGetDevicePointer of the spin gate");
  }
  device_flag_ = static_cast<int*>(device);
}

SpinGate::~SpinGate() {
  open();
  (void)cudaFreeHost(flag_);
}

void SpinGate::close() noexcept { __atomic_store_n(flag_, 0, __ATOMIC_SEQ_CST); }

cudaError_t SpinGate::hold(cudaStream_t stream) const {
  return launch_spin_gate(device_flag_, kTimeoutCycles, stream);
}

void SpinGate::open() noexcept { __atomic_store_n(flag_, 1, __ATOMIC_SEQ_CST); }

bool SpinGate::is_open() const noexcept { return __atomic_load_n(flag_, __ATOMIC_SEQ_CST) != 0; }

}  // namespace fabcheck
