// The straggler rank of a collective: held-back times from the aligning barrier's waits and the
// ranks' time off the CPU, and the rule.
#include "bench/coll/collective_stragglers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "bench/coll/collective.hpp"
#include "bench/core/stats.hpp"
#include "bench/sys/text_scan.hpp"
#include "results/profile.hpp"
#include "results/robust_stats.hpp"
#include "results/units.hpp"

namespace fabcheck {
namespace {

constexpr const char* kHeldMetric = "held_back_us";
constexpr const char* kRankTimeMetric = "rank_time_us";
constexpr const char* kRatioSetting = "coll_straggler_ratio";
constexpr const char* kTotalSetting = "coll_straggler_ms";

// The mean of a rank's figures over the samples, leaving out its largest.
double mean_without_largest(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  double sum = 0;
  double largest = 0;
  for (const double value : values) {
    sum += value;
    largest = std::max(largest, value);
  }
  return (sum - largest) / static_cast<double>(values.size() - 1);
}

std::string per_rank_list(const std::vector<double>& values) {
  return text::join(values, ",", [](double value) { return fmt::format("{:.6g}", value); });
}

// A per_rank_list read back; a value that is not a number reads 0.
std::vector<double> per_rank_figures(const std::string& list) {
  std::vector<double> values;
  if (list.empty()) return values;
  for (std::size_t at = 0; at <= list.size();) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    values.push_back(text::parse_number(std::string_view(list).substr(at, comma - at)).value_or(0));
    at = comma + 1;
  }
  return values;
}

}  // namespace

ArrivalLags arrival_lags(const std::vector<RankSampleTimes>& ranks) {
  ArrivalLags lags;
  const std::size_t n = ranks.size();
  lags.held_back_us.assign(n, 0);
  lags.lateness_us.assign(n, 0);
  lags.off_cpu_us.assign(n, 0);
  lags.last_arrivals.assign(n, 0);
  if (n < 2) return lags;
  std::size_t samples = ranks.front().wait_s.size();
  for (const auto& rank : ranks) {
    samples = std::min({samples, rank.wait_s.size(), rank.off_cpu_s.size()});
  }
  lags.samples = samples;
  std::vector<std::vector<double>> held(n), late(n), off(n);
  for (std::size_t s = 0; s < samples; ++s) {
    std::size_t last = 0;
    for (std::size_t r = 0; r < n; ++r) {
      if (ranks[r].wait_s[s] < ranks[last].wait_s[s]) last = r;
      std::vector<double> others;
      others.reserve(n - 1);
      for (std::size_t k = 0; k < n; ++k) {
        if (k != r) others.push_back(ranks[k].wait_s[s]);
      }
      const double lateness_us =
          std::max(0.0, median_of(std::move(others)) - ranks[r].wait_s[s]) * 1e6;
      const double off_cpu_us = std::max(0.0, ranks[r].off_cpu_s[s]) * 1e6;
      late[r].push_back(lateness_us);
      off[r].push_back(off_cpu_us);
      held[r].push_back(std::max(lateness_us, off_cpu_us));
    }
    ++lags.last_arrivals[last];
  }
  for (std::size_t r = 0; r < n; ++r) {
    lags.held_back_us[r] = mean_without_largest(held[r]);
    lags.lateness_us[r] = mean_without_largest(late[r]);
    lags.off_cpu_us[r] = mean_without_largest(off[r]);
  }
  return lags;
}

