// Peer judgement's grouping: the judged figures of a FleetStore in groups of like figures (one
// probe, metric, condition set and size), each a figure of one node (a GPU, an HCA, a GPU pair of
// one node), of a pair of nodes (a rail between two HCAs), or of a node alone on a path in its run
// (compared across runs only). Internal to results/peer_*.cpp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "results/fleet_store.hpp"
#include "results/peer_judge.hpp"
#include "results/robust_stats.hpp"

namespace fabcheck::peers {

inline constexpr std::uint32_t kNone = 0xffffffffu;

struct GroupKey {
  std::uint32_t probe, metric, cond;  // store string ids; cond: a condition set in the local pool
  std::uint64_t size;
  bool operator==(const GroupKey& o) const {
    return probe == o.probe && metric == o.metric && cond == o.cond && size == o.size;
  }
};
struct GroupKeyHash {
  std::size_t operator()(const GroupKey& k) const {
    std::uint64_t h = k.size * 0x9e3779b97f4a7c15ull;
    h ^= (static_cast<std::uint64_t>(k.probe) << 40) ^
         (static_cast<std::uint64_t>(k.metric) << 20) ^ k.cond;
    h *= 0xff51afd7ed558ccdull;
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

struct Group {
  GroupKey key;
  WorseSide worse = WorseSide::lower;
  bool within_node_elsewhere = false;
  bool across_runs = false;  // PeerJudgeOptions::across_runs_only: its figures are RunFigures
};

// One figure of a node (not a pair): its host, its kind of subject, and its peer's kind.
struct NodeFigure {
  std::uint32_t group, host, cls, peer_cls, subject, peer;
  double value;
};

// A figure between two nodes. Its ends: (host, hca) that measured, and (peer_host, peer_hca) it
// measured; hca ids are in the local pool, kNone when the peer names no HCA.
struct PairFigure {
  std::uint32_t group, pair, host, subject, peer;
  double value;
  std::uint32_t hca, peer_host, peer_hca;
};

// A figure compared across runs only: of the one host that used its path (the subject) in its run,
// with how many of that host's ranks used it there (0: no figure of a rank names one).
struct RunFigure {
  std::uint32_t group, run, host, subject, ranks;
  double value;
};

// What peer judgement works on.
struct PeerFigures {
  std::vector<Group> groups;
  std::vector<NodeFigure> node_figures;
  std::vector<PairFigure> pair_figures;
  // Only those of a path one host used in its run: several hosts of one run split it.
  std::vector<RunFigure> run_figures;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;  // hosts of each pair id, ascending
  StringPool local;  // condition signatures, subject classes and HCA names
};

// The ok, finite figures of hosts whose (probe, metric) the catalog lists with a performance unit
// and the options do not exclude (or compare across runs only); none without a catalog.
PeerFigures collect_peer_figures(const FleetStore& store, const PeerJudgeOptions& options);

// The options' outlier policy with the group's worse side.
OutlierPolicy policy_for(const PeerJudgeOptions& options, const Group& group);

// Puts figures in group order, by counting (there are few groups, the figures millions); returns
// where each group's figures begin (and, last, their end).
template <typename Figure>
std::vector<std::size_t> scatter_by_group(std::vector<Figure>& figures, std::size_t groups) {
  std::vector<std::size_t> starts(groups + 1, 0);
  for (const Figure& f : figures) ++starts[f.group + 1];
  for (std::size_t g = 1; g < starts.size(); ++g) starts[g] += starts[g - 1];
  std::vector<Figure> sorted(figures.size());
  std::vector<std::size_t> next(starts.begin(), starts.end() - 1);
  for (const Figure& f : figures) sorted[next[f.group]++] = f;
  figures.swap(sorted);
  return starts;
}

// Sorts figures by group, then within each group by `less`.
template <typename Figure, typename Less>
void sort_by_group(std::vector<Figure>& figures, std::size_t groups, Less less) {
  const std::vector<std::size_t> starts = scatter_by_group(figures, groups);
  for (std::size_t g = 0; g + 1 < starts.size(); ++g) {
    std::sort(figures.begin() + static_cast<std::ptrdiff_t>(starts[g]),
              figures.begin() + static_cast<std::ptrdiff_t>(starts[g + 1]), less);
  }
}

}  // namespace fabcheck::peers
