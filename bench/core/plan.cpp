// The built-in plans: each use with the sizes, iterations and time limits to match its budget (the
// probes say which plans they belong to).
#include "bench/core/plan.hpp"

#include "bench/core/size_range.hpp"
#include "bench/sys/config_error.hpp"

namespace fabcheck {
namespace {

// Collective sizes are per backend (coll.sizes.mpi / coll.sizes.nccl, read by the coll.* probes):
// host-memory MPI saturates at a few MiB, eight NVLink GPUs only near a GiB. --sizes overrides
// both. A plan without coll.* probes passes none (a plan carries no key nobody reads).
RunOptions options_for(const char* mpi_sizes, const char* nccl_sizes, int iters, int warmup,
                       double timeout_s, std::map<std::string, std::string> extra = {}) {
  RunOptions options;
  if (mpi_sizes != nullptr) {
    parse_size_sweep(mpi_sizes);  // a typo here is a bug, caught by the plan tests
    extra["coll.sizes.mpi"] = mpi_sizes;
  }
  if (nccl_sizes != nullptr) {
    parse_size_sweep(nccl_sizes);
    extra["coll.sizes.nccl"] = nccl_sizes;
  }
  options.iters = iters;
  options.warmup = warmup;
  options.probe_timeout_s = timeout_s;
  options.extra = std::move(extra);
  return options;
}

std::vector<Plan> make_builtin_plans() {
  return {
      {"gate", "pre-job prolog on the job's own nodes: pass, or what to drain, in under 60 s",
       // Storage: the default file (64 MiB a node), one second a phase.
       options_for("1M,8M,64M", "64M,256M,1G", 10, 3, 30, {{"storage.duration_s", "1"}})},
      {"acceptance", "new nodes: every component, full sweeps, in-place and out-of-place",
       // Storage: files past a drive's write cache, checkpoints of a real shard, ten seconds a
       // phase. gpu.gemm burns every GPU for gpu.burn_s with clocks sampled throughout. The SDC
       // screens a minute each pass, twice (gpu.sdc after that burn, on a hot GPU).
       options_for("8:256M:2", "8:8G:2", 20, 5, 600,
                   {{"placement", "both"},
                    {"sdc.duration_s", "60"},
                    {"sdc.repeats", "2"},
                    {"storage.file_size", "4G"},
                    {"storage.ckpt_size", "1G"},
                    {"storage.duration_s", "10"},
                    {"gpu.burn_s", "300"},
                    {"node_pairs.sizes.mpi", "64K,4M"},
                    {"node_pairs.sizes.nccl", "1M,256M"}})},
      {"sweep",
       "nightly fleet sweep under mpirun across nodes: each node's own checks, then every pair of "
       "nodes (coll.node_pairs) naming a slow node or a slow link",
       options_for(nullptr, nullptr, 10, 3, 300,
                   {{"node_pairs.sizes.mpi", "64K,4M"}, {"node_pairs.sizes.nccl", "1M,256M"}})},
      {"quick", "a few seconds: every collective at small sizes (smoke test)",
       options_for("8:1M:8", "8:1M:8", 5, 2, 60)},
  };
}

}  // namespace

const std::vector<Plan>& builtin_plans() {
  static const std::vector<Plan> plans = make_builtin_plans();
  return plans;
}

const Plan& find_plan(const std::string& name) {
  std::string known;
  for (const auto& plan : builtin_plans()) {
    if (plan.name == name) return plan;
    known += (known.empty() ? "" : ", ") + plan.name;
  }
  throw ConfigError("--plan: unknown plan \"" + name + "\" (known: " + known + ")");
}

}  // namespace fabcheck
