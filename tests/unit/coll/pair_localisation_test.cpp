// Localisation on synthetic node-pair matrices: one bad node, one bad link, two bad nodes, noise
// without a fault, and the second pass that confirms or clears each suspect.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include "bench/coll/pair_localisation.hpp"

namespace fabcheck {
namespace {

std::vector<std::string> names(int n) {
  std::vector<std::string> result;
  for (int i = 0; i < n; ++i) result.push_back("node" + std::to_string(i));
  return result;
}

// A cluster whose healthy pairs move `healthy` GB/s; `slow_nodes` cap every pair they are in at
// `slow`, `slow_links` cap only their own pair. Noise multiplies each pair by a factor drawn
// uniformly from [1 - noise, 1 + noise].
PairMatrix synthetic(int n, std::vector<int> slow_nodes, std::vector<NodePair> slow_links,
                     double noise = 0, unsigned seed = 1, double healthy = 10, double slow = 2) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> factor(1 - noise, 1 + noise);
  PairMatrix matrix(names(n));
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      double value = healthy;
      for (int node : slow_nodes) {
        if (node == a || node == b) value = slow;
      }
      for (const auto& link : slow_links) {
        if (link == NodePair{a, b}) value = slow;
      }
      matrix.set(a, b, value * factor(random));
    }
  }
  return matrix;
}

// The second pass measured on the same synthetic cluster.
std::vector<PairFigure> measure_again(const std::vector<PairRound>& rounds,
                                      const PairMatrix& truth) {
  std::vector<PairFigure> figures;
  for (const auto& round : rounds) {
    for (const auto& pair : round) figures.push_back({pair, truth.at(pair.a, pair.b)});
  }
  return figures;
}

TEST(PairMatrix, IsSymmetricWithNothingMeasuredOnTheDiagonal) {
  PairMatrix matrix(names(3));
  matrix.set(2, 0, 4.5);
  EXPECT_EQ(matrix.at(0, 2), 4.5);
  EXPECT_EQ(matrix.at(2, 0), 4.5);
  EXPECT_TRUE(std::isnan(matrix.at(1, 1)));
  EXPECT_TRUE(std::isnan(matrix.at(0, 1)));
}

TEST(FindSuspects, OneBadNodeIsSlowWithEveryPartner) {
  for (int n : {3, 4, 6, 8, 17}) {
    const PairMatrix matrix = synthetic(n, {1}, {});
    const PairSuspects suspects = find_suspects(matrix, {});
    EXPECT_DOUBLE_EQ(suspects.reference, 10) << n;
    EXPECT_DOUBLE_EQ(suspects.threshold, 5) << n;
    EXPECT_EQ(suspects.nodes, std::vector<int>{1}) << n;
    EXPECT_TRUE(suspects.links.empty()) << n;
    EXPECT_EQ(suspects.slow_pairs.size(), static_cast<std::size_t>(n - 1)) << n;
    EXPECT_EQ(suspects.good.size(), static_cast<std::size_t>(n - 1)) << n;

    const auto rounds = confirmation_rounds(suspects);
    const Localisation found = confirm_suspects(suspects, measure_again(rounds, matrix));
    EXPECT_EQ(found.bad_nodes, std::vector<int>{1}) << n;
    EXPECT_TRUE(found.bad_links.empty()) << n;
    EXPECT_TRUE(found.unconfirmed_nodes.empty() && found.unconfirmed_links.empty()) << n;
  }
}

TEST(FindSuspects, OneBadLinkIsALinkAndNoNodeIsBlamed) {
  for (int n : {3, 4, 6, 9}) {
    const PairMatrix matrix = synthetic(n, {}, {{0, 2}});
    const PairSuspects suspects = find_suspects(matrix, {});
    EXPECT_TRUE(suspects.nodes.empty()) << n;
    EXPECT_EQ(suspects.links, (std::vector<NodePair>{{0, 2}})) << n;
    for (int node : suspects.good) EXPECT_TRUE(node != 0 && node != 2) << n;

    // The second pass measures the link again and each end with a good node.
    const auto rounds = confirmation_rounds(suspects);
    bool link_again = false;
    for (const auto& round : rounds) {
      std::set<int> in_round;
      for (const auto& pair : round) {
        EXPECT_TRUE(in_round.insert(pair.a).second);
        EXPECT_TRUE(in_round.insert(pair.b).second);
        link_again = link_again || pair == NodePair{0, 2};
      }
    }
    EXPECT_TRUE(link_again) << n;
    const Localisation found = confirm_suspects(suspects, measure_again(rounds, matrix));
    EXPECT_TRUE(found.bad_nodes.empty()) << n;
    EXPECT_EQ(found.bad_links, (std::vector<NodePair>{{0, 2}})) << n;
    EXPECT_EQ(link_subject("node2", "node0"), "node0--node2");
  }
}

