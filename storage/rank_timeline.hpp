// Combining one timed phase across ranks (IO500's ior-easy rule): every rank times its phase from
// the moment it leaves a barrier, so offsets are comparable across hosts without synchronised
// clocks (the barrier's exit skew, microseconds, is the error against phases of seconds).
// aggregate = total / (last close - first open); "first done" = what all ranks had completed when
// the first rank closed, over the time until then (elbencho), so a straggler shows as a gap.
#pragma once

#include <cstdint>
#include <vector>

#include "bench/core/world.hpp"
#include "storage/io_loop.hpp"

namespace fabcheck {

struct RankPhase {
  double open_s = 0;   // seconds after leaving the barrier when the rank began (its first open)
  double close_s = 0;  // ... when it ended (its last close)
  double amount = 0;   // bytes, or operations
  std::vector<ProgressPoint> progress;  // cumulative amount over time, for "first done"
};

struct PhaseAggregate {
  double first_open_s = 0;
  double first_close_s = 0;
  double last_close_s = 0;
  double total = 0;                // amount summed over ranks
  double done_at_first_close = 0;  // amount all ranks had completed when the first one closed
  double aggregate_rate = 0;       // total / (last_close - first_open), per second
  double first_done_rate = 0;      // done_at_first_close / (first_close - first_open)
};

// From every rank's phase (for tests and for a root that gathered them).
PhaseAggregate aggregate_phases(const std::vector<RankPhase>& phases);

// The same through the World's collectives; every rank must call it and gets the same result.
PhaseAggregate aggregate_phase_across_ranks(World& world, const RankPhase& mine);

}  // namespace fabcheck
