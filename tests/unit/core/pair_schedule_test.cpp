// Pair scheduler: every pair once, disjoint rounds, quick mode, and blaming a node, not a pair.
#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "bench/core/pair_schedule.hpp"

namespace fabcheck {
namespace {

class CircleRounds : public ::testing::TestWithParam<int> {};

TEST_P(CircleRounds, CoverEveryPairOnceInDisjointRounds) {
  int n = GetParam();
  auto rounds = circle_rounds(n);
  std::size_t expected_rounds = n < 2 ? 0 : static_cast<std::size_t>(n % 2 == 0 ? n - 1 : n);
  ASSERT_EQ(rounds.size(), expected_rounds);
  std::set<std::pair<int, int>> seen;
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    EXPECT_EQ(rounds[r].size(), static_cast<std::size_t>(n / 2)) << "round " << r;
    std::set<int> in_round;
    for (const auto& pair : rounds[r]) {
      ASSERT_LT(pair.a, pair.b);
      ASSERT_GE(pair.a, 0);
      ASSERT_LT(pair.b, n);
      EXPECT_TRUE(in_round.insert(pair.a).second) << "node " << pair.a << " twice in round " << r;
      EXPECT_TRUE(in_round.insert(pair.b).second) << "node " << pair.b << " twice in round " << r;
      EXPECT_TRUE(seen.insert({pair.a, pair.b}).second) << pair.a << "-" << pair.b << " repeated";
    }
  }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(n) * static_cast<std::size_t>(n - 1) / 2);
}

// Every N from 2 to 17 (odd ones with a node resting each round), and two large ones.
INSTANTIATE_TEST_SUITE_P(Sizes, CircleRounds,
                         ::testing::Values(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                           17, 64, 1000));

TEST(CircleRoundsOdd, EachNodeRestsExactlyOnce) {
  for (int n = 3; n <= 17; n += 2) {
    std::vector<int> rests(static_cast<std::size_t>(n), 0);
    for (const auto& round : circle_rounds(n)) {
      std::set<int> playing;
      for (const auto& pair : round) {
        playing.insert(pair.a);
        playing.insert(pair.b);
      }
      for (int node = 0; node < n; ++node)
        rests[static_cast<std::size_t>(node)] += !playing.count(node);
    }
    EXPECT_EQ(rests, std::vector<int>(static_cast<std::size_t>(n), 1)) << "n = " << n;
  }
}

