// Memory planned before a run: the buffers of the largest size per rank, refused (exit 2, naming
// the size and the memory) when the host or the GPU cannot hold them, or when no size moves
// anything.
#include "bench/cli/memory_plan.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "bench/cli/probe_families.hpp"
#include "bench/sys/config_error.hpp"

namespace fabcheck {
namespace {

using ::testing::HasSubstr;
constexpr std::uint64_t GiB = 1ull << 30;

// The selected probes, as a run gets them (every family registered).
std::vector<Probe*> probes(const std::string& ids) {
  static const Registry registry = [] {
    Registry all;
    register_all_probes(all);
    return all;
  }();
  return registry.select(ids);
}

RunOptions with_sizes(std::vector<std::uint64_t> sizes, const std::string& placement = "out") {
  RunOptions options;
  options.sizes = std::move(sizes);
  options.extra["placement"] = placement;
  return options;
}

TEST(MemoryPlan, TheLargestNeedIsInputPlusOutputAtTheLargestSize) {
  // all_gather at 8 GiB over 2 ranks: 4 GiB in, 8 GiB out per rank; all_reduce: 8 + 8.
  const auto gather =
      largest_collective_need(probes("coll.all_gather"), with_sizes({1024, 8 * GiB}), "mpi", 2);
  ASSERT_TRUE(gather.has_value());
  EXPECT_EQ(gather->probe, "coll.all_gather");
  EXPECT_EQ(gather->size_bytes, 8 * GiB);
  EXPECT_EQ(gather->bytes_per_rank, 12 * GiB);
  const auto both = largest_collective_need(probes("coll.all_gather,coll.all_reduce,gpu.h2d"),
                                            with_sizes({8 * GiB}), "mpi", 2);
  ASSERT_TRUE(both.has_value());
  EXPECT_EQ(both->probe, "coll.all_reduce");
  EXPECT_EQ(both->bytes_per_rank, 16 * GiB);
  // In place: one buffer.
  const auto in_place =
      largest_collective_need(probes("coll.all_reduce"), with_sizes({8 * GiB}, "in"), "mpi", 2);
  EXPECT_EQ(in_place->bytes_per_rank, 8 * GiB);
  EXPECT_FALSE(
      largest_collective_need(probes("storage.seq_write"), with_sizes({8 * GiB}), "mpi", 2));
}

TEST(MemoryPlan, SizesBelowOneElementPerRankAreRefused) {
  try {
    largest_collective_need(probes("coll.all_gather"), with_sizes({1, 4}), "mpi", 2);
    FAIL() << "accepted sizes that move nothing";
  } catch (const ConfigError& error) {
    EXPECT_THAT(error.what(), HasSubstr("coll.all_gather with 2 rank(s) has nothing to move"));
    EXPECT_THAT(error.what(), HasSubstr("at least 8B"));
  }
  // One size that moves something is enough.
  EXPECT_TRUE(largest_collective_need(probes("coll.all_gather"), with_sizes({1, 8}), "mpi", 2));
}

TEST(MemoryPlan, TooLargeForTheHostOrTheGpuNamesSizeAndMemory) {
  const CollectiveMemoryNeed need{"coll.all_reduce", 8 * GiB, 16 * GiB};
  try {
    check_memory_plan(need, "mpi", 2, 24 * GiB, std::nullopt);
    FAIL() << "accepted 32 GiB on a host with 24 GiB";
  } catch (const ConfigError& error) {
    EXPECT_THAT(error.what(), HasSubstr("coll.all_reduce at 8GiB needs 16GiB"));
    EXPECT_THAT(error.what(), HasSubstr("2 rank(s) on this host: 32GiB"));
    EXPECT_THAT(error.what(), HasSubstr("has 24GiB of memory available"));
  }
  EXPECT_NO_THROW(check_memory_plan(need, "mpi", 1, 24 * GiB, std::nullopt));
  EXPECT_NO_THROW(check_memory_plan(need, "mpi", 2, std::nullopt, std::nullopt));  // unknown
  EXPECT_NO_THROW(check_memory_plan(need, "nccl", 8, 1 * GiB, 80 * GiB));          // GPU buffers
  EXPECT_THROW(check_memory_plan(need, "nccl", 8, 1 * GiB, 10 * GiB), ConfigError);
}

TEST(MemoryPlan, ThisHostHasSomeMemoryAvailable) {
  const auto available = host_memory_available();
  ASSERT_TRUE(available.has_value());
  EXPECT_GT(*available, 0u);
}

}  // namespace
}  // namespace fabcheck
