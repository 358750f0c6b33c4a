// NCCL backend entry points in a build without CUDA: never available, with the reason.
#include "bench/coll/nccl_backend.hpp"
#include "bench/coll/nccl_error.hpp"

namespace fabcheck {

bool nccl_communicator_created() { return false; }

std::unique_ptr<CollectiveBackend> make_nccl_backend(World& /*world*/,
                                                     const RunOptions& /*options*/,
                                                     const std::filesystem::path& /*run_dir*/,
                                                     const std::string& /*probe_id*/,
                                                     const NcclBackendSettings& /*settings*/) {
  throw NcclError("nccl: built without CUDA");
}

}  // namespace fabcheck
