// Rank -> GPU mapping from host names and CUDA_VISIBLE_DEVICES.
#include <gtest/gtest.h>

#include "bench/coll/nccl_gpu_assignment.hpp"
#include "results/config_error.hpp"

namespace fabcheck {
namespace {

TEST(NcclGpuAssignment, ParsesVisibleDevices) {
  EXPECT_EQ(parse_visible_devices("2,3"), (std::vector<std::string>{"2", "3"}));
  EXPECT_EQ(parse_visible_devices(" 0 , 1 "), (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(parse_visible_devices("GPU-5a1c,MIG-7"),
            (std::vector<std::string>{"GPU-5a1c", "MIG-7"}));
  EXPECT_TRUE(parse_visible_devices("").empty());
  EXPECT_TRUE(parse_visible_devices("  ").empty());
}

TEST(NcclGpuAssignment, LocalRankAmongSameHostRanksPicksTheDevice) {
  const std::vector<std::string> hosts{"a", "a", "b", "b", "a"};
  const GpuAssignment fifth = assign_gpu(hosts, 4, 4, "", false);
  EXPECT_EQ(fifth.local_rank, 2);
  EXPECT_EQ(fifth.local_size, 3);
  EXPECT_EQ(fifth.ordinal, 2);
  EXPECT_EQ(fifth.label, "2");
  const GpuAssignment fourth = assign_gpu(hosts, 3, 4, "", false);
  EXPECT_EQ(fourth.local_rank, 1);
  EXPECT_EQ(fourth.local_size, 2);
  EXPECT_EQ(fourth.ordinal, 1);
}

TEST(NcclGpuAssignment, LabelComesFromCudaVisibleDevices) {
  const std::vector<std::string> hosts{"a", "a", "a"};
  EXPECT_EQ(assign_gpu(hosts, 2, 4, "4,5,6,7", false).label, "6");
  EXPECT_EQ(assign_gpu(hosts, 1, 4, "GPU-aa,GPU-bb", false).label, "GPU-bb");
  // Fewer entries than devices (CUDA stops at an invalid one): the ordinal stands in.
  EXPECT_EQ(assign_gpu(hosts, 2, 4, "GPU-aa,GPU-bb", false).label, "2");
}

TEST(NcclGpuAssignment, MoreRanksThanGpusOnAHostIsAnError) {
  const std::vector<std::string> hosts{"node-a", "node-a", "node-a", "node-b"};
  try {
    assign_gpu(hosts, 0, 2, "0,1", false);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& error) {
    EXPECT_STREQ(
        error.what(),
        "nccl: host node-a runs 3 ranks but has 2 visible GPUs (CUDA_VISIBLE_DEVICES=0,1); "
        "launch one rank per GPU or pass --opt nccl.share_gpus=1");
  }
  // node-b has one rank for its two GPUs: fine.
  EXPECT_EQ(assign_gpu(hosts, 3, 2, "0,1", false).ordinal, 0);
}

TEST(NcclGpuAssignment, SharingWrapsRanksOverGpusWhenAllowed) {
  const std::vector<std::string> hosts{"a", "a", "a"};
  EXPECT_EQ(assign_gpu(hosts, 2, 2, "", true).ordinal, 0);
  EXPECT_EQ(assign_gpu(hosts, 1, 2, "", true).ordinal, 1);
}

TEST(NcclGpuAssignment, NoVisibleDeviceNamesTheHostAndVariable) {
  try {
    assign_gpu({"a"}, 0, 0, "", false);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& error) {
    EXPECT_STREQ(error.what(),
                 "nccl: host a has no visible CUDA device (CUDA_VISIBLE_DEVICES unset)");
  }
}

}  // namespace
}  // namespace fabcheck
