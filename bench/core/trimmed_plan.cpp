// The trimmed plan: taken from the root's options, sent typed, applied on every rank.
#include "bench/core/trimmed_plan.hpp"

#include <algorithm>
#include <stdexcept>

namespace fabcheck {

void wire_write(WireWriter& out, const TrimmedPlan& plan) {
  wire_write(out, plan.iters);
  wire_write(out, plan.warmup);
  wire_write(out, plan.sizes);
  wire_write(out, plan.extra);
  wire_write(out, plan.probes);
}

void wire_read(WireReader& in, TrimmedPlan& plan) {
  wire_read(in, plan.iters);
  wire_read(in, plan.warmup);
  wire_read(in, plan.sizes);
  wire_read(in, plan.extra);
  wire_read(in, plan.probes);
}

TrimmedPlan trimmed_plan_of(const RunOptions& options, const std::vector<Probe*>& probes) {
  TrimmedPlan plan{options.iters, options.warmup, options.sizes, options.extra, {}};
  for (const Probe* probe : probes) plan.probes.push_back(probe->id());
  return plan;
}

void apply_trimmed_plan(const TrimmedPlan& plan, RunOptions& options, std::vector<Probe*>& probes,
                        const std::vector<Probe*>& candidates) {
  options.iters = plan.iters;
  options.warmup = plan.warmup;
  options.sizes = plan.sizes;
  options.extra = plan.extra;
  std::vector<Probe*> kept;
  for (const auto& id : plan.probes) {
    const auto found = std::find_if(candidates.begin(), candidates.end(),
                                    [&](const Probe* probe) { return probe->id() == id; });
    if (found == candidates.end())
      throw std::logic_error("the root's plan names a probe this rank lacks: " + id);
    kept.push_back(*found);
  }
  probes = kept;
}

}  // namespace fabcheck