TEST(FindSuspects, TwoBadNodesAreBothNamed) {
  for (int n : {6, 8, 12}) {
    const PairMatrix matrix = synthetic(n, {2, 4}, {});
    const PairSuspects suspects = find_suspects(matrix, {});
    EXPECT_EQ(suspects.nodes, (std::vector<int>{2, 4})) << n;
    EXPECT_TRUE(suspects.links.empty()) << n;  // the pair 2-4 is explained by its nodes
    const Localisation found =
        confirm_suspects(suspects, measure_again(confirmation_rounds(suspects), matrix));
    EXPECT_EQ(found.bad_nodes, (std::vector<int>{2, 4})) << n;
    EXPECT_TRUE(found.bad_links.empty()) << n;
  }
}

TEST(FindSuspects, NoiseOfThirtyPercentWithoutAFaultRaisesNothing) {
  for (int n : {3, 4, 5, 6, 7, 8, 16}) {
    for (unsigned seed = 1; seed <= 200; ++seed) {
      const PairSuspects suspects = find_suspects(synthetic(n, {}, {}, 0.30, seed), {});
      EXPECT_FALSE(suspects.any()) << "n " << n << " seed " << seed;
    }
  }
}

TEST(FindSuspects, AFaultIsFoundThroughNoise) {
  for (unsigned seed = 1; seed <= 50; ++seed) {
    const PairMatrix node = synthetic(6, {3}, {}, 0.30, seed, 10, 3);  // a port at 30 %
    EXPECT_EQ(find_suspects(node, {}).nodes, std::vector<int>{3}) << seed;
    const PairMatrix link = synthetic(6, {}, {{1, 5}}, 0.30, seed, 10, 3);
    const PairSuspects suspects = find_suspects(link, {});
    EXPECT_TRUE(suspects.nodes.empty()) << seed;
    EXPECT_EQ(suspects.links, (std::vector<NodePair>{{1, 5}})) << seed;
  }
}

TEST(FindSuspects, TwoNodesCannotTellANodeFromALink) {
  const PairSuspects suspects = find_suspects(synthetic(2, {1}, {}), {});
  EXPECT_FALSE(suspects.any());
  EXPECT_NE(suspects.not_possible.find("at least 3 nodes"), std::string::npos);
}

TEST(ConfirmSuspects, ASuspectFineWithAGoodNodeIsCleared) {
  // A transient slowdown in the first pass: node 1 looked slow, the second pass finds it healthy.
  const PairMatrix first = synthetic(5, {1}, {});
  const PairSuspects suspects = find_suspects(first, {});
  ASSERT_EQ(suspects.nodes, std::vector<int>{1});
  const PairMatrix healthy = synthetic(5, {}, {});
  const Localisation found =
      confirm_suspects(suspects, measure_again(confirmation_rounds(suspects), healthy));
  EXPECT_TRUE(found.bad_nodes.empty());
  EXPECT_EQ(found.cleared_nodes, std::vector<int>{1});
}

TEST(ConfirmSuspects, ALinkFastWhenMeasuredAgainIsCleared) {
  const PairSuspects suspects = find_suspects(synthetic(4, {}, {{1, 3}}), {});
  const Localisation found = confirm_suspects(
      suspects, measure_again(confirmation_rounds(suspects), synthetic(4, {}, {})));
  EXPECT_TRUE(found.bad_links.empty());
  EXPECT_EQ(found.cleared_links, (std::vector<NodePair>{{1, 3}}));
}

TEST(ConfirmSuspects, ALinkEndSlowWithAGoodNodeIsTheNode) {
  // First pass: only 0-2 slow. Second pass: node 2 is slow with a good node as well.
  const PairSuspects suspects = find_suspects(synthetic(6, {}, {{0, 2}}), {});
  const Localisation found = confirm_suspects(
      suspects, measure_again(confirmation_rounds(suspects), synthetic(6, {2}, {})));
  EXPECT_EQ(found.bad_nodes, std::vector<int>{2});
  EXPECT_TRUE(found.bad_links.empty());
}

TEST(ConfirmSuspects, WithoutGoodNodesNothingIsConfirmed) {
  PairSuspects suspects;
  suspects.threshold = 5;
  suspects.nodes = {0};
  EXPECT_TRUE(confirmation_rounds(suspects).empty());
  const Localisation found = confirm_suspects(suspects, {});
  EXPECT_EQ(found.unconfirmed_nodes, std::vector<int>{0});
  EXPECT_TRUE(found.bad_nodes.empty());
}

}  // namespace
}  // namespace fabcheck
