// CollectiveProbe: one collective's size sweep through the backend the options and the node allow,
// with everything it declares read from its entry.
#include "bench/coll/collective_probe.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "bench/coll/coll_probes.hpp"
#include "bench/coll/data_types.hpp"
#include "bench/coll/engine.hpp"
#include "bench/coll/measured_sweep_cost.hpp"
#include "bench/coll/mpi_call_plan.hpp"
#include "bench/coll/sweep_table.hpp"
#include "bench/core/plan_estimate.hpp"
#include "bench/core/size_range.hpp"
#include "bench/sys/config_error.hpp"
#include "results/units.hpp"

namespace fabcheck {
namespace {

// The largest element the options' types have (the buffers of a size are its bytes, so a smaller
// type only has more elements).
std::size_t largest_element_bytes(const ElementPlan& plan) {
  std::size_t largest = 1;
  for (const verify::Element& element : plan.run) {
    largest = std::max<std::size_t>(largest, verify::element_bytes(element.type));
  }
  return largest;
}

// The combinations the sweep runs; on the root, one waived record that names those left out and
// why (in the console's table and the run's records), so `all` never drops one silently.
ElementPlan planned_elements(const Collective& collective, const RunOptions& options,
                             const std::string& backend, int nranks, const World& world,
                             MeasurementSink& sink, const std::string& probe_id) {
  ElementPlan plan = element_plan(options, collective.expected.reduced, backend, nranks);
  if (plan.left_out.empty() || !world.is_root()) return plan;
  Measurement m;
  m.probe = probe_id;
  m.host = world.joined_hosts();
  m.rank = -1;
  m.subject = "world";
  m.metric = "wrong_elements";
  m.unit = "count";
  m.status = MeasurementStatus::waived;
  m.params = {{"backend", backend}, {"ranks", std::to_string(nranks)}};
  m.message = "not run (--dtype/--op): " + left_out_text(plan);
  sink.emit(std::move(m));
  return plan;
}

// What the sweep costs (engine.hpp's model at the backend's assumed rates), once per combination.
ProbeEstimate estimate_collective(const Collective& collective, const RunOptions& options,
                                  const JobShape& job) {
  const std::string backend = job.backend.empty() ? "mpi" : job.backend;
  const auto combinations = static_cast<double>(
      element_plan(options, collective.expected.reduced, backend, job.ranks).run.size());
  SweepConfig config;
  config.collective = &collective;
  config.placements = placements_from(options);
  config.sizes = collective_sizes_for(options, backend);
  config.warmup = options.warmup;
  config.iters = options.iters;
  config.ops_per_sample = ops_per_sample_from(options);
  const std::string knobs = "sizes " + describe_sizes(config.sizes) + ", " +
                            describe_iterations(options) +
                            (config.placements.size() > 1 ? ", in and out of place" : "");
  const std::string knobs_all =
      combinations > 1 ? knobs + ", " + fmt::format("{:.0f}", combinations) + " type/op sweeps"
                       : knobs;
  std::string assumed = knobs_all;
  if (job.earlier) {
    if (auto measured =
            measured_sweep_estimate(config, collective.id, backend, job.ranks, *job.earlier)) {
      measured->seconds *= combinations;
      measured->knobs = knobs_all + "; " + measured->knobs;
      return *measured;
    }
    // --estimate-from was asked for and cannot serve this probe: say so, never silently.
    assumed += fmt::format("; assumed rates: {} has no per-size times of {} on {} at {} ranks",
                           job.earlier->dir.string(), collective.id, backend, job.ranks);
  }
  const SweepCostModel model = assumed_sweep_cost(backend);
  return {model.setup_s + combinations * estimated_sweep_seconds(config, job.ranks, model),
          assumed};
}

class CollectiveProbe final : public Probe {
 public:
  explicit CollectiveProbe(const Collective& collective)
      : Probe(
            {.id = collective.id,
             .description = collective.description,
             .metrics = collective_metrics(),
             .needs = {collective_backend_requirement()},
             .scope = ProbeScope::world,
             .heavy = true,
             .options = {collective_sizes_option("mpi"), collective_sizes_option("nccl"),
                         placement_option(), mpi_max_count_option(), ops_per_sample_option(),
                         dtype_option(), redop_option()},
             .buffer_need =
                 [&collective](const RunOptions& options, const std::string& backend, int ranks) {
                   return collective_buffer_need(collective, options, backend, ranks);
                 },
             .console_table =
                 [&collective](const std::vector<Measurement>& measurements) {
                   return sweep_console_table(collective, measurements);
                 },
             .live_table = [&collective] { return make_sweep_live_table(collective); },
             .estimate =
                 [&collective](const RunOptions& options, const JobShape& job) {
                   return estimate_collective(collective, options, job);
                 },
             .budget_priority = collective.budget_priority,
             .plans = collective.plans,
             .plan_stage = plan_stage::collectives,
             .repairs = {{"wrong_elements", "data-corruption", repair_action::inspect},
                         {"", "collective-slow", repair_action::inspect, FailKind::noisy_figure}}}),
        collective_(collective) {}

