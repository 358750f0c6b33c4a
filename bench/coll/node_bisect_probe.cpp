// coll.node_bisect: the nightly sweep's log2 mode. An all-reduce over the whole world, then over
// its halves side by side in sub-communicators, recursing into a slow half with known-good nodes
// as each step's reference, down to suspect nodes measured with good partners: one slow node of N
// is named in about log2(N) + 2 steps instead of N - 1 rounds of pairs (node_bisection.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "bench/coll/coll_probes.hpp"
#include "bench/coll/engine.hpp"
#include "bench/coll/mpi_call_plan.hpp"
#include "bench/coll/node_bisect.hpp"
#include "bench/coll/node_pairs.hpp"
#include "bench/coll/register.hpp"
#include "bench/core/plan_estimate.hpp"
#include "bench/core/size_range.hpp"
#include "bench/sys/text_scan.hpp"
#include "bench/sys/timer.hpp"
#include "results/units.hpp"

namespace fabcheck {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// One group's figure as its first rank measured it; gathered to the root.
struct GroupOutcome {
  int group = -1;
  double busbw = kNaN;  // GB/s; NaN when its all-reduce failed or delivered wrong elements
};

void wire_write(WireWriter& out, const GroupOutcome& value) {
  wire_write(out, value.group);
  wire_write(out, value.busbw);
}
void wire_read(WireReader& in, GroupOutcome& value) {
  wire_read(in, value.group);
  wire_read(in, value.busbw);
}

// Stamps the engine's measurements as one group's: host its first node, subject its name, the
// step, group, role and members on every record; per-rank shares named by the run's ranks.
class GroupSink final : public MeasurementSink {
 public:
  GroupSink(MeasurementSink& inner, std::string host, std::string subject,
            std::vector<int> run_ranks, std::map<std::string, std::string> params)
      : inner_(inner),
        host_(std::move(host)),
        subject_(std::move(subject)),
        run_ranks_(std::move(run_ranks)),
        params_(std::move(params)) {}

  void emit(Measurement m) override {
    m.probe = kNodeBisectProbe;
    if (m.metric != "wrong_elements") m.metric = "allreduce_" + m.metric;
    m.host = host_;
    m.rank = -1;
    m.subject = subject_;
    for (const auto& [key, value] : params_) m.params[key] = value;
    for (auto& share : m.by_rank) {
      if (share.rank >= 0 && share.rank < static_cast<int>(run_ranks_.size()))
        share.rank = run_ranks_[static_cast<std::size_t>(share.rank)];
    }
    inner_.emit(std::move(m));
  }

