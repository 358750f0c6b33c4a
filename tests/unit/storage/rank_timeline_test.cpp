// Cross-rank phase aggregation against hand-computed figures.
#include "storage/rank_timeline.hpp"

#include <gtest/gtest.h>

namespace fabcheck {
namespace {

TEST(RankTimeline, AggregateAndFirstDoneFromThreeRanks) {
  // Three ranks write 10 units each. Rank 2 straggles and closes at 5 s.
  const std::vector<RankPhase> phases = {
      {0.1, 1.1, 10, {{0.6, 5}, {1.1, 10}}},
      {0.0, 2.0, 10, {{1.0, 5}, {2.0, 10}}},
      {0.2, 5.0, 10, {{1.0, 2}, {3.0, 6}, {5.0, 10}}},
  };
  const PhaseAggregate all = aggregate_phases(phases);
  EXPECT_DOUBLE_EQ(all.first_open_s, 0.0);
  EXPECT_DOUBLE_EQ(all.first_close_s, 1.1);
  EXPECT_DOUBLE_EQ(all.last_close_s, 5.0);
  EXPECT_DOUBLE_EQ(all.total, 30);
  EXPECT_DOUBLE_EQ(all.aggregate_rate, 30 / 5.0);
  // At 1.1 s: rank 0 done (10), rank 1 at 5 (point at 1.0), rank 2 at 2 (point at 1.0).
  EXPECT_DOUBLE_EQ(all.done_at_first_close, 17);
  EXPECT_DOUBLE_EQ(all.first_done_rate, 17 / 1.1);
}

TEST(RankTimeline, SingleWorldMatchesThePureForm) {
  auto world = make_single_world();
  const RankPhase mine{0.5, 2.5, 100, {{1.5, 40}, {2.5, 100}}};
  const PhaseAggregate all = aggregate_phase_across_ranks(*world, mine);
  EXPECT_DOUBLE_EQ(all.first_open_s, 0.5);
  EXPECT_DOUBLE_EQ(all.last_close_s, 2.5);
  EXPECT_DOUBLE_EQ(all.aggregate_rate, 50);
  EXPECT_DOUBLE_EQ(all.first_done_rate, 50);  // one rank: first done is last done
}

TEST(RankTimeline, NoRanksGivesZeros) {
  const PhaseAggregate all = aggregate_phases({});
  EXPECT_EQ(all.aggregate_rate, 0);
}

}  // namespace
}  // namespace fabcheck
