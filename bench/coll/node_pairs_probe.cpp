// coll.node_pairs: every pair of nodes measured with a bidirectional exchange and a two-node
// all-reduce, the pairs of a round side by side (circle method: each node in one pair a round), a
// node x node matrix, suspects from the matrix's own level, and a second pass re-pairing each
// suspect with nodes known to be good. One collective engine serves every pair: the backend is
// split per round (MPI sub-communicators; NCCL ncclCommSplit).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "bench/coll/coll_probes.hpp"
#include "bench/coll/engine.hpp"
#include "bench/coll/mpi_call_plan.hpp"
#include "bench/coll/nccl_log_proof.hpp"
#include "bench/coll/node_pairs.hpp"
#include "bench/coll/pair_localisation.hpp"
#include "bench/coll/register.hpp"
#include "bench/core/plan_estimate.hpp"
#include "bench/core/size_range.hpp"
#include "bench/sys/config_error.hpp"
#include "bench/sys/text_scan.hpp"
#include "bench/sys/timer.hpp"
#include "results/units.hpp"

namespace fabcheck {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// One pair's figures, as the pair's first rank measured them; gathered to the root.
struct PairOutcome {
  NodePair pair;
  double exchange_busbw = kNaN;  // GB/s at the largest size
  double allreduce_busbw = kNaN;
  std::uint64_t wrong = 0;
  std::string error;  // "" when both operations ran
};

void wire_write(WireWriter& out, const PairOutcome& value) {
  wire_write(out, value.pair.a);
  wire_write(out, value.pair.b);
  wire_write(out, value.exchange_busbw);
  wire_write(out, value.allreduce_busbw);
  wire_write(out, value.wrong);
  wire_write(out, value.error);
}
void wire_read(WireReader& in, PairOutcome& value) {
  wire_read(in, value.pair.a);
  wire_read(in, value.pair.b);
  wire_read(in, value.exchange_busbw);
  wire_read(in, value.allreduce_busbw);
  wire_read(in, value.wrong);
  wire_read(in, value.error);
}

// Stamps the engine's measurements as figures between two hosts: host and peer (sorted), subject
// "A--B", the operation's name on the metric, the pass and the round; per-rank shares named by
// the ranks of the whole run, not of the pair.
class PairSink final : public MeasurementSink {
 public:
  PairSink(MeasurementSink& inner, const std::string& a, const std::string& b, PairPass pass,
           int round, std::vector<int> run_ranks, std::map<std::string, std::string> extra)
      : inner_(inner),
        a_(std::min(a, b)),
        b_(std::max(a, b)),
        pass_(pass),
        round_(round),
        run_ranks_(std::move(run_ranks)),
        extra_(std::move(extra)) {}
  void set_operation(const char* operation) { operation_ = operation; }

  void emit(Measurement m) override {
    m.probe = kNodePairsProbe;
    if (m.metric != "wrong_elements") m.metric = std::string(operation_) + "_" + m.metric;
    m.host = a_;
    m.peer = b_;
    m.rank = -1;
    m.subject = link_subject(a_, b_);
    m.params["operation"] = operation_;
    m.params["pass"] = pair_pass_name(pass_);
    m.params["round"] = std::to_string(round_ + 1);
    // The gap this run chose (--opt pairs.min_gap) and the leaf switches of the two hosts, so that
    // the judge uses the same rule and groups.
    for (const auto& [key, value] : extra_) m.params[key] = value;
    for (auto& share : m.by_rank) {
      if (share.rank >= 0 && share.rank < static_cast<int>(run_ranks_.size()))
        share.rank = run_ranks_[static_cast<std::size_t>(share.rank)];
    }
    inner_.emit(std::move(m));
  }

