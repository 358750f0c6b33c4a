// The peer judge's settings in this binary, from the probes' own declarations, and its whole-run
// judge for the runner.
#include "bench/cli/peer_settings.hpp"

#include <memory>

namespace fabcheck {

PeerJudgeOptions peer_judge_options(const Registry& registry, const MetricCatalog& catalog) {
  PeerJudgeOptions options;
  options.catalog = &catalog;
  for (const Probe* probe : registry.all()) {
    const PeerComparison& peers = probe->info().peers;
    if (!peers.compared) options.excluded_probes.insert(probe->id());
    for (const std::string& metric : peers.within_node_by_family_judge) {
      options.judged_within_node_elsewhere.insert({probe->id(), metric});
    }
    for (const std::string& metric : peers.across_runs_only) {
      options.across_runs_only.insert({probe->id(), metric});
    }
  }
  return options;
}

Judge make_peer_judge(const Registry& registry) {
  auto catalog = std::make_shared<const MetricCatalog>(registry.catalog());
  // What the probes registered so far declare, read once: the judge keeps its own copy.
  auto declared = std::make_shared<const PeerJudgeOptions>(peer_judge_options(registry, *catalog));
  Judge judge;
  judge.name = "peers";
  judge.judge = [catalog, declared](const std::vector<Measurement>& measurements,
                                    const Profile& profile) {
    PeerJudgeOptions options = *declared;
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
