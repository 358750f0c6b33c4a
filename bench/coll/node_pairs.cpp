// coll.node_pairs' options, records, console text and judge.
#include "bench/coll/node_pairs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "bench/sys/config_error.hpp"
#include "bench/sys/text_scan.hpp"
#include "results/evaluator.hpp"
#include "results/host_pair_matrix.hpp"
#include "results/robust_stats.hpp"
#include "results/units.hpp"

namespace fabcheck {

namespace {

constexpr const char* kMatrixMetric = "exchange_busbw";
constexpr const char* kMinGapSetting = "pair_min_gap";

double parse_gap(const std::string& text, const std::string& what) {
  std::size_t used = 0;
  double gap = 0;
  try {
    gap = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || !(gap > 0 && gap < 1)) {
    throw ConfigError(what + " = \"" + text +
                      "\": expected a fraction between 0 and 1 (0.5: a pair "
                      "below half of the cluster's median pair is slow)");
  }
  return gap;
}

LocalisationRule rule_from_profile(const Profile& profile) {
  LocalisationRule rule;
  const auto it = profile.node.find(kMinGapSetting);
  if (it == profile.node.end()) return rule;
  try {
    rule.min_gap = parse_gap(it->second, std::string("[node] ") + kMinGapSetting);
  } catch (const ConfigError& error) {
    throw ConfigError(profile.path.empty() ? profile.name : profile.path,
                      profile.node_lines.at(kMinGapSetting), error.what());
  }
  return rule;
}

const std::string& name_of(const PairMatrix& matrix, int node) {
  return matrix.nodes()[static_cast<std::size_t>(node)];
}

std::string pair_name(const PairMatrix& matrix, NodePair pair) {
  return link_subject(name_of(matrix, pair.a), name_of(matrix, pair.b));
}

std::string gbps(double value) { return std::isnan(value) ? "-" : fmt::format("{:.3g}", value); }

std::string percent_of(double value, double reference) {
  return reference > 0 ? fmt::format("{:.0f} %", 100 * value / reference) : "-";
}

// "n0,n1": the nodes of group `g`.
std::string members_of(const PairMatrix& matrix, const NodeGroups& groups, int g) {
  std::string text;
  for (int node = 0; node < matrix.size(); ++node) {
    if (groups.group_of(node) == g) text += (text.empty() ? "" : ",") + name_of(matrix, node);
  }
  return text;
}

std::string group_name(const NodeGroups& groups, int g) {
  return groups.names[static_cast<std::size_t>(g)];
}

// "leaf0 > spine > leaf1", or "" when the route is not known.
std::string route_text(const NodeGroups& groups, const SlowBlock& block) {
  std::string text;
  for (const auto& hop : groups.route(block.a, block.b)) text += (text.empty() ? "" : " > ") + hop;
  return text;
}

// "n0--n2 0.004, n1--n3 0.005": a block's pairs measured again.
std::string again_text(const PairMatrix& matrix, const std::vector<PairFigure>& second,
                       const SlowBlock& block) {
  std::string text;
  for (const auto& pair : block.again) {
    text += (text.empty() ? "" : ", ") +
            link_subject(name_of(matrix, pair.a), name_of(matrix, pair.b)) + " " +
            gbps(second_value(second, pair));
  }
  return text;
}

// "n1 0.02, n2 0.02, n3 1.1": a node's partners and the pair figures (GB/s).
std::string partners_of(const PairMatrix& matrix, int node) {
  std::string text;
  for (int other = 0; other < matrix.size(); ++other) {
    if (other == node || std::isnan(matrix.at(node, other))) continue;
    text +=
        (text.empty() ? "" : ", ") + name_of(matrix, other) + " " + gbps(matrix.at(node, other));
  }
  return text;
}

// "n0 0.02, n3 1.1": the second pass's pairs of `node` (but the one with `except`).
std::string second_pass_of(const PairMatrix& matrix, const std::vector<PairFigure>& second,
                           int node, int except = -1) {
  std::string text;
  for (const auto& figure : second) {
    if (figure.pair.a != node && figure.pair.b != node) continue;
    const int other = figure.pair.a == node ? figure.pair.b : figure.pair.a;
    if (other == except) continue;
    text += (text.empty() ? "" : ", ") + name_of(matrix, other) + " " + gbps(figure.value);
  }
  return text;
}

Finding base_finding(Severity severity, const PairRecords& records, const PairSuspects& suspects) {
  Finding finding;
  finding.severity = severity;
  finding.probe = kNodePairsProbe;
  finding.metric = kMatrixMetric;
  finding.unit = "GB/s";
  finding.size_bytes = records.size_bytes;
  finding.expected = suspects.threshold;
  finding.source = fmt::format(
      "peers: the cluster's own level, {} GB/s ({}); slow below {} GB/s", gbps(suspects.reference),
      suspects.groups.count() >= 2
          ? "the higher of the median over nodes of each node's median pair and the upper median "
            "of the blocks' median pairs, a block: the pairs inside one group or between two"
          : "median over nodes of each node's median pair",
      gbps(suspects.threshold));
  return finding;
}

// The nodes of groups a and b, comma-joined: a finding about them all drains none of them.
std::string hosts_of_groups(const PairMatrix& matrix, const NodeGroups& groups, int a, int b) {
  return members_of(matrix, groups, a) + "," + members_of(matrix, groups, b);
}

// Each slow switch link the second pass confirmed (FAIL with a topology, WARN for inferred
// groups), and each it could not measure again (WARN). A group slow with most others is one
// finding about its uplink.
void append_switch_findings(const PairRecords& records, const PairSuspects& suspects,
                            const Localisation& found, const std::string& matrix_text,
                            std::vector<Finding>& findings) {
  const PairMatrix& matrix = records.first;
  const NodeGroups& groups = suspects.groups;
  const std::string origin =
      groups.inferred
          ? "groups inferred from the matrix (no topology given: fast among themselves, slow "
            "between)"
          : "leaf switches from " + (records.topology.empty() ? "the topology" : records.topology);
  auto block_at = [&](int i) -> const SlowBlock& {
    return suspects.blocks[static_cast<std::size_t>(i)];
  };
  auto inside = [&](int g) {
    std::vector<double> values;
    for (int a = 0; a < matrix.size(); ++a) {
      for (int b = a + 1; b < matrix.size(); ++b) {
        if (groups.group_of(a) == g && groups.group_of(b) == g) values.push_back(matrix.at(a, b));
      }
    }
    const double median = median_of(values);
    return std::isnan(median) ? std::string("no pair inside")
                              : fmt::format("median {} GB/s", gbps(median));
  };
  std::set<int> covered;
  for (int g : suspects.uplinks) {
    std::vector<int> mine;
    for (int i : found.bad_blocks) {
      if (block_at(i).a == g || block_at(i).b == g) mine.push_back(i);
    }
    if (mine.size() < 2) continue;
    std::string others;
    std::string again;
    std::string hosts = members_of(matrix, groups, g);
    double worst = std::numeric_limits<double>::infinity();
    for (int i : mine) {
      const SlowBlock& block = block_at(i);
      const int other = block.a == g ? block.b : block.a;
      others +=
          fmt::format("{}{} ({} of {} pairs slow, median {} GB/s)", others.empty() ? "" : "; ",
                      group_name(groups, other), block.slow, block.measured, gbps(block.median));
      again += (again.empty() ? "" : ", ") + again_text(matrix, records.confirm, block);
      hosts += "," + members_of(matrix, groups, other);
      worst = std::min(worst, block.median);
      covered.insert(i);
    }
    Finding f = base_finding(groups.inferred ? Severity::warn : Severity::fail, records, suspects);
    f.subject = "uplink of " + group_name(groups, g);
    f.host = hosts;
    f.observed = worst;
    f.message = fmt::format(
        "the uplink of {} ({}) is slow: its nodes are slow with those of {}, below {} GB/s, and "
        "fine among themselves ({}); measured again: {} GB/s; {}; no node is at fault",
        group_name(groups, g), members_of(matrix, groups, g), others, gbps(suspects.threshold),
        inside(g), again, origin);
    f.evidence = matrix_text;
    f.remedy = "check the links from " + group_name(groups, g) +
               " to the switches above it: optics and cables, port rate and width, error "
               "counters on both ends (perfquery, ibqueryerrors), and what else crosses them; "
               "drain no node";
    findings.push_back(std::move(f));
  }
  for (int i : found.bad_blocks) {
    if (covered.count(i)) continue;
    const SlowBlock& block = block_at(i);
    const std::string a = group_name(groups, block.a);
    const std::string b = group_name(groups, block.b);
    const std::string route = route_text(groups, block);
    Finding f = base_finding(groups.inferred ? Severity::warn : Severity::fail, records, suspects);
    f.subject = a + "--" + b;
    f.host = hosts_of_groups(matrix, groups, block.a, block.b);
    f.observed = block.median;
    f.message = fmt::format(
        "the switch link between {} ({}) and {} ({}) is slow: {} of {} pairs between them below "
        "{} GB/s, median {} GB/s, {} of the cluster's {} GB/s; inside {} {}, inside {} {}; "
        "measured again: {} GB/s{}; {}; no node is at fault",
        a, members_of(matrix, groups, block.a), b, members_of(matrix, groups, block.b), block.slow,
        block.measured, gbps(suspects.threshold), gbps(block.median),
        percent_of(block.median, suspects.reference), gbps(suspects.reference), a, inside(block.a),
        b, inside(block.b), again_text(matrix, records.confirm, block),
        route.empty() ? "" : "; route " + route, origin);
    f.evidence = matrix_text;
    f.remedy = (route.empty() ? "check the switch links between the two groups"
                              : "check the switch links on the route " + route) +
               ": optics and cables, port rate and width, error counters on both ends "
               "(perfquery, ibqueryerrors), routing and congestion from other jobs; drain no "
               "node" +
               (groups.inferred ? "; give the fabric's topology (--opt pairs.topology=FILE) to "
                                  "have the leaves named"
                                : "");
    findings.push_back(std::move(f));
  }
  for (int i : found.unconfirmed_blocks) {
    const SlowBlock& block = block_at(i);
    Finding f = base_finding(Severity::warn, records, suspects);
    f.subject = group_name(groups, block.a) + "--" + group_name(groups, block.b);
    f.host = hosts_of_groups(matrix, groups, block.a, block.b);
    f.observed = block.median;
    f.message = fmt::format(
        "the switch link between {} and {} looks slow ({} of {} pairs below {} GB/s, median {} "
        "GB/s) but was not measured again; {}",
        group_name(groups, block.a), group_name(groups, block.b), block.slow, block.measured,
        gbps(suspects.threshold), gbps(block.median), origin);
    f.evidence = matrix_text;
    f.remedy = "rerun the sweep; if it stays slow, check the switch links between the two groups";
    findings.push_back(std::move(f));
  }
}

}  // namespace

const char* pair_pass_name(PairPass pass) { return pass == PairPass::first ? "first" : "confirm"; }

const OptionSpec& pair_schedule_option() {
  static const OptionSpec spec{.key = "pairs",
                               .type = OptionType::choice,
                               .default_value = "all",
                               .meaning =
                                   "node pairs of coll.node_pairs: all (circle method) or quick "
                                   "(a ring of neighbours and a few shuffles); bisect: "
                                   "coll.node_bisect runs in its place; --pairs sets it",
                               .choices = {"all", "quick", "bisect"}};
  return spec;
}

const OptionSpec& pair_min_gap_option() {
  static const OptionSpec spec{.key = "pairs.min_gap",
                               .type = OptionType::number,
                               .default_value = "0.5",
                               .meaning =
                                   "a pair below (1 - gap) x the cluster's median pair is slow "
                                   "(given here, it wins over the profile's [node] "
                                   "pair_min_gap)",
                               .min = 0,
                               .max = 1,
                               .min_exclusive = true,
                               .max_exclusive = true};
  return spec;
}

const OptionSpec& pair_topology_option() {
  static const OptionSpec spec{.key = "pairs.topology",
                               .type = OptionType::text,
                               .default_value = "",
                               .meaning =
                                   "a Slurm topology.conf (topology/tree: SwitchName= Nodes= / "
                                   "Switches=) naming each node's leaf switch: pairs between every "
                                   "two leaves are planned and a slow block between two leaves is "
                                   "named as their switch link; without it, groups are inferred "
                                   "from the matrix"};
  return spec;
}

const OptionSpec& pair_sizes_option(const std::string& backend) {
  static const auto make = [](const char* name) {
    return OptionSpec{.key = std::string("node_pairs.sizes.") + name,
                      .type = OptionType::size_sweep,
                      .default_value = "64K,4M",
                      .meaning = std::string("message sizes of coll.node_pairs on the ") + name +
                                 " backend (--sizes overrides)",
                      .budget_floor = std::string(name) == "nccl" ? "64M" : "1M"};
  };
  static const OptionSpec mpi = make("mpi");
  static const OptionSpec nccl = make("nccl");
  return backend == "nccl" ? nccl : mpi;
}

PairSchedule pair_schedule_from(const RunOptions& options) {
  return option_choice(options, pair_schedule_option()) == "quick" ? PairSchedule::quick
                                                                   : PairSchedule::all;
}

LocalisationRule localisation_rule_from(const RunOptions& options) {
  LocalisationRule rule;
  rule.min_gap = option_number(options, pair_min_gap_option());
  return rule;
}

LocalisationRule localisation_rule_of_run(const std::vector<Measurement>& measurements,
                                          const std::string& probe, const Profile& profile) {
  for (const Measurement& m : measurements) {
    if (m.probe != probe) continue;
    const std::string given = param_of(m, kPairMinGapParam);
    if (given.empty()) continue;
    LocalisationRule rule;
    rule.min_gap = parse_gap(given, probe + " record " + kPairMinGapParam);
    return rule;
  }
  return rule_from_profile(profile);
}

void validate_pair_min_gap(const Profile& profile) { rule_from_profile(profile); }

std::vector<MetricSpec> node_pairs_metrics() {
  return {
      {"exchange_time_us", {"us", Better::lower}},   {"exchange_algbw", {"GB/s", Better::higher}},
      {"exchange_busbw", {"GB/s", Better::higher}},  {"allreduce_time_us", {"us", Better::lower}},
      {"allreduce_algbw", {"GB/s", Better::higher}}, {"allreduce_busbw", {"GB/s", Better::higher}},
      {"wrong_elements", {"count", Better::lower}}};
}

namespace {

// `nodes` grouped by `leaf_of(node)` ("" : in no group), groups in order of first appearance, with
// `route(leaf_a, leaf_b)` between every two.
NodeGroups group_by_leaf(
    const std::vector<std::string>& nodes,
    const std::function<std::string(const std::string&)>& leaf_of,
    const std::function<std::vector<std::string>(const std::string&, const std::string&)>& route) {
  NodeGroups groups;
  for (const auto& node : nodes) {
    const std::string leaf = leaf_of(node);
    int index = -1;
    if (!leaf.empty()) {
      const auto it = std::find(groups.names.begin(), groups.names.end(), leaf);
      index = static_cast<int>(it - groups.names.begin());
      if (it == groups.names.end()) groups.names.push_back(leaf);
    }
    groups.of_node.push_back(index);
  }
  const auto count = static_cast<std::size_t>(groups.count());
  groups.routes.assign(count, std::vector<std::vector<std::string>>(count));
  for (std::size_t a = 0; a < count; ++a) {
    for (std::size_t b = 0; b < count; ++b)
      groups.routes[a][b] = route(groups.names[a], groups.names[b]);
  }
  return groups;
}

// The groups the records name (host_switch / peer_switch / switch_route), by node index.
NodeGroups groups_from_records(const std::vector<Measurement>& measurements,
                               const std::vector<std::string>& nodes, std::string& topology) {
  std::map<std::string, std::string> leaf_of;
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> routes;
  for (const Measurement& m : measurements) {
    if (m.probe != kNodePairsProbe) continue;
    const std::string host_switch = param_of(m, kHostSwitchParam);
    const std::string peer_switch = param_of(m, kPeerSwitchParam);
    if (!host_switch.empty()) leaf_of.try_emplace(m.host, host_switch);
    if (!peer_switch.empty()) leaf_of.try_emplace(m.peer, peer_switch);
    const std::string route = param_of(m, kSwitchRouteParam);
    if (!route.empty() && !host_switch.empty() && !peer_switch.empty()) {
      std::vector<std::string> hops;
      for (const std::string_view hop : text::split(route, ',')) hops.emplace_back(hop);
      routes.try_emplace({host_switch, peer_switch}, hops);
      routes.try_emplace({peer_switch, host_switch},
                         std::vector<std::string>(hops.rbegin(), hops.rend()));
    }
    if (topology.empty()) topology = param_of(m, kTopologyParam);
  }
  if (leaf_of.empty()) return {};
  return group_by_leaf(
      nodes,
      [&](const std::string& node) {
        const auto it = leaf_of.find(node);
        return it == leaf_of.end() ? std::string() : it->second;
      },
      [&](const std::string& a, const std::string& b) {
        const auto it = routes.find({a, b});
        return it == routes.end() ? std::vector<std::string>() : it->second;
      });
}

}  // namespace

NodeGroups groups_from_topology(const SwitchTopology& topology,
                                const std::vector<std::string>& nodes) {
  return group_by_leaf(
      nodes, [&](const std::string& node) { return topology.leaf_of(node); },
      [&](const std::string& a, const std::string& b) { return topology.path(a, b); });
}

PairRecords pair_records_from(const std::vector<Measurement>& measurements) {
  PairRecords records;
  const auto matrices = host_pair_matrices(measurements);
  for (const auto& m : matrices) {
    if (m.probe == kNodePairsProbe && m.metric == kMatrixMetric)
      records.size_bytes = std::max(records.size_bytes, m.size_bytes);
  }
  const HostPairMatrix* first = nullptr;
  const HostPairMatrix* confirm = nullptr;
  for (const auto& m : matrices) {
    if (m.probe != kNodePairsProbe || m.metric != kMatrixMetric ||
        m.size_bytes != records.size_bytes)
      continue;
    if (m.pass == pair_pass_name(PairPass::first)) first = &m;
    if (m.pass == pair_pass_name(PairPass::confirm)) confirm = &m;
  }
  if (!first) return records;
  records.first = PairMatrix(first->hosts);
  records.groups = groups_from_records(measurements, first->hosts, records.topology);
  const int n = records.first.size();
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      const double value = first->values[static_cast<std::size_t>(a * n + b)];
      if (!std::isnan(value)) records.first.set(a, b, value);
    }
  }
  if (!confirm) return records;
  // The second pass's hosts are a subset of the first's: map them by name.
  auto index = [&](const std::string& host) {
    return static_cast<int>(std::find(first->hosts.begin(), first->hosts.end(), host) -
                            first->hosts.begin());
  };
  const int k = static_cast<int>(confirm->hosts.size());
  for (int a = 0; a < k; ++a) {
    for (int b = a + 1; b < k; ++b) {
      const double value = confirm->values[static_cast<std::size_t>(a * k + b)];
      const int first_a = index(confirm->hosts[static_cast<std::size_t>(a)]);
      const int first_b = index(confirm->hosts[static_cast<std::size_t>(b)]);
      if (std::isnan(value) || first_a >= n || first_b >= n) continue;
      records.confirm.push_back({{std::min(first_a, first_b), std::max(first_a, first_b)}, value});
    }
  }
  return records;
}