  const Collective& collective() const { return collective_; }

  void run(RunContext& context, MeasurementSink& sink) override {
    const BackendChoice choice = choose_collective_backend(context.options.backend, context.world);
    auto backend =
        make_collective_backend(choice, context.world, context.options, context.run_dir, id());
    SweepConfig config;
    config.collective = &collective_;
    config.placements = placements_from(context.options);
    config.sizes = collective_sizes_for(context.options, choice.name);
    config.warmup = context.options.warmup;
    config.iters = context.options.iters;
    config.ops_per_sample = ops_per_sample_from(context.options);
    // Each (type, op) is a sweep of its own, on the one backend (a communicator made once).
    const ElementPlan plan = planned_elements(collective_, context.options, choice.name,
                                              backend->comm_size(), context.world, sink, id());
    for (const verify::Element& element : plan.run) {
      config.element = element;
      run_collective_sweep(*backend, config, context.world, sink, id());
      config.note_unrun_placements = false;
    }
  }

 private:
  const Collective& collective_;
};

}  // namespace

std::unique_ptr<Probe> make_collective_probe(const Collective& collective) {
  return std::make_unique<CollectiveProbe>(collective);
}

const Collective* collective_of(const Probe& probe) {
  const auto* measuring = dynamic_cast<const CollectiveProbe*>(&probe);
  return measuring ? &measuring->collective() : nullptr;
}

BufferNeed collective_buffer_need(const Collective& collective, const RunOptions& options,
                                  const std::string& backend, int ranks) {
  std::optional<BufferNeed> largest;
  // Refuses (ConfigError) a --dtype/--op this backend or rank count cannot run, before anything
  // starts.
  const std::size_t element_bytes =
      largest_element_bytes(element_plan(options, collective.expected.reduced, backend, ranks));
  const std::vector<Placement> placements = placements_from(options);
  bool any_runs = false;
  std::uint64_t smallest = 0;
  for (const std::uint64_t size : collective_sizes_for(options, backend)) {
    const CollectiveShape shape = collective_shape(collective, size, ranks, element_bytes);
    smallest = smallest == 0 ? size : std::min(smallest, size);
    if (shape.count == 0) continue;
    any_runs = true;
    for (const Placement placement : placements) {
      const std::uint64_t elements = placement == Placement::in_place
                                         ? std::max(shape.send_count, shape.recv_count)
                                         : shape.send_count + shape.recv_count;
      const std::uint64_t bytes = elements * element_bytes;
      if (!largest || bytes > largest->bytes_per_rank) largest = BufferNeed{size, bytes};
    }
  }
  if (!any_runs) {
    throw ConfigError("--sizes: " + std::string(collective.id) + " with " + std::to_string(ranks) +
                      " rank(s) has nothing to move at any size given (the largest leaves no "
                      "element of " +
                      std::to_string(element_bytes) + " B per rank, smallest " +
                      format_bytes(smallest) + "): give sizes of at least " +
                      format_bytes(static_cast<std::uint64_t>(ranks) * element_bytes));
  }
  return *largest;
}

}  // namespace fabcheck
