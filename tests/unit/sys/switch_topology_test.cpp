// topology.conf (topology/tree) parsed from synthetic files written from topology.conf(5): leaves,
// routes between leaves through the tree, and the mistakes refused with file and line.
#include "bench/sys/switch_topology.hpp"

#include <gtest/gtest.h>

#include "bench/sys/config_error.hpp"

namespace fabcheck {
namespace {

// Two spines' worth of tree: l0, l1 under s0; l2 under s1; s0 and s1 under top.
constexpr const char* kTree = R"(# synthetic topology.conf
SwitchName=l0 Nodes=n[0-1] LinkSpeed=100
switchname=l1 nodes=n[2-3]
SwitchName=l2 Nodes=n4,n5   # a comment
SwitchName=s0 Switches=l[0-1]
SwitchName=s1 Switches=l2
SwitchName=top Switches=s[0-1]
)";

std::string refusal(const std::string& text) {
  try {
    parse_slurm_topology(text, "topology.conf");
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "";
}

TEST(SwitchTopology, EachNodeHasItsLeaf) {
  const auto topology = parse_slurm_topology(kTree, "topology.conf");
  EXPECT_EQ(topology.switches().size(), 6u);
  EXPECT_EQ(topology.leaf_of("n0"), "l0");
  EXPECT_EQ(topology.leaf_of("n3"), "l1");
  EXPECT_EQ(topology.leaf_of("n5"), "l2");
  EXPECT_EQ(topology.leaf_of("n9"), "");
}

TEST(SwitchTopology, TheRouteGoesUpToTheLowestCommonSwitch) {
  const auto topology = parse_slurm_topology(kTree, "topology.conf");
  using Route = std::vector<std::string>;
  EXPECT_EQ(topology.path("l0", "l1"), Route({"l0", "s0", "l1"}));
  EXPECT_EQ(topology.path("l0", "l2"), Route({"l0", "s0", "top", "s1", "l2"}));
  EXPECT_EQ(topology.path("l2", "l1"), Route({"l2", "s1", "top", "s0", "l1"}));
  EXPECT_EQ(topology.path("l1", "l1"), Route({"l1"}));
}

TEST(SwitchTopology, TwoTreesHaveNoRouteBetweenThem) {
  const auto topology = parse_slurm_topology("SwitchName=a Nodes=x\nSwitchName=b Nodes=y\n", "t");
  EXPECT_TRUE(topology.path("a", "b").empty());
}

TEST(SwitchTopology, MistakesAreRefusedWithFileAndLine) {
  EXPECT_EQ(refusal("SwitchName=l0 Nodes=n1\nSwitchName=l1 Nodes=n[1-2]\n"),
            "topology.conf:2: node n1 is under switch l0 (line 1) and l1");
  EXPECT_EQ(refusal("SwitchName=l0 Nodes=n1\nSwitchName=l0 Nodes=n2\n"),
            "topology.conf:2: switch l0 is defined twice (first at line 1)");
  EXPECT_EQ(refusal("SwitchName=s Switches=l9\n"),
            "topology.conf:1: switch s lists switch l9, which no SwitchName= line defines");
  EXPECT_EQ(refusal("BlockName=b1 Nodes=n1\n"),
            "topology.conf:1: unknown keyword \"BlockName\" (topology/tree knows SwitchName, "
            "Nodes, Switches, LinkSpeed)");
  EXPECT_NE(refusal("SwitchName=l0 Nodes=n[1-\n").find("topology.conf:1: Nodes=n[1-: "),
            std::string::npos);
  EXPECT_EQ(refusal("SwitchName=l0\n"), "topology.conf:1: switch l0 has no Nodes= or Switches=");
  EXPECT_EQ(refusal("Nodes=n1\n"), "topology.conf:1: a line without SwitchName=");
  EXPECT_EQ(refusal("# nothing\n\n"), "topology.conf: no SwitchName= line: not a topology.conf");
  EXPECT_NE(refusal("SwitchName=a Switches=b\nSwitchName=b Switches=a\n").find("in a loop"),
            std::string::npos);
  EXPECT_NE(refusal("SwitchName=a Nodes=x\nSwitchName=p Switches=a\nSwitchName=q Switches=a\n")
                .find("switch a is below both p and q"),
            std::string::npos);
}

TEST(SwitchTopology, AFileThatIsNotThereIsAConfigError) {
  EXPECT_THROW(read_slurm_topology("/nonexistent/topology.conf"), ConfigError);
}

}  // namespace
}  // namespace fabcheck