std::string format_size_list(const std::vector<std::uint64_t>& sizes) {
  std::string text;
  for (auto size : sizes) text += (text.empty() ? "" : ",") + format_bytes(size);
  return text;
}

std::string format_pair_matrix(const PairMatrix& matrix, const std::string& title) {
  std::size_t width = 6;
  for (const auto& node : matrix.nodes()) width = std::max(width, node.size());
  std::string text = "# " + title + ", node x node:\n#  " + std::string(width, ' ');
  for (const auto& node : matrix.nodes()) text += fmt::format(" {:>{}}", node, width);
  text += "\n";
  for (int a = 0; a < matrix.size(); ++a) {
    text += fmt::format("#  {:<{}}", name_of(matrix, a), width);
    for (int b = 0; b < matrix.size(); ++b) {
      text += fmt::format(" {:>{}}", a == b ? "." : gbps(matrix.at(a, b)), width);
    }
    text += "\n";
  }
  return text;
}

std::string describe_groups(const PairMatrix& matrix, const NodeGroups& groups) {
  if (groups.count() < 2) return "";
  std::string text = groups.inferred ? "# groups inferred from the matrix (fast among themselves, "
                                       "slow between):"
                                     : "# leaf switches:";
  for (int g = 0; g < groups.count(); ++g)
    text += " " + group_name(groups, g) + " (" + members_of(matrix, groups, g) + ")";
  return text + "\n";
}

