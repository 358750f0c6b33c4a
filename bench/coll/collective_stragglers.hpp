// The rank that holds a collective back: from every rank's wait in the barrier that starts each
// timed sample, how long the others waited for each rank; each rank's own operation times; and the
// rule that names one rank (and its host) when it alone keeps the others waiting.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "bench/core/registry.hpp"
#include "bench/core/wire.hpp"
#include "results/finding.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

// What one process measured in a size's timed samples, in sample order: the seconds it waited in
// the aligning barrier before each sample, its own seconds per operation, and the seconds it was
// not running (wall minus its thread's CPU time, from the barrier's entry to the sample's end:
// descheduled, throttled by a CPU quota, waiting on another process for a core).
struct RankSampleTimes {
  std::vector<double> wait_s;
  std::vector<double> own_s;
  std::vector<double> off_cpu_s;
};

// RankSampleTimes crosses ranks to the root (World::gather_values).
inline void wire_write(WireWriter& out, const RankSampleTimes& value) {
  wire_write(out, value.wait_s);
  wire_write(out, value.own_s);
  wire_write(out, value.off_cpu_s);
}
inline void wire_read(WireReader& in, RankSampleTimes& value) {
  wire_read(in, value.wait_s);
  wire_read(in, value.own_s);
  wire_read(in, value.off_cpu_s);
}

// Per rank (process), over the samples of one size, how long it held the others back, from two
// signs, each in microseconds a sample:
//  - lateness: a barrier lets everyone go when the last rank arrives, so the rank that arrives
//    last waits least; a rank's lateness in a sample is the median of the other ranks' waits minus
//    its own (at least 0);
//  - off-CPU time: a rank that busy-polls (MPI) runs the whole sample, so a rank that was not
//    running while the others were held them back inside the barrier or the operation, where its
//    lateness cannot show.
// A rank's held-back time in a sample is the larger of the two; each figure is the mean over the
// samples leaving out the rank's single largest (one descheduling of one process is not a
// straggler): a rank starved of CPU, or held up every sample, keeps it over many.
struct ArrivalLags {
  std::vector<double> held_back_us;
  std::vector<double> lateness_us;
  std::vector<double> off_cpu_us;
  std::vector<int> last_arrivals;  // samples in which it waited least (arrived last)
  std::size_t samples = 0;         // the fewest any rank reported
};

ArrivalLags arrival_lags(const std::vector<RankSampleTimes>& ranks);

// The root's records of one size from every process's times (`ranks[p]`, host `hosts[p]`), with
// the sweep's own fields (`base`: probe, size, placement, ...): `held_back_us` (by_rank each
// rank's held-back time, the value the largest; params last_rank, last_host of the largest,
// last_in "K of N" of that rank, and per rank in rank order, comma-separated: last_arrivals,
// lateness_us, off_cpu_us; samples; timed_us: the sum of the size's timed samples, slowest rank
// per sample, in microseconds) and `rank_time_us` (by_rank each rank's median time per operation;
// the value, stats and params slowest_rank, first_sample_us those of the rank with the largest
// median). Nothing for one process: no one waits for anyone.
std::vector<Measurement> arrival_measurements(const Measurement& base,
                                              const std::vector<RankSampleTimes>& ranks,
                                              const std::vector<std::string>& hosts,
                                              double timed_us);

// A rank is a straggler of a probe when, over all its sizes, the time it held the others back is
// at least `min_share_of_time` of the probe's timed time and `min_total_ms` in all, at least
// `min_share_of_all` of every rank's together. Profile [node] coll_straggler_ratio and
// coll_straggler_ms set the first two.
struct StragglerRule {
  double min_share_of_time = 0.25;
  double min_total_ms = 20;
  double min_share_of_all = 0.75;
};

// The rule with the profile's [node] coll_straggler_ratio / coll_straggler_ms; ConfigError naming
// the profile, line and value when one is not a number above 0.
StragglerRule straggler_rule_from(const Profile& profile);

// A WARN per probe (and placement) whose held-back times name one rank: the rank, its host, how
// long it held the others back in all and per sample (late arrivals, time off the CPU), the share
// of the timed time, the size where it held them most.
std::vector<Finding> judge_collective_stragglers(const std::vector<Measurement>& measurements,
                                                 const StragglerRule& rule);

Judge make_collective_straggler_judge();

}  // namespace fabcheck
