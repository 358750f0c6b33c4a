// A plan that needs its collectives on every GPU, launched with too few ranks, is refused with the
// mpirun and srun lines to use (issue 21: `fabcheck gate` without mpirun passed on one rank).
#include <gtest/gtest.h>

#include "bench/cli/launch_check.hpp"
#include "bench/cli/probe_families.hpp"
#include "bench/core/registry.hpp"

namespace fabcheck {
namespace {

struct Gate {
  Registry registry;
  std::vector<Probe*> probes;
  std::vector<std::string> required;
  Gate() {
    register_all_probes(registry);
    probes = registry.plan_probes("gate");
    required = registry.required_probes("gate");
  }
};

LaunchShape shape(int ranks, int per_host, int gpus) {
  return {ranks, per_host, gpus, "fabcheck gate --single-process --budget 30"};
}

TEST(LaunchCheck, AGateWithoutALauncherIsRefusedWithTheLineToUse) {
  const Gate gate;
  const std::string problem = launch_problem(gate.probes, gate.required, shape(1, 1, 0));
  EXPECT_NE(problem.find("requires coll.all_reduce"), std::string::npos) << problem;
  EXPECT_NE(problem.find("\n  mpirun -np 2 fabcheck gate --budget 30\n"), std::string::npos)
      << problem;
  EXPECT_NE(problem.find("srun --ntasks-per-node=2 fabcheck gate --budget 30"), std::string::npos)
      << problem;
}

TEST(LaunchCheck, OneRankOnAnEightGpuNodeAsksForEight) {
  const Gate gate;
  const std::string problem = launch_problem(gate.probes, gate.required, shape(1, 1, 8));
  EXPECT_NE(problem.find("8 NVIDIA GPUs on its PCI bus and 1 rank(s)"), std::string::npos)
      << problem;
  EXPECT_NE(problem.find("mpirun -np 8 fabcheck gate"), std::string::npos) << problem;
  // Two ranks are still fewer than the GPUs the gate's all-reduce must cover.
  EXPECT_FALSE(launch_problem(gate.probes, gate.required, shape(2, 2, 8)).empty());
}

TEST(LaunchCheck, ARankPerGpuOrTwoOnACpuNodeRuns) {
  const Gate gate;
  EXPECT_EQ(launch_problem(gate.probes, gate.required, shape(8, 8, 8)), "");
  EXPECT_EQ(launch_problem(gate.probes, gate.required, shape(16, 8, 8)), "");  // two nodes
  EXPECT_EQ(launch_problem(gate.probes, gate.required, shape(2, 2, 0)), "");
}

TEST(LaunchCheck, CollectivesOnOneRankOfAMultiGpuNodeAreRefusedEvenWithoutAPlan) {
  const Gate gate;
  const std::vector<Probe*> one = {gate.registry.find("coll.all_gather")};
  EXPECT_NE(launch_problem(one, {}, shape(1, 1, 8)).find("would measure none of their links"),
            std::string::npos);
  // A one-GPU machine (the device check) or a CPU laptop may still try one on one rank.
  EXPECT_EQ(launch_problem(one, {}, shape(1, 1, 1)), "");
  EXPECT_EQ(launch_problem(one, {}, shape(1, 1, 0)), "");
  // Probes of one node need no launcher at all.
  const std::vector<Probe*> host = {gate.registry.find("host.cpu")};
  EXPECT_EQ(launch_problem(host, {}, shape(1, 1, 8)), "");
}

}  // namespace
}  // namespace fabcheck
