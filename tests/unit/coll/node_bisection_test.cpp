// The bisection against synthetic fabrics (a group's all-reduce moves as fast as the slowest node
// or ring link it holds): a healthy world, one or two slow nodes, a slow cable, a slow path
// between the halves, noise that does not repeat, a failed collective, and the step counts at
// 1,024 and 16,384 nodes.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <set>

#include "bench/coll/node_bisection.hpp"

namespace fabcheck {
namespace {

constexpr double kHealthy = 10;
constexpr double kSlow = 2;

// A fabric: each node's speed, slow ring links, and a slow path between nodes below `split` and
// the others (0: none). A group's figure: the slowest node or link of its ring (members in order).
struct Fabric {
  std::set<int> slow_nodes;
  std::set<std::pair<int, int>> slow_links;
  int split = 0;
  std::function<double(int step, const BisectGroup&)> override_figure;

  double figure(int step, const BisectGroup& group) const {
    if (override_figure) {  // -1: not overridden; NaN: the collective failed
      const double forced = override_figure(step, group);
      if (std::isnan(forced) || forced >= 0) return forced;
    }
    double value = kHealthy;
    const auto& m = group.members;
    for (std::size_t i = 0; i < m.size(); ++i) {
      if (slow_nodes.count(m[i])) value = std::min(value, kSlow);
      const int a = m[i];
      const int b = m[(i + 1) % m.size()];
      if (a == b) continue;
      if (slow_links.count({std::min(a, b), std::max(a, b)})) value = std::min(value, kSlow);
      if (split > 0 && ((a < split) != (b < split))) value = std::min(value, kSlow);
    }
    return value;
  }
};

Bisection run(int nodes, const Fabric& fabric, double gap = 0.5, double expected = 0) {
  Bisection bisection(nodes, gap, expected);
  for (int guard = 0; !bisection.done() && guard < 200; ++guard) {
    std::vector<double> figures;
    for (const auto& group : bisection.next()) {
      // Groups of one step never share a node.
      figures.push_back(fabric.figure(bisection.steps(), group));
    }
    bisection.record(figures);
  }
  EXPECT_TRUE(bisection.done());
  return bisection;
}

std::vector<BisectConclusion> of_kind(const Bisection& bisection, BisectConclusion::Kind kind) {
  std::vector<BisectConclusion> found;
  for (const auto& conclusion : bisection.conclusions()) {
    if (conclusion.kind == kind) found.push_back(conclusion);
  }
  return found;
}

TEST(NodeBisection, HealthyWorldEndsAfterTheWorldAndItsHalves) {
  const Bisection bisection = run(8, {});
  EXPECT_EQ(bisection.steps(), 2);
  EXPECT_TRUE(bisection.conclusions().empty());
  ASSERT_EQ(bisection.figures().size(), 3u);  // world, two halves
  EXPECT_FALSE(bisection.figures()[0].slow);
}

TEST(NodeBisection, NamesOneSlowNodeOfEightInFourSteps) {
  Fabric fabric;
  fabric.slow_nodes = {5};
  const Bisection bisection = run(8, fabric);
  const auto nodes = of_kind(bisection, BisectConclusion::Kind::node);
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(nodes[0].nodes, std::vector<int>{5});
  EXPECT_EQ(bisection.conclusions().size(), 1u);
  // world; halves {0-3} {4-7}; {4,5} {6,7} + reference; 4 and 5 with good partners + reference.
  EXPECT_EQ(bisection.steps(), 4);
  // The evidence: the world, the half, the quarter and the partner pair, each slow.
  ASSERT_EQ(nodes[0].evidence.size(), 4u);
  for (const int f : nodes[0].evidence)
    EXPECT_TRUE(bisection.figures()[static_cast<std::size_t>(f)].slow);
  const BisectFigure& partner =
      bisection.figures()[static_cast<std::size_t>(nodes[0].evidence.back())];
  EXPECT_EQ(partner.group.role, BisectRole::partner);
  EXPECT_EQ(partner.group.tested, 5);
  // Every step after the first two carries known-good nodes as its reference.
  int references = 0;
  for (const auto& figure : bisection.figures()) {
    if (figure.group.role == BisectRole::reference) {
      ++references;
      EXPECT_GE(figure.step, 2);
      EXPECT_FALSE(figure.slow);
      for (const int node : figure.group.members) EXPECT_NE(node, 5);
    }
  }
  EXPECT_EQ(references, 2);
}

TEST(NodeBisection, NamesEveryPositionOfTheSlowNode) {
  for (const int nodes : {4, 5, 7, 8, 13}) {
    for (int slow = 0; slow < nodes; ++slow) {
      Fabric fabric;
      fabric.slow_nodes = {slow};
      const Bisection bisection = run(nodes, fabric);
      ASSERT_EQ(bisection.conclusions().size(), 1u) << nodes << " nodes, slow " << slow;
      EXPECT_EQ(bisection.conclusions()[0].kind, BisectConclusion::Kind::node);
      EXPECT_EQ(bisection.conclusions()[0].nodes, std::vector<int>{slow});
    }
  }
}

std::set<int> named_nodes(const Bisection& bisection) {
  std::set<int> named;
  for (const auto& conclusion : of_kind(bisection, BisectConclusion::Kind::node))
    named.insert(conclusion.nodes.front());
  return named;
}

TEST(NodeBisection, TwoSlowNodesInOneHalfAreBothNamed) {
  Fabric fabric;
  fabric.slow_nodes = {1, 3};  // quarters {0,1} and {2,3} both slow, {4..7} fast
  const Bisection bisection = run(8, fabric);
  EXPECT_EQ(named_nodes(bisection), (std::set<int>{1, 3}));
  EXPECT_EQ(bisection.conclusions().size(), 2u);
}

TEST(NodeBisection, ASlowNodeInEachHalfNeedsTheExpectedFigure) {
  Fabric fabric;
  fabric.slow_nodes = {1, 6};
  // Both halves equally slow: the fastest group of the step is slow too, so nothing stands out.
  EXPECT_TRUE(run(8, fabric).conclusions().empty());
  // With the figure a healthy group reaches, both halves are slow and both nodes are named.
  const Bisection bisection = run(8, fabric, 0.5, kHealthy);
  EXPECT_EQ(named_nodes(bisection), (std::set<int>{1, 6}));
  EXPECT_EQ(bisection.conclusions().size(), 2u);
}

TEST(NodeBisection, SlowCableBetweenRingNeighboursIsALinkAfterARepeat) {
  Fabric fabric;
  fabric.slow_links = {{4, 5}};
  const Bisection bisection = run(8, fabric);
  ASSERT_EQ(bisection.conclusions().size(), 1u);
  const auto& link = bisection.conclusions()[0];
  EXPECT_EQ(link.kind, BisectConclusion::Kind::link);
  EXPECT_EQ(link.nodes, (std::vector<int>{4, 5}));
  const BisectFigure& again = bisection.figures()[static_cast<std::size_t>(link.evidence.back())];
  EXPECT_EQ(again.group.role, BisectRole::repeat);
  EXPECT_TRUE(again.slow);
}

TEST(NodeBisection, SlowPathBetweenTheHalvesNamesBothSidesAndNoNode) {
  Fabric fabric;
  fabric.split = 2;  // leaves {0,1} and {2,3}: the world's ring crosses, the halves do not
  const Bisection bisection = run(4, fabric);
  ASSERT_EQ(bisection.conclusions().size(), 1u);
  const auto& between = bisection.conclusions()[0];
  EXPECT_EQ(between.kind, BisectConclusion::Kind::between);
  EXPECT_EQ(between.left, (std::vector<int>{0, 1}));
  EXPECT_EQ(between.right, (std::vector<int>{2, 3}));
  EXPECT_EQ(bisection.steps(), 3);  // world, halves, world again
  EXPECT_EQ(bisection.figures().back().group.role, BisectRole::repeat);
}

TEST(NodeBisection, AFigureSlowOnceIsClearedWhenMeasuredAgain) {
  Fabric fabric;
  // The half {4..7} dips once at step 1 (noise); everything else healthy.
  fabric.override_figure = [](int step, const BisectGroup& group) {
    if (step == 1 && group.members == std::vector<int>{4, 5, 6, 7}) return kSlow;
    return -1.0;
  };
  const Bisection bisection = run(8, fabric);
  EXPECT_TRUE(of_kind(bisection, BisectConclusion::Kind::node).empty());
  EXPECT_TRUE(of_kind(bisection, BisectConclusion::Kind::link).empty());
  EXPECT_TRUE(of_kind(bisection, BisectConclusion::Kind::between).empty());
  EXPECT_EQ(of_kind(bisection, BisectConclusion::Kind::cleared).size(), 1u);
}

TEST(NodeBisection, AFailedCollectiveIsSlowSoItsNodeIsNamed) {
  Fabric fabric;
  fabric.override_figure = [](int, const BisectGroup& group) {
    for (const int node : group.members) {
      if (node == 2) return std::numeric_limits<double>::quiet_NaN();
    }
    return -1.0;
  };
  const Bisection bisection = run(8, fabric);
  ASSERT_EQ(bisection.conclusions().size(), 1u);
  EXPECT_EQ(bisection.conclusions()[0].kind, BisectConclusion::Kind::node);
  EXPECT_EQ(bisection.conclusions()[0].nodes, std::vector<int>{2});
}

TEST(NodeBisection, SlowGroupsWithNoGoodNodeLeftAreUnsettled) {
  Fabric fabric;
  // Both halves of 4 slow beside a fast world: no node is known good to pair with.
  fabric.override_figure = [](int step, const BisectGroup& group) {
    if (step == 1 && group.role == BisectRole::half) return kSlow;
    return -1.0;
  };
  const Bisection bisection = run(4, fabric);
  const auto unsettled = of_kind(bisection, BisectConclusion::Kind::unsettled);
  ASSERT_EQ(unsettled.size(), 2u);
  EXPECT_EQ(unsettled[0].nodes, (std::vector<int>{0, 1}));
  EXPECT_EQ(unsettled[1].nodes, (std::vector<int>{2, 3}));
  EXPECT_TRUE(of_kind(bisection, BisectConclusion::Kind::node).empty());
}

TEST(NodeBisection, StepsGrowWithTheLogarithmOfTheNodes) {
  // One slow node: the world, log2(N) halvings down to a pair, the pair's partners.
  for (const auto& [nodes, expected] : {std::pair{8, 4}, {64, 7}, {1024, 11}, {16384, 15}}) {
    Fabric fabric;
    fabric.slow_nodes = {nodes / 3};
    const Bisection bisection = run(nodes, fabric);
    EXPECT_EQ(bisection.steps(), expected) << nodes << " nodes";
    ASSERT_EQ(bisection.conclusions().size(), 1u);
    EXPECT_EQ(bisection.conclusions()[0].nodes, std::vector<int>{nodes / 3});
  }
}

TEST(NodeBisection, RefusesFewerThanFourNodesAndABadGap) {
  EXPECT_THROW(Bisection(3, 0.5), std::invalid_argument);
  EXPECT_THROW(Bisection(8, 0), std::invalid_argument);
  EXPECT_THROW(Bisection(8, 1), std::invalid_argument);
  EXPECT_THROW(Bisection(8, 0.5, -1), std::invalid_argument);
  Bisection bisection(4, 0.5);
  EXPECT_THROW(bisection.record({1.0, 2.0}), std::invalid_argument);
}

TEST(NodeBisection, RoleNamesRoundTrip) {
  for (const auto role : {BisectRole::world, BisectRole::half, BisectRole::reference,
                          BisectRole::partner, BisectRole::repeat}) {
    EXPECT_EQ(bisect_role_from(bisect_role_name(role)), role);
  }
  EXPECT_FALSE(bisect_role_from("pairs").has_value());
}

}  // namespace
}  // namespace fabcheck
