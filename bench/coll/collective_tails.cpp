// The stall rule over the collectives' times: the slowest sample of a size against its median.
#include "bench/coll/collective_tails.hpp"

#include <fmt/format.h>

#include "bench/coll/collective.hpp"
#include "bench/sys/text_scan.hpp"
#include "results/profile.hpp"
#include "results/units.hpp"

namespace fabcheck {
namespace {

constexpr const char* kTimeMetric = "time_us";
constexpr const char* kRatioSetting = "coll_stall_ratio";
constexpr const char* kExcessSetting = "coll_stall_ms";

}  // namespace

StallRule stall_rule_from(const Profile& profile) {
  StallRule rule;
  rule.max_over_median =
      node_number_above(profile, kRatioSetting, 1, rule.max_over_median,
                        "how many times its median a size's slowest sample may take");
  rule.min_excess_us = 1e3 * node_number_above(profile, kExcessSetting, 0, rule.min_excess_us / 1e3,
                                               "how many milliseconds above the median a stall is");
  return rule;
}

std::vector<Finding> judge_collective_tails(const std::vector<Measurement>& measurements,
                                            const StallRule& rule) {
  std::vector<Finding> findings;
  for (const Measurement& m : measurements) {
    if (m.metric != kTimeMetric || m.status != MeasurementStatus::ok || !m.stats) continue;
    const SampleStats& s = *m.stats;
    if (s.count < rule.min_samples || !(s.median > 0)) continue;
    if (s.max < rule.max_over_median * s.median || s.max - s.median < rule.min_excess_us) continue;
    Finding f;
    f.severity = Severity::warn;
    f.probe = m.probe;
    f.metric = m.metric;
    f.subject = m.subject;
    f.host = m.host;
    f.size_bytes = m.size_bytes;
    f.observed = s.max;
    f.expected = s.median;
    f.unit = m.unit;
    const std::string placement = param_of(m, "placement");
    const std::string which = param_of(m, "max_sample");
    f.message = fmt::format(
        "{}{}{}: one timed sample took {}, {:.0f}x the median {} ({}p99 {}, {} samples): an "
        "operation stalled, one rank holding every other back",
        m.probe, m.size_bytes ? " at " + format_bytes(*m.size_bytes) : std::string(),
        placement.empty() ? std::string() : " (" + std::string(placement_title(placement)) + ")",
        format_microseconds(s.max), s.max / s.median, format_microseconds(s.median),
        which.empty() ? std::string() : "sample " + which + "; ", format_microseconds(s.p99),
        s.count);
    f.source = fmt::format(
        "inferred: a sample at least {:.0f}x its size's median and {} above it is a stall "
        "(profile [node] {}, {})",
        rule.max_over_median, format_microseconds(rule.min_excess_us), kRatioSetting,
        kExcessSetting);
    f.evidence = fmt::format("{} {}: median {} us, p99 {} us, max {} us, min {} us, cv {:.3g}",
                             m.probe, m.metric, s.median, s.p99, s.max, s.min, s.cv);
    f.remedy =
        "rerun to see whether it repeats (more --iters show how often); then look for the rank "
        "that arrives last: a hot or throttled GPU (gpu.health clocks and clock-event reasons), "
        "a rank starved of CPU (host.cpu, other jobs on the node), a paused or swapping "
        "process, a link retraining or flapping (fabcheck kernel-log, fabric.ib_ports counters)";
    findings.push_back(std::move(f));
  }
  return findings;
}

Judge make_collective_tail_judge() {
  Judge judge;
  judge.name = "collective_tails";
  judge.settings = {
      {kRatioSetting,
       "coll.*: a size whose slowest timed sample takes this many times its median (and "
       "coll_stall_ms more) stalled: a WARN (default 20)"},
      {kExcessSetting,
       "coll.*: how many milliseconds above the median a stalled sample is at least (default "
       "50)"}};
  judge.validate = [](const Profile& profile) { stall_rule_from(profile); };
  judge.judge = [](const std::vector<Measurement>& measurements, const Profile& profile) {
    return judge_collective_tails(measurements, stall_rule_from(profile));
  };
  judge.scope = JudgeScope::each_probe;
  judge.reads = {{"coll.*", kTimeMetric}};
  return judge;
}

}  // namespace fabcheck
