// NCCL backend entry points in a CUDA build: device detection through cudart, and the backend on
// the real CUDA/NCCL runtime.
#include <cuda_runtime_api.h>

#include <cstdlib>

#include "bench/coll/nccl_backend.hpp"
#include "bench/coll/nccl_collective_backend.hpp"
#include "bench/coll/nccl_cuda_runtime.hpp"
#include "bench/coll/nccl_error.hpp"

namespace fabcheck {

namespace {

NcclAvailability query_availability() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    (void)cudaGetLastError();
    return {false, "no CUDA device (" + std::string(cudaGetErrorString(error)) + ")", 0};
  }
  if (count <= 0) return {false, "no CUDA device (none visible)", 0};
  return {true, "", count};
}

}  // namespace

NcclAvailability nccl_availability() {
  static const NcclAvailability availability = query_availability();
  return availability;
}

bool nccl_communicator_created() { return cuda_nccl_communicator_started(); }

std::string nccl_library_version() { return make_cuda_nccl_runtime()->library_version(); }

std::unique_ptr<CollectiveBackend> make_nccl_backend(World& world, const RunOptions& options,
                                                     const std::filesystem::path& run_dir,
                                                     const std::string& probe_id,
                                                     const NcclBackendSettings& settings) {
  const NcclAvailability availability = nccl_availability();
  if (!availability.available) throw NcclError("nccl: " + availability.reason);
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  return std::make_unique<NcclCollectiveBackend>(make_cuda_nccl_runtime(), world, options, run_dir,
                                                 probe_id, settings,
                                                 visible != nullptr ? visible : "");
}

}  // namespace fabcheck
