// The trimmed plan every rank runs: --budget's knobs and probes as the root chose them, sent to
// every rank (so that every rank runs the same plan even where its own estimate would differ).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bench/core/probe.hpp"
#include "bench/core/wire.hpp"

namespace fabcheck {

struct TrimmedPlan {
  int iters = 0;
  int warmup = 0;
  std::vector<std::uint64_t> sizes;
  std::map<std::string, std::string> extra;
  std::vector<std::string> probes;  // the ids kept, in plan order
};

void wire_write(WireWriter& out, const TrimmedPlan& plan);
void wire_read(WireReader& in, TrimmedPlan& plan);

// The knobs --budget trims, of `options`, and the ids of `probes`.
TrimmedPlan trimmed_plan_of(const RunOptions& options, const std::vector<Probe*>& probes);

// Applies the root's trimmed plan: its knobs to `options`, and to `probes` the probes of
// `candidates` (the untrimmed plan) it names, in its order. Throws std::logic_error when it names
// a probe `candidates` lacks.
void apply_trimmed_plan(const TrimmedPlan& plan, RunOptions& options, std::vector<Probe*>& probes,
                        const std::vector<Probe*>& candidates);

}  // namespace fabcheck
