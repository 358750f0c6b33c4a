// Rank -> GPU mapping from host names and CUDA_VISIBLE_DEVICES, and the only refusal: two ranks of
// a host on one GPU (same bus id).
#include <gtest/gtest.h>

#include "bench/sys/config_error.hpp"
#include "bench/sys/gpu_assignment.hpp"

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
  const GpuAssignment fifth = assign_gpu(hosts, 4, 4, "");
  EXPECT_EQ(fifth.local_rank, 2);
  EXPECT_EQ(fifth.local_size, 3);
  EXPECT_EQ(fifth.ordinal, 2);
  EXPECT_EQ(fifth.label, "2");
  const GpuAssignment fourth = assign_gpu(hosts, 3, 4, "");
  EXPECT_EQ(fourth.local_rank, 1);
  EXPECT_EQ(fourth.local_size, 2);
  EXPECT_EQ(fourth.ordinal, 1);
}

TEST(NcclGpuAssignment, LabelComesFromCudaVisibleDevices) {
  const std::vector<std::string> hosts{"a", "a", "a"};
  EXPECT_EQ(assign_gpu(hosts, 2, 4, "4,5,6,7").label, "6");
  EXPECT_EQ(assign_gpu(hosts, 1, 4, "GPU-aa,GPU-bb").label, "GPU-bb");
  // Fewer entries than devices (CUDA stops at an invalid one): the ordinal stands in.
  EXPECT_EQ(assign_gpu(hosts, 2, 4, "GPU-aa,GPU-bb").label, "2");
}

// Defect 4: with `srun --gpus-per-task=1` every rank sees one device (ordinal 0), its own; the old
// rule (more ranks on the host than visible devices) refused it.
TEST(NcclGpuAssignment, OneVisibleDevicePerRankIsOrdinalZeroForEveryRank) {
  const std::vector<std::string> hosts{"node-a", "node-a", "node-a", "node-a"};
  for (int rank = 0; rank < 4; ++rank) {
    const GpuAssignment gpu = assign_gpu(hosts, rank, 1, "");
    EXPECT_EQ(gpu.ordinal, 0);
    EXPECT_EQ(gpu.local_rank, rank);
    EXPECT_EQ(gpu.local_size, 4);
  }
}

TEST(NcclGpuAssignment, DistinctBusIdsOnAHostAreNoProblem) {
  EXPECT_EQ(duplicate_gpu_problem({"a", "a", "b", "b"}, {{"0000:17:00.0", "0"},
                                                         {"0000:2a:00.0", "1"},
                                                         {"0000:17:00.0", ""},
                                                         {"0000:2a:00.0", ""}}),
            "");
}

TEST(NcclGpuAssignment, TwoRanksOfAHostOnOneBusIdAreNamed) {
  EXPECT_EQ(
      duplicate_gpu_problem({"node-a", "node-a", "node-a", "node-b"}, {{"0000:17:00.0", "0"},
                                                                       {"0000:2a:00.0", "1"},
                                                                       {"0000:17:00.0", "2,0"},
                                                                       {"0000:17:00.0", ""}}),
      "nccl: two ranks on one GPU, which NCCL refuses (\"Duplicate GPU detected\"): host "
      "node-a: ranks 0 (CUDA_VISIBLE_DEVICES=0), 2 (CUDA_VISIBLE_DEVICES=2,0) all chose GPU "
      "0000:17:00.0; launch one rank per GPU (as many ranks per node as GPUs, or srun "
      "--gpus-per-task=1)");
}

TEST(NcclGpuAssignment, NoVisibleDeviceNamesTheHostAndVariable) {
  try {
    assign_gpu({"a"}, 0, 0, "");
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& error) {
    EXPECT_STREQ(error.what(),
                 "nccl: host a has no visible CUDA device (CUDA_VISIBLE_DEVICES unset)");
  }
}

}  // namespace
}  // namespace fabcheck
