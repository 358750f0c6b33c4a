// The fabric probes run in a single-process World against the recorded sysfs trees and logs.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <stdexcept>

#include "bench/core/registry.hpp"
#include "bench/sys/hwloc_locality.hpp"
#include "fabric/pcie_affinity.hpp"
#include "fabric/perftest_command.hpp"
#include "fabric/register.hpp"
#include "fabric/topology.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;

std::string fixtures(const std::string& path) {
  return std::string(FABCHECK_FIXTURES_DIR) + "/fabric/" + path;
}

class CollectingSink : public MeasurementSink {
 public:
  void emit(Measurement m) override { records.push_back(std::move(m)); }
  std::vector<Measurement> with_metric(const std::string& metric) const {
    std::vector<Measurement> out;
    std::copy_if(records.begin(), records.end(), std::back_inserter(out),
                 [&](const Measurement& m) { return m.metric == metric; });
    return out;
  }
  std::vector<Measurement> records;
};

class FabricProbes : public ::testing::Test {
 protected:
  void SetUp() override {
    register_fabric_probes(registry);
    world = make_single_world();
    run_dir = fs::temp_directory_path() /
              ("fabcheck-fabric-test-" +
               std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(run_dir);
    fs::create_directories(run_dir);
  }
  void TearDown() override { fs::remove_all(run_dir); }

  CollectingSink run(const std::string& id, const std::string& sysfs_root) {
    options.sysfs_root = sysfs_root;
    RunContext context{*world, options, run_dir};
    CollectingSink sink;
    Probe* probe = registry.find(id);
    if (probe == nullptr) throw std::runtime_error("no probe " + id);
    probe->run(context, sink);
    return sink;
  }

  Registry registry;
  std::unique_ptr<World> world;
  RunOptions options;
  fs::path run_dir;
};

TEST_F(FabricProbes, RegisteredWithTheirMetrics) {
  std::vector<std::string> ids;
  for (Probe* probe : registry.all()) ids.push_back(probe->id());
  EXPECT_EQ(ids,
            (std::vector<std::string>{"fabric.pcie_links", "fabric.ib_ports", "fabric.ib_counters",
                                      "fabric.topology", "fabric.nccl_transport", "fabric.rdma_bw",
                                      "fabric.rdma_lat"}));
  MetricCatalog catalog = registry.catalog();
  EXPECT_EQ(catalog.at("fabric.ib_ports").at("port_rate").unit, "Gb/s");
  EXPECT_EQ(catalog.at("fabric.pcie_links").at("link_width_deficit").better, Better::lower);
  EXPECT_EQ(catalog.at("fabric.pcie_links").at("gpu_link_gen").better, Better::higher);
  EXPECT_EQ(catalog.at("fabric.nccl_transport").at("socket_channels").better, Better::lower);
  EXPECT_EQ(catalog.at("fabric.rdma_lat").at("write_lat").unit, "us");
  EXPECT_EQ(catalog.at("fabric.rdma_bw").at("write_bw").unit, "Gb/s");
}

TEST_F(FabricProbes, PcieLinksOnTheDegradedTree) {
  auto sink = run("fabric.pcie_links", fixtures("sysfs/degraded"));
  auto deficits = sink.with_metric("link_width_deficit");
  ASSERT_EQ(deficits.size(), 19u);
  auto gpu = std::find_if(deficits.begin(), deficits.end(),
                          [](const Measurement& m) { return m.subject == "0000:38:00.0"; });
  ASSERT_NE(gpu, deficits.end());
  EXPECT_EQ(gpu->value, 8.0);
  EXPECT_EQ(gpu->params.at("kind"), "gpu");
  EXPECT_EQ(gpu->params.at("upstream_port"), "0000:37:00.0");
  EXPECT_EQ(gpu->params.at("load"), "idle");
  // Idle GPUs report their generation shortfall apart from the judged metric.
  EXPECT_EQ(sink.with_metric("gpu_link_gen").size(), 0u);
  EXPECT_EQ(sink.with_metric("idle_link_gen_deficit").size(), 8u);
  EXPECT_EQ(sink.with_metric("hca_link_width").size(), 8u);
}

TEST_F(FabricProbes, PcieLinksWithoutDevicesIsWaived) {
  auto sink = run("fabric.pcie_links", fixtures("sysfs/no-such-tree"));
  ASSERT_EQ(sink.records.size(), 1u);
  EXPECT_EQ(sink.records[0].status, MeasurementStatus::waived);
}

TEST_F(FabricProbes, IbCountersJudgeGrowthSinceIbPorts) {
  auto ports = run("fabric.ib_ports", fixtures("sysfs/counters-before"));
  EXPECT_EQ(ports.with_metric("active_ports").at(0).value, 1.0);
  auto counters = run("fabric.ib_counters", fixtures("sysfs/counters-after"));
  auto deltas = counters.with_metric("error_counter_delta");
  ASSERT_EQ(deltas.size(), 1u);
  EXPECT_EQ(deltas[0].subject, "mlx5_0/1");
  EXPECT_EQ(deltas[0].value, 32.0);
}

TEST_F(FabricProbes, IbPortsWithoutRdmaDeviceIsWaived) {
  auto sink = run("fabric.ib_ports", fixtures("sysfs/no-such-tree"));
  auto waived = std::count_if(sink.records.begin(), sink.records.end(), [](const Measurement& m) {
    return m.status == MeasurementStatus::waived && m.message.find("no RDMA device") == 0;
  });
  EXPECT_EQ(waived, 1);
  EXPECT_EQ(sink.with_metric("active_ports").at(0).value, 0.0);
  auto counters = run("fabric.ib_counters", fixtures("sysfs/no-such-tree"));
  ASSERT_EQ(counters.records.size(), 1u);
  EXPECT_EQ(counters.records[0].status, MeasurementStatus::waived);
}

TEST_F(FabricProbes, NcclTransportReadsTheRunsLogs) {
  auto none = run("fabric.nccl_transport", "/");
  ASSERT_EQ(none.records.size(), 1u);
  EXPECT_EQ(none.records[0].status, MeasurementStatus::waived);
  EXPECT_NE(none.records[0].message.find("no NCCL probe ran in this run"), std::string::npos);

  fs::create_directories(run_dir / "nccl-logs");
  fs::copy_file(fixtures("nccl/socket_fallback.log"),
                run_dir / "nccl-logs/coll.all_reduce.node-a.4401.log");
  auto sink = run("fabric.nccl_transport", "/");
  auto socket = sink.with_metric("socket_channels");
  ASSERT_EQ(socket.size(), 1u);
  EXPECT_EQ(socket[0].subject, "coll.all_reduce");
  EXPECT_EQ(socket[0].value, 4.0);
  EXPECT_NE(socket[0].message.find("via NET/Socket/0"), std::string::npos);
}

TEST_F(FabricProbes, RdmaTestsAreWaivedWithoutRdmaDevice) {
  for (const char* id : {"fabric.rdma_bw", "fabric.rdma_lat"}) {
    options.sysfs_root = fixtures("sysfs/no-such-tree");
    Applicability a = applicability_of(*registry.find(id), *world, options);
    EXPECT_FALSE(a.applies) << id;
    EXPECT_EQ(a.reason, "no RDMA device") << id;
  }
  options.sysfs_root = fixtures("sysfs/healthy");  // active ports: only perftest may be missing
  Applicability healthy = applicability_of(*registry.find("fabric.rdma_bw"), *world, options);
  EXPECT_TRUE(healthy.applies || healthy.reason.find("not installed") != std::string::npos)
      << healthy.reason;
}

TEST_F(FabricProbes, TopologyPlacesEachGpuNextToItsHca) {
  auto sink = run("fabric.topology", fixtures("sysfs/healthy"));
  auto hops = sink.with_metric("nearest_hca_hops");
  ASSERT_EQ(hops.size(), 8u);
  EXPECT_EQ(hops[4].subject, "0000:98:00.0");
  EXPECT_EQ(hops[4].peer, "mlx5_4 (0000:99:00.0)");
  EXPECT_EQ(hops[4].value, 4.0);  // GPU and HCA on two downstream ports of one switch
  EXPECT_EQ(hops[4].params.at("gpu_numa_node"), "1");
  EXPECT_EQ(hops[4].params.at("pcie_path"), "pci0000:96/0000:96:01.0/0000:97:00.0/0000:98:00.0");
  for (const auto& m : sink.with_metric("numa_mismatch")) EXPECT_EQ(m.value, 0.0) << m.subject;
}

TEST(Topology, HwlocOnTheLiveMachineAnswersOrSaysWhy) {
  // This machine's own PCI devices: hwloc finds the topology (or the build says it lacks hwloc).
  HwlocLocality live = hwloc_pci_locality({"0000:00:00.0"});
  EXPECT_TRUE(live.available || !live.problem.empty());
  EXPECT_EQ(live.available, live.problem.empty());
}

TEST(Topology, PcieHops) {
  std::string root = fixtures("sysfs/healthy");
  auto gpu = pcie_path(root, "0000:18:00.0");
  EXPECT_EQ(gpu, (std::vector<std::string>{"pci0000:16", "0000:16:01.0", "0000:17:00.0",
                                           "0000:18:00.0"}));
  EXPECT_EQ(pcie_hops(gpu, pcie_path(root, "0000:19:00.0")), 4);
  EXPECT_EQ(pcie_hops(gpu, gpu), 0);
  EXPECT_EQ(pcie_hops(gpu, pcie_path(root, "0000:39:00.0")), -1);  // another root complex
  EXPECT_TRUE(pcie_path(root, "0000:ff:00.0").empty());
}

TEST(PcieAffinity, NearestGpuSharesTheSwitch) {
  std::string root = fixtures("sysfs/healthy");
  std::vector<std::string> gpus{"0000:18:00.0", "0000:38:00.0", "0000:58:00.0"};
  EXPECT_EQ(nearest_pci_device(root, "0000:39:00.0", gpus), "0000:38:00.0");
  EXPECT_EQ(nearest_pci_device(root, "0000:19:00.0", gpus), "0000:18:00.0");
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(pci_numa_node(root, "0000:99:00.0"), 1);
  EXPECT_EQ(pci_local_cpus(root, "0000:19:00.0").size(), 48u);
  EXPECT_FALSE(parse_cpu_list("3-1"));
  EXPECT_FALSE(parse_cpu_list("x"));
}

TEST(CpuList, FormatsRangesAndRoundTrips) {
  EXPECT_EQ(format_cpu_list({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(format_cpu_list({5}), "5");
  EXPECT_EQ(format_cpu_list({}), "");
  EXPECT_EQ(format_cpu_list({0, 2, 4}), "0,2,4");
  // Ranks as the console's merged waivers name them.
  EXPECT_EQ(format_cpu_list({0, 1, 2, 3, 8, 10, 11}, ", "), "0-3, 8, 10-11");
  EXPECT_EQ(parse_cpu_list(format_cpu_list({0, 1, 2, 47, 48, 95})),
            (std::vector<int>{0, 1, 2, 47, 48, 95}));
}

TEST(PerftestCommand, ServerAndClientLines) {
  PerftestInvocation server;
  server.hca = "mlx5_3";
  server.tcp_port = 18518;
  server.size_bytes = 8388608;
  server.cuda_bus_id = "0000:38:00.0";
  EXPECT_EQ(
      perftest_argv(server),
      (std::vector<std::string>{"ib_write_bw", "-d", "mlx5_3", "-i", "1", "-p", "18518", "-F", "-s",
                                "8388608", "--report_gbits", "--use_cuda_bus_id=0000:38:00.0"}));
  PerftestInvocation client = server;
  client.tool = PerftestTool::write_lat;
  client.server = "node-b";
  client.json_file = "/run/x.json";
  EXPECT_EQ(perftest_argv(client),
            (std::vector<std::string>{"ib_write_lat", "-d", "mlx5_3", "-i", "1", "-p", "18518",
                                      "-F", "-s", "8388608", "--out_json",
                                      "--out_json_file=/run/x.json", "node-b"}));
}

// --data_validation on ib_write_bw where both perftests offer it (synthetic help lines, written
// from perftest 26.04's usage text); never on ib_write_lat.
TEST(PerftestCommand, DataValidationIsAskedForWhereOffered) {
  EXPECT_TRUE(perftest_offers_data_validation(
      "      --data_validation  Enable data validation (tx_depth must be same on both sides)\n"));
  EXPECT_FALSE(
      perftest_offers_data_validation("  -x, --gid-index=<index>  Test uses GID with GID index\n"));
  EXPECT_FALSE(perftest_offers_data_validation("      --data_validation_debug  verbose\n"));
  PerftestInvocation server;
  server.hca = "mlx5_0";
  server.data_validation = true;
  EXPECT_EQ(perftest_argv(server).back(), "--data_validation");
  server.tool = PerftestTool::write_lat;
  const auto lat = perftest_argv(server);
  EXPECT_EQ(std::count(lat.begin(), lat.end(), "--data_validation"), 0);
}

// A peer host name beginning with '-' never reaches perftest's arguments: "-h" or
// "--out_json_file=/etc/shadow" as the server would be read as options (the client ran as root).
TEST(PerftestCommand, APeerNameThatIsAnOptionIsRefused) {
  PerftestInvocation client;
  client.hca = "mlx5_0";
  for (const std::string& bad :
       std::vector<std::string>{"-h", "--out_json_file=/etc/shadow", "-d", "", "node b", "a;b",
                                "node\n08", "$(id)", std::string(300, 'a')}) {
    client.server = bad;
    if (bad.empty()) continue;  // "" is the server side: no peer argument at all
    EXPECT_FALSE(perftest_peer_refusal(bad).empty()) << bad;
    EXPECT_THROW(perftest_argv(client), std::invalid_argument) << bad;
  }
  for (const std::string good : {"node-b", "gpu001.cluster.local", "10.0.0.1", "fe80::1", "n_1"}) {
    client.server = good;
    EXPECT_EQ(perftest_peer_refusal(good), "") << good;
    EXPECT_EQ(perftest_argv(client).back(), good);
  }
}

// Property: for 5000 random peer names, either refused, or the argument vector ends in the name
// and no argument taken from it starts with '-'.
TEST(PerftestCommand, NoRandomPeerNameBecomesAnOption) {
  std::mt19937 random(16);
  const std::string alphabet = "-abz09.:_=/ ;$`\n";
  PerftestInvocation client;
  client.hca = "mlx5_0";
  client.json_file = "/run/x.json";
  for (int round = 0; round < 5000; ++round) {
    std::string name;
    const int length = 1 + static_cast<int>(random() % 8);
    for (int i = 0; i < length; ++i) name += alphabet[random() % alphabet.size()];
    client.server = name;
    if (!perftest_peer_refusal(name).empty()) {
      ASSERT_THROW(perftest_argv(client), std::invalid_argument) << name;
      continue;
    }
    const auto argv = perftest_argv(client);
    ASSERT_EQ(argv.back(), name);
    ASSERT_NE(name.front(), '-') << name;
  }
}

}  // namespace
}  // namespace fabcheck
