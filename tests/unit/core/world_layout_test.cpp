// Local ranks from host names, and the single-process World.
#include <gtest/gtest.h>

#include "bench/core/world.hpp"

namespace fabcheck {
namespace {

TEST(LocalRank, CountsRanksOfTheSameHostInRankOrder) {
  const std::vector<std::string> hosts{"a", "b", "a", "c", "b", "a"};
  EXPECT_EQ(local_rank_of(hosts, 0), std::make_pair(0, 3));
  EXPECT_EQ(local_rank_of(hosts, 2), std::make_pair(1, 3));
  EXPECT_EQ(local_rank_of(hosts, 5), std::make_pair(2, 3));
  EXPECT_EQ(local_rank_of(hosts, 4), std::make_pair(1, 2));
  EXPECT_EQ(local_rank_of(hosts, 3), std::make_pair(0, 1));
}

TEST(SingleWorld, IsOneRankOnThisHost) {
  auto world = make_single_world();
  EXPECT_EQ(world->rank(), 0);
  EXPECT_EQ(world->size(), 1);
  EXPECT_TRUE(world->is_root());
  EXPECT_EQ(world->host(), local_hostname());
  EXPECT_EQ(world->distinct_hosts(), std::vector<std::string>{local_hostname()});
  std::vector<double> values{1, 2};
  world->max_in_place(values);
  EXPECT_EQ(values, (std::vector<double>{1, 2}));
  EXPECT_EQ(world->gather_values(std::string("x")), std::vector<std::string>{"x"});
  EXPECT_EQ(world->describe_rank(0), "rank 0 (" + local_hostname() + ")");
}

}  // namespace
}  // namespace fabcheck
