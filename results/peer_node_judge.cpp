// Peer judgement within and across nodes, in two threads.
#include "results/peer_judges.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <map>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

namespace fabcheck::peers {
namespace {

class NodeJudge {
 public:
  explicit NodeJudge(const PeerWork& work) : work_(work) {}

  // Subjects of a node against their siblings, and nodes against the fleet, in two threads: each
  // takes whole families (probe, metric, conditions), all of a family's sizes, so that a family's
  // findings (one per subject, the worst size shown) are proposed in the same order as by one.
  void run() {
    const std::vector<std::size_t> starts =
        scatter_by_group(work_.figures.node_figures, work_.figures.groups.size());
    std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::size_t> family_sizes;
    for (std::size_t g = 0; g < work_.figures.groups.size(); ++g) {
      const GroupKey& key = work_.figures.groups[g].key;
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
    for (std::uint32_t g = 0; g < work_.figures.groups.size(); ++g) {
      const GroupKey& key = work_.figures.groups[g].key;
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
      judge_node_groups(groups[0], starts, work_.into);
    } catch (...) {
      helper.join();
      throw;
    }
    helper.join();
    if (failure) std::rethrow_exception(failure);
    work_.into.merge(second);  // no key in both: each names its family
  }

  // run's work for `group_ids` (ascending), whose figures begin at `starts`.
  // Sorts those groups' figures (no other thread touches them) and judges them.
  void judge_node_groups(const std::vector<std::uint32_t>& group_ids,
                         const std::vector<std::size_t>& starts, Candidates& into) {
    std::vector<NodeFigure>& figures = work_.figures.node_figures;
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
        const Group& group = work_.figures.groups[first.group];
        if (values.size() >= 2 && !group.within_node_elsewhere) {
          const OutlierReport report = find_outliers(values, policy_for(work_.options, group));
          for (const Outlier& outlier : report.outliers) {
            const auto [subject, peer] = subjects[outlier.index];
            std::string who = work_.words.text(subject) +
                              (peer != 0 ? " -> " + work_.words.text(peer) : std::string());
            Finding f = work_.words.base(group, first.host, work_.words.text(subject), outlier);
            std::vector<std::pair<std::string, double>> named;
            for (std::size_t k = 0; k < values.size(); ++k) {
              named.emplace_back(
                  work_.words.text(subjects[k].first) +
                      (subjects[k].second ? "->" + work_.words.text(subjects[k].second) : ""),
                  values[k]);
            }
            f.message = fmt::format(
                "{}: {} {} {}{}: {} {} is {} {} the median {} {} of its {} sibling {} on the node"
                "{}; expectation inferred from its peers",
                work_.words.text(first.host), who, f.probe, f.metric, work_.words.size_words(group),
                format_value(outlier.value), f.unit, work_.words.gap_words(outlier),
                work_.words.side_words(group), format_value(outlier.reference), f.unit,
                values.size(), peer != 0 ? "pairs" : "subjects",
                work_.words.tier_words(group, outlier.value, outlier.reference));
            f.evidence =
                fmt::format("{} {} per {}: {}; median {}, MAD {}", f.probe, f.metric,
                            peer != 0 ? "pair" : "subject", work_.words.listing(named),
                            format_value(report.peers.median), format_value(report.peers.mad));
            f.source = work_.words.source_words(values.size(), "siblings on the node");
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
        const Group& group = work_.figures.groups[first.group];
        const OutlierReport report = find_outliers(values, policy_for(work_.options, group));
        for (const Outlier& outlier : report.outliers) {
          const NodeValue& node = node_values[i + outlier.index];
          const std::string subject = node.only_subject != kNone
                                          ? work_.words.text(node.only_subject)
                                          : work_.figures.local.text(node.cls) + " (all)";
          Finding f = work_.words.base(group, node.host, subject, outlier);
          f.message = fmt::format(
              "{}: {} {}{} of {}: {} {}{} is {} {} the fleet median {} {} of {} nodes{}; "
              "expectation inferred from its peers",
              work_.words.text(node.host), f.probe, f.metric, work_.words.size_words(group),
              subject, format_value(outlier.value), f.unit,
              node.subjects > 1 ? fmt::format(" (median of its {})", node.subjects) : "",
              work_.words.gap_words(outlier), work_.words.side_words(group),
              format_value(outlier.reference), f.unit, values.size(),
              work_.words.tier_words(group, outlier.value, outlier.reference));
          f.evidence = fmt::format("node medians of {} nodes: median {}, MAD {}; this node {}",
                                   values.size(), format_value(report.peers.median),
                                   format_value(report.peers.mad), format_value(outlier.value));
          f.source = work_.words.source_words(values.size(), "nodes");
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

 private:
  const PeerWork work_;
};

}  // namespace

void judge_node_figures(const PeerWork& work) { NodeJudge(work).run(); }

}  // namespace fabcheck::peers
