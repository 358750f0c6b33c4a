// The peer judge's settings in this binary, and its whole-run judge for the runner.
#include "bench/cli/peer_settings.hpp"

#include <memory>

#include "kernels/gpu_judgement.hpp"

namespace fabcheck {

PeerJudgeOptions peer_judge_options(const MetricCatalog& catalog) {
  PeerJudgeOptions options;
  options.catalog = &catalog;
  for (const auto& figure : gpu_figures_judged_among_peers()) {
    options.judged_within_node_elsewhere.insert(figure);
  }
  // Ranks writing and reading one shared path at once: each rank's figure is its share of the
  // shared system (striping, who started first), not a property of its node, so it has no peers.
  // Measured: four ranks of a healthy simulated cluster on one disk read 0.11 to 0.51 GB/s.
  for (const char* shared : {"storage.ckpt_write", "storage.ckpt_read", "storage.contention"})
    options.excluded_probes.insert(shared);
  return options;
}

Judge make_peer_judge(const Registry& registry) {
  auto catalog = std::make_shared<const MetricCatalog>(registry.catalog());
  Judge judge;
  judge.name = "peers";
  judge.judge = [catalog](const std::vector<Measurement>& measurements, const Profile& profile) {
    PeerJudgeOptions options = peer_judge_options(*catalog);
    options.profile = &profile;
    return judge_peer_measurements(measurements, options);
  };
  judge.scope = JudgeScope::whole_run;
  judge.across_hosts = true;  // nodes of a run and node pairs are compared with each other
  // Every measurement: it judges any figure the catalog gives a performance unit, and it takes
  // the run's hosts from every record, whatever its figure (a peer "node12/mlx5_3" names a host
  // when node12 has any record), so no narrower list finds the same.
  judge.reads = kEveryFigure;
  return judge;
}

}  // namespace fabcheck