std::string describe_suspects(const PairMatrix& matrix, const PairSuspects& suspects) {
  if (!suspects.not_possible.empty()) return "# localisation: " + suspects.not_possible + "\n";
  const bool by_blocks = suspects.groups.count() >= 2;
  std::string text =
      describe_groups(matrix, suspects.groups) +
      fmt::format("# reference {} GB/s ({}); a pair below {} GB/s ({}) is slow\n",
                  gbps(suspects.reference),
                  by_blocks ? "the higher of the nodes' median pair and the blocks' upper median"
                            : "median of the nodes' median pairs",
                  gbps(suspects.threshold), percent_of(suspects.threshold, suspects.reference));
  if (!suspects.any()) return text + "# no slow node, link or switch link\n";
  for (const auto& block : suspects.blocks) {
    text += fmt::format("# suspect switch link {}--{}: {} of {} pairs slow, median {} GB/s{}\n",
                        group_name(suspects.groups, block.a), group_name(suspects.groups, block.b),
                        block.slow, block.measured, gbps(block.median),
                        route_text(suspects.groups, block).empty()
                            ? ""
                            : " (route " + route_text(suspects.groups, block) + ")");
  }
  for (int node : suspects.nodes) {
    text += fmt::format("# suspect node {}: {} (its median {} GB/s)\n", name_of(matrix, node),
                        partners_of(matrix, node),
                        gbps(suspects.node_median[static_cast<std::size_t>(node)]));
  }
  for (const auto& link : suspects.links) {
    text += fmt::format("# suspect link {}: {} GB/s\n", pair_name(matrix, link),
                        gbps(matrix.at(link.a, link.b)));
  }
  std::string good;
  for (int node : suspects.good) good += (good.empty() ? "" : ", ") + name_of(matrix, node);
  return text + "# known good: " + (good.empty() ? "none" : good) + "\n";
}

