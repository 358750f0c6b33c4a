// coll.node_pairs' options, records, console text and judge.
#include "bench/coll/node_pairs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "bench/sys/config_error.hpp"
#include "results/evaluator.hpp"
#include "results/host_pair_matrix.hpp"
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

// The gap the run was given on the command line (on its records: the probe re-paired its suspects
// by it), else the profile's.
LocalisationRule rule_of_run(const std::vector<Measurement>& measurements, const Profile& profile) {
  for (const Measurement& m : measurements) {
    if (m.probe != kNodePairsProbe) continue;
    const std::string given = param_of(m, kPairMinGapParam);
    if (given.empty()) continue;
    LocalisationRule rule;
    rule.min_gap = parse_gap(given, std::string(kNodePairsProbe) + " record " + kPairMinGapParam);
    return rule;
  }
  return rule_from_profile(profile);
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

double second_value(const std::vector<PairFigure>& second, NodePair pair) {
  for (const auto& figure : second) {
    if (std::min(figure.pair.a, figure.pair.b) == pair.a &&
        std::max(figure.pair.a, figure.pair.b) == pair.b) {
      return figure.value;
    }
  }
  return std::nan("");
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
      "peers: the cluster's own level, {} GB/s (median over nodes of each node's median pair); "
      "slow below {} GB/s",
      gbps(suspects.reference), gbps(suspects.threshold));
  return finding;
}

}  // namespace

const char* pair_pass_name(PairPass pass) { return pass == PairPass::first ? "first" : "confirm"; }

const OptionSpec& pair_schedule_option() {
  static const OptionSpec spec{.key = "pairs",
                               .type = OptionType::choice,
                               .default_value = "all",
                               .meaning =
                                   "node pairs of coll.node_pairs: all (circle method) or quick "
                                   "(a ring of neighbours and a few shuffles); --pairs sets it",
                               .choices = {"all", "quick"}};
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

std::vector<MetricSpec> node_pairs_metrics() {
  return {
      {"exchange_time_us", {"us", Better::lower}},   {"exchange_algbw", {"GB/s", Better::higher}},
      {"exchange_busbw", {"GB/s", Better::higher}},  {"allreduce_time_us", {"us", Better::lower}},
      {"allreduce_algbw", {"GB/s", Better::higher}}, {"allreduce_busbw", {"GB/s", Better::higher}},
      {"wrong_elements", {"count", Better::lower}}};
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

std::string describe_suspects(const PairMatrix& matrix, const PairSuspects& suspects) {
  if (!suspects.not_possible.empty()) return "# localisation: " + suspects.not_possible + "\n";
  std::string text = fmt::format(
      "# reference {} GB/s (median of the nodes' median pairs); a pair below {} GB/s ({}) is "
      "slow\n",
      gbps(suspects.reference), gbps(suspects.threshold),
      percent_of(suspects.threshold, suspects.reference));
  if (!suspects.any()) return text + "# no slow node or link\n";
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
  (void)suspects;
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
  return text;
}

std::vector<Finding> judge_node_pairs(const std::vector<Measurement>& measurements,
                                      const Profile& profile) {
  const PairRecords records = pair_records_from(measurements);
  if (records.first.size() == 0) return {};
  const PairMatrix& matrix = records.first;
  const PairSuspects suspects = find_suspects(matrix, rule_of_run(measurements, profile));
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
  judge.validate = [](const Profile& profile) { rule_from_profile(profile); };
  judge.judge = judge_node_pairs;
  judge.scope = JudgeScope::each_probe;
  // The matrix (exchange_busbw) and the gap the run was given (min_gap, on any record).
  judge.reads = {{kNodePairsProbe, ""}};
  return judge;
}

}  // namespace fabcheck
