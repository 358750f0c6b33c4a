// Localisation by blocks on synthetic matrices of nodes under leaf switches: a slow switch link
// between two leaves, a leaf's slow uplink among three, a slow node or cable inside a healthy
// fabric, groups inferred without a topology, and shapes that must not look like a switch.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "bench/coll/pair_localisation.hpp"

namespace fabcheck {
namespace {

// `leaves[i]`: node i's leaf. Pairs run at 10 GB/s, at 2 across a slow leaf pair, at 2 with a slow
// node, at 2 on a slow link.
struct Fabric {
  std::vector<int> leaves;
  std::vector<std::pair<int, int>> slow_leaf_pairs;
  std::vector<int> slow_nodes;
  std::vector<NodePair> slow_links;

  double figure(int a, int b) const {
    for (const auto& [x, y] : slow_leaf_pairs) {
      const int la = leaves[static_cast<std::size_t>(a)];
      const int lb = leaves[static_cast<std::size_t>(b)];
      if ((la == x && lb == y) || (la == y && lb == x)) return 2;
    }
    for (int node : slow_nodes) {
      if (node == a || node == b) return 2;
    }
    for (const auto& link : slow_links) {
      if ((link.a == a && link.b == b) || (link.a == b && link.b == a)) return 2;
    }
    return 10 + 0.1 * ((a * 7 + b * 3) % 5);  // a little spread
  }
  PairMatrix matrix() const {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < leaves.size(); ++i) names.push_back("n" + std::to_string(i));
    PairMatrix m(names);
    for (int a = 0; a < m.size(); ++a) {
      for (int b = a + 1; b < m.size(); ++b) m.set(a, b, figure(a, b));
    }
    return m;
  }
  NodeGroups groups() const {
    NodeGroups g;
    int count = 0;
    for (int leaf : leaves) count = std::max(count, leaf + 1);
    for (int i = 0; i < count; ++i) g.names.push_back("leaf" + std::to_string(i));
    g.of_node = leaves;
    return g;
  }
  std::vector<PairFigure> again(const std::vector<PairRound>& rounds) const {
    std::vector<PairFigure> out;
    for (const auto& round : rounds) {
      for (const auto& pair : round) out.push_back({pair, figure(pair.a, pair.b)});
    }
    return out;
  }
};

TEST(FindSuspectsByBlocks, ASlowTrunkBetweenTwoLeavesIsOneSwitchLinkAndNoNode) {
  const Fabric fabric{{0, 0, 1, 1}, {{0, 1}}, {}, {}};
  const NodeGroups groups = fabric.groups();
  const auto suspects = find_suspects(fabric.matrix(), {}, &groups);
  // Blocks 00, 11 at 10 (+spread), 01 at 2: the upper median of the three block medians is 10.x,
  // not the 2 most of each node's partners show.
  EXPECT_GT(suspects.reference, 9.9);
  ASSERT_EQ(suspects.blocks.size(), 1u);
  EXPECT_EQ(suspects.blocks[0].a, 0);
  EXPECT_EQ(suspects.blocks[0].b, 1);
  EXPECT_EQ(suspects.blocks[0].slow, 4);
  EXPECT_EQ(suspects.blocks[0].measured, 4);
  EXPECT_EQ(suspects.blocks[0].again.size(), 2u);
  EXPECT_TRUE(suspects.nodes.empty());
  EXPECT_TRUE(suspects.links.empty());
  EXPECT_EQ(suspects.good, std::vector<int>({0, 1, 2, 3}));
  const auto found = confirm_suspects(suspects, fabric.again(confirmation_rounds(suspects)));
  EXPECT_EQ(found.bad_blocks, std::vector<int>({0}));
  EXPECT_TRUE(found.bad_nodes.empty());
  EXPECT_TRUE(found.bad_links.empty());
}

TEST(FindSuspectsByBlocks, WithoutGroupsTheSameMatrixLooksHealthyToTheOldRule) {
  // The reason for blocks: each node's median pair is the slow level, so nothing stands out.
  const Fabric fabric{{0, 0, 0, 1, 1, 1}, {{0, 1}}, {}, {}};
  PairMatrix matrix = fabric.matrix();
  NodeGroups one;  // one group: no blocks
  one.names = {"all"};
  one.of_node.assign(6, 0);
  const auto suspects = find_suspects(matrix, {}, &one);
  // ... but inference finds the two groups (every pair inside fast, every pair between slow).
  ASSERT_TRUE(suspects.groups.inferred);
  EXPECT_EQ(suspects.groups.of_node, std::vector<int>({0, 0, 0, 1, 1, 1}));
  ASSERT_EQ(suspects.blocks.size(), 1u);
  EXPECT_TRUE(suspects.nodes.empty());
}

TEST(FindSuspectsByBlocks, ALeafSlowWithBothOthersIsItsUplink) {
  const Fabric fabric{{0, 0, 1, 1, 2, 2}, {{0, 1}, {0, 2}}, {}, {}};
  const NodeGroups groups = fabric.groups();
  const auto suspects = find_suspects(fabric.matrix(), {}, &groups);
  ASSERT_EQ(suspects.blocks.size(), 2u);
  EXPECT_EQ(suspects.uplinks, std::vector<int>({0}));
  EXPECT_TRUE(suspects.nodes.empty());
}

TEST(FindSuspectsByBlocks, ASlowNodeInALeafIsANodeNotASwitch) {
  const Fabric fabric{{0, 0, 0, 1, 1, 1}, {}, {1}, {}};
  const NodeGroups groups = fabric.groups();
  const auto suspects = find_suspects(fabric.matrix(), {}, &groups);
  EXPECT_TRUE(suspects.blocks.empty());
  EXPECT_EQ(suspects.nodes, std::vector<int>({1}));
  const auto found = confirm_suspects(suspects, fabric.again(confirmation_rounds(suspects)));
  EXPECT_EQ(found.bad_nodes, std::vector<int>({1}));
}

TEST(FindSuspectsByBlocks, TwoSlowNodesInTwoLeavesAreNodesNotTheirSwitchLink) {
  // 5 of the 9 pairs between the leaves touch n0 or n3: most, but each node is slow at home too.
  const Fabric fabric{{0, 0, 0, 1, 1, 1}, {}, {0, 3}, {}};
  const NodeGroups groups = fabric.groups();
  const auto suspects = find_suspects(fabric.matrix(), {}, &groups);
  EXPECT_TRUE(suspects.blocks.empty());
  EXPECT_EQ(suspects.nodes, std::vector<int>({0, 3}));
}

TEST(FindSuspectsByBlocks, ASlowCableBetweenLeavesIsALink) {
  const Fabric fabric{{0, 0, 1, 1}, {}, {}, {{1, 2}}};
  const NodeGroups groups = fabric.groups();
  const auto suspects = find_suspects(fabric.matrix(), {}, &groups);
  EXPECT_TRUE(suspects.blocks.empty());
  ASSERT_EQ(suspects.links.size(), 1u);
  EXPECT_EQ(suspects.links[0], (NodePair{1, 2}));
  const auto found = confirm_suspects(suspects, fabric.again(confirmation_rounds(suspects)));
  EXPECT_EQ(found.bad_links.size(), 1u);
  EXPECT_TRUE(found.bad_blocks.empty());
}

TEST(FindSuspectsByBlocks, ASlowTrunkAndASlowNodeAreBothNamed) {
  // Leaves of four: inside n0's leaf half of the pairs stay fast, so the level is still seen (with
  // leaves of three, both faults at once leave every block's median and every node's at the slow
  // level, and nothing stands out).
  const Fabric fabric{{0, 0, 0, 0, 1, 1, 1, 1}, {{0, 1}}, {0}, {}};
  const NodeGroups groups = fabric.groups();
  const auto suspects = find_suspects(fabric.matrix(), {}, &groups);
  ASSERT_EQ(suspects.blocks.size(), 1u);
  EXPECT_EQ(suspects.nodes, std::vector<int>({0}));
  const auto rounds = confirmation_rounds(suspects);
  // n0 is re-paired inside its own leaf, not across the slow trunk.
  for (const auto& round : rounds) {
    for (const auto& pair : round) {
      if (pair.a == 0 || pair.b == 0) {
        EXPECT_LT(std::max(pair.a, pair.b), 4);
      }
    }
  }
  const auto found = confirm_suspects(suspects, fabric.again(rounds));
  EXPECT_EQ(found.bad_nodes, std::vector<int>({0}));
  EXPECT_EQ(found.bad_blocks, std::vector<int>({0}));
}

TEST(FindSuspectsByBlocks, ATrunkFineWhenMeasuredAgainIsCleared) {
  const Fabric fabric{{0, 0, 1, 1}, {{0, 1}}, {}, {}};
  const NodeGroups groups = fabric.groups();
  const auto suspects = find_suspects(fabric.matrix(), {}, &groups);
  std::vector<PairFigure> healthy;
  for (const auto& round : confirmation_rounds(suspects)) {
    for (const auto& pair : round) healthy.push_back({pair, 10});
  }
  const auto found = confirm_suspects(suspects, healthy);
  EXPECT_EQ(found.cleared_blocks, std::vector<int>({0}));
  EXPECT_TRUE(found.bad_blocks.empty());
  EXPECT_EQ(confirm_suspects(suspects, {}).unconfirmed_blocks, std::vector<int>({0}));
}

TEST(InferGroups, AHealthyMatrixOrASlowNodeHasNoGroups) {
  EXPECT_EQ(infer_groups(Fabric{{0, 0, 1, 1}, {}, {}, {}}.matrix(), {}).count(), 0);
  EXPECT_EQ(infer_groups(Fabric{{0, 0, 0, 0, 0}, {}, {2}, {}}.matrix(), {}).count(), 0);
  // One slow link does not cut the cluster in two.
  EXPECT_EQ(infer_groups(Fabric{{0, 0, 0, 0}, {}, {}, {{0, 3}}}.matrix(), {}).count(), 0);
}

TEST(InferGroups, ANodeSlowWithEveryoneIsInNoGroup) {
  const auto groups = infer_groups(Fabric{{0, 0, 0, 1, 1, 1}, {{0, 1}}, {0}, {}}.matrix(), {});
  EXPECT_EQ(groups.of_node, std::vector<int>({-1, 0, 0, 1, 1, 1}));
}

TEST(GroupCoverage, QuickRoundsGainAPairBetweenLeavesTheyMissed) {
  NodeGroups groups;
  groups.names = {"l0", "l1", "l2"};
  groups.of_node = {0, 0, 1, 1, 2, 2};
  const std::vector<PairRound> rounds = {{{0, 1}, {2, 3}, {4, 5}}, {{1, 2}}};
  EXPECT_EQ(describe_group_coverage(rounds, groups), "l0--l1 1 pair(s), l0--l2 none, l1--l2 none");
  const auto extra = rounds_covering_groups(rounds, groups);
  auto all = rounds;
  all.insert(all.end(), extra.begin(), extra.end());
  EXPECT_EQ(describe_group_coverage(all, groups),
            "l0--l1 1 pair(s), l0--l2 1 pair(s), l1--l2 1 pair(s)");
  for (const auto& round : extra) {
    std::set<int> seen;
    for (const auto& pair : round) {
      EXPECT_TRUE(seen.insert(pair.a).second);
      EXPECT_TRUE(seen.insert(pair.b).second);
    }
  }
  EXPECT_TRUE(rounds_covering_groups(all, groups).empty());
}

}  // namespace
}  // namespace fabcheck
