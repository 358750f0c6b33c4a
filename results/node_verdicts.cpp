// Per-node verdicts and the scheduler's actions: grouping findings by the one node they name.
#include "results/node_verdicts.hpp"

#include <algorithm>
#include <set>

#include "results/record_json.hpp"
#include "results/repair.hpp"

namespace fabcheck {
namespace {

constexpr Severity kAllSeverities[] = {Severity::pass, Severity::warn, Severity::fail,
                                       Severity::waived, Severity::error};

nlohmann::json counts_json(const std::map<Severity, int>& counts) {
  nlohmann::json out = nlohmann::json::object();
  for (Severity s : kAllSeverities) {
    const auto it = counts.find(s);
    out[to_string(s)] = it == counts.end() ? 0 : it->second;
  }
  return out;
}

nlohmann::json brief(const Finding& f) {
  return {{"severity", to_string(f.severity)},
          {"probe", f.probe},
          {"subject", f.subject},
          {"message", f.message}};
}

}  // namespace

std::vector<std::string> hosts_named(const Finding& finding,
                                     const std::vector<std::string>& hosts) {
  const std::string& text = finding.host;
  if (text.empty()) return {};
  const std::set<std::string> known(hosts.begin(), hosts.end());
  // A host of the run is that one node, whatever its name holds (a comma included).
  if (known.count(text) != 0) return {text};
  // Otherwise a join of two or more of the run's hosts (a figure across them): split at commas
  // into names of the run, where such a split exists (names may hold commas themselves). from[i]:
  // where the part ending at i began, for every i a split reaches (the first part starts at 0).
  std::vector<std::size_t> cuts;  // the commas of `text`, then its end
  for (std::size_t i = text.find(','); i != std::string::npos; i = text.find(',', i + 1))
    cuts.push_back(i);
  cuts.push_back(text.size());
  constexpr std::size_t kUnreached = std::string::npos;
  std::vector<std::size_t> from(cuts.size(), kUnreached);
  for (std::size_t end = 0; end < cuts.size(); ++end) {
    if (known.count(text.substr(0, cuts[end])) != 0) from[end] = 0;
    for (std::size_t start = 0; start < end && from[end] == kUnreached; ++start) {
      if (from[start] == kUnreached) continue;
      const std::size_t begin = cuts[start] + 1;
      if (known.count(text.substr(begin, cuts[end] - begin)) != 0) from[end] = begin;
    }
  }
  if (from.back() == kUnreached) return {text};  // not the run's hosts: a node of its own
  std::vector<std::string> parts;
  for (std::size_t end = text.size();;) {
    const std::size_t index =
        static_cast<std::size_t>(std::find(cuts.begin(), cuts.end(), end) - cuts.begin());
    const std::size_t begin = from[index];
    parts.insert(parts.begin(), text.substr(begin, end - begin));
    if (begin == 0) break;
    end = begin - 1;
  }
  return parts;
}

bool names_one_node(const Finding& finding, const std::vector<std::string>& hosts) {
  return hosts_named(finding, hosts).size() == 1;
}

std::vector<NodeVerdict> node_verdicts(const std::vector<Finding>& findings,
                                       const std::vector<std::string>& hosts, bool incomplete) {
  std::vector<NodeVerdict> nodes;
  std::map<std::string, std::size_t> index;
  auto node_for = [&](const std::string& host) -> NodeVerdict& {
    auto [it, added] = index.try_emplace(host, nodes.size());
    if (added) {
      nodes.push_back({});
      nodes.back().host = host;
      for (Severity s : kAllSeverities) nodes.back().counts[s] = 0;
    }
    return nodes[it->second];
  };
  for (const std::string& host : hosts) node_for(host);
  std::map<std::string, std::vector<Finding>> mine;
  for (std::size_t i = 0; i < findings.size(); ++i) {
    const Finding& f = findings[i];
    if (!names_one_node(f, hosts)) continue;
    NodeVerdict& node = node_for(f.host);
    ++node.counts[f.severity];
    if (f.severity == Severity::fail || f.severity == Severity::error ||
        f.severity == Severity::warn)
      node.findings.push_back(i);
    mine[f.host].push_back(f);
  }
  for (NodeVerdict& node : nodes) {
    node.verdict = verdict_of(mine[node.host], incomplete);
    std::stable_sort(node.findings.begin(), node.findings.end(), [&](std::size_t a, std::size_t b) {
      return severity_order(findings[a].severity) < severity_order(findings[b].severity);
    });
  }
  return nodes;
}

std::string printable_line(const std::string& what, std::size_t limit) {
  // A control character becomes a space; never two spaces in a row, none at either end.
  std::string text;
  for (const char c : valid_utf8(what)) {
    const auto byte = static_cast<unsigned char>(c);
    const char mark = (byte < 0x20 || byte == 0x7f) ? ' ' : c;
    if (mark == ' ' && (text.empty() || text.back() == ' ')) continue;
    text += mark;
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  if (text.size() <= limit) return text;
  std::size_t cut = limit > 3 ? limit - 3 : 0;
  // Back to the start of a UTF-8 character (never inside one).
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "...";
}

std::string scheduler_reason(const std::string& what, std::size_t limit) {
  // A quote or backslash becomes ` (readable, and no quoting for scontrol or a shell to undo).
  std::string text = "fabcheck: " + what;
  for (char& c : text) {
    if (c == '"' || c == '\'' || c == '\\') c = '`';
  }
  return printable_line(text, limit);
}

std::vector<NodeAction> node_actions(const std::vector<NodeVerdict>& nodes,
                                     const std::vector<Finding>& findings,
                                     const std::string& incomplete_reason,
                                     const RepairTable& repairs) {
  std::vector<NodeAction> actions;
  for (const NodeVerdict& node : nodes) {
    if (node.verdict == Verdict::fail) {
      const int fails = node.counts.at(Severity::fail);
      const Finding& first = findings[node.findings.front()];
      std::string what = first.message;
      if (fails > 1) what += " (+" + std::to_string(fails - 1) + " more)";
      const Repair repair = repair_of(first, repairs);
      FailKind kind = FailKind::noisy_figure;
      for (const std::size_t index : node.findings) {
        const Finding& finding = findings[index];
        if (finding.severity == Severity::fail &&
            repair_of(finding, repairs).kind == FailKind::fact)
          kind = FailKind::fact;
      }
      actions.push_back(
          {node.host, "drain", scheduler_reason(what), repair.code, repair.action, kind});
    } else if (node.verdict == Verdict::incomplete) {
      std::string why = incomplete_reason;
      if (why.empty() && !node.findings.empty()) why = findings[node.findings.front()].message;
      actions.push_back(hold_action(node.host, why));
    }
  }
  return actions;
}

NodeAction hold_action(const std::string& host, const std::string& why) {
  const Repair repair = repair_of_incomplete();
  return {host, "hold", scheduler_reason("incomplete" + (why.empty() ? "" : ": " + why)),
          repair.code, repair.action};
}

nlohmann::json node_action_json(const NodeAction& action) {
  nlohmann::json out = {{"host", action.host},
                        {"reason", action.reason},
                        {"code", action.code},
                        {"repair", action.repair}};
  if (action.action == "drain") out["noisy"] = action.kind == FailKind::noisy_figure;
  return out;
}

std::string remedy_with_operator_action(const Finding& finding,
                                        const std::vector<std::string>& hosts) {
  if (finding.severity != Severity::fail || !names_one_node(finding, hosts)) return finding.remedy;
  std::string remedy = "drain " + finding.host + ": " + finding.message;
  if (!finding.remedy.empty()) remedy += "; then " + finding.remedy;
  return remedy;
}

nlohmann::json node_answers_json(const std::vector<NodeVerdict>& nodes,
                                 const std::vector<NodeAction>& actions,
                                 const std::vector<Finding>& findings) {
  std::vector<std::string> hosts;
  for (const NodeVerdict& node : nodes) hosts.push_back(node.host);
  nlohmann::json out = {{"nodes", nlohmann::json::array()},
                        {"drain", nlohmann::json::array()},
                        {"hold", nlohmann::json::array()},
                        {"across_nodes", nlohmann::json::array()}};
  for (const NodeVerdict& node : nodes) {
    nlohmann::json worst = nlohmann::json::array();
    for (std::size_t i = 0; i < node.findings.size() && i < 5; ++i)
      worst.push_back(brief(findings[node.findings[i]]));
    out["nodes"].push_back({{"host", node.host},
                            {"verdict", to_string(node.verdict)},
                            {"counts", counts_json(node.counts)},
                            {"worst", worst}});
  }
  for (const NodeAction& action : actions) out[action.action].push_back(node_action_json(action));
  for (const Finding& f : findings) {
    if (f.severity == Severity::fail && !names_one_node(f, hosts)) {
      nlohmann::json entry = brief(f);
      entry["hosts"] = f.host;
      out["across_nodes"].push_back(entry);
    }
  }
  return out;
}

}  // namespace fabcheck
