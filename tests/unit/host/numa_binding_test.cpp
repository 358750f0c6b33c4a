// host.numa on the hwloc XML of a two-socket, eight-GPU node (synthetic, see
// tests/fixtures/host/README.md): which GPU and NIC a rank has, a rank on the wrong socket FAILs, a
// right one passes, an unbound one WARNs, and the fix names the binding for the host's ranks.
#include <gtest/gtest.h>

#include "host/numa_binding.hpp"

namespace fabcheck {
namespace {

const std::string kTopology =
    std::string(FABCHECK_FIXTURES_DIR) + "/host/hwloc/two-socket-8gpu.xml";

std::vector<int> range(int first, int last) {
  std::vector<int> out;
  for (int i = first; i <= last; ++i) out.push_back(i);
  return out;
}

class NumaBinding : public ::testing::Test {
 protected:
  void SetUp() override {
    machine = read_hwloc_machine(kTopology);
    if (machine.problem == "built without hwloc") GTEST_FAIL() << "this build lacks hwloc";
    ASSERT_TRUE(machine.available) << machine.problem;
  }
  // Eight ranks, one per GPU; rank `local_rank` runs on `cpus`.
  std::vector<Measurement> rank(int local_rank, std::vector<int> cpus,
                                const std::string& policy = "default",
                                std::vector<int> nodes = {}) {
    RankPlacement placement;
    placement.local_rank = local_rank;
    placement.local_size = 8;
    placement.cpus = std::move(cpus);
    placement.mempolicy = policy;
    placement.mem_nodes = std::move(nodes);
    auto out = numa_measurements(machine, placement, "");
    for (auto& m : out) {
      m.host = "gpu-node-07";
      m.rank = local_rank;
    }
    return out;
  }
  HwlocMachine machine;
};

TEST_F(NumaBinding, ReadsSocketsGpusAndNics) {
  ASSERT_EQ(machine.numa_cpus.size(), 2u);
  EXPECT_EQ(machine.numa_cpus.at(0), range(0, 15));
  EXPECT_EQ(machine.numa_cpus.at(1), range(16, 31));
  const auto gpus = gpus_of_rank(machine, "", 5, 8);
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_EQ(gpus[0].bdf, "0000:ab:00.0");
  EXPECT_EQ(gpus[0].numa_node, 1);
  const HwlocPciDevice* nic = nearest_rdma_nic(machine, gpus[0]);
  ASSERT_NE(nic, nullptr);
  EXPECT_EQ(nic->rdma_devices, std::vector<std::string>{"mlx5_3"});  // behind the same switch
  // CUDA_VISIBLE_DEVICES=4,6: local rank 1 drives the machine's fifth... seventh GPU.
  const auto visible = gpus_of_rank(machine, "4,6", 1, 2);
  ASSERT_EQ(visible.size(), 1u);
  EXPECT_EQ(visible[0].bdf, "0000:ba:00.0");
  EXPECT_TRUE(gpus_of_rank(machine, "GPU-5a1c0a0e-0000", 0, 1).empty());
  EXPECT_EQ(gpus_of_rank(machine, "", 0, 1).size(), 8u);  // alone on the host: every GPU
}

TEST_F(NumaBinding, RankOnTheWrongSocketFailsWithTheFix) {
  std::vector<Measurement> all;
  for (int r = 0; r < 8; ++r) {
    // Rank 5's GPU (ab) is on socket 1, but rank 5 was put on socket 0's CPUs.
    auto mine = rank(r, r == 5 ? range(0, 15) : (r < 4 ? range(0, 15) : range(16, 31)));
    all.insert(all.end(), mine.begin(), mine.end());
  }
  const auto findings = judge_numa(all);
  std::vector<Finding> fails;
  for (const auto& f : findings)
    if (f.severity == Severity::fail) fails.push_back(f);
  ASSERT_EQ(fails.size(), 1u);
  EXPECT_EQ(fails[0].rank, 5);
  EXPECT_EQ(fails[0].subject, "0000:ab:00.0");
  EXPECT_NE(fails[0].message.find("CPUs 0-15 (NUMA 0)"), std::string::npos) << fails[0].message;
  EXPECT_NE(fails[0].message.find("NUMA 1"), std::string::npos);
  EXPECT_NE(fails[0].remedy.find("srun --cpu-bind=map_ldom:0,0,0,0,1,1,1,1"), std::string::npos)
      << fails[0].remedy;
  EXPECT_NE(fails[0].remedy.find("mpirun --map-by ppr:4:numa --bind-to numa"), std::string::npos);
  EXPECT_NE(fails[0].evidence.find("mlx5_3"), std::string::npos);
}

TEST_F(NumaBinding, RightSocketPassesUnboundWarnsMemoryPolicyFails) {
  EXPECT_TRUE(judge_numa(rank(2, range(0, 15))).empty());
  EXPECT_TRUE(judge_numa(rank(6, {17, 18})).empty());
  const auto unbound = judge_numa(rank(6, range(0, 31)));
  ASSERT_EQ(unbound.size(), 1u);
  EXPECT_EQ(unbound[0].severity, Severity::warn);
  EXPECT_DOUBLE_EQ(*unbound[0].observed, 0.5);
  const auto memory = judge_numa(rank(6, range(16, 31), "bind", {0}));
  ASSERT_EQ(memory.size(), 1u);
  EXPECT_EQ(memory[0].severity, Severity::fail);
  EXPECT_EQ(memory[0].metric, "memory_off_gpu_numa");
  EXPECT_TRUE(judge_numa(rank(6, range(16, 31), "bind", {1})).empty());
}

TEST_F(NumaBinding, NoGpuIsWaived) {
  HwlocMachine empty = machine;
  empty.pci.clear();
  RankPlacement placement;
  placement.cpus = {0};
  const auto out = numa_measurements(empty, placement, "");
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].metric, "bound_cpus");
  EXPECT_EQ(out[1].status, MeasurementStatus::waived);
  EXPECT_NE(out[1].message.find("no NVIDIA GPU"), std::string::npos);
}

TEST(NumaFix, BlocksUseMapByAndOthersANumactlMap) {
  EXPECT_EQ(binding_fix({0, 0, 1, 1}),
            "srun --cpu-bind=map_ldom:0,0,1,1 --mem-bind=map_ldom:0,0,1,1; or mpirun --map-by "
            "ppr:2:numa --bind-to numa");
  EXPECT_NE(binding_fix({1, 1, 0, 0}).find("numactl --cpunodebind=N --membind=N"),
            std::string::npos);
  EXPECT_NE(binding_fix({0, 1, 0, 1}).find("(0,1,0,1)[$OMPI_COMM_WORLD_LOCAL_RANK]"),
            std::string::npos);
}

TEST(NumaLive, ThisProcessHasAPlacement) {
  const RankPlacement placement = this_rank_placement(0, 1);
  EXPECT_FALSE(placement.cpus.empty());
  EXPECT_FALSE(placement.mempolicy.empty());
  EXPECT_NE(placement.mempolicy, "unknown");
}

}  // namespace
}  // namespace fabcheck