TEST(NeighbourRounds, RingFirstThenShufflesWithoutRepeats) {
  EXPECT_TRUE(neighbour_rounds(1).empty());
  EXPECT_EQ(neighbour_rounds(2), (std::vector<PairRound>{{{0, 1}}}));
  // 3 nodes: the ring is every pair, one a round.
  EXPECT_EQ(neighbour_rounds(3).size(), 3u);
  const auto eight = neighbour_rounds(8, 0);
  ASSERT_EQ(eight.size(), 2u);
  EXPECT_EQ(eight[0], (PairRound{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  EXPECT_EQ(eight[1], (PairRound{{1, 2}, {3, 4}, {5, 6}, {0, 7}}));
  for (int n : {5, 8, 9, 16, 17, 64}) {
    const auto rounds = neighbour_rounds(n, 2);
    std::set<std::pair<int, int>> seen;
    std::vector<int> partners(static_cast<std::size_t>(n), 0);
    for (const auto& round : rounds) {
      std::set<int> in_round;
      for (const auto& p : round) {
        ASSERT_LT(p.a, p.b);
        EXPECT_TRUE(in_round.insert(p.a).second) << "n " << n;
        EXPECT_TRUE(in_round.insert(p.b).second) << "n " << n;
        EXPECT_TRUE(seen.insert({p.a, p.b}).second)
            << "n " << n << " repeats " << p.a << "-" << p.b;
        ++partners[static_cast<std::size_t>(p.a)];
        ++partners[static_cast<std::size_t>(p.b)];
      }
    }
    for (int node = 0; node < n; ++node) {
      // Both ring neighbours, and at most one partner per shuffle.
      EXPECT_GE(partners[static_cast<std::size_t>(node)], 2) << "n " << n << " node " << node;
      EXPECT_LE(partners[static_cast<std::size_t>(node)], 4) << "n " << n << " node " << node;
      EXPECT_TRUE(seen.count({std::min(node, (node + 1) % n), std::max(node, (node + 1) % n)}));
    }
    // Far fewer rounds than the circle method once n is large, and the same every time.
    if (n >= 16) {
      EXPECT_LE(rounds.size(), 8u);
    }
    EXPECT_EQ(rounds, neighbour_rounds(n, 2));
  }
}

TEST(CircleRoundsSmall, HandComputed) {
  auto four = circle_rounds(4);
  ASSERT_EQ(four.size(), 3u);
  EXPECT_EQ(four[0], (PairRound{{0, 3}, {1, 2}}));
  auto two = circle_rounds(2);
  ASSERT_EQ(two.size(), 1u);
  EXPECT_EQ(two[0], (PairRound{{0, 1}}));
  auto three = circle_rounds(3);
  ASSERT_EQ(three.size(), 3u);
  for (const auto& round : three) EXPECT_EQ(round.size(), 1u);
}

TEST(QuickRounds, EachNodeInOnePair) {
  EXPECT_TRUE(quick_rounds(1).empty());
  EXPECT_EQ(quick_rounds(2), (std::vector<PairRound>{{{0, 1}}}));
  EXPECT_EQ(quick_rounds(4), (std::vector<PairRound>{{{0, 1}, {2, 3}}}));
  EXPECT_EQ(quick_rounds(7), (std::vector<PairRound>{{{0, 1}, {2, 3}, {4, 5}}, {{0, 6}}}));
  for (int n : {2, 3, 4, 7, 64, 1000}) {
    std::set<int> covered;
    for (const auto& round : quick_rounds(n)) {
      std::set<int> in_round;
      for (const auto& p : round) {
        EXPECT_TRUE(in_round.insert(p.a).second);
        EXPECT_TRUE(in_round.insert(p.b).second);
        covered.insert(p.a);
        covered.insert(p.b);
      }
    }
    EXPECT_EQ(covered.size(), static_cast<std::size_t>(n));
  }
}

TEST(SuspectRepairing, NamesTheBadNode) {
  // Quick pass over 6 nodes: node 3 is broken, so pair (2,3) fails.
  std::vector<PairResult> first{{{0, 1}, true}, {{2, 3}, false}, {{4, 5}, true}};
  auto suspects = suspects_of(first);
  auto passed = passed_nodes(first);
  EXPECT_EQ(suspects, (std::vector<int>{2, 3}));
  EXPECT_EQ(passed, (std::vector<int>{0, 1, 4, 5}));
  auto rounds = suspect_rounds(suspects, passed);
  ASSERT_EQ(rounds.size(), 1u);
  EXPECT_EQ(rounds[0], (PairRound{{2, 0}, {3, 1}}));
  std::vector<PairResult> second{{{2, 0}, true}, {{3, 1}, false}};
  NodeBlame blame = blame_nodes(suspects, passed, second);
  EXPECT_EQ(blame.bad, std::vector<int>{3});
  EXPECT_EQ(blame.cleared, std::vector<int>{2});
  EXPECT_TRUE(blame.unresolved.empty());
}

TEST(SuspectRepairing, MoreSuspectsThanGoodNodesTakesSeveralRounds) {
  auto rounds = suspect_rounds({1, 2, 3, 4, 5}, {0, 6});
  ASSERT_EQ(rounds.size(), 3u);
  EXPECT_EQ(rounds[2], (PairRound{{5, 0}}));
  EXPECT_TRUE(suspect_rounds({1, 2}, {}).empty());
  NodeBlame blame = blame_nodes({1, 2}, {}, {});
  EXPECT_EQ(blame.unresolved, (std::vector<int>{1, 2}));
}

}  // namespace
}  // namespace fabcheck
