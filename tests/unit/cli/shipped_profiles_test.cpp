// Every profile shipped in results/profiles loads against the whole registry (every family's
// metrics and [node] keys, every judge's checks), with a source for every figure.
#include <gtest/gtest.h>

#include <filesystem>

#include "bench/cli/probe_families.hpp"
#include "bench/cli/profile_lookup.hpp"
#include "bench/sys/config_error.hpp"
#include "results/evaluator.hpp"

namespace fabcheck {
namespace {

// The test binary is not installed beside share/fabcheck/profiles: the shipped folder is given.
const std::vector<std::string> kShipped = {std::string(FABCHECK_SOURCE_DIR) + "/results/profiles"};

TEST(ShippedProfiles, EveryProfileLoadsAgainstTheWholeRegistry) {
  Registry registry;
  register_all_probes(registry);
  int loaded = 0;
  for (const auto& entry : std::filesystem::directory_iterator(
           std::filesystem::path(FABCHECK_SOURCE_DIR) / "results/profiles")) {
    if (entry.path().extension() != ".toml") continue;
    SCOPED_TRACE(entry.path().string());
    Profile profile;
    ASSERT_NO_THROW(profile = registry.load_profile(entry.path()));
    EXPECT_EQ(profile.name, entry.path().stem().string());
    for (const Expectation& e : profile.expectations) EXPECT_FALSE(e.source.empty()) << e.line;
    ++loaded;
  }
  EXPECT_GE(loaded, 5);
}

TEST(ShippedProfiles, GpuNodeProfilesExpectTheirFabric) {
  Registry registry;
  register_all_probes(registry);
  const Profile h100 = load_profile_for("h100-sxm-8", registry, nullptr, kShipped);
  EXPECT_EQ(h100.node.at("gpu_pcie"), "5x16");
  EXPECT_EQ(h100.node.at("hcas"), "8");
  EXPECT_EQ(h100.node.at("gpus"), "8");
  const Profile a100 = load_profile_for("a100-sxm-8", registry, nullptr, kShipped);
  EXPECT_EQ(a100.node.at("ib_rate_gbps"), "200");
}

// A node pair's NCCL all-reduce over TCP sockets instead of IB: named by its tier with no
// threshold written for it (h100: 8 NDR NICs; a100: 8 HDR).
Measurement pair_allreduce(double busbw, std::uint64_t size) {
  Measurement m;
  m.probe = "coll.node_pairs";
  m.metric = "allreduce_busbw";
  m.unit = "GB/s";
  m.value = busbw;
  m.subject = "node07--node12";
  m.size_bytes = size;
  m.params = {{"backend", "nccl"}};
  return m;
}

TEST(ShippedProfiles, NodePairOverSocketsMatchesTcpSocketNotIb) {
  Registry registry;
  register_all_probes(registry);
  const Profile h100 = load_profile_for("h100-sxm-8", registry, nullptr, kShipped);
  const auto sockets = evaluate_measurement(pair_allreduce(12.1, 256u << 20), h100);
  ASSERT_EQ(sockets.size(), 1u);
  EXPECT_EQ(sockets[0].severity, Severity::fail);
  EXPECT_NE(sockets[0].message.find("matches tcp-socket, expected ib-ndr"), std::string::npos)
      << sockets[0].message;
  EXPECT_EQ(sockets[0].subject, "node07--node12");
  // 8 NDR NICs at ~46 GB/s busbw each.
  const auto ndr = evaluate_measurement(pair_allreduce(368, 1u << 30), h100);
  ASSERT_EQ(ndr.size(), 1u);
  EXPECT_EQ(ndr[0].severity, Severity::pass) << ndr[0].message;
  EXPECT_NE(ndr[0].message.find("matches ib-ndr"), std::string::npos) << ndr[0].message;
  // HDR speed on an NDR node: a lower tier, FAIL naming it.
  const auto hdr = evaluate_measurement(pair_allreduce(190, 1u << 30), h100);
  ASSERT_EQ(hdr.size(), 1u);
  EXPECT_EQ(hdr[0].severity, Severity::fail);
  EXPECT_NE(hdr[0].message.find("matches ib-hdr, expected ib-ndr"), std::string::npos);
  // The latency size reaches no tier: not judged by one.
  EXPECT_TRUE(evaluate_measurement(pair_allreduce(0.5, 64u << 10), h100).empty());
  // The same HDR figure is what an A100 node with 8 HDR NICs should give.
  const Profile a100 = load_profile_for("a100-sxm-8", registry, nullptr, kShipped);
  const auto a100_hdr = evaluate_measurement(pair_allreduce(190, 1u << 30), a100);
  ASSERT_EQ(a100_hdr.size(), 1u);
  EXPECT_EQ(a100_hdr[0].severity, Severity::pass) << a100_hdr[0].message;
}

TEST(ShippedProfiles, AutoIsChosenFromThePciBus) {
  Registry registry;
  register_all_probes(registry);
  std::string why;
  const std::string healthy = std::string(FABCHECK_FIXTURES_DIR) + "/fabric/sysfs/healthy";
  const Profile chosen = load_profile_for("auto", registry, &why, kShipped, healthy);
  EXPECT_EQ(chosen.name, "h100-sxm-8") << why;
  EXPECT_NE(why.find("8 x 10de:2330 (H100 SXM5 80GB) on the PCI bus"), std::string::npos) << why;
  // A bus with GPUs no shipped profile fits is refused, never judged as a CPU node.
  const std::string none = std::string(FABCHECK_FIXTURES_DIR) + "/fabric/sysfs/counters-before";
  EXPECT_EQ(load_profile_for("auto", registry, &why, kShipped, none).name, "generic-cpu");
  EXPECT_EQ(why, "auto: no NVIDIA GPU on the PCI bus -> generic-cpu");
}

// hcas is the newer name of ib_ports: either is read, both together are refused.
TEST(ShippedProfiles, HcasAndItsOlderName) {
  Registry registry;
  register_all_probes(registry);
  const MetricCatalog catalog = registry.catalog();
  const Profile old_name = parse_profile("[profile]\nname = \"o\"\n[node]\nib_ports = 4\n",
                                         "o.toml", catalog, registry.node_settings());
  for (const Judge& judge : registry.judges()) {
    if (judge.validate) {
      EXPECT_NO_THROW(judge.validate(old_name)) << judge.name;
    }
  }
  const Profile both = parse_profile(
      "[profile]\nname = \"b\"\n[node]\nib_ports = 4\nhcas = 4\n", "b.toml", catalog,
      registry.node_settings());
  bool refused = false;
  for (const Judge& judge : registry.judges()) {
    try {
      if (judge.validate) judge.validate(both);
    } catch (const ConfigError& error) {
      refused = std::string(error.what()).find(
                    "b:4: [node] ib_ports is the older name of hcas: give one of them") !=
                std::string::npos;
    }
  }
  EXPECT_TRUE(refused);
}

TEST(ShippedProfiles, UnknownNameListsTheShippedOnes) {
  Registry registry;
  register_all_probes(registry);
  try {
    load_profile_for("h900", registry, nullptr, kShipped);
    FAIL() << "accepted";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("h100-sxm-8"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace fabcheck
