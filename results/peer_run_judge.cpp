// Peer judgement across runs only: a shared path's figures of nodes each measured alone on it
// (the only host of its run there), against the other nodes measured alike. Never within a run:
// several ranks or hosts of one run on one filesystem split it, and their figures are shares.
#include "results/peer_judges.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace fabcheck::peers {
namespace {

// The policy for a group of figures compared across runs: its worse side, the wider gap, and at
// least three nodes (two cannot tell a slow node from a busy filesystem while the other ran).
OutlierPolicy across_runs_policy(const PeerJudgeOptions& options, const Group& group) {
  OutlierPolicy policy = policy_for(options, group);
  policy.min_relative_gap = std::max(policy.min_relative_gap, options.across_runs_min_gap);
  policy.fail_relative_gap = std::max(policy.fail_relative_gap, policy.min_relative_gap);
  policy.min_peers = std::max<std::size_t>(policy.min_peers, 3);
  return policy;
}

std::string ranks_words(std::uint32_t ranks) {
  if (ranks == 0) return "";
  return fmt::format(" ({} rank{} of the node)", ranks, ranks == 1 ? "" : "s");
}

}  // namespace

void judge_run_figures(const PeerWork& work) {
  std::vector<RunFigure>& figures = work.figures.run_figures;
  sort_by_group(figures, work.figures.groups.size(), [](const RunFigure& a, const RunFigure& b) {
    return std::tie(a.subject, a.ranks, a.host, a.run, a.value) <
           std::tie(b.subject, b.ranks, b.host, b.run, b.value);
  });
  std::vector<double> values, same;
  std::vector<std::uint32_t> hosts;
  std::vector<std::size_t> runs;
  std::size_t i = 0;
  while (i < figures.size()) {
    // One bucket: like for like (probe, metric, conditions, size, the path, ranks per node).
    const RunFigure& first = figures[i];
    std::size_t end = i;
    while (end < figures.size() && figures[end].group == first.group &&
           figures[end].subject == first.subject && figures[end].ranks == first.ranks) {
      ++end;
    }
    values.clear();
    hosts.clear();
    runs.clear();
    for (std::size_t j = i; j < end;) {
      // A node's figure: the median of its figures here (its runs; its ranks' with --every-rank).
      std::size_t k = j;
      same.clear();
      std::size_t run_count = 0;
      while (k < end && figures[k].host == figures[j].host) {
        if (k == j || figures[k].run != figures[k - 1].run) ++run_count;
        same.push_back(figures[k].value);
        ++k;
      }
      values.push_back(median_of(same));
      hosts.push_back(figures[j].host);
      runs.push_back(run_count);
      j = k;
    }
    const Group& group = work.figures.groups[first.group];
    const OutlierPolicy policy = across_runs_policy(work.options, group);
    const OutlierReport report = find_outliers(values, policy);
    const std::string& path = work.words.text(first.subject);
    for (const Outlier& outlier : report.outliers) {
      const std::uint32_t host = hosts[outlier.index];
      Finding f = work.words.base(group, host, path, outlier);
      f.severity = Severity::warn;  // the node, or the filesystem busy while it ran
      f.message = fmt::format(
          "{}: {} {}{} on {}{}: {} {} is {} {} the fleet median {} {} of {} nodes each measured "
          "alone on this path (same probe, conditions, size and ranks per node){}; a node-side "
          "fault (its filesystem client, mount options, NIC) or contention on the shared "
          "filesystem while it ran; expectation inferred from the fleet's peers",
          work.words.text(host), f.probe, f.metric, work.words.size_words(group), path,
          ranks_words(first.ranks), format_value(outlier.value), f.unit,
          work.words.gap_words(outlier), work.words.side_words(group),
          format_value(report.peers.median), f.unit, values.size(),
          work.words.tier_words(group, outlier.value, report.peers.median));
      std::vector<std::pair<std::string, double>> named;
      for (std::size_t k = 0; k < values.size(); ++k) {
        named.emplace_back(work.words.text(hosts[k]), values[k]);
      }
      std::sort(named.begin(), named.end());  // by host name
      f.evidence = fmt::format(
          "{} {} on {} per node (each the only host on it in its run): {}; median {}, MAD {}; "
          "this node {} over {} run{}",
          f.probe, f.metric, path, work.words.listing(named), format_value(report.peers.median),
          format_value(report.peers.mad), format_value(outlier.value), runs[outlier.index],
          runs[outlier.index] == 1 ? "" : "s");
      f.source = fmt::format(
          "inferred: median of {} nodes each measured alone on this shared path "
          "(results/robust_stats.hpp: named beyond {:.0f}% and {:.1f} robust sigmas from it, "
          "among at least {} nodes; a WARN only, since the filesystem's other clients load it "
          "differently from one node's run to the next)",
          values.size(), policy.min_relative_gap * 100, policy.robust_z, policy.min_peers);
      f.remedy =
          "re-run it on this node alone at a quiet time, and on a healthy node right after; if it "
          "stays behind, compare it with a healthy node: the filesystem client and its version, "
          "the mount options (/proc/mounts: rsize/wsize, nconnect, striping), the storage NIC "
          "(link rate, MTU, error counters); near the median at a quiet time, it was contention";
      propose(work.into,
              fmt::format("3|{}|{}|{}|{}|{}|{}", group.key.probe, group.key.metric, group.key.cond,
                          first.subject, first.ranks, host),
              std::move(f), outlier);
    }
    i = end;
  }
}

}  // namespace fabcheck::peers
