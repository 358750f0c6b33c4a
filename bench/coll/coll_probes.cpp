// The coll.* probes: one collective each, through the backend the options and the node allow.
#include "bench/coll/coll_probes.hpp"

#include <cstdlib>
#include <stdexcept>

#include "bench/coll/engine.hpp"
#include "bench/coll/mpi_backend.hpp"
#include "bench/coll/mpi_call_plan.hpp"
#include "bench/coll/nccl_backend.hpp"
#include "bench/core/size_range.hpp"
#include "results/config_error.hpp"

namespace fabcheck {
namespace {

// Sizes when neither the plan nor --sizes gives any.
constexpr const char* kDefaultSizes = "1K:64M:4";

class CollectiveProbe final : public Probe {
 public:
  explicit CollectiveProbe(Collective collective) : collective_(collective) {}

  bool heavy() const override { return true; }
  std::string id() const override { return std::string("coll.") + collective_name(collective_); }
  std::string description() const override {
    return std::string(collective_name(collective_)) +
           " bandwidth and latency over a size sweep, verified (MPI host memory or NCCL GPUs)";
  }
  std::vector<MetricSpec> metrics() const override { return collective_metrics(); }
  bool prints_own_table() const override { return true; }

  Applicability applies(const World& world, const RunOptions& options) const override {
    const BackendChoice choice = choose_collective_backend(options.backend, world);
    if (choice.name.empty()) return Applicability::waived(choice.reason);
    return Applicability::yes();
  }

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
    run_collective_sweep(*backend, config, context.world, sink, id(),
                         context.world.is_root() ? stdout : nullptr);
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

int ops_per_sample_from(const RunOptions& options) {
  const auto it = options.extra.find("coll.ops_per_sample");
  if (it == options.extra.end()) return 0;
  char* end = nullptr;
  const long value = std::strtol(it->second.c_str(), &end, 10);
  if (it->second.empty() || *end != '\0' || value < 1 || value > 1000) {
    throw ConfigError("--opt coll.ops_per_sample=" + it->second +
                      ": expected an integer in [1, 1000]");
  }
  return static_cast<int>(value);
}

std::vector<std::uint64_t> collective_sizes_for(const RunOptions& options,
                                                const std::string& backend) {
  if (!options.sizes.empty()) return options.sizes;
  const auto it = options.extra.find("coll.sizes." + backend);
  return parse_size_sweep(it == options.extra.end() ? kDefaultSizes : it->second);
}

std::vector<Placement> placements_from(const RunOptions& options) {
  const auto it = options.extra.find("placement");
  const std::string value = it == options.extra.end() ? "out" : it->second;
  if (value == "out") return {Placement::out_of_place};
  if (value == "in") return {Placement::in_place};
  if (value == "both") return {Placement::out_of_place, Placement::in_place};
  throw ConfigError("--placement: \"" + value + "\" is not one of out, in, both");
}

BackendChoice choose_collective_backend(const std::string& requested, const World& world) {
  const NcclAvailability nccl = nccl_availability();
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
  if (choice.name == "mpi") backend = make_mpi_backend(world, mpi_max_count(options.extra));
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
