// The watchdog's decisions: who did not arrive, when a step is overdue, lagging and silent ranks.
#include <gtest/gtest.h>

#include "bench/core/hang_detector.hpp"

namespace fabcheck {
namespace {

HangDetector three_ranks() { return HangDetector({"rank 0 (a)", "rank 1 (b)", "rank 2 (c)"}, 2.0); }

TEST(HangDetector, NothingOverdueWithinTheTimeout) {
  auto d = three_ranks();
  for (int r = 0; r < 3; ++r) d.arrive(r, 0, "probe x", 10, 100);
  EXPECT_FALSE(d.overdue(109.9).has_value());
}

TEST(HangDetector, NamesTheRankThatDidNotArriveAtTheNextStep) {
  auto d = three_ranks();
  for (int r = 0; r < 3; ++r) d.arrive(r, 0, "probe x", 10, 100);
  d.arrive(0, 1, "gather x", 60, 101);
  d.arrive(2, 1, "gather x", 60, 102);
  EXPECT_FALSE(d.overdue(110).has_value());
  const auto message = d.overdue(110.5);
  ASSERT_TRUE(message.has_value());
  EXPECT_EQ(*message,
            "step \"probe x\" exceeded 10 s: rank 1 (b) did not arrive at \"gather x\" (2 of 3 "
            "ranks did)");
}

TEST(HangDetector, RankThatNeverStartedIsNamedAfterTheFirstStepsTimeout) {
  auto d = three_ranks();
  d.arrive(0, 0, "probe x", 5, 0);
  d.arrive(1, 0, "probe x", 5, 0);
  EXPECT_FALSE(d.overdue(4).has_value());
  const auto message = d.overdue(6);
  ASSERT_TRUE(message.has_value());
  EXPECT_NE(message->find("rank 2 (c) did not arrive at \"probe x\""), std::string::npos)
      << *message;
}

TEST(HangDetector, AllStuckInOneStepNamesLaggingAndSilentRanks) {
  auto d = three_ranks();
  for (int r = 0; r < 3; ++r) d.arrive(r, 0, "probe x", 10, 0);
  d.progress(0, 41, 11);
  d.progress(1, 40, 11);
  d.progress(2, 41, 7);  // last heard 4 s before the check: silent
  const auto message = d.overdue(11);
  ASSERT_TRUE(message.has_value());
  EXPECT_NE(message->find("exceeded 10 s on all 3 ranks: none finished it"), std::string::npos);
  EXPECT_NE(message->find("rank 1 (b) entered 40 operations, the most any rank entered is 41"),
            std::string::npos)
      << *message;
  EXPECT_NE(message->find("rank 2 (c) silent for 4 s"), std::string::npos) << *message;
  EXPECT_EQ(message->find("rank 0 (a) entered"), std::string::npos) << *message;
}

TEST(HangDetector, AllReachedTracksTheSlowestRank) {
  auto d = three_ranks();
  for (int r = 0; r < 3; ++r) d.arrive(r, 0, "a", 10, 0);
  d.arrive(0, 1, "b", 10, 1);
  d.arrive(1, 1, "b", 10, 1);
  EXPECT_TRUE(d.all_reached(0));
  EXPECT_FALSE(d.all_reached(1));
  d.arrive(2, 1, "b", 10, 2);
  EXPECT_TRUE(d.all_reached(1));
}

TEST(HangDetector, IgnoresOutOfRangeRanks) {
  auto d = three_ranks();
  d.arrive(7, 0, "x", 1, 0);
  d.progress(-1, 5, 0);
  EXPECT_FALSE(d.overdue(100).has_value());
}

}  // namespace
}  // namespace fabcheck