 private:
  MeasurementSink& inner_;
  std::string host_;
  std::string subject_;
  std::vector<int> run_ranks_;
  std::map<std::string, std::string> params_;
};

std::uint64_t bisect_size(const RunOptions& options, const std::string& backend) {
  if (!options.sizes.empty()) return *std::max_element(options.sizes.begin(), options.sizes.end());
  return option_bytes(options, bisect_size_option(backend));
}

// A healthy world costs two steps (the world, its halves); a slow node adds about log2(N) more,
// not counted (the sweep is planned for a healthy fleet, as coll.node_pairs' second pass).
ProbeEstimate estimate_node_bisect(const RunOptions& options, const JobShape& job) {
  const std::string backend = job.backend.empty() ? "mpi" : job.backend;
  SweepConfig config;
  config.collective = &find_collective("all_reduce");
  config.sizes = {bisect_size(options, backend)};
  config.warmup = options.warmup;
  config.iters = options.iters;
  config.ops_per_sample = ops_per_sample_from(options);
  const SweepCostModel model = assumed_sweep_cost(backend);
  const int ranks = std::max(1, job.hosts) * std::max(1, job.ranks_per_host);
  const double step_s =
      assumed_split_seconds(backend) + estimated_sweep_seconds(config, ranks, model);
  const int more = static_cast<int>(std::ceil(std::log2(std::max(2, job.hosts))));
  return {model.setup_s + 2 * step_s,
          fmt::format("2 steps over {} node(s) when healthy (about {} more to name a slow one), "
                      "all-reduce {}, {}",
                      job.hosts, more, format_bytes(config.sizes.front()),
                      describe_iterations(options))};
}

class NodeBisectProbe final : public Probe {
 public:
  NodeBisectProbe()
      : Probe({.id = kNodeBisectProbe,
               .description = "the world's all-reduce, then its halves side by side, recursing "
                              "into a slow half with known-good nodes as reference: names a slow "
                              "node in about log2(N) + 2 steps (sweep --pairs bisect)",
               .metrics = node_bisect_metrics(),
               .needs = {collective_backend_requirement()},
               .scope = ProbeScope::world,
               .options = {pair_min_gap_option(), bisect_expect_option(), bisect_size_option("mpi"),
                           bisect_size_option("nccl"), mpi_max_count_option(),
                           ops_per_sample_option()},
               .estimate = estimate_node_bisect,
               .budget_priority = BudgetPriority::high,
               // In no plan of its own: `fabcheck sweep --pairs bisect` runs it in place of
               // coll.node_pairs.
               .plans = {},
               .plan_stage = plan_stage::node_pairs,
               .peers = {.compared = false},
               .repairs = {
                   {"wrong_elements", "data-corruption", repair_action::inspect},
                   {"", "node-slow-vs-peers", repair_action::inspect, FailKind::noisy_figure}}}) {}

  Applicability applies(const World& world, const RunOptions& /*options*/) const override {
    const auto hosts = world.distinct_hosts();
    if (hosts.size() < 4) {
      return Applicability::waived(fmt::format(
          "needs ranks on at least 4 hosts (ranks on {}); coll.node_pairs measures fewer",
          hosts.size()));
    }
    return Applicability::yes();
  }

  void run(RunContext& context, MeasurementSink& sink) override;

 private:
  // Runs one step: each group on a sub-world of its nodes' ranks, side by side. Every rank returns
  // the step's figures (one per group, in the step's order).
  std::vector<double> run_step(RunContext& context, CollectiveBackend& backend,
                               const Bisection& bisection, MeasurementSink& sink);

  std::vector<std::string> nodes_;
  int my_node_ = 0;
  SweepConfig config_;
  std::map<std::string, std::string> run_params_;  // on every record
};

std::vector<double> NodeBisectProbe::run_step(RunContext& context, CollectiveBackend& backend,
                                              const Bisection& bisection, MeasurementSink& sink) {
  World& world = context.world;
  const auto& groups = bisection.next();
  const int step = bisection.steps();
  int color = -1;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto& members = groups[g].members;
    if (std::find(members.begin(), members.end(), my_node_) != members.end())
      color = static_cast<int>(g);
  }
  auto group_world = world.split(color, world.rank());
  auto group_backend = backend.split(group_world.get(), color, world.rank());
  std::optional<GroupOutcome> mine;
  if (group_world) {
    if (!group_backend) throw std::logic_error("bisection group backend missing on a member");
    const BisectGroup& group = groups[static_cast<std::size_t>(color)];
    std::map<std::string, std::string> params = run_params_;
    params[kBisectStepParam] = std::to_string(step);
    params[kBisectGroupParam] = std::to_string(color);
    params[kBisectRoleParam] = bisect_role_name(group.role);
    params[kBisectMembersParam] = bisect_group_name(nodes_, group.members);
    if (group.tested >= 0)
      params[kBisectTestedParam] = nodes_[static_cast<std::size_t>(group.tested)];
    if (group.role == BisectRole::world) params[kBisectNodesParam] = text::join(nodes_, ",");
    GroupSink group_sink(sink, nodes_[static_cast<std::size_t>(group.members.front())],
                         bisect_group_name(nodes_, group.members),
                         group_world->all_gather_values(world.rank()), std::move(params));
    GroupOutcome outcome;
    outcome.group = color;
    try {
      const auto rows =
          run_collective_sweep(*group_backend, config_, *group_world, group_sink, id());
      std::uint64_t wrong = 0;
      for (const auto& row : rows) wrong += row.wrong_total;
      // Wrong elements are a failed step for that group: its nodes stay suspects.
      if (!rows.empty() && wrong == 0) outcome.busbw = rows.back().busbw_gbps;
    } catch (const std::exception& error) {
      // The group's ranks fail together (one communicator); the other groups go on.
      Measurement failed;
      failed.metric = "busbw";
      failed.status = MeasurementStatus::error;
      failed.message = error.what();
      group_sink.emit(std::move(failed));
    }
    if (group_world->is_root()) mine = outcome;
  }
  // The root collects one figure a group and every rank takes the same figures, so every rank
  // plans the same next step.
  std::vector<double> figures(groups.size(), kNaN);
  for (const auto& outcome : world.gather_values(mine)) {
    if (outcome && outcome->group >= 0 && outcome->group < static_cast<int>(figures.size()))
      figures[static_cast<std::size_t>(outcome->group)] = outcome->busbw;
  }
  return world.broadcast_value(figures);
}

