// coll.node_bisect's options, records replayed into the bisection, console text and judge.
#include "bench/coll/node_bisect.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>

#include "bench/coll/node_pairs.hpp"
#include "bench/sys/config_error.hpp"
#include "bench/sys/text_scan.hpp"
#include "results/units.hpp"

namespace fabcheck {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string gbps(double value) {
  return std::isfinite(value) ? fmt::format("{:.3g}", value) : "failed";
}

const std::string& name_of(const std::vector<std::string>& nodes, int node) {
  return nodes[static_cast<std::size_t>(node)];
}

std::string hosts_of(const std::vector<std::string>& nodes, const std::vector<int>& members) {
  std::vector<std::string> names;
  for (const int node : members) names.push_back(name_of(nodes, node));
  return text::join(names, ",");
}

// "step 2 half n4..n5 0.0019 GB/s (level 0.0129)"
std::string figure_line(const BisectFigure& figure, const std::vector<std::string>& nodes) {
  return fmt::format("step {} {} {}: {} GB/s{} (step's level {} GB/s)", figure.step,
                     bisect_role_name(figure.group.role),
                     bisect_group_name(nodes, figure.group.members), gbps(figure.busbw),
                     figure.slow ? " slow" : "", gbps(figure.level));
}

std::string evidence_of(const Bisection& bisection, const BisectConclusion& conclusion,
                        const std::vector<std::string>& nodes) {
  std::string text;
  for (const int f : conclusion.evidence)
    text += figure_line(bisection.figures()[static_cast<std::size_t>(f)], nodes) + "\n";
  return text;
}

const BisectFigure& last_figure(const Bisection& bisection, const BisectConclusion& conclusion) {
  return bisection.figures()[static_cast<std::size_t>(conclusion.evidence.back())];
}

}  // namespace

const OptionSpec& bisect_size_option(const std::string& backend) {
  static const auto make = [](const char* name, const char* size, const char* floor) {
    return OptionSpec{.key = std::string("node_bisect.size.") + name,
                      .type = OptionType::byte_size,
                      .default_value = size,
                      .meaning = std::string("the all-reduce size of every step of "
                                             "coll.node_bisect on the ") +
                                 name + " backend (the largest of --sizes overrides)",
                      .budget_floor = floor};
  };
  static const OptionSpec mpi = make("mpi", "4M", "1M");
  static const OptionSpec nccl = make("nccl", "256M", "64M");
  return backend == "nccl" ? nccl : mpi;
}

const OptionSpec& bisect_expect_option() {
  static const OptionSpec spec{
      .key = "bisect.expect_busbw",
      .type = OptionType::number,
      .default_value = "0",
      .meaning =
          "coll.node_bisect: the all-reduce bus bandwidth (GB/s) a healthy group reaches at "
          "its size; a step's level is at least this (0: the fastest group of the step "
          "alone, which cannot see a slow node in each half of the world)",
      .min = 0};
  return spec;
}

std::vector<MetricSpec> node_bisect_metrics() {
  return {{"allreduce_time_us", {"us", Better::lower}},
          {"allreduce_algbw", {"GB/s", Better::higher}},
          {"allreduce_busbw", {"GB/s", Better::higher}},
          {"wrong_elements", {"count", Better::lower}}};
}

std::string bisect_group_name(const std::vector<std::string>& nodes,
                              const std::vector<int>& members) {
  bool in_a_row = members.size() >= 3;
  for (std::size_t i = 1; in_a_row && i < members.size(); ++i)
    in_a_row = members[i] == members[i - 1] + 1;
  if (in_a_row) return name_of(nodes, members.front()) + ".." + name_of(nodes, members.back());
  return hosts_of(nodes, members);
}

