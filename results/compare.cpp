// Figures of a run against the same figures earlier: regressions beyond a tolerance, and trends.
#include "results/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <tuple>
#include <unordered_map>

#include "results/robust_stats.hpp"
#include "results/units.hpp"

namespace fabcheck {
namespace {

constexpr std::uint32_t kNone = 0xffffffffu;

struct Key {
  std::uint32_t host, probe, metric, subject, peer, cond;
  std::uint64_t size;
  bool operator==(const Key& o) const {
    return std::tie(host, probe, metric, subject, peer, cond, size) ==
           std::tie(o.host, o.probe, o.metric, o.subject, o.peer, o.cond, o.size);
  }
};

struct KeyHash {
  std::size_t operator()(const Key& k) const {
    std::uint64_t h = k.size * 0x9e3779b97f4a7c15ull;
    for (std::uint32_t part : {k.host, k.probe, k.metric, k.subject, k.peer, k.cond}) {
      h = (h ^ part) * 0x100000001b3ull;
    }
    return static_cast<std::size_t>(h ^ (h >> 31));
  }
};

std::string format_value(double value) {
  if (std::fabs(value) >= 1000) return fmt::format("{:.0f}", value);
  return fmt::format("{:.4g}", value);
}

struct Candidate {
  Finding finding;
  double worst = 0;
  std::size_t sizes = 0;
};

}  // namespace

bool same_run(const RunInfo& a, const RunInfo& b) {
  if (!a.started_utc.empty() && a.started_utc == b.started_utc) {
    for (const std::string& host : a.hosts) {
      if (std::find(b.hosts.begin(), b.hosts.end(), host) != b.hosts.end()) return true;
    }
  }
  std::error_code error_a;
  std::error_code error_b;
  const auto dir_a = std::filesystem::weakly_canonical(a.dir, error_a);
  const auto dir_b = std::filesystem::weakly_canonical(b.dir, error_b);
  return !a.dir.empty() && !error_a && !error_b && dir_a == dir_b;
}

std::vector<bool> runs_compared(const FleetStore& now, const FleetStore& reference) {
  std::vector<bool> itself(reference.runs.size(), false);
  for (std::size_t r = 0; r < reference.runs.size(); ++r) {
    for (const RunInfo& run : now.runs) itself[r] = itself[r] || same_run(reference.runs[r], run);
  }
  return itself;
}

Comparison compare_figures(const FleetStore& now, const FleetStore& reference,
                           const CompareOptions& options) {
  Comparison result;
  if (options.catalog == nullptr) return result;
  StringPool conditions;
  std::vector<std::uint32_t> now_conditions(now.param_set_count(), kNone);
  std::vector<std::uint32_t> reference_conditions(reference.param_set_count(), kNone);
  auto condition = [&](const FleetStore& store, std::vector<std::uint32_t>& cache,
                       std::uint32_t params) {
    if (cache[params] == kNone) cache[params] = conditions.intern(store.conditions_text(params));
    return cache[params];
  };
  // Which metrics are compared, and which way is worse.
  std::unordered_map<std::uint64_t, const MetricInfo*> infos;
  auto info_of = [&](std::uint32_t probe, std::uint32_t metric) -> const MetricInfo* {
    const std::uint64_t id = (static_cast<std::uint64_t>(probe) << 32) | metric;
    const auto found = infos.find(id);
    if (found != infos.end()) return found->second;
    const MetricInfo* info = nullptr;
    const auto p = options.catalog->find(now.strings.text(probe));
    if (p != options.catalog->end()) {
      const auto m = p->second.find(now.strings.text(metric));
      if (m != p->second.end() && is_performance_unit(m->second.unit)) info = &m->second;
    }
    return infos[id] = info;
  };

  std::unordered_map<Key, std::vector<double>, KeyHash> now_values;
  for (const FigureRow& row : now.rows) {
    if (row.status != MeasurementStatus::ok || !std::isfinite(row.value)) continue;
    if (info_of(row.probe, row.metric) == nullptr) continue;
    now_values[{row.host, row.probe, row.metric, row.subject, row.peer,
                condition(now, now_conditions, row.params), row.size}]
        .push_back(row.value);
  }
  // The reference's strings in the current store's ids (kNone: absent there, so never matched).
  std::vector<std::uint32_t> ids(reference.strings.size(), kNone - 1);
  auto id_of = [&](std::uint32_t id) {
    if (ids[id] == kNone - 1) ids[id] = now.strings.find(reference.strings.text(id));
    return ids[id];
  };
  // A run is never its own reference (`run --history H` then `compare RUN --against H`).
  const std::vector<bool> itself = runs_compared(now, reference);
  std::unordered_map<Key, std::map<std::uint32_t, std::vector<double>>, KeyHash> earlier;
  for (const FigureRow& row : reference.rows) {
    if (row.status != MeasurementStatus::ok || !std::isfinite(row.value)) continue;
    if (row.run < itself.size() && itself[row.run]) continue;
    Key key{id_of(row.host),   id_of(row.probe),
            id_of(row.metric), id_of(row.subject),
            id_of(row.peer),   0,
            row.size};
    if (key.host == kNone || key.probe == kNone || key.metric == kNone || key.subject == kNone ||
        key.peer == kNone) {
      continue;
    }
    key.cond = condition(reference, reference_conditions, row.params);
    if (now_values.count(key)) earlier[key][row.run].push_back(row.value);
  }

  std::map<std::string, Candidate> candidates;
  // host -> reference run -> ratios; host -> ratios now
  std::map<std::uint32_t, std::map<std::uint32_t, std::vector<double>>> run_ratios;
  std::map<std::uint32_t, std::vector<double>> now_ratios;
  for (const auto& [key, values] : now_values) {
    const auto found = earlier.find(key);
    if (found == earlier.end()) {
      ++result.only_now;
      continue;
    }
    ++result.compared;
    std::vector<double> per_run;
    for (const auto& [run, run_values] : found->second) per_run.push_back(median_of(run_values));
    const double before = median_of(per_run);
    const double current = median_of(values);
    if (!std::isfinite(before) || before == 0) continue;
    for (const auto& [run, run_values] : found->second) {
      run_ratios[key.host][run].push_back(median_of(run_values) / before);
    }
    now_ratios[key.host].push_back(current / before);
    const MetricInfo& info = *info_of(key.probe, key.metric);
    const double change = (current - before) / std::fabs(before);
    const double worse = info.better == Better::higher ? -change : change;
    if (worse <= options.tolerance / 2) continue;
    const std::string probe = now.strings.text(key.probe);
    const std::string metric = now.strings.text(key.metric);
    const std::string subject = now.strings.text(key.subject);
    const std::string peer = now.strings.text(key.peer);
    const std::string host = now.strings.text(key.host);
    Finding f;
    f.severity = worse > options.tolerance ? Severity::fail : Severity::warn;
    f.probe = probe;
    f.metric = metric;
    f.subject = subject;
    f.host = host;
    if (key.size != kNoSize) f.size_bytes = key.size;
    f.observed = current;
    f.expected = before;
    f.unit = info.unit;
    std::string earlier_values;
    for (const auto& [run, run_values] : found->second) {
      const RunInfo& info_run = reference.runs[run];
      earlier_values +=
          fmt::format("{}{} {}", earlier_values.empty() ? "" : ", ",
                      info_run.started_utc.empty() ? info_run.dir : info_run.started_utc,
                      format_value(median_of(run_values)));
    }
    f.message = fmt::format(
        "{}: {}{} {} {}{}: {} {} is {:.0f}% {} its reference {} {} (median of {} earlier "
        "run{}; tolerance {:.0f}%)",
        host, subject, peer.empty() ? "" : " -> " + peer, probe, metric,
        key.size == kNoSize ? "" : " at " + format_bytes(key.size), format_value(current),
        info.unit, worse * 100, info.better == Better::higher ? "below" : "above",
        format_value(before), info.unit, per_run.size(), per_run.size() == 1 ? "" : "s",
        options.tolerance * 100);
    f.evidence = "earlier: " + earlier_values + "; now " + format_value(current);
    f.source = fmt::format(
        "reference: the same host, subject, figure and size earlier; a fall of "
        "more than {:.0f}% fails, more than {:.0f}% warns",
        options.tolerance * 100, options.tolerance * 50);
    f.remedy =
        "the node got slower than it was: look at what changed since (firmware, driver, "
        "BIOS, cabling, a neighbour's load) and at its trend below";
    auto [it, added] = candidates.try_emplace(fmt::format(
        "{}|{}|{}|{}|{}|{}", key.host, key.probe, key.metric, key.subject, key.peer, key.cond));
    Candidate& c = it->second;
    ++c.sizes;
    if (added || worse > c.worst) {
      const bool failed = !added && c.finding.severity == Severity::fail;
      c.finding = std::move(f);
      if (failed) c.finding.severity = Severity::fail;
      c.worst = worse;
    } else if (f.severity == Severity::fail) {
      c.finding.severity = Severity::fail;
    }
  }
  for (auto& [key, c] : candidates) {
    if (c.sizes > 1) {
      c.finding.message += fmt::format(" [at {} sizes; the worst shown]", c.sizes);
    }
    result.findings.push_back(std::move(c.finding));
  }
  std::sort(result.findings.begin(), result.findings.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.host, a.subject, a.probe, a.metric) <
           std::tie(b.host, b.subject, b.probe, b.metric);
  });
  for (const auto& [host, ratios] : now_ratios) {
    NodeTrend trend;
    trend.host = now.strings.text(host);
    for (const auto& [run, run_values] : run_ratios[host]) {
      const RunInfo& info = reference.runs[run];
      trend.points.push_back({info.started_utc.empty() ? info.dir : info.started_utc,
                              median_of(run_values), run_values.size()});
    }
    trend.points.push_back({"now", median_of(ratios), ratios.size()});
    result.trends.push_back(std::move(trend));
  }
  return result;
}

}  // namespace fabcheck