std::string describe_localisation(const PairMatrix& matrix, const PairSuspects& suspects,
                                  const Localisation& localisation) {
  std::string text;
  for (int node : localisation.bad_nodes) text += "# => slow node " + name_of(matrix, node) + "\n";
  for (const auto& link : localisation.bad_links)
    text += "# => slow link " + pair_name(matrix, link) + "\n";
  for (int node : localisation.cleared_nodes)
    text += "# cleared: " + name_of(matrix, node) + " was fine with a good node\n";
  for (const auto& link : localisation.cleared_links)
    text += "# cleared: " + pair_name(matrix, link) + " was fine when measured again\n";
  for (int node : localisation.unconfirmed_nodes)
    text += "# unconfirmed: " + name_of(matrix, node) + " (no good node to pair it with)\n";
  for (const auto& link : localisation.unconfirmed_links)
    text += "# unconfirmed: " + pair_name(matrix, link) + "\n";
  const NodeGroups& groups = suspects.groups;
  auto block_name = [&](int i) {
    const SlowBlock& block = suspects.blocks[static_cast<std::size_t>(i)];
    return group_name(groups, block.a) + "--" + group_name(groups, block.b);
  };
  for (int i : localisation.bad_blocks) text += "# => slow switch link " + block_name(i) + "\n";
  for (int i : localisation.cleared_blocks)
    text += "# cleared: " + block_name(i) + " was fine when measured again\n";
  for (int i : localisation.unconfirmed_blocks)
    text += "# unconfirmed: switch link " + block_name(i) + "\n";
  return text;
}