BisectReplay replay_bisection(const std::vector<Measurement>& measurements, double min_gap) {
  // Each group's figure at the largest size, by (step, group).
  // A group whose all-reduce delivered wrong elements failed its step, as the probe read it.
  std::map<std::pair<int, int>, const Measurement*> figures;
  std::map<std::pair<int, int>, bool> wrong;
  BisectReplay replay;
  const Measurement* world = nullptr;
  for (const Measurement& m : measurements) {
    if (m.probe != kNodeBisectProbe) continue;
    const auto step = text::parse_small_int(param_of(m, kBisectStepParam));
    const auto group = text::parse_small_int(param_of(m, kBisectGroupParam));
    if (!step || !group) continue;
    if (m.metric == "wrong_elements" && (m.status != MeasurementStatus::ok || m.value != 0))
      wrong[{*step, *group}] = true;
    if (m.metric != kBisectMetric) continue;
    const Measurement*& slot = figures[{*step, *group}];
    if (!slot || m.size_bytes.value_or(0) > slot->size_bytes.value_or(0)) slot = &m;
    if (*step == 0 && *group == 0) world = slot;
  }
  if (!world) return replay;
  replay.size_bytes = world->size_bytes.value_or(0);
  const std::string listed = param_of(*world, kBisectNodesParam);
  for (const auto name : text::split(listed, ',')) replay.nodes.emplace_back(name);
  if (replay.nodes.size() < 4) {
    replay.stopped =
        fmt::format("its world record names {} node(s); a bisection needs 4", replay.nodes.size());
    return replay;
  }
  double expected = 0;
  if (const std::string given = param_of(*world, kBisectExpectParam); !given.empty()) {
    const auto parsed = text::parse_number(given);
    expected = parsed.value_or(-1);
    if (!parsed || !std::isfinite(expected) || expected < 0)
      throw ConfigError(std::string(kNodeBisectProbe) + " record " + kBisectExpectParam + " = \"" +
                        given + "\": expected a figure in GB/s, 0 or above");
  }
  replay.bisection.emplace(static_cast<int>(replay.nodes.size()), min_gap, expected);
  Bisection& bisection = *replay.bisection;
  while (!bisection.done()) {
    const int step = bisection.steps();
    std::vector<double> busbw;
    for (std::size_t g = 0; g < bisection.next().size(); ++g) {
      const BisectGroup& group = bisection.next()[g];
      const std::string name = bisect_group_name(replay.nodes, group.members);
      const auto it = figures.find({step, static_cast<int>(g)});
      if (it == figures.end()) {
        replay.stopped = fmt::format("no figure for step {} group {} ({} {})", step, g,
                                     bisect_role_name(group.role), name);
        return replay;
      }
      const Measurement& m = *it->second;
      if (param_of(m, kBisectMembersParam) != name ||
          param_of(m, kBisectRoleParam) != bisect_role_name(group.role)) {
        replay.stopped =
            fmt::format("step {} group {} measured {} {}, where the bisection asks for {} {}", step,
                        g, param_of(m, kBisectRoleParam), param_of(m, kBisectMembersParam),
                        bisect_role_name(group.role), name);
        return replay;
      }
      const bool failed =
          m.status != MeasurementStatus::ok || wrong.count({step, static_cast<int>(g)});
      busbw.push_back(failed ? kNaN : m.value);
    }
    bisection.record(busbw);
  }
  return replay;
}

std::string describe_bisect_step(const Bisection& bisection, int step,
                                 const std::vector<std::string>& nodes) {
  std::string groups;
  double level = 0;
  for (const BisectFigure& figure : bisection.figures()) {
    if (figure.step != step) continue;
    level = figure.level;
    groups += fmt::format("  {} {} {}{}", bisect_role_name(figure.group.role),
                          bisect_group_name(nodes, figure.group.members), gbps(figure.busbw),
                          figure.slow ? " SLOW" : "");
  }
  if (step == 0) return fmt::format("# {} step 0:{} GB/s\n", kNodeBisectProbe, groups);
  return fmt::format("# {} step {}:{} GB/s (level {} GB/s, slow below {})\n", kNodeBisectProbe,
                     step, groups, gbps(level), gbps((1 - bisection.min_gap()) * level));
}

std::string describe_bisect_conclusions(const Bisection& bisection,
                                        const std::vector<std::string>& nodes) {
  std::string named;
  for (const BisectConclusion& conclusion : bisection.conclusions()) {
    const std::string who = bisect_group_name(nodes, conclusion.nodes);
    switch (conclusion.kind) {
      case BisectConclusion::Kind::node:
        named += " slow node " + who + ";";
        break;
      case BisectConclusion::Kind::link:
        named += " slow link " + name_of(nodes, conclusion.nodes[0]) + "--" +
                 name_of(nodes, conclusion.nodes[1]) + ";";
        break;
      case BisectConclusion::Kind::between:
        named += " slow between " + bisect_group_name(nodes, conclusion.left) + " and " +
                 bisect_group_name(nodes, conclusion.right) + ";";
        break;
      case BisectConclusion::Kind::unsettled:
        named += " unsettled " + who + ";";
        break;
      case BisectConclusion::Kind::cleared:
        named += " cleared when measured again " + who + ";";
        break;
    }
  }
  return fmt::format("# {}: {} step(s){}\n", kNodeBisectProbe, bisection.steps(),
                     named.empty() ? ", nothing slow" : ":" + named.substr(0, named.size() - 1));
}

