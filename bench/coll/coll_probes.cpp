// The coll.* probes: one collective each, through the backend the options and the node allow.
#include "bench/coll/coll_probes.hpp"

#include <cstdlib>
#include <stdexcept>

#include "bench/coll/engine.hpp"
#include "bench/coll/mpi_backend.hpp"
#include "bench/coll/mpi_call_plan.hpp"
#include "bench/coll/nccl_backend.hpp"
#include "bench/core/plan_estimate.hpp"
#include "bench/core/size_range.hpp"
#include "bench/cuda/cuda_availability.hpp"
#include "bench/sys/config_error.hpp"

namespace fabcheck {
namespace {

// The sizes a plan gives per backend (host-memory MPI saturates at a few MiB, NVLink GPUs only
// near a GiB); --sizes overrides both.
OptionSpec sizes_option(const char* backend) {
  return {
      .key = std::string("coll.sizes.") + backend,
      .type = OptionType::size_sweep,
      .default_value = "1K:64M:4",
      .meaning = std::string("message sizes on the ") + backend + " backend (--sizes overrides)",
      // --budget keeps a size where bandwidth shows: host memory saturates near 1 MiB, GPUs near
      // 64 MiB and above.
      .budget_floor = std::string(backend) == "nccl" ? "64M" : "1M"};
}

// What the sweep costs (engine.hpp's model at the backend's assumed rates).
ProbeEstimate estimate_collective(Collective collective, const RunOptions& options,
                                  const JobShape& job) {
  const std::string backend = job.backend.empty() ? "mpi" : job.backend;
  SweepConfig config;
  config.collective = collective;
  config.placements = placements_from(options);
  config.sizes = collective_sizes_for(options, backend);
  config.warmup = options.warmup;
  config.iters = options.iters;
  config.ops_per_sample = ops_per_sample_from(options);
  const SweepCostModel model = assumed_sweep_cost(backend);
  return {model.setup_s + estimated_sweep_seconds(config, job.ranks, model),
          "sizes " + describe_sizes(config.sizes) + ", " + describe_iterations(options) +
              (config.placements.size() > 1 ? ", in and out of place" : "")};
}

// The collectives a gate cannot do without first; --budget drops the others before them.
BudgetPriority budget_priority_of(Collective collective) {
  switch (collective) {
    case Collective::all_reduce:
      return BudgetPriority::high;
    case Collective::all_gather:
    case Collective::reduce_scatter:
      return BudgetPriority::normal;
    case Collective::broadcast:
    case Collective::alltoall:
    case Collective::sendrecv:
      return BudgetPriority::low;
  }
  return BudgetPriority::low;
}

// The plans a collective is part of: the gate measures the two that training leans on most.
std::vector<PlanPlace> plans_of(Collective collective) {
  if (collective == Collective::all_reduce || collective == Collective::all_gather)
    return {{"gate"}, {"acceptance"}, {"quick"}};
  return {{"acceptance"}, {"quick"}};
}

class CollectiveProbe final : public Probe {
 public:
  explicit CollectiveProbe(Collective collective)
      : Probe({.id = std::string("coll.") + collective_name(collective),
               .description = std::string(collective_name(collective)) +
                              " bandwidth and latency over a size sweep, verified (MPI host "
                              "memory or NCCL GPUs)",
               .metrics = collective_metrics(),
               .needs = {collective_backend_requirement()},
               .scope = ProbeScope::world,
               .heavy = true,
               .options = {sizes_option("mpi"), sizes_option("nccl"), placement_option(),
                           mpi_max_count_option(), ops_per_sample_option()},
               .console_table =
                   [collective](const std::vector<Measurement>& measurements) {
                     return sweep_console_table(collective, measurements);
                   },
               .estimate =
                   [collective](const RunOptions& options, const JobShape& job) {
                     return estimate_collective(collective, options, job);
                   },
               .budget_priority = budget_priority_of(collective),
               .plans = plans_of(collective),
               .plan_stage = plan_stage::collectives}),
        collective_(collective) {}