 private:
  MeasurementSink& inner_;
  std::string a_;
  std::string b_;
  PairPass pass_;
  int round_;
  std::vector<int> run_ranks_;  // the run's rank of each rank of the pair
  std::map<std::string, std::string> extra_;  // params for every record
  const char* operation_ = "exchange";
};

std::vector<std::uint64_t> pair_sizes(const RunOptions& options, const std::string& backend) {
  if (!options.sizes.empty()) return options.sizes;
  return option_sizes(options, pair_sizes_option(backend));
}

double busbw_at_largest(const std::vector<SweepRow>& rows) {
  const SweepRow* largest = nullptr;
  for (const auto& row : rows) {
    if (!largest || row.shape.size_bytes > largest->shape.size_bytes) largest = &row;
  }
  return largest ? largest->busbw_gbps : kNaN;
}

std::string short_gbps(double value) {
  return std::isnan(value) ? "-" : fmt::format("{:.3g}", value);
}

// The first pass: every round runs the exchange and the two-node all-reduce sweeps on each pair's
// ranks side by side (engine.hpp's model at the backend's assumed rates). The second pass re-pairs
// only suspects, so a healthy fleet has none; it is not counted.
ProbeEstimate estimate_node_pairs(const RunOptions& options, const JobShape& job) {
  const std::string backend = job.backend.empty() ? "mpi" : job.backend;
  SweepConfig exchange;
  exchange.collective = &find_collective("sendrecv");
  exchange.sizes = pair_sizes(options, backend);
  exchange.warmup = options.warmup;
  exchange.iters = options.iters;
  exchange.ops_per_sample = ops_per_sample_from(options);
  SweepConfig all_reduce = exchange;
  all_reduce.collective = &find_collective("all_reduce");
  const int pair_ranks = 2 * std::max(1, job.ranks_per_host);
  const SweepCostModel model = assumed_sweep_cost(backend);
  const std::size_t rounds = pair_schedule_from(options) == PairSchedule::quick
                                 ? neighbour_rounds(job.hosts).size()
                                 : circle_rounds(job.hosts).size();
  const double round_s = assumed_split_seconds(backend) +
                         estimated_sweep_seconds(exchange, pair_ranks, model) +
                         estimated_sweep_seconds(all_reduce, pair_ranks, model);
  return {model.setup_s + static_cast<double>(rounds) * round_s,
          fmt::format("{} round(s) of {} node(s), sizes {}, {}", rounds, job.hosts,
                      describe_sizes(exchange.sizes), describe_iterations(options))};
}

class NodePairsProbe final : public Probe {
 public:
  NodePairsProbe()
      : Probe({.id = kNodePairsProbe,
               .description = "every pair of nodes: bidirectional exchange and 2-node all-reduce, "
                              "pairs of a round side by side; node x node matrix; names a slow "
                              "node or a slow link (the matrix figure is the largest size)",
               .metrics = node_pairs_metrics(),
               .needs = {collective_backend_requirement()},
               .scope = ProbeScope::world,
               .options = {pair_schedule_option(), pair_min_gap_option(), pair_topology_option(),
                           pair_sizes_option("mpi"), pair_sizes_option("nccl"),
                           mpi_max_count_option(), ops_per_sample_option()},
               .estimate = estimate_node_pairs,
               .budget_priority = BudgetPriority::high,
               .plans = {{"acceptance"}, {"sweep"}, {"quick"}},
               .plan_stage = plan_stage::node_pairs,
               // Its own judge localises a slow pair to a node or a link (pair_localisation.hpp).
               .peers = {.compared = false},
               .repairs = {
                   {"wrong_elements", "data-corruption", repair_action::inspect},
                   {"", "node-slow-vs-peers", repair_action::inspect, FailKind::noisy_figure}}}) {}

  Applicability applies(const World& world, const RunOptions& /*options*/) const override {
    const auto hosts = world.distinct_hosts();
    if (hosts.size() < 2) {
      return Applicability::waived("needs ranks on at least 2 hosts (all ranks are on " +
                                   hosts.front() + ")");
    }
    return Applicability::yes();
  }

  void run(RunContext& context, MeasurementSink& sink) override;

 private:
  // Runs one round: each pair on a sub-world of its two hosts' ranks. Returns this process's pair's
  // outcome when it is that pair's first rank.
  std::optional<PairOutcome> run_round(RunContext& context, CollectiveBackend& backend,
                                       const PairRound& round, PairPass pass, int round_index,
                                       MeasurementSink& sink);
  // Every pair's outcome on the root (rank order of the pairs' first ranks).
  std::vector<PairOutcome> run_rounds(RunContext& context, CollectiveBackend& backend,
                                      const std::vector<PairRound>& rounds, PairPass pass,
                                      MeasurementSink& sink);

  // The leaf switches of --opt pairs.topology, read on the root and sent to every rank.
  void read_topology(RunContext& context);

