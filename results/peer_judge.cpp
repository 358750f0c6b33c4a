// Peer outliers within nodes, across nodes and across node pairs, over a FleetStore.
#include "results/peer_judge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <map>
#include <thread>
#include <tuple>
#include <unordered_map>

#include "results/tiers.hpp"
#include "results/units.hpp"

namespace fabcheck {
namespace {

constexpr std::uint32_t kNone = 0xffffffffu;

std::string format_value(double value) {
  if (std::fabs(value) >= 1000) return fmt::format("{:.0f}", value);
  return fmt::format("{:.4g}", value);
}

struct GroupKey {
  std::uint32_t probe, metric, cond;
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
};

// One figure of a node (not a pair): its host, its kind of subject, and its peer's kind.
struct NodeFigure {
  std::uint32_t group, host, cls, peer_cls, subject, peer;
  double value;
};

// A figure between two nodes. Its ends: (host, hca) that measured, and (peer_host, peer_hca) it
// measured; hca ids are in the judge's local pool, kNone when the peer names no HCA.
struct PairFigure {
  std::uint32_t group, pair, host, subject, peer;
  double value;
  std::uint32_t hca, peer_host, peer_hca;
};

std::uint64_t end_key(std::uint32_t host, std::uint32_t hca) {
  return (static_cast<std::uint64_t>(host) << 32) | hca;
}

struct PairValue {
  std::uint32_t pair;
  double value;
};

// A rail standing out among its pair's rails, and the peers it was judged among.
struct RailOutlier {
  const PairFigure* rail;
  Outlier outlier;
  PeerSummary peers;
  std::size_t rails;
};

// One end of rails (a host's HCA): the pairs it was judged in, those where a rail through it
// stood out, and those pairs.
struct RailEnd {
  std::size_t pairs = 0, slow_pairs = 0;
  std::vector<std::uint32_t> partners;  // pair ids
};

// Values by name, for the evidence.
struct Candidate {
  Finding finding;
  double worst_gap = 0;
  std::size_t sizes = 0;
};
using Candidates = std::map<std::string, Candidate>;  // by what a finding is about

class PeerJudge {
 public:
  PeerJudge(const FleetStore& store, const PeerJudgeOptions& options)
      : store_(store), options_(options) {}

  std::vector<Finding> run() {
    collect();
    judge_nodes();
    judge_pairs();
    std::vector<Finding> findings;
    for (auto& [key, candidate] : candidates_) {
      Finding& f = candidate.finding;
      if (candidate.sizes > 1) {
        f.message += fmt::format(" [stands out at {} sizes; the worst shown]", candidate.sizes);
      }
      findings.push_back(std::move(f));
    }
    std::sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
      return std::tie(a.host, a.subject, a.probe, a.metric) <
             std::tie(b.host, b.subject, b.probe, b.metric);
    });
    return findings;
  }

 private:
  const std::string& text(std::uint32_t id) const { return store_.strings.text(id); }

  std::uint32_t condition_of(std::uint32_t params) {
    if (params >= conditions_.size()) conditions_.resize(store_.param_set_count(), kNone);
    std::uint32_t& cond = conditions_[params];
    if (cond == kNone) cond = local_.intern(store_.conditions_text(params));
    return cond;
  }

