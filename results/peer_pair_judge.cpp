// Peer judgement across node pairs: pairs, rails, and the ends (HCAs, nodes) slow in most pairs.
#include "results/peer_judges.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace fabcheck::peers {
namespace {

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

class PairJudge {
 public:
  explicit PairJudge(const PeerWork& work) : work_(work) {}

  void run() {
    auto& figures = work_.figures.pair_figures;
    sort_by_group(figures, work_.figures.groups.size(),
                  [](const PairFigure& a, const PairFigure& b) {
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
      const Group& group = work_.figures.groups[group_id];
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
          const OutlierReport report = find_outliers(values, policy_for(work_.options, group));
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
              work_.options.node_pair_share * static_cast<double>(counts.pairs)) {
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
      const std::string name = work_.figures.local.text(hca);
      Finding f = work_.words.base(group, host, name, summary);
      std::string partners;
      for (const std::uint32_t pair : counts.partners) {
        const auto& [a, b] = work_.figures.pairs[pair];
        partners += (partners.empty() ? "" : ", ") + work_.words.text(a == host ? b : a);
      }
      f.message = fmt::format(
          "{}: {} {} {}{}: slow in {} of its {} node pairs, whichever end measured (worst {} {}, "
          "{} {} the median {} {} of the {} rails of its pair{}); this end's HCA, not its "
          "partners",
          work_.words.text(host), name, f.probe, f.metric, work_.words.size_words(group),
          counts.slow_pairs, counts.pairs, format_value(summary.value), f.unit,
          work_.words.gap_words(summary), work_.words.side_words(group),
          format_value(summary.reference), f.unit, worst->rails,
          work_.words.tier_words(group, summary.value, summary.reference));
      f.evidence = fmt::format("{}/{} slow with {}; rails of the worst pair: median {}, MAD {}",
                               work_.words.text(host), name, partners,
                               format_value(worst->peers.median), format_value(worst->peers.mad));
      f.source = work_.words.source_words(worst->rails, "rails of the pair");
      f.remedy =
          "check this HCA's port and cable and the switch port it reaches (mlxlink, ibdiagnet); "
          "its partners are fine on the same rail with other nodes";
      propose(work_.into,
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
          work_.words.base(group, rail.host,
                           work_.words.text(rail.host) + "/" + work_.words.text(rail.subject) +
                               "--" + work_.words.text(rail.peer),
                           outlier);
      f.message = fmt::format(
          "{}: {} -> {}: {} {}{}: {} {} is {} {} the median {} {} of the {} rails between "
          "these two nodes{}; a rail, not the nodes",
          work_.words.text(rail.host), work_.words.text(rail.subject), work_.words.text(rail.peer),
          f.probe, f.metric, work_.words.size_words(group), format_value(outlier.value), f.unit,
          work_.words.gap_words(outlier), work_.words.side_words(group),
          format_value(outlier.reference), f.unit, o.rails,
          work_.words.tier_words(group, outlier.value, outlier.reference));
      f.evidence = fmt::format("rails of {}--{}: median {}, MAD {}",
                               work_.words.text(work_.figures.pairs[rail.pair].first),
                               work_.words.text(work_.figures.pairs[rail.pair].second),
                               format_value(o.peers.median), format_value(o.peers.mad));
      f.source = work_.words.source_words(o.rails, "rails of the pair");
      f.remedy =
          "check this HCA's port and cable and the switch port it reaches (mlxlink, "
          "ibdiagnet); the other rails between the same nodes are fine";
      propose(work_.into,
              fmt::format("3r|{}|{}|{}|{}|{}|{}", group.key.probe, group.key.metric, group.key.cond,
                          rail.host, rail.subject, rail.peer),
              std::move(f), outlier);
    }
  }

  void judge_pair_values(const Group& group, const std::vector<PairValue>& pair_values) {
    if (pair_values.size() < 2) return;
    std::vector<double> values;
    for (const PairValue& p : pair_values) values.push_back(p.value);
    const OutlierReport report = find_outliers(values, policy_for(work_.options, group));
    if (report.outliers.empty()) return;
    // A node in most of the slow pairs it is part of is the node's fault, not each partner's.
    std::map<std::uint32_t, std::pair<std::size_t, std::size_t>> by_host;  // pairs, slow pairs
    for (const PairValue& p : pair_values) {
      ++by_host[work_.figures.pairs[p.pair].first].first;
      ++by_host[work_.figures.pairs[p.pair].second].first;
    }
    for (const Outlier& outlier : report.outliers) {
      const auto& [a, b] = work_.figures.pairs[pair_values[outlier.index].pair];
      ++by_host[a].second;
      ++by_host[b].second;
    }
    std::set<std::uint32_t> slow_nodes;
    for (const auto& [host, counts] : by_host) {
      if (counts.second >= 2 &&
          static_cast<double>(counts.second) >=
              work_.options.node_pair_share * static_cast<double>(counts.first)) {
        slow_nodes.insert(host);
      }
    }
    for (const std::uint32_t host : slow_nodes) {
      std::vector<const Outlier*> mine;
      for (const Outlier& outlier : report.outliers) {
        const auto& [a, b] = work_.figures.pairs[pair_values[outlier.index].pair];
        if (a == host || b == host) mine.push_back(&outlier);
      }
      const Outlier* worst = *std::max_element(mine.begin(), mine.end(), [](auto* x, auto* y) {
        return std::fabs(x->relative_gap) < std::fabs(y->relative_gap);
      });
      Outlier summary = *worst;
      summary.fail = std::any_of(mine.begin(), mine.end(), [](auto* o) { return o->fail; });
      Finding f = work_.words.base(group, host, "node", summary);
      f.message = fmt::format(
          "{}: {} {}{}: {} of its {} node pairs are {} the median {} {} of {} pairs (worst {} "
          "{}); the node, not its partners",
          work_.words.text(host), f.probe, f.metric, work_.words.size_words(group),
          by_host[host].second, by_host[host].first, work_.words.side_words(group),
          format_value(report.peers.median), f.unit, values.size(), format_value(worst->value),
          f.unit);
      f.evidence = fmt::format("pair medians: median {}, MAD {}; {} slow pairs of {}",
                               format_value(report.peers.median), format_value(report.peers.mad),
                               by_host[host].second, by_host[host].first);
      f.source = work_.words.source_words(values.size(), "node pairs");
      f.remedy =
          "check this node's HCAs, cables and its switch ports; its partners are fine "
          "with other nodes";
      propose(
          work_.into,
          fmt::format("3n|{}|{}|{}|{}", group.key.probe, group.key.metric, group.key.cond, host),
          std::move(f), summary);
    }
    for (const Outlier& outlier : report.outliers) {
      auto [a, b] = work_.figures.pairs[pair_values[outlier.index].pair];
      if (slow_nodes.count(a) || slow_nodes.count(b)) continue;
      if (work_.words.text(b) < work_.words.text(a))
        std::swap(a, b);  // by name: string ids follow the reading order
      const std::string subject = work_.words.text(a) + "--" + work_.words.text(b);
      Finding f = work_.words.base(group, a, subject, outlier);
      f.message = fmt::format(
          "{}: {} {}{}: {} {} between {} and {} is {} {} the median {} {} of {} node pairs{}; "
          "both nodes are fine with other partners: the path between them",
          subject, f.probe, f.metric, work_.words.size_words(group), format_value(outlier.value),
          f.unit, work_.words.text(a), work_.words.text(b), work_.words.gap_words(outlier),
          work_.words.side_words(group), format_value(outlier.reference), f.unit, values.size(),
          work_.words.tier_words(group, outlier.value, outlier.reference));
      f.evidence = fmt::format("pair medians: median {}, MAD {}; this pair {}",
                               format_value(report.peers.median), format_value(report.peers.mad),
                               format_value(outlier.value));
      f.source = work_.words.source_words(values.size(), "node pairs");
      f.remedy =
          "check the cables and switch ports on the path between these two nodes (the "
          "leaf or spine they cross: ibdiagnet, ibtracert)";
      propose(
          work_.into,
          fmt::format("3p|{}|{}|{}|{}", group.key.probe, group.key.metric, group.key.cond, subject),
          std::move(f), outlier);
    }
  }

 private:
  const PeerWork work_;
};

}  // namespace

void judge_pair_figures(const PeerWork& work) { PairJudge(work).run(); }

}  // namespace fabcheck::peers