  std::vector<std::string> nodes_;
  int my_node_ = 0;
  NodeGroups groups_;
  std::string topology_;  // its path, "" when none was given
  SweepConfig exchange_;
  SweepConfig all_reduce_;
};

std::optional<PairOutcome> NodePairsProbe::run_round(RunContext& context,
                                                     CollectiveBackend& backend,
                                                     const PairRound& round, PairPass pass,
                                                     int round_index, MeasurementSink& sink) {
  World& world = context.world;
  int color = -1;
  int key = 0;
  NodePair mine;
  for (std::size_t p = 0; p < round.size(); ++p) {
    if (round[p].a != my_node_ && round[p].b != my_node_) continue;
    color = static_cast<int>(p);
    mine = round[p];
    // The two hosts' ranks alternate (a0, b0, a1, b1, ...): the exchange's ring crosses between
    // the nodes at every step.
    key = 2 * world.local_rank() + (my_node_ == round[p].b ? 1 : 0);
  }
  auto pair_world = world.split(color, key);
  auto pair_backend = backend.split(pair_world.get(), color, key);
  if (!pair_world) return std::nullopt;
  if (!pair_backend) throw std::logic_error("node pair backend missing on a member");

  PairOutcome outcome;
  outcome.pair = mine;
  const std::string& host_a = nodes_[static_cast<std::size_t>(mine.a)];
  const std::string& host_b = nodes_[static_cast<std::size_t>(mine.b)];
  std::map<std::string, std::string> extra;
  if (option_given(context.options, pair_min_gap_option()))
    extra[kPairMinGapParam] = option_text(context.options, pair_min_gap_option());
  // The records name the sorted pair's hosts: host (the lower name) and peer.
  const int low = host_a < host_b ? mine.a : mine.b;
  const int high = low == mine.a ? mine.b : mine.a;
  const int low_group = groups_.group_of(low);
  const int high_group = groups_.group_of(high);
  if (low_group >= 0) extra[kHostSwitchParam] = groups_.names[static_cast<std::size_t>(low_group)];
  if (high_group >= 0)
    extra[kPeerSwitchParam] = groups_.names[static_cast<std::size_t>(high_group)];
  if (low_group >= 0 && high_group >= 0)
    extra[kSwitchRouteParam] = text::join(groups_.route(low_group, high_group), ",");
  if (!topology_.empty()) extra[kTopologyParam] = topology_;
  PairSink pair_sink(sink, host_a, host_b, pass, round_index,
                     pair_world->all_gather_values(world.rank()), std::move(extra));
  try {
    pair_sink.set_operation("exchange");
    const auto exchanged =
        run_collective_sweep(*pair_backend, exchange_, *pair_world, pair_sink, id());
    pair_sink.set_operation("allreduce");
    const auto reduced =
        run_collective_sweep(*pair_backend, all_reduce_, *pair_world, pair_sink, id());
    outcome.exchange_busbw = busbw_at_largest(exchanged);
    outcome.allreduce_busbw = busbw_at_largest(reduced);
    for (const auto* rows : {&exchanged, &reduced}) {
      for (const auto& row : *rows) outcome.wrong += row.wrong_total;
    }
  } catch (const std::exception& error) {
    // The pair's ranks fail together (the same communicator); the other pairs go on.
    outcome.error = error.what();
    Measurement failed;
    failed.metric = "exchange_busbw";
    failed.status = MeasurementStatus::error;
    failed.message = error.what();
    pair_sink.emit(std::move(failed));
  }
  if (!pair_world->is_root()) return std::nullopt;
  return outcome;
}

std::vector<PairOutcome> NodePairsProbe::run_rounds(RunContext& context, CollectiveBackend& backend,
                                                    const std::vector<PairRound>& rounds,
                                                    PairPass pass, MeasurementSink& sink) {
  World& world = context.world;
  std::vector<PairOutcome> outcomes;
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    const auto mine = run_round(context, backend, rounds[r], pass, static_cast<int>(r), sink);
    // Each pair's first rank reports its outcome; the root prints the round.
    std::vector<PairOutcome> round_outcomes;
    for (const auto& outcome : world.gather_values(mine)) {
      if (outcome) round_outcomes.push_back(*outcome);
    }
    if (!world.is_root()) continue;
    std::string line;
    for (const auto& outcome : round_outcomes) {
      line += fmt::format(
          "  {}--{} {}", nodes_[static_cast<std::size_t>(outcome.pair.a)],
          nodes_[static_cast<std::size_t>(outcome.pair.b)],
          outcome.error.empty() ? short_gbps(outcome.exchange_busbw) + " GB/s" : "error");
    }
    sink.note(
        fmt::format("# {} round {}/{}:{}\n", pair_pass_name(pass), r + 1, rounds.size(), line));
    outcomes.insert(outcomes.end(), round_outcomes.begin(), round_outcomes.end());
  }
  return outcomes;
}

void NodePairsProbe::read_topology(RunContext& context) {
  World& world = context.world;
  if (!option_given(context.options, pair_topology_option())) return;
  topology_ = option_text(context.options, pair_topology_option());
  std::string error;
  if (world.is_root()) {
    try {
      groups_ = groups_from_topology(read_slurm_topology(topology_), nodes_);
    } catch (const std::exception& refused) {  // never leave the other ranks waiting below
      error = std::string("--opt pairs.topology: ") + refused.what();
    }
  }
  // Every rank fails alike when the file is refused.
  error = world.broadcast_value(error);
  if (!error.empty()) throw ConfigError(error);
  groups_.names = world.broadcast_value(groups_.names);
  groups_.of_node = world.broadcast_value(groups_.of_node);
  groups_.routes = world.broadcast_value(groups_.routes);
}

