// Cross-rank agreement: one rank's failure ends every rank at once, naming that rank and its host.
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>

#include "bench/core/rank_agreement.hpp"
#include "tests/doubles/thread_world.hpp"

namespace fabcheck {
namespace {

using testing::run_ranks;

const std::vector<std::string> kHosts{"node-a", "node-a", "node-b", "node-b"};

TEST(RankAgreement, EveryRankSucceedingReturnsNormallyOnAll) {
  int ran = 0;
  std::mutex mutex;
  const auto errors = run_ranks(kHosts, [&](World& world) {
    run_on_every_rank(world, "device selection", [&] {
      std::lock_guard lock(mutex);
      ++ran;
    });
    world.barrier();  // still in step with each other
  });
  EXPECT_EQ(ran, 4);
  for (const auto& error : errors) EXPECT_EQ(error, "");
}

TEST(RankAgreement, OneRankThrowingEndsEveryRankNamingIt) {
  // Rank 2 fails before a collective the others are about to enter. Without agreement the others
  // would wait in barrier() for it (the ThreadWorld double throws "never entered" after 10 s).
  const auto started = std::chrono::steady_clock::now();
  std::vector<int> failed_rank(kHosts.size(), -1);
  const auto errors = run_ranks(kHosts, [&](World& world) {
    try {
      run_on_every_rank(world, "device selection", [&] {
        if (world.rank() == 2) throw std::runtime_error("no CUDA device with bus id 0000:9a:00.0");
      });
    } catch (const RankFailure& failure) {
      failed_rank[static_cast<std::size_t>(world.rank())] = failure.failed_rank();
      throw;
    }
    world.barrier();  // must never be reached
  });
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
  for (std::size_t r = 0; r < errors.size(); ++r) {
    EXPECT_EQ(errors[r],
              "device selection failed on rank 2 (node-b): no CUDA device with bus id 0000:9a:00.0")
        << "rank " << r;
    EXPECT_EQ(failed_rank[r], 2) << "rank " << r;
  }
}

TEST(RankAgreement, SeveralFailingRanksNameTheLowestAndCountTheOthers) {
  const auto errors = run_ranks(kHosts, [&](World& world) {
    std::string mine;
    if (world.rank() == 1) mine = "scratch folder exists";
    if (world.rank() == 3) mine = "disk full";
    agree_on_success(world, "scratch setup", mine);
  });
  for (const auto& error : errors)
    EXPECT_EQ(
        error,
        "scratch setup failed on rank 1 (node-a): scratch folder exists; also on 1 other rank");
}

TEST(RankAgreement, AnExceptionWithoutTextStillCountsAsFailure) {
  const auto errors = run_ranks({"solo-a", "solo-b"}, [&](World& world) {
    run_on_every_rank(world, "fill", [&] {
      if (world.rank() == 0) throw std::runtime_error("");
    });
  });
  for (const auto& error : errors)
    EXPECT_EQ(error, "fill failed on rank 0 (solo-a): unnamed error");
}

TEST(ThreadWorldDouble, CollectivesCombineAcrossRanks) {
  // The double itself: max and sum element-wise, gather in rank order, broadcast the root's value.
  const auto errors = run_ranks(kHosts, [&](World& world) {
    std::vector<double> values{static_cast<double>(world.rank()), 1.0};
    auto sums = values;
    world.max_in_place(values);
    world.sum_in_place(sums);
    EXPECT_EQ(values, (std::vector<double>{3.0, 1.0}));
    EXPECT_EQ(sums, (std::vector<double>{6.0, 4.0}));
    const auto gathered = world.gather_values("r" + std::to_string(world.rank()));
    if (world.is_root()) {
      EXPECT_EQ(gathered, (std::vector<std::string>{"r0", "r1", "r2", "r3"}));
    }
    EXPECT_EQ(world.broadcast_value(std::string(world.is_root() ? "root says" : "ignored")),
              "root says");
  });
  for (const auto& error : errors) EXPECT_EQ(error, "");
}

}  // namespace
}  // namespace fabcheck
