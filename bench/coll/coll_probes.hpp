// What the coll.* probes share: the backend a collective probe uses, the options the probes read
// and the metrics a sweep emits.
#pragma once

#include <memory>
#include <string>

#include "bench/coll/backend.hpp"
#include "bench/core/registry.hpp"

namespace fabcheck {

// The backend a collective probe uses for `requested` ("mpi", "nccl" or "" for the default: NCCL
// where a CUDA device exists, else MPI), or why none applies.
struct BackendChoice {
  std::string name;    // "mpi" or "nccl"; empty when none applies
  std::string reason;  // why none applies
};
BackendChoice choose_collective_backend(const std::string& requested, const World& world);

// Builds the chosen backend (throws when it cannot be built).
std::unique_ptr<CollectiveBackend> make_collective_backend(const BackendChoice& choice,
                                                           World& world, const RunOptions& options,
                                                           const std::filesystem::path& run_dir,
                                                           const std::string& probe_id);

// An MPI world or a GPU with NCCL, as --backend asks (unmet: the reason none can run).
Requirement collective_backend_requirement();

// The metrics every collective sweep emits (time_us, algbw, busbw, wrong_elements).
std::vector<MetricSpec> collective_metrics();

// --opt coll.ops_per_sample=N (1..1000): operations per timed sample; 0 (absent): the backend's
// choice. A ConfigError names a bad value.
const OptionSpec& ops_per_sample_option();
int ops_per_sample_from(const RunOptions& options);

// The sizes a collective sweep uses: --sizes first; else the plan's sizes for this backend
// (coll.sizes.<backend>, collective_sizes_option); else 1K:64M:4.
OptionSpec collective_sizes_option(const std::string& backend);
std::vector<std::uint64_t> collective_sizes_for(const RunOptions& options,
                                                const std::string& backend);

// The "placement" option (out, in, both; --placement sets it) and the placements it asks for.
const OptionSpec& placement_option();
std::vector<Placement> placements_from(const RunOptions& options);

}  // namespace fabcheck
