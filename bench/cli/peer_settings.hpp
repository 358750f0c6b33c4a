// How the generic peer judge is set up in this binary: the metric catalog, and what the registered
// probes declare of their peers (ProbeInfo::peers: probes not compared, figures a family judge
// compares among a node's GPUs itself, figures compared across runs only).
#pragma once

#include "bench/core/registry.hpp"
#include "results/peer_judge.hpp"

namespace fabcheck {

// `catalog` must outlive the options.
PeerJudgeOptions peer_judge_options(const Registry& registry, const MetricCatalog& catalog);

// The runner's whole-run judge of peers (GPUs of a node, nodes of a multi-host run, node pairs),
// over the registry's probes as registered so far. Figures compared across runs only never find
// a peer in it: one run's hosts on one path are shares of it.
Judge make_peer_judge(const Registry& registry);

}  // namespace fabcheck