  void run(RunContext& context, MeasurementSink& sink) override {
    const BackendChoice choice = choose_collective_backend(context.options.backend, context.world);
    auto backend =
        make_collective_backend(choice, context.world, context.options, context.run_dir, id());
    SweepConfig config;
    config.collective = collective_;
    config.placements = placements_from(context.options);
    config.sizes = collective_sizes_for(context.options, choice.name);
    config.warmup = context.options.warmup;
    config.iters = context.options.iters;
    config.ops_per_sample = ops_per_sample_from(context.options);
    run_collective_sweep(*backend, config, context.world, sink, id());
  }

 private:
  Collective collective_;
};

}  // namespace

std::vector<MetricSpec> collective_metrics() {
  return {{"time_us", {"us", Better::lower}},
          {"algbw", {"GB/s", Better::higher}},
          {"busbw", {"GB/s", Better::higher}},
          {"wrong_elements", {"count", Better::lower}}};
}

Requirement collective_backend_requirement() {
  return {"MPI or CUDA", mpi_available() || cuda_requirement().in_build,
          [](const World& world, const RunOptions& options) {
            return choose_collective_backend(options.backend, world).reason;
          }};
}

const OptionSpec& ops_per_sample_option() {
  static const OptionSpec spec{.key = "coll.ops_per_sample",
                               .type = OptionType::integer,
                               .meaning =
                                   "operations timed together as one sample (absent: the "
                                   "backend's choice, MPI 1, NCCL 4)",
                               .min = 1,
                               .max = 1000};
  return spec;
}

int ops_per_sample_from(const RunOptions& options) {
  const OptionSpec& spec = ops_per_sample_option();
  return option_given(options, spec) ? static_cast<int>(option_integer(options, spec)) : 0;
}

const OptionSpec& placement_option() {
  static const OptionSpec spec{.key = "placement",
                               .type = OptionType::choice,
                               .default_value = "out",
                               .meaning =
                                   "collective buffers: out of place, in place, or both "
                                   "(--placement)",
                               .choices = {"out", "in", "both"}};
  return spec;
}

std::vector<std::uint64_t> collective_sizes_for(const RunOptions& options,
                                                const std::string& backend) {
  if (!options.sizes.empty()) return options.sizes;
  return option_sizes(options, sizes_option(backend.c_str()));
}

std::vector<Placement> placements_from(const RunOptions& options) {
  const std::string value = option_choice(options, placement_option());
  if (value == "in") return {Placement::in_place};
  if (value == "both") return {Placement::out_of_place, Placement::in_place};
  return {Placement::out_of_place};
}

BackendChoice choose_collective_backend(const std::string& requested, const World& world) {
  const CudaAvailability nccl = cuda_availability();
  const bool mpi = world.is_mpi();
  if (requested == "nccl") {
    if (nccl.available) return {"nccl", ""};
    return {"", nccl.reason};
  }
  if (requested == "mpi") {
    if (mpi) return {"mpi", ""};
    return {"", mpi_available() ? "not launched as an MPI job" : "built without MPI"};
  }
  if (nccl.available) return {"nccl", ""};
  if (mpi) return {"mpi", ""};
  return {"",
          nccl.reason + "; and " + (mpi_available() ? "not an MPI world" : "built without MPI")};
}

std::unique_ptr<CollectiveBackend> make_collective_backend(const BackendChoice& choice,
                                                           World& world, const RunOptions& options,
                                                           const std::filesystem::path& run_dir,
                                                           const std::string& probe_id) {
  std::unique_ptr<CollectiveBackend> backend;
  if (choice.name == "mpi") backend = make_mpi_backend(world, mpi_max_count(options));
  if (choice.name == "nccl") backend = make_nccl_backend(world, options, run_dir, probe_id);
  if (!backend) throw std::runtime_error("no collective backend: " + choice.reason);
  return backend;
}

void register_collective_probes(Registry& registry) {
  for (Collective collective : all_collectives()) {
    registry.add(std::make_unique<CollectiveProbe>(collective));
  }
}

}  // namespace fabcheck
