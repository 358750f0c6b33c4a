// Waivers grouped by probe and reason, and where each group's waivers are, as one line.
#include "results/waiver_groups.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include "bench/sys/cpu_list.hpp"

namespace fabcheck {
std::string waiver_reason(const Finding& waiver) {
  const std::string& message = waiver.message;
  constexpr std::string_view kWaived = " waived: ";
  if (waiver.probe.empty() || message.rfind(waiver.probe, 0) != 0) return message;
  const std::string_view after = std::string_view(message).substr(waiver.probe.size());
  if (after.rfind(kWaived, 0) != 0 && after.rfind(" on ", 0) != 0) return message;
  const auto marker = after.find(kWaived);
  if (marker == std::string_view::npos) return message;
  return std::string(after.substr(marker + kWaived.size()));
}

std::vector<WaiverGroup> waiver_groups(const std::vector<Finding>& findings) {
  std::vector<WaiverGroup> groups;
  std::map<std::pair<std::string, std::string>, std::size_t> index;
  for (const Finding& finding : findings) {
    if (finding.severity != Severity::waived) continue;
    std::string reason = waiver_reason(finding);
    const auto [at, added] = index.try_emplace({finding.probe, reason}, groups.size());
    if (added) groups.push_back({finding.probe, std::move(reason), {}});
    groups[at->second].waivers.push_back(&finding);
  }
  return groups;
}

std::string waiver_places(const WaiverGroup& group) {
  std::vector<std::string> hosts;
  std::set<int> ranks;
  bool every_rank_named = true;
  for (const Finding* waiver : group.waivers) {
    if (!waiver->host.empty() && std::find(hosts.begin(), hosts.end(), waiver->host) == hosts.end())
      hosts.push_back(waiver->host);
    if (waiver->rank >= 0) {
      ranks.insert(waiver->rank);
    } else {
      every_rank_named = false;
    }
  }
  if (hosts.empty()) return "";
  std::string nodes = hosts.front();
  if (hosts.size() > 1) {
    nodes = fmt::format("{} nodes: ", hosts.size());
    for (std::size_t i = 0; i < hosts.size() && i < kMostNodesNamed; ++i)
      nodes += (i ? ", " : "") + hosts[i];
    if (hosts.size() > kMostNodesNamed)
      nodes += fmt::format(", +{} more", hosts.size() - kMostNodesNamed);
  }
  // One waiver a node: the node says where. Several on a node: which ranks, or how many.
  if (group.waivers.size() == hosts.size()) return "on " + nodes;
  if (every_rank_named && ranks.size() == group.waivers.size())
    return "ranks " + format_cpu_list({ranks.begin(), ranks.end()}, ", ") + " on " + nodes;
  return fmt::format("{} findings on {}", group.waivers.size(), nodes);
}

std::string waiver_group_line(const WaiverGroup& group) {
  const std::string places = waiver_places(group);
  return group.probe + ": " + group.reason + (places.empty() ? "" : " (" + places + ")");
}

}  // namespace fabcheck
