// Peer judgement's two judges over the grouped figures, each proposing the outliers it finds:
//   - within and across nodes (peer_node_judge.cpp): each subject of a node (a GPU, an HCA, a GPU
//     pair of one node) against its siblings, then each node's median against the other nodes';
//   - across node pairs (peer_pair_judge.cpp): each pair's figure against the other pairs', a rail
//     against its pair's other rails, an HCA slow in most of its pairs named as that host's HCA
//     (whichever end measured), and a node all of whose pairs are slow named as the node;
//   - across runs only (peer_run_judge.cpp): each node measured alone on a path against the other
//     nodes measured alike there (shared-path storage), a WARN at most.
// Internal to results/peer_*.cpp.
#pragma once

#include "results/peer_candidates.hpp"
#include "results/peer_figures.hpp"
#include "results/peer_judge.hpp"
#include "results/peer_wording.hpp"

namespace fabcheck::peers {

// What a judge works with: the figures (it sorts its own kind), the words, the options, and where
// it proposes its findings.
struct PeerWork {
  PeerFigures& figures;
  const PeerWording& words;
  const PeerJudgeOptions& options;
  Candidates& into;
};

// Within and across nodes; `into` must be empty (the second thread's findings merge into it).
void judge_node_figures(const PeerWork& work);

// Across node pairs.
void judge_pair_figures(const PeerWork& work);

// Across runs only (PeerJudgeOptions::across_runs_only).
void judge_run_figures(const PeerWork& work);

}  // namespace fabcheck::peers
