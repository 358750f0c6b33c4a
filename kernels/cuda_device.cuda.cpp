// The CUDA devices this rank drives, and their labels (bus id and model from the CUDA runtime).
#include "kernels/cuda_device.hpp"

#include <cuda_runtime_api.h>

#include "bench/cuda/cuda_availability.hpp"
#include "bench/cuda/cuda_error.hpp"
#include "bench/sys/gpu_assignment.hpp"

namespace fabcheck {

std::vector<int> devices_of_this_rank(const World& world) {
  return devices_for_rank(world.local_rank(), world.local_size(), cuda_availability().device_count);
}

GpuLabel cuda_device_label(int ordinal) {
  char bus_id[32] = {};
  FABCHECK_CUDA(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, ordinal));
  cudaDeviceProp properties{};
  FABCHECK_CUDA(cudaGetDeviceProperties(&properties, ordinal));
  return label_for_cuda_device(ordinal, bus_id, properties.name);
}

}  // namespace fabcheck
