// cuda_availability() and make_nccl_backend() on whatever this machine is: a reason when NCCL
// cannot run (built without CUDA, no CUDA device), never a crash or a hang.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include "bench/coll/nccl_backend.hpp"
#include "bench/coll/nccl_error.hpp"
#include "bench/cuda/cuda_availability.hpp"
#include "tests/unit/coll/nccl_doubles.hpp"

namespace fabcheck {
namespace {

TEST(NcclAvailability, SaysWhyNotOrHowManyDevices) {
  const CudaAvailability nccl = cuda_availability();
  if (nccl.available) {
    EXPECT_GT(nccl.device_count, 0);
    EXPECT_TRUE(nccl.reason.empty());
    return;
  }
  EXPECT_EQ(nccl.device_count, 0);
#if defined(FABCHECK_HAVE_CUDA)
  EXPECT_EQ(nccl.reason.rfind("no CUDA device (", 0), 0u) << nccl.reason;
  EXPECT_EQ(nccl.reason.back(), ')') << nccl.reason;
  // cudart is linked statically and opens the driver itself: without one, the reason names it.
  if (dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL) == nullptr) {
    EXPECT_EQ(nccl.reason, "no CUDA device (libcuda.so.1 not found: no NVIDIA driver)");
  }
#else
  EXPECT_EQ(nccl.reason, "built without CUDA");
#endif
}

TEST(NcclAvailability, MakingABackendWhereNcclCannotRunThrowsTheReason) {
  const CudaAvailability nccl = cuda_availability();
  if (nccl.available) {
    // A GPU machine (the device check): no reason, a device counted; nothing here to refuse.
    EXPECT_GT(nccl.device_count, 0);
    EXPECT_EQ(nccl.reason, "");
    return;
  }
  testing::ScriptedWorld world(0, {"host-a"}, false);
  RunOptions options;
  try {
    make_nccl_backend(world, options, std::filesystem::temp_directory_path(), "coll.all_reduce");
    FAIL() << "expected NcclError";
  } catch (const NcclError& error) {
    EXPECT_EQ(std::string(error.what()), "nccl: " + nccl.reason);
  }
  EXPECT_FALSE(nccl_communicator_created());
}

}  // namespace
}  // namespace fabcheck
