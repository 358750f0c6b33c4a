// Cross-rank phase aggregation: a max over (-open, close, -close), then sums of amounts.
#include "storage/rank_timeline.hpp"

#include <algorithm>
#include <limits>

namespace fabcheck {

namespace {

double amount_done_by(const RankPhase& phase, double seconds) {
  if (phase.close_s <= seconds) return phase.amount;
  double done = 0;
  for (const ProgressPoint& point : phase.progress) {
    if (point.seconds > seconds) break;
    done = static_cast<double>(point.bytes);
  }
  return done;
}

void finish(PhaseAggregate& result) {
  const double span = result.last_close_s - result.first_open_s;
  const double first_span = result.first_close_s - result.first_open_s;
  result.aggregate_rate = span > 0 ? result.total / span : 0;
  result.first_done_rate = first_span > 0 ? result.done_at_first_close / first_span : 0;
}

}  // namespace

PhaseAggregate aggregate_phases(const std::vector<RankPhase>& phases) {
  PhaseAggregate result;
  if (phases.empty()) return result;
  result.first_open_s = std::numeric_limits<double>::max();
  result.first_close_s = std::numeric_limits<double>::max();
  result.last_close_s = std::numeric_limits<double>::lowest();
  for (const RankPhase& phase : phases) {
    result.first_open_s = std::min(result.first_open_s, phase.open_s);
    result.first_close_s = std::min(result.first_close_s, phase.close_s);
    result.last_close_s = std::max(result.last_close_s, phase.close_s);
    result.total += phase.amount;
  }
  for (const RankPhase& phase : phases) {
    result.done_at_first_close += amount_done_by(phase, result.first_close_s);
  }
  finish(result);
  return result;
}

PhaseAggregate aggregate_phase_across_ranks(World& world, const RankPhase& mine) {
  // first open = -max(-open), first close = -max(-close), last close = max(close)
  std::vector<double> extremes{-mine.open_s, -mine.close_s, mine.close_s};
  world.max_in_place(extremes);
  PhaseAggregate result;
  result.first_open_s = -extremes[0];
  result.first_close_s = -extremes[1];
  result.last_close_s = extremes[2];
  std::vector<double> sums{mine.amount, amount_done_by(mine, result.first_close_s)};
  world.sum_in_place(sums);
  result.total = sums[0];
  result.done_at_first_close = sums[1];
  finish(result);
  return result;
}

}  // namespace fabcheck
