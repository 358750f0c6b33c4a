// What the coll.* probes share: the backend the options and the node allow, the options they read,
// the metrics they emit.
#include "bench/coll/coll_probes.hpp"

#include <cstdlib>
#include <stdexcept>

#include "bench/coll/engine.hpp"
#include "bench/coll/mpi_backend.hpp"
#include "bench/coll/mpi_call_plan.hpp"
#include "bench/coll/nccl_backend.hpp"
#include "bench/coll/nccl_process_settings.hpp"
#include "bench/core/plan_estimate.hpp"
#include "bench/core/size_range.hpp"
#include "bench/cuda/cuda_availability.hpp"
#include "bench/sys/config_error.hpp"

namespace fabcheck {

// The sizes a plan gives per backend (host-memory MPI saturates at a few MiB, NVLink GPUs only
// near a GiB); --sizes overrides both.
OptionSpec collective_sizes_option(const std::string& backend) {
  return {.key = "coll.sizes." + backend,
          .type = OptionType::size_sweep,
          .default_value = "1K:64M:4",
          .meaning = "message sizes on the " + backend + " backend (--sizes overrides)",
          // --budget keeps a size where bandwidth shows: host memory saturates near 1 MiB, GPUs
          // near 64 MiB and above.
          .budget_floor = backend == "nccl" ? "64M" : "1M"};
}

std::vector<MetricSpec> collective_metrics() {
  return {{"time_us", {"us", Better::lower}},
          {"algbw", {"GB/s", Better::higher}},
          {"busbw", {"GB/s", Better::higher}},
          {"wrong_elements", {"count", Better::lower}}};
}

Requirement collective_backend_requirement() {
  return {"MPI or CUDA", mpi_available() || cuda_requirement().in_build,
          [](const World& world, const RunOptions& options) {
            const BackendChoice choice = choose_collective_backend(options.backend, world);
            // NCCL of this process keeps what coll.nic_loopback forced: waived, never measured
            // through the NICs while saying NVLink.
            if (choice.name == "nccl") return nccl_transports_forced_reason();
            return choice.reason;
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
  return option_sizes(options, collective_sizes_option(backend));
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
  // GPUs here but NCCL not loadable: the collectives are waived naming the library, never moved
  // to host memory behind the operator's back.
  const std::string nccl_library = nccl.available ? nccl_missing() : std::string();
  if (requested == "nccl") {
    if (nccl.available)
      return nccl_library.empty() ? BackendChoice{"nccl", ""} : BackendChoice{"", nccl_library};
    return {"", nccl.reason};
  }
  if (requested == "mpi") {
    if (mpi) return {"mpi", ""};
    return {"", mpi_available() ? "not launched as an MPI job" : "built without MPI"};
  }
  if (nccl.available) {
    if (nccl_library.empty()) return {"nccl", ""};
    return {"", "CUDA devices here but " + nccl_library};
  }
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

}  // namespace fabcheck