void NodeBisectProbe::run(RunContext& context, MeasurementSink& sink) {
  World& world = context.world;
  nodes_ = world.distinct_hosts();
  my_node_ =
      static_cast<int>(std::find(nodes_.begin(), nodes_.end(), world.host()) - nodes_.begin());
  const BackendChoice choice = choose_collective_backend(context.options.backend, world);
  const double gap = localisation_rule_from(context.options).min_gap;
  const double expected = option_number(context.options, bisect_expect_option());
  if (option_given(context.options, pair_min_gap_option()))
    run_params_[kPairMinGapParam] = option_text(context.options, pair_min_gap_option());
  if (expected > 0)
    run_params_[kBisectExpectParam] = option_text(context.options, bisect_expect_option());

  config_.collective = &find_collective("all_reduce");
  config_.sizes = {bisect_size(context.options, choice.name)};
  config_.warmup = context.options.warmup;
  config_.iters = context.options.iters;
  config_.ops_per_sample = ops_per_sample_from(context.options);
  config_.record_arrivals = false;  // the groups' figures name the slow node

  if (world.is_root()) {
    sink.note(fmt::format(
        "# {}: backend {}, {} nodes, all-reduce {} per step, {} warm-up + {} timed iterations; a "
        "group is slow below (1 - {}) x its step's fastest group{}\n",
        id(), choice.name, nodes_.size(), format_bytes(config_.sizes.front()), config_.warmup,
        config_.iters, gap, expected > 0 ? fmt::format(" or {} GB/s", expected) : std::string()));
  }
  const double started = now_seconds();
  auto backend = make_collective_backend(choice, world, context.options, context.run_dir, id());
  Bisection bisection(static_cast<int>(nodes_.size()), gap, expected);
  while (!bisection.done()) {
    const int step = bisection.steps();
    bisection.record(run_step(context, *backend, bisection, sink));
    if (world.is_root()) sink.note(describe_bisect_step(bisection, step, nodes_));
  }
  if (!world.is_root()) return;
  const double seconds = now_seconds() - started;
  sink.note(describe_bisect_conclusions(bisection, nodes_));
  sink.note(fmt::format("# {}: {} step(s) in {:.2f} s ({:.2f} s a step)\n", id(), bisection.steps(),
                        seconds, seconds / std::max(1, bisection.steps())));
}

}  // namespace

// Its judge is registered beside it (register.cpp).
std::unique_ptr<Probe> make_node_bisect_probe(const NcclLogProof& /*proof*/) {
  return std::make_unique<NodeBisectProbe>();
}

}  // namespace fabcheck
