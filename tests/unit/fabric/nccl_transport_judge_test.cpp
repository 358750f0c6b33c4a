// Tests of the run's NCCL transport judge: the profile's [node] nccl_network / nccl_gdr / nccl_p2p
// keys (values, errors naming file and line, thresholds that stand in for them) and the node
// evidence read from fabric.ib_ports and fabric.topology (same PCIe switch, same NUMA node).
#include "fabric/nccl_transport_judge.hpp"

#include <gtest/gtest.h>

#include <string>

#include "bench/sys/config_error.hpp"
#include "tests/unit/fabric/node_table_profile.hpp"

namespace fabcheck {
namespace {

using testing::profile_with;

std::string error_of(const Profile& profile) {
  try {
    nccl_expectations_from(profile);
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "";
}

TEST(NcclTransportProfileKeys, ValuesAreRead) {
  const auto none = nccl_expectations_from(profile_with({}));
  EXPECT_EQ(none.network, "");
  EXPECT_FALSE(none.gdr.has_value());
  EXPECT_FALSE(none.intra_node_p2p.has_value());
  const auto set = nccl_expectations_from(
      profile_with({{"nccl_network", "IB"}, {"nccl_gdr", "true"}, {"nccl_p2p", "false"}}));
  EXPECT_EQ(set.network, "IB");
  EXPECT_EQ(set.gdr, true);
  EXPECT_EQ(set.intra_node_p2p, false);
  EXPECT_EQ(set.given_by, "profile p");
  EXPECT_EQ(nccl_expectations_from(profile_with({{"nccl_network", "Socket"}})).network, "Socket");
}

TEST(NcclTransportProfileKeys, MalformedValuesNameFileLineAndValue) {
  const std::string network = error_of(profile_with({{"nccl_network", "RoCE"}}));
  EXPECT_NE(network.find("p.toml:3"), std::string::npos) << network;
  EXPECT_NE(network.find("\"RoCE\""), std::string::npos) << network;
  const std::string gdr = error_of(profile_with({{"nccl_gdr", "yes"}}));
  EXPECT_NE(gdr.find("nccl_gdr = \"yes\": expected true or false"), std::string::npos) << gdr;
}

TEST(NcclTransportProfileKeys, AThresholdOnTheProbeStandsInForTheKey) {
  Profile profile = profile_with({});
  Expectation sockets;
  sockets.probe = "fabric.nccl_transport";
  sockets.metric = "inter_node_socket_channels";
  profile.expectations.push_back(sockets);
  Expectation gdr = sockets;
  gdr.metric = "ib_channels_without_gdr";
  profile.expectations.push_back(gdr);
  const auto e = nccl_expectations_from(profile);
  EXPECT_EQ(e.network, "any");
  EXPECT_EQ(e.gdr, false);
  EXPECT_FALSE(e.intra_node_p2p.has_value());
}

Measurement nearest_hca(const std::string& host, double hops, const std::string& gpu_numa,
                        const std::string& hca_numa) {
  Measurement m;
  m.probe = "fabric.topology";
  m.metric = "nearest_hca_hops";
  m.host = host;
  m.subject = "0000:18:00.0";
  m.peer = "mlx5_0";
  m.value = hops;
  m.params = {{"gpu_numa_node", gpu_numa}, {"hca_numa_node", hca_numa}};
  return m;
}

Measurement active_ports(const std::string& host, int active, int ports) {
  Measurement m;
  m.probe = "fabric.ib_ports";
  m.metric = "active_ports";
  m.host = host;
  m.value = active;
  m.params = {{"ports", std::to_string(ports)}};
  return m;
}

TEST(NcclNodeEvidence, SameSwitchSameNumaOrNeither) {
  const auto same_switch = nccl_node_evidence({nearest_hca("a", 4, "0", "1")}, "a");
  EXPECT_EQ(same_switch.gpu_hca_share_path, true);
  EXPECT_NE(same_switch.placement_evidence.find("share a PCIe switch (4 hops)"), std::string::npos)
      << same_switch.placement_evidence;
  // Through the root complex (6 hops) but on one NUMA node: GDR can still pay.
  const auto same_numa = nccl_node_evidence({nearest_hca("a", 6, "1", "1")}, "a");
  EXPECT_EQ(same_numa.gpu_hca_share_path, true);
  EXPECT_NE(same_numa.placement_evidence.find("share NUMA node 1"), std::string::npos)
      << same_numa.placement_evidence;
  const auto apart = nccl_node_evidence({nearest_hca("a", 8, "0", "1")}, "a");
  EXPECT_EQ(apart.gpu_hca_share_path, false);
  EXPECT_TRUE(apart.placement_evidence.empty());
  // NUMA -1 (unknown, a one-node machine) is not "the same node".
  EXPECT_EQ(nccl_node_evidence({nearest_hca("a", 8, "-1", "-1")}, "a").gpu_hca_share_path, false);
  // Another host's placement says nothing about this one.
  EXPECT_FALSE(nccl_node_evidence({nearest_hca("b", 2, "0", "0")}, "a").gpu_hca_share_path);
}

TEST(NcclNodeEvidence, ActivePortsOfThisHost) {
  const auto evidence = nccl_node_evidence({active_ports("a", 7, 8), active_ports("b", 8, 8)}, "a");
  EXPECT_EQ(evidence.active_rdma_ports, 7);
  EXPECT_EQ(evidence.ports_evidence, "fabric.ib_ports on a: 7 of 8 RDMA ports active");
}

Measurement nvlink_links(const std::string& host, const std::string& gpu, double links) {
  Measurement m;
  m.probe = "gpu.health";
  m.metric = "nvlink_links";
  m.host = host;
  m.subject = gpu;
  m.value = links;
  m.params = {{"bus_id", "0000:18:00.0"}, {"phase", "idle"}};
  return m;
}

TEST(NcclNodeEvidence, NvlinksOfThisHostsGpus) {
  const auto with = nccl_node_evidence(
      {nvlink_links("a", "gpu0", 0), nvlink_links("a", "gpu1", 18), nvlink_links("b", "gpu0", 0)},
      "a");
  EXPECT_EQ(with.gpus_have_nvlink, true);
  EXPECT_EQ(with.nvlink_evidence, "gpu.health on a: gpu1 (0000:18:00.0) has 18 NVLinks");
  // NVML answered 0 links on every GPU: known to have none.
  const auto without = nccl_node_evidence({nvlink_links("a", "gpu0", 0)}, "a");
  EXPECT_EQ(without.gpus_have_nvlink, false);
  EXPECT_TRUE(without.nvlink_evidence.empty());
  // Not measured on this host: unknown.
  EXPECT_FALSE(nccl_node_evidence({nvlink_links("b", "gpu0", 18)}, "a").gpus_have_nvlink);
}

}  // namespace
}  // namespace fabcheck