std::vector<Measurement> arrival_measurements(const Measurement& base,
                                              const std::vector<RankSampleTimes>& ranks,
                                              const std::vector<std::string>& hosts,
                                              double timed_us) {
  if (ranks.size() < 2) return {};
  const ArrivalLags lags = arrival_lags(ranks);
  const auto host_of = [&](std::size_t rank) {
    return rank < hosts.size() ? hosts[rank] : std::string();
  };

  Measurement held = base;
  held.metric = kHeldMetric;
  held.unit = "us";
  std::size_t most = 0;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    held.by_rank.push_back({static_cast<int>(r), host_of(r), lags.held_back_us[r]});
    if (lags.held_back_us[r] > lags.held_back_us[most]) most = r;
  }
  held.value = lags.held_back_us[most];
  held.params["last_rank"] = std::to_string(most);
  held.params["last_host"] = host_of(most);
  held.params["last_in"] = fmt::format("{} of {}", lags.last_arrivals[most], lags.samples);
  held.params["last_arrivals"] =
      text::join(lags.last_arrivals, ",", [](int count) { return std::to_string(count); });
  held.params["lateness_us"] = per_rank_list(lags.lateness_us);
  held.params["off_cpu_us"] = per_rank_list(lags.off_cpu_us);
  held.params["samples"] = std::to_string(lags.samples);
  held.params["timed_us"] = fmt::format("{:.6g}", timed_us);

  Measurement own = base;
  own.metric = kRankTimeMetric;
  own.unit = "us";
  std::size_t slowest = 0;
  std::vector<SampleStats> stats;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    std::vector<double> us;
    us.reserve(ranks[r].own_s.size());
    for (const double seconds : ranks[r].own_s) us.push_back(seconds * 1e6);
    stats.push_back(compute_stats(us));
    own.by_rank.push_back({static_cast<int>(r), host_of(r), stats.back().median});
    if (stats.back().median > stats[slowest].median) slowest = r;
  }
  own.value = stats[slowest].median;
  own.stats = stats[slowest];
  own.params["slowest_rank"] = std::to_string(slowest);
  if (!ranks[slowest].own_s.empty()) {
    own.params["first_sample_us"] = fmt::format("{:.6g}", ranks[slowest].own_s.front() * 1e6);
  }
  return {std::move(held), std::move(own)};
}

StragglerRule straggler_rule_from(const Profile& profile) {
  StragglerRule rule;
  rule.min_share_of_time =
      node_number_above(profile, kRatioSetting, 0, rule.min_share_of_time,
                        "the time one rank holds the others back over the probe's timed time");
  rule.min_total_ms =
      node_number_above(profile, kTotalSetting, 0, rule.min_total_ms,
                        "milliseconds one rank holds the others back over the probe");
  return rule;
}

