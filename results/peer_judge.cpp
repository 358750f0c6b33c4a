// Peer outliers within nodes, across nodes, across node pairs and across runs, over a FleetStore:
// the figures grouped (peer_figures), judged by node, by pair and by run (peer_judges.hpp), one
// finding kept per subject and figure (peer_candidates).
#include "results/peer_judge.hpp"

#include "results/peer_candidates.hpp"
#include "results/peer_figures.hpp"
#include "results/peer_judges.hpp"
#include "results/peer_wording.hpp"

namespace fabcheck {

std::vector<Finding> judge_peers(const FleetStore& store, const PeerJudgeOptions& options) {
  peers::PeerFigures figures = peers::collect_peer_figures(store, options);
  const peers::PeerWording words(store, options);
  peers::Candidates candidates;
  const peers::PeerWork work{figures, words, options, candidates};
  peers::judge_node_figures(work);
  peers::judge_pair_figures(work);
  peers::judge_run_figures(work);
  return peers::proposed_findings(candidates);
}

std::vector<Finding> judge_peer_measurements(const std::vector<Measurement>& measurements,
                                             const PeerJudgeOptions& options) {
  FleetStore store;
  const std::uint32_t run = store.add_run({});
  for (const Measurement& m : measurements) store.add(m, run);
  return judge_peers(store, options);
}

}  // namespace fabcheck
