// NCCL backend entry points in a CUDA build: the backend on the real CUDA/NCCL runtime.
#include <cstdlib>

#include "bench/coll/nccl_backend.hpp"
#include "bench/coll/nccl_collective_backend.hpp"
#include "bench/coll/nccl_cuda_runtime.hpp"
#include "bench/coll/nccl_error.hpp"
#include "bench/cuda/cuda_availability.hpp"

namespace fabcheck {

bool nccl_communicator_created() { return cuda_nccl_communicator_started(); }

std::unique_ptr<CollectiveBackend> make_nccl_backend(World& world, const RunOptions& options,
                                                     const std::filesystem::path& run_dir,
                                                     const std::string& probe_id,
                                                     const NcclBackendSettings& settings) {
  const CudaAvailability availability = cuda_availability();
  if (!availability.available) throw NcclError("nccl: " + availability.reason);
  if (const std::string missing = nccl_missing(); !missing.empty()) {
    throw NcclError("nccl: " + missing);
  }
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  return std::make_unique<NcclCollectiveBackend>(make_cuda_nccl_runtime(), world, options, run_dir,
                                                 probe_id, settings,
                                                 visible != nullptr ? visible : "");
}

}  // namespace fabcheck