std::vector<Finding> judge_collective_stragglers(const std::vector<Measurement>& measurements,
                                                 const StragglerRule& rule) {
  // Per probe and placement: each rank's time holding the others back (figure x samples), its
  // parts, its last arrivals and its worst size; the timed time of every size.
  struct RankTotal {
    std::string host;
    double held_us = 0;
    double late_us = 0;
    double off_cpu_us = 0;
    int last = 0;
    double worst_us = -1;
    std::optional<std::uint64_t> worst_size;
  };
  struct ProbeTotal {
    const Measurement* first = nullptr;
    double timed_us = 0;
    std::size_t samples = 0;
    std::map<int, RankTotal> ranks;
  };
  std::map<std::tuple<std::string, std::string>, ProbeTotal> totals;
  std::vector<std::tuple<std::string, std::string>> order;
  for (const Measurement& m : measurements) {
    if (m.metric != kHeldMetric || m.status != MeasurementStatus::ok || m.by_rank.size() < 2) {
      continue;
    }
    const auto samples = text::parse_number(param_of(m, "samples"));
    const auto timed = text::parse_number(param_of(m, "timed_us"));
    if (!samples || !timed || *samples < 2) continue;
    const auto key = std::make_tuple(m.probe, param_of(m, "placement"));
    auto& total = totals[key];
    if (!total.first) {
      total.first = &m;
      order.push_back(key);
    }
    total.timed_us += *timed;
    total.samples += static_cast<std::size_t>(*samples);
    const auto last = per_rank_figures(param_of(m, "last_arrivals"));
    const auto late = per_rank_figures(param_of(m, "lateness_us"));
    const auto off_cpu = per_rank_figures(param_of(m, "off_cpu_us"));
    for (const RankFigure& figure : m.by_rank) {
      RankTotal& rank = total.ranks[figure.rank];
      rank.host = figure.host;
      rank.held_us += figure.value * *samples;
      if (figure.value > rank.worst_us) {
        rank.worst_us = figure.value;
        rank.worst_size = m.size_bytes;
      }
      const auto index = static_cast<std::size_t>(figure.rank);
      if (figure.rank < 0) continue;
      if (index < last.size()) rank.last += static_cast<int>(last[index]);
      if (index < late.size()) rank.late_us += late[index] * *samples;
      if (index < off_cpu.size()) rank.off_cpu_us += off_cpu[index] * *samples;
    }
  }

  std::vector<Finding> findings;
  for (const auto& key : order) {
    const ProbeTotal& total = totals[key];
    double all_us = 0;
    const RankTotal* worst = nullptr;
    int worst_rank = -1;
    for (const auto& [rank, figures] : total.ranks) {
      all_us += figures.held_us;
      if (!worst || figures.held_us > worst->held_us) {
        worst = &figures;
        worst_rank = rank;
      }
    }
    if (!worst || !(total.timed_us > 0) || !(all_us > 0)) continue;
    const double share_of_time = worst->held_us / total.timed_us;
    const double share_of_all = worst->held_us / all_us;
    if (share_of_time < rule.min_share_of_time || worst->held_us < rule.min_total_ms * 1e3 ||
        share_of_all < rule.min_share_of_all) {
      continue;
    }
    const Measurement& m = *total.first;
    const std::string placement = std::get<1>(key);
    const auto samples = static_cast<double>(total.samples);
    Finding f;
    f.severity = Severity::warn;
    f.probe = m.probe;
    f.metric = kHeldMetric;
    f.subject = "rank " + std::to_string(worst_rank);
    f.host = worst->host;
    f.rank = worst_rank;
    f.observed = share_of_time;
    f.expected = rule.min_share_of_time;
    f.unit = "ratio";
    f.message = fmt::format(
        "{}{}: rank {} ({}) holds the others back: {} in all, {} per sample over {} samples (late "
        "at the barrier {}, off the CPU {}; last to arrive in {}), {:.0f}% on top of the {} the "
        "operations took and {:.0f}% of all ranks' held-back time; most at {}",
        m.probe, placement.empty() ? std::string() : " (" + std::string(placement_title(placement)) + ")", worst_rank,
        worst->host, format_microseconds(worst->held_us),
        format_microseconds(worst->held_us / samples), total.samples,
        format_microseconds(worst->late_us / samples),
        format_microseconds(worst->off_cpu_us / samples), worst->last, 100 * share_of_time,
        format_microseconds(total.timed_us), 100 * share_of_all,
        worst->worst_size ? format_bytes(*worst->worst_size) : std::string("?"));
    f.source = fmt::format(
        "inferred: a rank that holds the others back {:.0f}% of the timed time or more, {} in "
        "all, with {:.0f}% of all ranks' held-back time, is a straggler (profile [node] {}, {})",
        100 * rule.min_share_of_time, format_microseconds(rule.min_total_ms * 1e3),
        100 * rule.min_share_of_all, kRatioSetting, kTotalSetting);
    std::string evidence = m.probe + " " + kHeldMetric + " over all sizes, per rank:";
    for (const auto& [rank, figures] : total.ranks) {
      evidence += fmt::format(" rank {} ({}) {} (late {}, off CPU {}, last {});", rank,
                              figures.host, format_microseconds(figures.held_us),
                              format_microseconds(figures.late_us),
                              format_microseconds(figures.off_cpu_us), figures.last);
    }
    evidence.pop_back();
    f.evidence = evidence;
    f.remedy = fmt::format(
        "look at {} first: its CPUs taken by another process or a cgroup quota (host.cpu, top, "
        "cpu.cfs_quota_us / cpu.max of the job), the rank bound to the wrong socket (host.numa, "
        "--bind-to), a hot or throttled GPU (gpu.health clock-event reasons), swapping; rerun with "
        "the rank on another host to tell the host from the rank",
        worst->host);
    findings.push_back(std::move(f));
  }
  return findings;
}

Judge make_collective_straggler_judge() {
  Judge judge;
  judge.name = "collective_stragglers";
  judge.settings = {
      {kRatioSetting,
       "coll.*: a rank that holds the others back (late at the sample's barrier, or off the CPU "
       "in it) this share of a probe's timed time or more, coll_straggler_ms in all and three "
       "quarters of all ranks' held-back time, is a straggler: a WARN naming it (default 0.25)"},
      {kTotalSetting,
       "coll.*: how many milliseconds in all a straggler holds the others back at least (default "
       "20)"}};
  judge.validate = [](const Profile& profile) { straggler_rule_from(profile); };
  judge.judge = [](const std::vector<Measurement>& measurements, const Profile& profile) {
    return judge_collective_stragglers(measurements, straggler_rule_from(profile));
  };
  judge.scope = JudgeScope::each_probe;
  judge.reads = {{"coll.*", kHeldMetric}};
  return judge;
}

}  // namespace fabcheck
