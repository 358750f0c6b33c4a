// fabcheck, compiler, MPI, CUDA and NCCL versions.
#include "bench/cli/build_versions.hpp"

#include "bench/core/world.hpp"

namespace fabcheck {

nlohmann::json build_versions() {
  nlohmann::json versions = {{"fabcheck", FABCHECK_VERSION}, {"compiler", __VERSION__}};
  versions["mpi"] = mpi_library_version();
#if defined(FABCHECK_CUDA_VERSION) && defined(FABCHECK_NCCL_VERSION)
  versions["cuda"] = FABCHECK_CUDA_VERSION;
  versions["nccl"] = FABCHECK_NCCL_VERSION;
#else
  versions["cuda"] = "";
  versions["nccl"] = "";
#endif
  return versions;
}

}  // namespace fabcheck