void NodePairsProbe::run(RunContext& context, MeasurementSink& sink) {
  World& world = context.world;
  nodes_ = world.distinct_hosts();
  my_node_ =
      static_cast<int>(std::find(nodes_.begin(), nodes_.end(), world.host()) - nodes_.begin());
  const BackendChoice choice = choose_collective_backend(context.options.backend, world);
  const PairSchedule schedule = pair_schedule_from(context.options);
  const LocalisationRule rule = localisation_rule_from(context.options);

  exchange_.collective = &find_collective("sendrecv");
  exchange_.sizes = pair_sizes(context.options, choice.name);
  exchange_.warmup = context.options.warmup;
  exchange_.iters = context.options.iters;
  exchange_.ops_per_sample = ops_per_sample_from(context.options);
  exchange_.record_arrivals = false;  // two nodes: the pair's figures name a slow one
  all_reduce_ = exchange_;
  all_reduce_.collective = &find_collective("all_reduce");

  read_topology(context);
  const int n = static_cast<int>(nodes_.size());
  std::vector<PairRound> rounds =
      schedule == PairSchedule::quick ? neighbour_rounds(n) : circle_rounds(n);
  // Every two leaves joined by at least one pair of the first pass.
  for (auto& round : rounds_covering_groups(rounds, groups_)) rounds.push_back(std::move(round));
  if (world.is_root()) {
    if (groups_.count() >= 1) {
      std::string unplaced;
      for (int node = 0; node < n; ++node) {
        if (groups_.group_of(node) < 0)
          unplaced += (unplaced.empty() ? "" : ", ") + nodes_[static_cast<std::size_t>(node)];
      }
      sink.note(fmt::format("# {}: leaf switches from {}; switch links exercised: {}{}\n", id(),
                            topology_, describe_group_coverage(rounds, groups_),
                            unplaced.empty() ? "" : "; in no leaf of it: " + unplaced));
    }
    std::size_t pairs = 0;
    for (const auto& round : rounds) pairs += round.size();
    sink.note(fmt::format(
        "# {}: backend {}, {} nodes, {} pairs in {} rounds ({}), sizes {}, {} warm-up + {} timed "
        "iterations; matrix figure: exchange busbw at {}\n",
        id(), choice.name, n, pairs, rounds.size(),
        schedule == PairSchedule::quick ? "quick: ring + shuffles" : "circle method",
        format_size_list(exchange_.sizes), exchange_.warmup, exchange_.iters,
        format_bytes(exchange_.sizes.empty()
                         ? 0
                         : *std::max_element(exchange_.sizes.begin(), exchange_.sizes.end()))));
  }

  // One backend over every rank; each round splits it into the round's pairs.
  const double started = now_seconds();
  auto backend = make_collective_backend(choice, world, context.options, context.run_dir, id());
  const auto first = run_rounds(context, *backend, rounds, PairPass::first, sink);
  const double first_done = now_seconds();

  // The root finds the suspects and plans the second pass; every rank runs it.
  std::vector<PairRound> second_rounds;
  PairSuspects suspects;
  PairMatrix matrix(nodes_);
  double localised = first_done;
  if (world.is_root()) {
    for (const auto& outcome : first) {
      if (outcome.error.empty()) matrix.set(outcome.pair.a, outcome.pair.b, outcome.exchange_busbw);
    }
    suspects = find_suspects(matrix, rule, &groups_);
    second_rounds = confirmation_rounds(suspects);
    localised = now_seconds();
    sink.note(format_pair_matrix(matrix, "exchange busbw (GB/s)") +
              describe_suspects(matrix, suspects));
  }
  second_rounds = world.broadcast_value(second_rounds);
  std::vector<PairOutcome> second;
  if (!second_rounds.empty()) {
    second = run_rounds(context, *backend, second_rounds, PairPass::confirm, sink);
  }
  if (!world.is_root()) return;
  if (!second_rounds.empty()) {
    std::vector<PairFigure> figures;
    for (const auto& outcome : second) {
      figures.push_back({outcome.pair, outcome.error.empty() ? outcome.exchange_busbw : kNaN});
    }
    sink.note(describe_localisation(matrix, suspects, confirm_suspects(suspects, figures)));
  }
  sink.note(fmt::format(
      "# {}: first pass {} rounds {:.2f} s, localisation {:.3f} ms, second pass {} rounds {:.2f} "
      "s\n",
      id(), rounds.size(), first_done - started, (localised - first_done) * 1e3,
      second_rounds.size(), now_seconds() - localised));
}

}  // namespace

// Its judge is registered beside it (register.cpp).
std::unique_ptr<Probe> make_node_pairs_probe(const NcclLogProof& /*proof*/) {
  return std::make_unique<NodePairsProbe>();
}

}  // namespace fabcheck
