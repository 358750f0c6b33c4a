// Peer judgement's grouping: which figures are judged, in which group, and whether a figure is a
// node's, a pair of nodes', or a node's alone on a path in its run.
#include "results/peer_figures.hpp"

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "results/metric_catalog.hpp"

namespace fabcheck::peers {
namespace {

// Reads the store's rows into PeerFigures, naming conditions, subject kinds and HCAs once each.
class FigureCollector {
 public:
  FigureCollector(const FleetStore& store, const PeerJudgeOptions& options, PeerFigures& out)
      : store_(store), options_(options), out_(out) {}

  void collect() {
    for (const FigureRow& row : store_.rows) {
      if (row.host == 0) continue;
      if (row.host >= hosts_.size()) hosts_.resize(store_.strings.size(), false);
      hosts_[row.host] = true;
      if (compared_across_runs(row.probe)) note_path_use(row);
    }
    for (const FigureRow& row : store_.rows) {
      if (row.status != MeasurementStatus::ok || !std::isfinite(row.value) || row.host == 0) {
        continue;
      }
      const std::uint32_t group = group_of(row);
      if (group == kNone) continue;
      if (out_.groups[group].across_runs) {
        out_.run_figures.push_back({group, row.run, row.host, row.subject, 0, row.value});
        continue;
      }
      const std::uint32_t other = peer_host(row.peer);
      if (other != kNone && other != row.host) {
        const auto pair = std::minmax(row.host, other);
        auto [it, added] =
            pair_ids_.emplace((static_cast<std::uint64_t>(pair.first) << 32) | pair.second,
                              static_cast<std::uint32_t>(out_.pairs.size()));
        if (added) out_.pairs.push_back(pair);
        out_.pair_figures.push_back({group, it->second, row.host, row.subject, row.peer, row.value,
                                     hca_of(row.subject, false), other, hca_of(row.peer, true)});
      } else {
        out_.node_figures.push_back({group, row.host, class_of(row.subject),
                                     row.peer == 0 ? 0 : class_of(row.peer), row.subject, row.peer,
                                     row.value});
      }
    }
    keep_paths_of_one_host();
  }

 private:
  const std::string& text(std::uint32_t id) const { return store_.strings.text(id); }

  std::uint32_t condition_of(std::uint32_t params) {
    if (params >= conditions_.size()) conditions_.resize(store_.param_set_count(), kNone);
    std::uint32_t& cond = conditions_[params];
    if (cond == kNone) cond = out_.local.intern(store_.conditions_text(params));
    return cond;
  }

  std::uint32_t class_of(std::uint32_t subject) {
    if (subject >= classes_.size()) classes_.resize(store_.strings.size(), kNone);
    std::uint32_t& cls = classes_[subject];
    if (cls == kNone) cls = out_.local.intern(subject_class(text(subject)));
    return cls;
  }

  bool is_host(std::uint32_t id) const { return id < hosts_.size() && hosts_[id]; }

  // The host a peer names ("node12", "node12/mlx5_3"), kNone when it names no host.
  std::uint32_t peer_host(std::uint32_t peer) {
    if (peer == 0) return kNone;
    if (is_host(peer)) return peer;
    const std::string& name = text(peer);
    const auto slash = name.find('/');
    if (slash == std::string::npos) return kNone;
    const std::uint32_t prefix = store_.strings.find(std::string_view(name).substr(0, slash));
    return prefix != StringPool::kMissing && is_host(prefix) ? prefix : kNone;
  }

  // An HCA's name in the local pool: the subject itself, or what a peer names after its host
  // ("node12/mlx5_3" -> "mlx5_3"); kNone when the peer names only a host.
  std::uint32_t hca_of(std::uint32_t subject, bool is_peer) {
    std::vector<std::uint32_t>& cache = is_peer ? peer_hcas_ : subject_hcas_;
    if (subject >= cache.size()) cache.resize(store_.strings.size(), kNone - 1);
    std::uint32_t& hca = cache[subject];
    if (hca == kNone - 1) {
      const std::string& name = text(subject);
      const auto slash = name.find('/');
      if (!is_peer) {
        hca = out_.local.intern(name);
      } else {
        hca = slash == std::string::npos ? kNone : out_.local.intern(name.substr(slash + 1));
      }
    }
    return hca;
  }

