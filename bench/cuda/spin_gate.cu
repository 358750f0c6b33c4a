// The spin gate's kernel: one thread polling host-mapped memory.
#include "bench/cuda/spin_gate.hpp"

namespace fabcheck {
namespace {

__global__ void spin_gate_kernel(const volatile int* open, long long timeout_cycles) {
  const long long start = clock64();
  while (*open == 0) {
    if (clock64() - start > timeout_cycles) break;
  }
}

}  // namespace

cudaError_t launch_spin_gate(const volatile int* open, long long timeout_cycles,
                             cudaStream_t stream) {
  spin_gate_kernel<<<1, 1, 0, stream>>>(open, timeout_cycles);
  return cudaGetLastError();
}

}  // namespace fabcheck
