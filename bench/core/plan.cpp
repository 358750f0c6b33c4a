// The built-in plans: which probes each use runs, with sizes and time limits to match its budget.
#include "bench/core/plan.hpp"

#include "bench/core/size_range.hpp"
#include "results/config_error.hpp"

namespace fabcheck {
namespace {

RunOptions options_for(const char* sizes, int iters, int warmup, double timeout_s,
                       std::map<std::string, std::string> extra = {}) {
  RunOptions options;
  options.sizes = parse_size_sweep(sizes);
  options.iters = iters;
  options.warmup = warmup;
  options.probe_timeout_s = timeout_s;
  options.extra = std::move(extra);
  return options;
}

std::vector<Plan> make_builtin_plans() {
  return {
      {"gate", "pre-job prolog on the job's own nodes: pass, or what to drain, in under 60 s",
       "fabric.pcie_links,fabric.ib_ports,coll.all_reduce,coll.all_gather,"
       "fabric.nccl_transport,storage.seq_write,storage.seq_read",
       options_for("1M,8M,64M", 10, 3, 30, {{"storage.profile", "gate"}})},
      {"acceptance", "new nodes: every component, full sweeps, in-place and out-of-place",
       "fabric.*,gpu.*,coll.*,storage.*",
       options_for("8:256M:2", 20, 5, 600, {{"placement", "both"}, {"storage.profile", "acceptance"}})},
      {"quick", "a few seconds: every collective at small sizes (smoke test)", "coll.*",
       options_for("8:1M:8", 5, 2, 60)},
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