  std::uint32_t class_of(std::uint32_t subject) {
    if (subject >= classes_.size()) classes_.resize(store_.strings.size(), kNone);
    std::uint32_t& cls = classes_[subject];
    if (cls == kNone) cls = local_.intern(subject_class(text(subject)));
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
        hca = local_.intern(name);
      } else {
        hca = slash == std::string::npos ? kNone : local_.intern(name.substr(slash + 1));
      }
    }
    return hca;
  }

  // Group of a row, or kNone when its figure is not judged.
  std::uint32_t group_of(const FigureRow& row) {
    if (options_.catalog == nullptr) return kNone;
    const GroupKey key{row.probe, row.metric, condition_of(row.params), row.size};
    if (last_group_ != kNone && key == groups_[last_group_].key) return last_group_;
    const auto found = group_ids_.find(key);
    if (found != group_ids_.end()) return last_group_ = found->second;
    std::uint32_t id = kNone;
    const auto probe = options_.catalog->find(text(row.probe));
    if (probe != options_.catalog->end() && !options_.excluded_probes.count(probe->first)) {
      const auto metric = probe->second.find(text(row.metric));
      if (metric != probe->second.end() && is_performance_unit(metric->second.unit)) {
        Group group;
        group.key = key;
        group.worse =
            metric->second.better == Better::higher ? WorseSide::lower : WorseSide::higher;
        group.within_node_elsewhere =
            options_.judged_within_node_elsewhere.count({probe->first, metric->first}) > 0;
        id = static_cast<std::uint32_t>(groups_.size());
        groups_.push_back(group);
      }
    }
    group_ids_.emplace(key, id);
    return last_group_ = id;
  }

  void collect() {
    for (const FigureRow& row : store_.rows) {
      if (row.host == 0) continue;
      if (row.host >= hosts_.size()) hosts_.resize(store_.strings.size(), false);
      hosts_[row.host] = true;
    }
    for (const FigureRow& row : store_.rows) {
      if (row.status != MeasurementStatus::ok || !std::isfinite(row.value) || row.host == 0) {
        continue;
      }
      const std::uint32_t group = group_of(row);
      if (group == kNone) continue;
      const std::uint32_t other = peer_host(row.peer);
      if (other != kNone && other != row.host) {
        const auto pair = std::minmax(row.host, other);
        auto [it, added] =
            pair_ids_.emplace((static_cast<std::uint64_t>(pair.first) << 32) | pair.second,
                              static_cast<std::uint32_t>(pairs_.size()));
        if (added) pairs_.push_back(pair);
        pair_figures_.push_back({group, it->second, row.host, row.subject, row.peer, row.value,
                                 hca_of(row.subject, false), other, hca_of(row.peer, true)});
      } else {
        node_figures_.push_back({group, row.host, class_of(row.subject),
                                 row.peer == 0 ? 0 : class_of(row.peer), row.subject, row.peer,
                                 row.value});
      }
    }
  }

  // Puts figures in group order, by counting (there are few groups, the figures millions); returns
  // where each group's figures begin (and, last, their end).
  template <typename Figure>
  std::vector<std::size_t> scatter_by_group(std::vector<Figure>& figures) const {
    std::vector<std::size_t> starts(groups_.size() + 1, 0);
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
  void sort_by_group(std::vector<Figure>& figures, Less less) const {
    const std::vector<std::size_t> starts = scatter_by_group(figures);
    for (std::size_t g = 0; g + 1 < starts.size(); ++g) {
      std::sort(figures.begin() + static_cast<std::ptrdiff_t>(starts[g]),
                figures.begin() + static_cast<std::ptrdiff_t>(starts[g + 1]), less);
    }
  }

  OutlierPolicy policy_for(const Group& group) const {
    OutlierPolicy policy = options_.policy;
    policy.worse = group.worse;
    return policy;
  }

  std::string size_words(const Group& group) const {
    return group.key.size == kNoSize ? std::string() : " at " + format_bytes(group.key.size);
  }

  std::string tier_words(const Group& group, double value, double reference) const {
    if (options_.profile == nullptr) return "";
    const std::optional<std::uint64_t> size =
        group.key.size == kNoSize ? std::nullopt : std::optional<std::uint64_t>(group.key.size);
    const TierPath* path =
        tier_path_for(*options_.profile, text(group.key.probe), text(group.key.metric), size);
    if (path == nullptr) return "";
    std::string expected = path->expect;
    if (expected.empty()) {  // no tier named: the peers' median says what this path reaches
      const TierMatch peers = classify_tier(*path, reference);
      if (!peers.matched.empty()) expected = peers.matched.front()->name;
    }
    return tier_note(*options_.profile, text(group.key.probe), text(group.key.metric), size, value,
                     expected);
  }

  Finding base(const Group& group, std::uint32_t host, const std::string& subject,
               const Outlier& outlier) const {
    Finding f;
    f.severity = outlier.fail ? Severity::fail : Severity::warn;
    f.probe = text(group.key.probe);
    f.metric = text(group.key.metric);
    f.subject = subject;
    f.host = text(host);
    if (group.key.size != kNoSize) f.size_bytes = group.key.size;
    f.observed = outlier.value;
    f.expected = outlier.reference;
    const auto probe = options_.catalog->find(f.probe);
    f.unit = probe->second.at(f.metric).unit;
    return f;
  }

  std::string gap_words(const Outlier& outlier) const {
    if (std::isinf(outlier.relative_gap)) return "far";
    return fmt::format("{:.0f}%", std::fabs(outlier.relative_gap) * 100);
  }

  const char* side_words(const Group& group) const {
    return group.worse == WorseSide::lower ? "below" : "above";
  }

  std::string source_words(std::size_t peers, const char* of) const {
    return fmt::format(
        "inferred: median of {} {} (results/robust_stats.hpp: named beyond {:.0f}% and {:.1f} "
        "robust sigmas from it, FAIL beyond {:.0f}%{})",
        peers, of, options_.policy.min_relative_gap * 100, options_.policy.robust_z,
        options_.policy.fail_relative_gap * 100,
        peers == 2 ? "; with two peers the worse is only a WARN" : "");
  }

  void propose(Candidates& into, const std::string& key, Finding finding,
               const Outlier& outlier) const {
    auto [it, added] = into.try_emplace(key);
    Candidate& c = it->second;
    ++c.sizes;
    const double gap = std::fabs(outlier.relative_gap);
    if (added || gap > c.worst_gap) {
      const Severity severity =
          !added && c.finding.severity == Severity::fail ? Severity::fail : finding.severity;
      c.finding = std::move(finding);
      c.finding.severity = severity;
      c.worst_gap = gap;
    } else if (finding.severity == Severity::fail) {
      c.finding.severity = Severity::fail;
    }
  }

  std::string listing(const std::vector<std::pair<std::string, double>>& values) const {
    std::string out;
    std::size_t shown = 0;
    for (const auto& [name, value] : values) {
      if (++shown > 16) {
        out += fmt::format(", ... ({} in all)", values.size());
        break;
      }
      out += (out.empty() ? "" : ", ") + name + " " + format_value(value);
    }
    return out;
  }

  // Subjects of a node against their siblings, and nodes against the fleet, in two threads: each
  // takes whole families (probe, metric, conditions), all of a family's sizes, so that a family's
  // findings (one per subject, the worst size shown) are proposed in the same order as by one.
  void judge_nodes() {
    const std::vector<std::size_t> starts = scatter_by_group(node_figures_);
    std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::size_t> family_sizes;
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      const GroupKey& key = groups_[g].key;
      family_sizes[{key.probe, key.metric, key.cond}] += starts[g + 1] - starts[g];
    }
    // The largest families first, each to the thread with fewer figures so far.
    std::vector<std::pair<std::size_t, std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>>>
        by_size;
    for (const auto& [family, size] : family_sizes) by_size.emplace_back(size, family);
    std::sort(by_size.begin(), by_size.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, int> thread_of;
    std::size_t load[2] = {0, 0};
    for (const auto& [size, family] : by_size) {
      const int t = load[1] < load[0] ? 1 : 0;
      thread_of[family] = t;
      load[t] += size;
    }
    std::vector<std::uint32_t> groups[2];
    for (std::uint32_t g = 0; g < groups_.size(); ++g) {
      const GroupKey& key = groups_[g].key;
      groups[thread_of[{key.probe, key.metric, key.cond}]].push_back(g);
    }
    Candidates second;
    std::exception_ptr failure;
    std::thread helper([&] {
      try {
        judge_node_groups(groups[1], starts, second);
      } catch (...) {
        failure = std::current_exception();
      }
    });
    try {
      judge_node_groups(groups[0], starts, candidates_);
    } catch (...) {
      helper.join();
      throw;
    }
    helper.join();
    if (failure) std::rethrow_exception(failure);
    candidates_.merge(second);  // no key in both: each names its family
  }

  // judge_nodes' work for `group_ids` (ascending), whose figures begin at `starts`.
  // Sorts those groups' figures (no other thread touches them) and judges them.
  void judge_node_groups(const std::vector<std::uint32_t>& group_ids,
                         const std::vector<std::size_t>& starts, Candidates& into) {
    std::vector<NodeFigure>& figures = node_figures_;
    struct NodeValue {
      std::uint32_t group, cls, peer_cls, host;
      double value;
      std::uint32_t subjects;
      std::uint32_t only_subject;
    };
    std::vector<NodeValue> node_values;
    std::vector<double> values;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> subjects;  // subject, peer
    std::vector<double> same;
    for (const std::uint32_t g : group_ids) {
      std::sort(figures.begin() + static_cast<std::ptrdiff_t>(starts[g]),
                figures.begin() + static_cast<std::ptrdiff_t>(starts[g + 1]),
                [](const NodeFigure& a, const NodeFigure& b) {
                  return std::tie(a.host, a.cls, a.peer_cls, a.subject, a.peer, a.value) <
                         std::tie(b.host, b.cls, b.peer_cls, b.subject, b.peer, b.value);
                });
      std::size_t i = starts[g];
      const std::size_t group_end = starts[g + 1];
      while (i < group_end) {
        // One bucket: a host's subjects of one kind, for one figure.
        std::size_t end = i;
        const NodeFigure& first = figures[i];
        while (end < group_end && figures[end].group == first.group &&
               figures[end].host == first.host && figures[end].cls == first.cls &&
               figures[end].peer_cls == first.peer_cls) {
          ++end;
        }
        values.clear();
        subjects.clear();
        for (std::size_t j = i; j < end;) {  // the same subject twice (two runs): its median
          std::size_t k = j;
          same.clear();
          while (k < end && figures[k].subject == figures[j].subject &&
                 figures[k].peer == figures[j].peer) {
            same.push_back(figures[k].value);
            ++k;
          }
          values.push_back(median_of(same));
          subjects.emplace_back(figures[j].subject, figures[j].peer);
          j = k;
        }
        const Group& group = groups_[first.group];
        if (values.size() >= 2 && !group.within_node_elsewhere) {
          const OutlierReport report = find_outliers(values, policy_for(group));
          for (const Outlier& outlier : report.outliers) {
            const auto [subject, peer] = subjects[outlier.index];
            std::string who = text(subject) + (peer != 0 ? " -> " + text(peer) : std::string());
            Finding f = base(group, first.host, text(subject), outlier);
            std::vector<std::pair<std::string, double>> named;
            for (std::size_t k = 0; k < values.size(); ++k) {
              named.emplace_back(text(subjects[k].first) +
                                     (subjects[k].second ? "->" + text(subjects[k].second) : ""),
                                 values[k]);
            }
            f.message = fmt::format(
                "{}: {} {} {}{}: {} {} is {} {} the median {} {} of its {} sibling {} on the node"
                "{}; expectation inferred from its peers",
                text(first.host), who, f.probe, f.metric, size_words(group),
                format_value(outlier.value), f.unit, gap_words(outlier), side_words(group),
                format_value(outlier.reference), f.unit, values.size(),
                peer != 0 ? "pairs" : "subjects",
                tier_words(group, outlier.value, outlier.reference));
            f.evidence =
                fmt::format("{} {} per {}: {}; median {}, MAD {}", f.probe, f.metric,
                            peer != 0 ? "pair" : "subject", listing(named),
                            format_value(report.peers.median), format_value(report.peers.mad));
            f.source = source_words(values.size(), "siblings on the node");
            f.remedy =
                "compare this one with its siblings: its link (PCIe width and speed, "
                "NVLink state), clocks and temperature; reseat or replace it if a re-run "
                "confirms the gap";
            propose(into,
                    fmt::format("1|{}|{}|{}|{}|{}|{}", group.key.probe, group.key.metric,
                                group.key.cond, first.host, subject, peer),
                    std::move(f), outlier);
          }
        }
        NodeValue node{first.group,
                       first.cls,
                       first.peer_cls,
                       first.host,
                       median_of(values),
                       static_cast<std::uint32_t>(values.size()),
                       values.size() == 1 ? subjects.front().first : kNone};
        node_values.push_back(node);
        i = end;
      }
    }

    std::sort(node_values.begin(), node_values.end(), [](const NodeValue& a, const NodeValue& b) {
      return std::tie(a.group, a.cls, a.peer_cls, a.host) <
             std::tie(b.group, b.cls, b.peer_cls, b.host);
    });
    std::vector<std::uint32_t> hosts;
    std::size_t i = 0;
    while (i < node_values.size()) {
      std::size_t end = i;
      const NodeValue& first = node_values[i];
      while (end < node_values.size() && node_values[end].group == first.group &&
             node_values[end].cls == first.cls && node_values[end].peer_cls == first.peer_cls) {
        ++end;
      }
      if (end - i >= 2) {
        values.clear();
        hosts.clear();
        for (std::size_t j = i; j < end; ++j) {
          values.push_back(node_values[j].value);
          hosts.push_back(node_values[j].host);
        }
        const Group& group = groups_[first.group];
        const OutlierReport report = find_outliers(values, policy_for(group));
        for (const Outlier& outlier : report.outliers) {
          const NodeValue& node = node_values[i + outlier.index];
          const std::string subject = node.only_subject != kNone ? text(node.only_subject)
                                                                 : local_.text(node.cls) + " (all)";
          Finding f = base(group, node.host, subject, outlier);
          f.message = fmt::format(
              "{}: {} {}{} of {}: {} {}{} is {} {} the fleet median {} {} of {} nodes{}; "
              "expectation inferred from its peers",
              text(node.host), f.probe, f.metric, size_words(group), subject,
              format_value(outlier.value), f.unit,
              node.subjects > 1 ? fmt::format(" (median of its {})", node.subjects) : "",
              gap_words(outlier), side_words(group), format_value(outlier.reference), f.unit,
              values.size(), tier_words(group, outlier.value, outlier.reference));
          f.evidence = fmt::format("node medians of {} nodes: median {}, MAD {}; this node {}",
                                   values.size(), format_value(report.peers.median),
                                   format_value(report.peers.mad), format_value(outlier.value));
          f.source = source_words(values.size(), "nodes");
          f.remedy =
              "the whole node is behind its peers: check what they share (BIOS and power "
              "settings, driver and firmware versions, CPU governor, other jobs on the node, "
              "cooling); drain it if a re-run confirms";
          propose(into,
                  fmt::format("2|{}|{}|{}|{}|{}", group.key.probe, group.key.metric, group.key.cond,
                              node.host, subject),
                  std::move(f), outlier);
        }
      }
      i = end;
    }
  }

  void judge_pairs() {
    auto& figures = pair_figures_;
    sort_by_group(figures, [](const PairFigure& a, const PairFigure& b) {
      return std::tie(a.pair, a.host, a.subject, a.peer, a.value) <
             std::tie(b.pair, b.host, b.subject, b.peer, b.value);
    });
    std::vector<PairValue> pair_values;
    std::vector<double> values, same;
    std::vector<const PairFigure*> rails;
    std::vector<RailOutlier> rail_outliers;
    std::map<std::uint64_t, RailEnd> rail_ends;
    std::size_t i = 0;
    while (i < figures.size()) {
      const std::uint32_t group_id = figures[i].group;
      const Group& group = groups_[group_id];
      pair_values.clear();
      rail_outliers.clear();
      rail_ends.clear();
      std::size_t group_end = i;
      while (group_end < figures.size() && figures[group_end].group == group_id) ++group_end;
      // Rails of each pair against each other, and each pair's median.
      for (std::size_t j = i; j < group_end;) {
        std::size_t end = j;
        while (end < group_end && figures[end].pair == figures[j].pair) ++end;
        values.clear();
        rails.clear();
        for (std::size_t k = j; k < end;) {
          std::size_t m = k;
          same.clear();
          while (m < end && figures[m].host == figures[k].host &&
                 figures[m].subject == figures[k].subject && figures[m].peer == figures[k].peer) {
            same.push_back(figures[m].value);
            ++m;
          }
          values.push_back(median_of(same));
          rails.push_back(&figures[k]);
          k = m;
        }
        if (values.size() >= 3) {  // with fewer, a rail cannot be told from the pair
          const OutlierReport report = find_outliers(values, policy_for(group));
          std::set<std::uint64_t> ends, slow;
          for (const PairFigure* rail : rails) {
            ends.insert(end_key(rail->host, rail->hca));
            if (rail->peer_hca != kNone) ends.insert(end_key(rail->peer_host, rail->peer_hca));
          }
          for (const Outlier& outlier : report.outliers) {
            const PairFigure& rail = *rails[outlier.index];
            slow.insert(end_key(rail.host, rail.hca));
            if (rail.peer_hca != kNone) slow.insert(end_key(rail.peer_host, rail.peer_hca));
            rail_outliers.push_back({&rail, outlier, report.peers, values.size()});
          }
          for (const std::uint64_t rail_end : ends) {
            RailEnd& counts = rail_ends[rail_end];
            ++counts.pairs;
            if (!slow.count(rail_end)) continue;
            ++counts.slow_pairs;
            counts.partners.push_back(figures[j].pair);
          }
        }
        pair_values.push_back({figures[j].pair, median_of(values)});
        j = end;
      }
      judge_rails(group, rail_outliers, rail_ends);
      judge_pair_values(group, pair_values);
      i = group_end;
    }
  }

  // A rail outlier touches two ends (an HCA of each node). An end slow in at least two pairs, and
  // in at least `node_pair_share` of the pairs it was judged in, is that host's HCA whichever end
  // measured; its partners' rails are not named. Other outliers are the rail between two HCAs.
  void judge_rails(const Group& group, const std::vector<RailOutlier>& outliers,
                   const std::map<std::uint64_t, RailEnd>& ends) {
    std::set<std::uint64_t> slow_ends;
    for (const auto& [end, counts] : ends) {
      if (counts.slow_pairs >= 2 &&
          static_cast<double>(counts.slow_pairs) >=
              options_.node_pair_share * static_cast<double>(counts.pairs)) {
        slow_ends.insert(end);
      }
    }
    for (const std::uint64_t end : slow_ends) {
      const auto host = static_cast<std::uint32_t>(end >> 32);
      const auto hca = static_cast<std::uint32_t>(end & 0xffffffffu);
      const RailOutlier* worst = nullptr;
      bool fail = false;
      for (const RailOutlier& o : outliers) {
        const PairFigure& rail = *o.rail;
        if (end_key(rail.host, rail.hca) != end &&
            (rail.peer_hca == kNone || end_key(rail.peer_host, rail.peer_hca) != end)) {
          continue;
        }
        fail = fail || o.outlier.fail;
        if (worst == nullptr ||
            std::fabs(o.outlier.relative_gap) > std::fabs(worst->outlier.relative_gap)) {
          worst = &o;
        }
      }
      const RailEnd& counts = ends.at(end);
      Outlier summary = worst->outlier;
      summary.fail = fail;
      const std::string name = local_.text(hca);
      Finding f = base(group, host, name, summary);
      std::string partners;
      for (const std::uint32_t pair : counts.partners) {
        const auto& [a, b] = pairs_[pair];
        partners += (partners.empty() ? "" : ", ") + text(a == host ? b : a);
      }
      f.message = fmt::format(
          "{}: {} {} {}{}: slow in {} of its {} node pairs, whichever end measured (worst {} {}, "
          "{} {} the median {} {} of the {} rails of its pair{}); this end's HCA, not its "
          "partners",
          text(host), name, f.probe, f.metric, size_words(group), counts.slow_pairs, counts.pairs,
          format_value(summary.value), f.unit, gap_words(summary), side_words(group),
          format_value(summary.reference), f.unit, worst->rails,
          tier_words(group, summary.value, summary.reference));
      f.evidence = fmt::format("{}/{} slow with {}; rails of the worst pair: median {}, MAD {}",
                               text(host), name, partners, format_value(worst->peers.median),
                               format_value(worst->peers.mad));
      f.source = source_words(worst->rails, "rails of the pair");
      f.remedy =
          "check this HCA's port and cable and the switch port it reaches (mlxlink, ibdiagnet); "
          "its partners are fine on the same rail with other nodes";
      propose(candidates_,
              fmt::format("3e|{}|{}|{}|{}|{}", group.key.probe, group.key.metric, group.key.cond,
                          host, name),
              std::move(f), summary);
    }
    for (const RailOutlier& o : outliers) {
      const PairFigure& rail = *o.rail;
      if (slow_ends.count(end_key(rail.host, rail.hca)) ||
          (rail.peer_hca != kNone && slow_ends.count(end_key(rail.peer_host, rail.peer_hca)))) {
        continue;
      }
      const Outlier& outlier = o.outlier;
      // The rail between two HCAs, a link: "n7/mlx5_3--n8/mlx5_3" (results/fleet_evaluation.hpp).
      Finding f =
          base(group, rail.host,
               text(rail.host) + "/" + text(rail.subject) + "--" + text(rail.peer), outlier);
      f.message = fmt::format(
          "{}: {} -> {}: {} {}{}: {} {} is {} {} the median {} {} of the {} rails between "
          "these two nodes{}; a rail, not the nodes",
          text(rail.host), text(rail.subject), text(rail.peer), f.probe, f.metric,
          size_words(group), format_value(outlier.value), f.unit, gap_words(outlier),
          side_words(group), format_value(outlier.reference), f.unit, o.rails,
          tier_words(group, outlier.value, outlier.reference));
      f.evidence = fmt::format("rails of {}--{}: median {}, MAD {}", text(pairs_[rail.pair].first),
                               text(pairs_[rail.pair].second), format_value(o.peers.median),
                               format_value(o.peers.mad));
      f.source = source_words(o.rails, "rails of the pair");
      f.remedy =
          "check this HCA's port and cable and the switch port it reaches (mlxlink, "
          "ibdiagnet); the other rails between the same nodes are fine";
      propose(candidates_,
              fmt::format("3r|{}|{}|{}|{}|{}|{}", group.key.probe, group.key.metric, group.key.cond,
                          rail.host, rail.subject, rail.peer),
              std::move(f), outlier);
    }
  }

  void judge_pair_values(const Group& group, const std::vector<PairValue>& pair_values) {
    if (pair_values.size() < 2) return;
    std::vector<double> values;
    for (const PairValue& p : pair_values) values.push_back(p.value);
    const OutlierReport report = find_outliers(values, policy_for(group));
    if (report.outliers.empty()) return;
    // A node in most of the slow pairs it is part of is the node's fault, not each partner's.
    std::map<std::uint32_t, std::pair<std::size_t, std::size_t>> by_host;  // pairs, slow pairs
    for (const PairValue& p : pair_values) {
      ++by_host[pairs_[p.pair].first].first;
      ++by_host[pairs_[p.pair].second].first;
    }
    for (const Outlier& outlier : report.outliers) {
      const auto& [a, b] = pairs_[pair_values[outlier.index].pair];
      ++by_host[a].second;
      ++by_host[b].second;
    }
    std::set<std::uint32_t> slow_nodes;
    for (const auto& [host, counts] : by_host) {
      if (counts.second >= 2 && static_cast<double>(counts.second) >=
                                    options_.node_pair_share * static_cast<double>(counts.first)) {
        slow_nodes.insert(host);
      }
    }
    for (const std::uint32_t host : slow_nodes) {
      std::vector<const Outlier*> mine;
      for (const Outlier& outlier : report.outliers) {
        const auto& [a, b] = pairs_[pair_values[outlier.index].pair];
        if (a == host || b == host) mine.push_back(&outlier);
      }
      const Outlier* worst = *std::max_element(mine.begin(), mine.end(), [](auto* x, auto* y) {
        return std::fabs(x->relative_gap) < std::fabs(y->relative_gap);
      });
      Outlier summary = *worst;
      summary.fail = std::any_of(mine.begin(), mine.end(), [](auto* o) { return o->fail; });
      Finding f = base(group, host, "node", summary);
      f.message = fmt::format(
          "{}: {} {}{}: {} of its {} node pairs are {} the median {} {} of {} pairs (worst {} "
          "{}); the node, not its partners",
          text(host), f.probe, f.metric, size_words(group), by_host[host].second,
          by_host[host].first, side_words(group), format_value(report.peers.median), f.unit,
          values.size(), format_value(worst->value), f.unit);
      f.evidence = fmt::format("pair medians: median {}, MAD {}; {} slow pairs of {}",
                               format_value(report.peers.median), format_value(report.peers.mad),
                               by_host[host].second, by_host[host].first);
      f.source = source_words(values.size(), "node pairs");
      f.remedy =
          "check this node's HCAs, cables and its switch ports; its partners are fine "
          "with other nodes";
      propose(
          candidates_,
          fmt::format("3n|{}|{}|{}|{}", group.key.probe, group.key.metric, group.key.cond, host),
          std::move(f), summary);
    }
    for (const Outlier& outlier : report.outliers) {
      auto [a, b] = pairs_[pair_values[outlier.index].pair];
      if (slow_nodes.count(a) || slow_nodes.count(b)) continue;
      if (text(b) < text(a)) std::swap(a, b);  // by name: string ids follow the reading order
      const std::string subject = text(a) + "--" + text(b);
      Finding f = base(group, a, subject, outlier);
      f.message = fmt::format(
          "{}: {} {}{}: {} {} between {} and {} is {} {} the median {} {} of {} node pairs{}; "
          "both nodes are fine with other partners: the path between them",
          subject, f.probe, f.metric, size_words(group), format_value(outlier.value), f.unit,
          text(a), text(b), gap_words(outlier), side_words(group), format_value(outlier.reference),
          f.unit, values.size(), tier_words(group, outlier.value, outlier.reference));
      f.evidence = fmt::format("pair medians: median {}, MAD {}; this pair {}",
                               format_value(report.peers.median), format_value(report.peers.mad),
                               format_value(outlier.value));
      f.source = source_words(values.size(), "node pairs");
      f.remedy =
          "check the cables and switch ports on the path between these two nodes (the "
          "leaf or spine they cross: ibdiagnet, ibtracert)";
      propose(
          candidates_,
          fmt::format("3p|{}|{}|{}|{}", group.key.probe, group.key.metric, group.key.cond, subject),
          std::move(f), outlier);
    }
  }

  const FleetStore& store_;
  const PeerJudgeOptions& options_;
  StringPool local_;  // condition signatures and subject classes
  std::vector<std::uint32_t> conditions_;
  std::vector<std::uint32_t> classes_;
  std::vector<std::uint32_t> subject_hcas_, peer_hcas_;
  std::vector<bool> hosts_;  // by string id: whether it names a host of some row
  std::vector<Group> groups_;
  std::unordered_map<GroupKey, std::uint32_t, GroupKeyHash> group_ids_;
  std::uint32_t last_group_ = kNone;
  std::vector<NodeFigure> node_figures_;
  std::vector<PairFigure> pair_figures_;
  std::unordered_map<std::uint64_t, std::uint32_t> pair_ids_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs_;
  Candidates candidates_;
};

}  // namespace

std::vector<Finding> judge_peers(const FleetStore& store, const PeerJudgeOptions& options) {
  return PeerJudge(store, options).run();
}

std::vector<Finding> judge_peer_measurements(const std::vector<Measurement>& measurements,
                                             const PeerJudgeOptions& options) {
  FleetStore store;
  const std::uint32_t run = store.add_run({});
  for (const Measurement& m : measurements) store.add(m, run);
  return judge_peers(store, options);
}

}  // namespace fabcheck