  // Whether some metric of the probe (a store string id) is compared across runs only.
  bool compared_across_runs(std::uint32_t probe) {
    if (options_.across_runs_only.empty()) return false;
    if (probe >= across_runs_probes_.size()) across_runs_probes_.resize(store_.strings.size(), -1);
    signed char& known = across_runs_probes_[probe];
    if (known < 0) {
      const auto named = options_.across_runs_only.lower_bound({text(probe), std::string()});
      known = named != options_.across_runs_only.end() && named->first == text(probe) ? 1 : 0;
    }
    return known == 1;
  }

  // Who used a path in a run, from every record of a probe compared across runs (any metric and
  // status: the per-rank rates say which ranks wrote beside the node's aggregate).
  void note_path_use(const FigureRow& row) {
    PathUse& use = path_uses_[{row.run, row.probe, row.subject}];
    // "a,b": a figure combined across the hosts of a run (World::joined_hosts).
    if (text(row.host).find(',') != std::string::npos) {
      use.several_hosts = true;
    } else if (use.host == kNone) {
      use.host = row.host;
    } else if (use.host != row.host) {
      use.several_hosts = true;
    }
    if (row.rank >= 0) use.ranks.insert(row.rank);
  }

  // Drops the run figures of a path several hosts of their run used (their shares of one
  // filesystem, never compared) and gives the others their ranks per node.
  void keep_paths_of_one_host() {
    std::vector<RunFigure>& figures = out_.run_figures;
    std::size_t kept = 0;
    for (RunFigure& f : figures) {
      const auto use = path_uses_.find({f.run, out_.groups[f.group].key.probe, f.subject});
      if (use == path_uses_.end() || use->second.several_hosts || use->second.host != f.host) {
        continue;
      }
      f.ranks = static_cast<std::uint32_t>(use->second.ranks.size());
      figures[kept++] = f;
    }
    figures.resize(kept);
  }

  // Group of a row, or kNone when its figure is not judged.
  std::uint32_t group_of(const FigureRow& row) {
    if (options_.catalog == nullptr) return kNone;
    const GroupKey key{row.probe, row.metric, condition_of(row.params), row.size};
    if (last_group_ != kNone && key == out_.groups[last_group_].key) return last_group_;
    const auto found = group_ids_.find(key);
    if (found != group_ids_.end()) return last_group_ = found->second;
    std::uint32_t id = kNone;
    const auto probe = options_.catalog->find(text(row.probe));
    if (probe != options_.catalog->end()) {
      const auto metric = probe->second.find(text(row.metric));
      const bool across_runs = metric != probe->second.end() &&
                               options_.across_runs_only.count({probe->first, metric->first}) > 0;
      if (metric != probe->second.end() && is_performance_unit(metric->second.unit) &&
          (across_runs || !options_.excluded_probes.count(probe->first))) {
        Group group;
        group.key = key;
        group.worse =
            metric->second.better == Better::higher ? WorseSide::lower : WorseSide::higher;
        group.within_node_elsewhere =
            options_.judged_within_node_elsewhere.count({probe->first, metric->first}) > 0;
        group.across_runs = across_runs;
        id = static_cast<std::uint32_t>(out_.groups.size());
        out_.groups.push_back(group);
      }
    }
    group_ids_.emplace(key, id);
    return last_group_ = id;
  }

  const FleetStore& store_;
  const PeerJudgeOptions& options_;
  PeerFigures& out_;
  std::vector<std::uint32_t> conditions_;
  std::vector<std::uint32_t> classes_;
  std::vector<std::uint32_t> subject_hcas_, peer_hcas_;
  std::vector<bool> hosts_;  // by string id: whether it names a host of some row
  std::unordered_map<GroupKey, std::uint32_t, GroupKeyHash> group_ids_;
  std::uint32_t last_group_ = kNone;
  std::unordered_map<std::uint64_t, std::uint32_t> pair_ids_;
  struct PathUse {
    std::uint32_t host = kNone;  // the first host seen
    bool several_hosts = false;
    std::set<std::int32_t> ranks;
  };
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, PathUse>
      path_uses_;                                // by (run, probe, subject)
  std::vector<signed char> across_runs_probes_;  // by string id: -1 unknown, 0 no, 1 yes
};

}  // namespace

PeerFigures collect_peer_figures(const FleetStore& store, const PeerJudgeOptions& options) {
  PeerFigures figures;
  FigureCollector(store, options, figures).collect();
  return figures;
}

OutlierPolicy policy_for(const PeerJudgeOptions& options, const Group& group) {
  OutlierPolicy policy = options.policy;
  policy.worse = group.worse;
  return policy;
}

}  // namespace fabcheck::peers
