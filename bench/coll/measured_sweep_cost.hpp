// A sweep's cost from an earlier run's records of the same probe, backend and ranks
// (--estimate-from): each size's step (buffers, warm-up, timed samples, the check) as measured
// there, its operations rescaled to the new iterations; what the assumed rates of
// assumed_sweep_cost cannot know (this node's bandwidth at each size, its per-step overhead).
#pragma once

#include <optional>
#include <string>

#include "bench/coll/engine.hpp"
#include "bench/core/earlier_run.hpp"
#include "bench/core/probe.hpp"

namespace fabcheck {

// Seconds run_collective_sweep takes for `config` on `ranks` ranks of `backend`, from the world
// figures `probe_id` left in `earlier` (time_us with the step's `step_s` and `operations`): per
// size and placement, (new operations) x (median time an operation there) + (the rest of the step
// there); a size not measured there from its two neighbours (log-log between them), below the
// smallest as the smallest, above the largest scaled by the bytes; a placement not measured as the
// other one. Plus the probe's time there outside its steps (its communicator), when summary.json
// gave the probe's time. Empty when the earlier run has no such figures (another backend or number
// of ranks, records without step times): the caller keeps its assumed model.
std::optional<ProbeEstimate> measured_sweep_estimate(const SweepConfig& config,
                                                     const std::string& probe_id,
                                                     const std::string& backend, int ranks,
                                                     const EarlierRun& earlier);

}  // namespace fabcheck