std::vector<Finding> judge_node_bisect(const std::vector<Measurement>& measurements,
                                       const Profile& profile) {
  const double gap = localisation_rule_of_run(measurements, kNodeBisectProbe, profile).min_gap;
  const BisectReplay replay = replay_bisection(measurements, gap);
  std::vector<Finding> findings;
  const auto base = [&](Severity severity, double observed, double level) {
    Finding f;
    f.severity = severity;
    f.probe = kNodeBisectProbe;
    f.metric = kBisectMetric;
    f.unit = "GB/s";
    f.size_bytes = replay.size_bytes;
    f.observed = observed;
    f.expected = (1 - gap) * level;
    f.source = fmt::format(
        "peers: the fastest group of the same step ({} GB/s, or bisect.expect_busbw when "
        "higher); slow below (1 - {}) x it",
        gbps(level), gap);
    return f;
  };
  if (!replay.stopped.empty()) {
    Finding f = base(Severity::warn, kNaN, 0);
    f.observed.reset();
    f.expected.reset();
    f.subject = "bisection";
    f.message = "the bisection's records end before it did: " + replay.stopped +
                "; no node was judged past that step";
    f.remedy = "rerun the sweep (--pairs bisect), or the full pair sweep";
    findings.push_back(std::move(f));
  }
  if (!replay.bisection) return findings;
  const Bisection& bisection = *replay.bisection;
  const auto& nodes = replay.nodes;
  for (const BisectConclusion& conclusion : bisection.conclusions()) {
    const BisectFigure& last = last_figure(bisection, conclusion);
    const std::string evidence = evidence_of(bisection, conclusion, nodes);
    switch (conclusion.kind) {
      case BisectConclusion::Kind::node: {
        const std::string& name = name_of(nodes, conclusion.nodes.front());
        std::vector<int> partner = last.group.members;
        std::erase(partner, conclusion.nodes.front());
        Finding f = base(Severity::fail, last.busbw, last.level);
        f.subject = name;
        f.host = name;
        f.message = fmt::format(
            "node {} is slow: all-reduce with the known-good node {} {} GB/s, below {} GB/s "
            "((1 - {}) x the step's fastest group, {} GB/s); slow in every group that held it "
            "({} step(s))",
            name, hosts_of(nodes, partner), gbps(last.busbw), gbps(*f.expected), gap,
            gbps(last.level), conclusion.evidence.size());
        f.evidence = evidence;
        f.remedy = "drain " + name +
                   " and check its network adapter (link rate and width, error counters), its "
                   "cable and switch port, and what else runs on it (CPU, interrupts); rerun the "
                   "sweep";
        findings.push_back(std::move(f));
        break;
      }
      case BisectConclusion::Kind::link: {
        const std::string& a = name_of(nodes, conclusion.nodes[0]);
        const std::string& b = name_of(nodes, conclusion.nodes[1]);
        Finding f = base(Severity::fail, last.busbw, last.level);
        f.subject = a + "--" + b;
        f.host = a + "," + b;
        f.message = fmt::format(
            "link {}--{} is slow: the two together {} GB/s when measured again, below {} GB/s, "
            "while each is fine with a known-good partner",
            a, b, gbps(last.busbw), gbps(*f.expected));
        f.evidence = evidence;
        f.remedy = "check the path between " + a + " and " + b +
                   ": cables and optics, the switch ports and the links between switches on "
                   "that route (error counters, rates); drain neither node";
        findings.push_back(std::move(f));
        break;
      }
      case BisectConclusion::Kind::between: {
        const std::string left = bisect_group_name(nodes, conclusion.left);
        const std::string right = bisect_group_name(nodes, conclusion.right);
        Finding f = base(Severity::warn, last.busbw, last.level);
        f.subject = left + "--" + right;
        f.host = hosts_of(nodes, conclusion.nodes);
        f.message = fmt::format(
            "the path between {} and {} is slow: together {} GB/s when measured again, below {} "
            "GB/s, while each side is fast alone: a switch link or the cables between them, no "
            "node",
            left, right, gbps(last.busbw), gbps(*f.expected));
        f.evidence = evidence;
        f.remedy =
            "run the pair sweep over these nodes with the fabric's topology (fabcheck "
            "sweep --opt pairs.topology=topology.conf) to name the switch link or cable; "
            "drain no node";
        findings.push_back(std::move(f));
        break;
      }
      case BisectConclusion::Kind::unsettled: {
        const std::string who = bisect_group_name(nodes, conclusion.nodes);
        Finding f = base(Severity::warn, last.busbw, last.level);
        f.subject = who;
        f.host = hosts_of(nodes, conclusion.nodes);
        f.message = fmt::format(
            "{} is slow ({} GB/s, below {} GB/s) but no node known to be good was left to "
            "compare its nodes with",
            who, gbps(last.busbw), gbps(*f.expected));
        f.evidence = evidence;
        f.remedy = "rerun with more nodes, or run the pair sweep (fabcheck sweep) over them";
        findings.push_back(std::move(f));
        break;
      }
      case BisectConclusion::Kind::cleared:
        break;  // noise: the console says so
    }
  }
  return findings;
}

Judge make_node_bisect_judge() {
  Judge judge;
  judge.name = "node_bisect";
  judge.validate = validate_pair_min_gap;
  judge.judge = judge_node_bisect;
  judge.scope = JudgeScope::each_probe;
  // Every step's groups at once: `fabcheck evaluate` must not hand it the records host by host.
  judge.across_hosts = true;
  // The groups' figures and, on any record, the gap the run was given.
  judge.reads = {{kNodeBisectProbe, ""}};
  return judge;
}

}  // namespace fabcheck
