// The binary's peer judge is set up from what its probes declare (ProbeInfo::peers), for the runner
// and `fabcheck evaluate` alike: the probes it leaves alone, the figures the GPU judge compares
// among a node's GPUs itself, and the shared-storage figures compared across runs only.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

#include "bench/cli/peer_settings.hpp"
#include "kernels/gpu_judgement.hpp"
#include "tests/synthetic/every_probe_registry.hpp"

namespace fabcheck {
namespace {

TEST(PeerSettings, TakenFromTheProbesOwnDeclarations) {
  const Registry& registry = synthetic::every_probe_registry();
  const MetricCatalog catalog = registry.catalog();
  const PeerJudgeOptions options = peer_judge_options(registry, catalog);
  EXPECT_EQ(options.catalog, &catalog);
  // Links, node pairs, the bisection and the SDC screen: their family judges name the outlier;
  // shared storage: each rank's figure is its share of one system.
  EXPECT_EQ(
      options.excluded_probes,
      (std::set<std::string>{"coll.node_bisect", "coll.node_pairs", "fabric.ib_ports",
                             "fabric.pcie_links", "gpu.hbm_patterns", "gpu.sdc", "host.sdc",
                             "storage.ckpt_read", "storage.ckpt_write", "storage.contention"}));
  const auto gpu = gpu_figures_judged_among_peers();
  EXPECT_EQ(options.judged_within_node_elsewhere,
            (std::set<std::pair<std::string, std::string>>(gpu.begin(), gpu.end())));
  EXPECT_EQ(options.judged_within_node_elsewhere.size(), 5u);
  // Shared storage across runs only: each node's own figure on a path it used alone in its run.
  EXPECT_EQ(options.across_runs_only, (std::set<std::pair<std::string, std::string>>{
                                          {"storage.ckpt_read", "bw_aggregate"},
                                          {"storage.ckpt_write", "bw_aggregate"},
                                          {"storage.contention", "read_alone_bw"},
                                          {"storage.contention", "read_contended_bw"},
                                          {"storage.contention", "write_alone_bw"},
                                          {"storage.contention", "write_contended_bw"}}));
  for (const auto& [probe, metric] : options.across_runs_only) {  // figures the judge can read
    ASSERT_TRUE(catalog.count(probe) && catalog.at(probe).count(metric)) << probe << " " << metric;
    EXPECT_TRUE(is_performance_unit(catalog.at(probe).at(metric).unit)) << probe << " " << metric;
  }
}

}  // namespace
}  // namespace fabcheck
