// The run's closing summary and verdict line as the console prints them: FAIL, ERROR and WARN
// first, identical waivers merged with their nodes and ranks, and the verdict line naming what to
// drain (the nodes summary.json drains) or adding nothing where no node is drained.
#include "results/finding_text.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "results/waiver_groups.hpp"

namespace fabcheck {
namespace {

const std::vector<std::string> kHosts = {"node01", "node02", "node03"};

Finding finding(Severity severity, const std::string& probe, const std::string& host, int rank,
                const std::string& message) {
  Finding f;
  f.severity = severity;
  f.probe = probe;
  f.host = host;
  f.rank = rank;
  f.message = message;
  return f;
}

// Two ranks a node (0-1 on node01, 2-3 on node02, 4-5 on node03): one slow node, a WARN and an
// ERROR before it in the record, and twelve waivers: one reason on every rank, one on each node's
// first rank, one on both ranks of node02, and a probe waived for the whole run.
std::vector<Finding> three_node_sweep() {
  std::vector<Finding> out;
  Finding warn = finding(Severity::warn, "gpu.hbm_bw", "node01", 0, "bw 2.9 TB/s below 3.0 (warn)");
  warn.subject = "gpu0";
  warn.metric = "bw";
  out.push_back(warn);
  out.push_back(finding(Severity::error, "storage.seq_write", "node03", 4,
                        "storage.seq_write on node03 error: disk full"));
  for (int rank = 0; rank < 6; ++rank) {
    const std::string& host = kHosts[static_cast<std::size_t>(rank / 2)];
    out.push_back(finding(Severity::waived, "host.numa", host, rank,
                          "host.numa on " + host + " waived: built without hwloc"));
    if (rank % 2 == 0) {
      Finding rdma = finding(Severity::waived, "fabric.ib_ports", host, rank,
                             "no RDMA device (nothing in /sys/class/infiniband)");
      rdma.subject = "rdma";
      out.push_back(rdma);
    }
    out.push_back(finding(Severity::pass, "host.cpu", host, rank, "cpu fine"));
  }
  for (const int rank : {2, 3})
    out.push_back(finding(Severity::waived, "gpu.h2d", "node02", rank,
                          "gpu.h2d on node02 waived: no CUDA device"));
  out.push_back(finding(Severity::waived, "coll.nic_loopback", "", -1,
                        "coll.nic_loopback waived: after another NCCL probe of this process"));
  Finding slow = finding(Severity::fail, "coll.node_pairs", "node02", -1,
                         "slow node: 0.012 GB/s with every partner against the fleet median "
                         "0.047 GB/s (-74%), confirmed with node01");
  slow.subject = "node02";
  slow.metric = "busbw";
  slow.size_bytes = 4u << 20;
  out.push_back(slow);
  return out;
}

TEST(FindingText, SummaryLeadsWithFailErrorWarnAndMergesIdenticalWaivers) {
  EXPECT_EQ(findings_by_severity(three_node_sweep()),
            "# findings by severity\n"
            "FAIL (1)\n"
            "  node02  [coll.node_pairs busbw 4MiB] slow node: 0.012 GB/s with every partner "
            "against the fleet median 0.047 GB/s (-74%), confirmed with node01\n"
            "ERROR (1)\n"
            "  node03  [storage.seq_write] storage.seq_write on node03 error: disk full\n"
            "WARN (1)\n"
            "  gpu0 (node01)  [gpu.hbm_bw bw] bw 2.9 TB/s below 3.0 (warn)\n"
            "WAIVED (12)\n"
            "  host.numa: built without hwloc (ranks 0-5 on 3 nodes: node01, node02, node03)\n"
            "  fabric.ib_ports: no RDMA device (nothing in /sys/class/infiniband) (on 3 nodes: "
            "node01, node02, node03)\n"
            "  gpu.h2d: no CUDA device (ranks 2-3 on node02)\n"
            "  coll.nic_loopback: after another NCCL probe of this process\n"
            "\n");
}

TEST(FindingText, NothingButPassesPrintsNoSummary) {
  EXPECT_EQ(findings_by_severity({finding(Severity::pass, "host.cpu", "node01", 0, "fine")}), "");
}

TEST(FindingText, VerdictLineNamesTheNodeToDrainWithItsFirstFailCut) {
  EXPECT_EQ(run_verdict_line(three_node_sweep(), kHosts, false),
            "verdict: FAIL (6 pass, 1 warn, 1 fail, 12 waived, 1 error); drain: node02 "
            "(coll.node_pairs: slow node: 0.012 GB/s with every partner against the fleet "
            "m...); exit code 1");
}

TEST(FindingText, VerdictLineAddsNothingWhereNoNodeIsDrained) {
  // A FAIL of a figure measured across nodes fails the run and drains neither.
  const std::vector<Finding> across = {
      finding(Severity::fail, "coll.all_reduce", "node01,node02", -1, "busbw 0.1 below 0.15"),
      finding(Severity::pass, "host.cpu", "node01", 0, "fine")};
  EXPECT_EQ(run_verdict_line(across, kHosts, false),
            "verdict: FAIL (1 pass, 0 warn, 1 fail, 0 waived, 0 error); exit code 1");
  EXPECT_EQ(
      run_verdict_line({finding(Severity::warn, "host.cpu", "node01", 0, "busy")}, kHosts, false),
      "verdict: WARN (0 pass, 1 warn, 0 fail, 0 waived, 0 error); exit code 0");
}

TEST(FindingText, DrainCountsFurtherFailsAndNamesAtMostEightNodes) {
  std::vector<Finding> fails;
  std::vector<std::string> hosts;
  for (int n = 1; n <= 10; ++n) {
    hosts.push_back("n" + std::to_string(n));
    fails.push_back(finding(Severity::fail, "gpu.health", hosts.back(), -1, "\"xid 79\"\nlost"));
  }
  fails.push_back(finding(Severity::fail, "gpu.hbm_bw", "n1", -1, "bw low"));
  fails.push_back(finding(Severity::fail, "gpu.hbm_bw", "n1", -1, "bw low"));
  EXPECT_EQ(drain_clause(fails, hosts),
            "n1 (gpu.health: \"xid 79\" lost, +2 more), n2 (gpu.health: \"xid 79\" lost), "
            "n3 (gpu.health: \"xid 79\" lost), n4 (gpu.health: \"xid 79\" lost), "
            "n5 (gpu.health: \"xid 79\" lost), n6 (gpu.health: \"xid 79\" lost), "
            "n7 (gpu.health: \"xid 79\" lost), n8 (gpu.health: \"xid 79\" lost), +2 more nodes");
}

TEST(WaiverGroups, ReasonLeavesOutWhereButKeepsAJudgesOwnWording) {
  EXPECT_EQ(waiver_reason(finding(Severity::waived, "gpu.h2d", "n1", 0,
                                  "gpu.h2d on n1 gpu0 waived: no CUDA device")),
            "no CUDA device");
  EXPECT_EQ(waiver_reason(
                finding(Severity::waived, "gpu.h2d", "", -1, "gpu.h2d waived: built without CUDA")),
            "built without CUDA");
  EXPECT_EQ(waiver_reason(finding(Severity::waived, "fabric.pcie_links", "n1", 0,
                                  "0000:01:00.0 (gpu): no PCIe link state waived: in sysfs")),
            "0000:01:00.0 (gpu): no PCIe link state waived: in sysfs");
}

TEST(WaiverGroups, PlacesSayOneNodeOrHowManyWithoutRanks) {
  std::vector<Finding> waivers;
  for (int i = 0; i < 3; ++i)
    waivers.push_back(finding(Severity::waived, "gpu.p2p", "n1", -1, "gpu.p2p on n1 waived: x"));
  waivers.push_back(finding(Severity::waived, "gpu.h2d", "n2", 5, "gpu.h2d on n2 waived: x"));
  const auto groups = waiver_groups(waivers);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(waiver_group_line(groups[0]), "gpu.p2p: x (3 findings on n1)");
  EXPECT_EQ(waiver_group_line(groups[1]), "gpu.h2d: x (on n2)");
}

TEST(WaiverGroups, ManyNodesNamedUpToEightThenCounted) {
  std::vector<Finding> waivers;
  for (int n = 0; n < 12; ++n) {
    const std::string host = "n" + std::to_string(n);
    waivers.push_back(finding(Severity::waived, "host.numa", host, n,
                              "host.numa on " + host + " waived: no hwloc"));
  }
  const auto groups = waiver_groups(waivers);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(waiver_places(groups[0]), "on 12 nodes: n0, n1, n2, n3, n4, n5, n6, n7, +4 more");
}

}  // namespace
}  // namespace fabcheck