std::vector<Finding> judge_node_pairs(const std::vector<Measurement>& measurements,
                                      const Profile& profile) {
  const PairRecords records = pair_records_from(measurements);
  if (records.first.size() == 0) return {};
  const PairMatrix& matrix = records.first;
  const PairSuspects suspects = find_suspects(
      matrix, localisation_rule_of_run(measurements, kNodePairsProbe, profile), &records.groups);
  if (!suspects.any()) return {};
  const Localisation found = confirm_suspects(suspects, records.confirm);
  std::vector<Finding> findings;
  const std::string matrix_text = format_pair_matrix(matrix, "exchange busbw (GB/s)");

  for (int node : found.bad_nodes) {
    const std::string& name = name_of(matrix, node);
    const double level = suspects.node_median[static_cast<std::size_t>(node)];
    Finding f = base_finding(Severity::fail, records, suspects);
    f.subject = name;
    f.host = name;
    f.observed = level;
    f.message = fmt::format(
        "node {} is slow: exchange {} GB/s with its partners (median), {} of the cluster's {} "
        "GB/s; "
        "slow again with a good node ({})",
        name, gbps(level), percent_of(level, suspects.reference), gbps(suspects.reference),
        second_pass_of(matrix, records.confirm, node));
    f.evidence = "pairs of " + name + ": " + partners_of(matrix, node) +
                 " GB/s; second pass: " + second_pass_of(matrix, records.confirm, node) +
                 " GB/s\n" + matrix_text;
    f.remedy = "drain " + name +
               " and check its network adapter (link rate and width, error counters), its cable "
               "and switch port, and what else runs on it (CPU, interrupts); rerun the sweep";
    findings.push_back(std::move(f));
  }
  for (const auto& link : found.bad_links) {
    const std::string subject = pair_name(matrix, link);
    const double value = matrix.at(link.a, link.b);
    Finding f = base_finding(Severity::fail, records, suspects);
    f.subject = subject;
    f.host = name_of(matrix, link.a) + "," + name_of(matrix, link.b);
    f.observed = value;
    f.message = fmt::format(
        "link {} is slow: exchange {} GB/s, {} of the cluster's {} GB/s, and {} GB/s when "
        "measured again; both nodes are fine with good partners ({}: {}; {}: {})",
        subject, gbps(value), percent_of(value, suspects.reference), gbps(suspects.reference),
        gbps(second_value(records.confirm, link)), name_of(matrix, link.a),
        second_pass_of(matrix, records.confirm, link.a, link.b), name_of(matrix, link.b),
        second_pass_of(matrix, records.confirm, link.b, link.a));
    f.evidence = matrix_text;
    f.remedy = "check the path between " + name_of(matrix, link.a) + " and " +
               name_of(matrix, link.b) +
               ": cables and optics, the switch ports and the links between switches on that "
               "route (error counters, rates), and routing (ECMP, adaptive routing) for this pair";
    findings.push_back(std::move(f));
  }
  append_switch_findings(records, suspects, found, matrix_text, findings);
  for (int node : found.unconfirmed_nodes) {
    const std::string& name = name_of(matrix, node);
    Finding f = base_finding(Severity::warn, records, suspects);
    f.subject = name;
    f.host = name;
    f.observed = suspects.node_median[static_cast<std::size_t>(node)];
    f.message = fmt::format(
        "node {} looks slow ({} GB/s with its partners, median) but no node known to be good was "
        "left to confirm it",
        name, gbps(*f.observed));
    f.evidence = matrix_text;
    f.remedy = "rerun the sweep with more nodes, or with " + name + " and nodes known to be good";
    findings.push_back(std::move(f));
  }
  for (const auto& link : found.unconfirmed_links) {
    Finding f = base_finding(Severity::warn, records, suspects);
    f.subject = pair_name(matrix, link);
    f.host = name_of(matrix, link.a) + "," + name_of(matrix, link.b);
    f.observed = matrix.at(link.a, link.b);
    f.message = fmt::format(
        "link {} looks slow ({} GB/s) but was not confirmed by a second "
        "measurement",
        f.subject, gbps(*f.observed));
    f.evidence = matrix_text;
    f.remedy = "rerun the sweep; if it stays slow, check the path between the two nodes";
    findings.push_back(std::move(f));
  }
  return findings;
}

Judge make_node_pairs_judge() {
  Judge judge;
  judge.name = "node_pairs";
  judge.settings = {{kMinGapSetting,
                     "coll.node_pairs: a pair of nodes slower than (1 - gap) x the cluster's "
                     "median pair is slow (default 0.5)"}};
  judge.validate = validate_pair_min_gap;
  judge.judge = judge_node_pairs;
  judge.scope = JudgeScope::each_probe;
  // The whole matrix at once: `fabcheck evaluate` must not hand it the pairs host by host.
  judge.across_hosts = true;
  // The matrix (exchange_busbw), the gap the run was given (min_gap) and the leaf switches
  // (host_switch, ...), on any record.
  judge.reads = {{kNodePairsProbe, ""}};
  return judge;
}

}  // namespace fabcheck
