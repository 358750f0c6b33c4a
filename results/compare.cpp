// Figures of a run against the same figures earlier: regressions beyond a tolerance, and trends.
#include "results/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
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

// One figure (probe, metric, conditions) of a subject that fell, at its worst size.
struct Fall {
  Severity severity = Severity::warn;
  double worse = 0;  // the fall, as a fraction of the reference
  std::size_t sizes = 0, failed_sizes = 0;
  std::string host, probe, metric, unit, text;
  std::optional<std::uint64_t> size;
  double current = 0, before = 0;
  std::string evidence;
};

// A subject's falls: one finding. Its key names a link once whichever end measured it.
struct SubjectFalls {
  std::string host, subject;
  std::map<std::string, Fall> falls;  // probe|metric|conditions -> the worst size
};

// "a/mlx5_0--b/mlx5_0" for a figure measured to another host's device (a peer "host/device"),
// whichever end measured it; "gpu0--gpu1" for one to a device of the same host; else the subject.
std::pair<std::string, std::string> subject_of(const std::string& host, const std::string& subject,
                                               const std::string& peer) {
  if (peer.empty()) return {host, subject};
  if (peer.find('/') != std::string::npos) {
    const std::string here = host + "/" + subject;
    return {std::min(host, peer.substr(0, peer.find('/'))),
            std::min(here, peer) + "--" + std::max(here, peer)};
  }
  return {host, std::min(subject, peer) + "--" + std::max(subject, peer)};
}

std::string percent(double fraction) { return fmt::format("{:.0f}%", fraction * 100); }

}  // namespace

FigureTolerance figure_tolerance(const std::vector<double>& reference, double center,
                                 double sample_spread, const CompareOptions& options) {
  FigureTolerance t{options.tolerance, ""};
  std::string runs;
  double runs_tolerance = 0;
  if (reference.size() >= options.min_runs_for_spread && std::isfinite(center) && center != 0) {
    const double mad = median_absolute_deviation(reference, center) / std::fabs(center);
    runs_tolerance = options.robust_sigmas * kMadToSigma * mad;
    runs = fmt::format("the {} earlier runs' MAD {:.1f}%", reference.size(), mad * 100);
  } else {
    runs = fmt::format("{} earlier run{}, too few (under {}) for their spread", reference.size(),
                       reference.size() == 1 ? "" : "s", options.min_runs_for_spread);
  }
  const bool samples = std::isfinite(sample_spread);
  const std::string samples_words =
      samples
          ? fmt::format("; the earlier samples' p99 {:.0f}% over their median", sample_spread * 100)
          : "";
  if (runs_tolerance > t.fraction && runs_tolerance >= (samples ? sample_spread : 0)) {
    t.fraction = runs_tolerance;
    t.why = fmt::format("{:g} robust sigmas of {}{}", options.robust_sigmas, runs, samples_words);
  } else if (samples && sample_spread > t.fraction) {
    t.fraction = sample_spread;
    t.why = fmt::format("the earlier samples' spread: p99 {:.0f}% over their median; {}",
                        sample_spread * 100, runs);
  } else {
    t.why = fmt::format("the floor (--tolerance); {}{}", runs, samples_words);
  }
  const double most = std::max(options.max_tolerance, options.tolerance);
  if (t.fraction > most) {
    t.fraction = most;
    t.why = fmt::format("at most {} whatever the spread; {}", percent(most), t.why);
  }
  return t;
}

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
  std::unordered_map<Key, std::vector<double>, KeyHash> earlier_spread;
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
    if (!now_values.count(key)) continue;
    earlier[key][row.run].push_back(row.value);
    // A time's samples: how far their p99 lies above their median.
    if (row.stats != kNoStats && row.stats < reference.stats.size()) {
      const SampleStats& stats = reference.stats[row.stats];
      if (stats.count > 0 && stats.median > 0 && stats.p99 >= stats.median) {
        earlier_spread[key].push_back(stats.p99 / stats.median - 1);
      }
    }
  }

  std::map<std::pair<std::string, std::string>, SubjectFalls> subjects;
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
    // The samples' spread bounds a time (lower is better), whose samples the records keep.
    double sample_spread = std::numeric_limits<double>::quiet_NaN();
    const auto spread = earlier_spread.find(key);
    if (info.better == Better::lower && spread != earlier_spread.end()) {
      sample_spread = median_of(spread->second);
    }
    const FigureTolerance tolerance = figure_tolerance(per_run, before, sample_spread, options);
    if (worse <= tolerance.fraction / 2) continue;
    const std::string host = now.strings.text(key.host);
    const std::string probe = now.strings.text(key.probe);
    const std::string metric = now.strings.text(key.metric);
    const std::string subject = now.strings.text(key.subject);
    const std::string peer = now.strings.text(key.peer);
    Fall fall;
    fall.severity = worse > tolerance.fraction ? Severity::fail : Severity::warn;
    fall.worse = worse;
    fall.host = host;
    fall.probe = probe;
    fall.metric = metric;
    fall.unit = info.unit;
    if (key.size != kNoSize) fall.size = key.size;
    fall.current = current;
    fall.before = before;
    std::string earlier_values;
    for (const auto& [run, run_values] : found->second) {
      const RunInfo& info_run = reference.runs[run];
      earlier_values +=
          fmt::format("{}{} {}", earlier_values.empty() ? "" : ", ",
                      info_run.started_utc.empty() ? info_run.dir : info_run.started_utc,
                      format_value(median_of(run_values)));
    }
    const std::string& cond_text = conditions.text(key.cond);
    // Which end measured a link's figure.
    const std::string ends =
        peer.empty() ? ""
                     : (peer.find('/') != std::string::npos ? host + "/" + subject : subject) +
                           " -> " + peer + " ";
    fall.text = fmt::format(
        "{}{} {}{}{}: {} {} is {:.0f}% {} its reference {} {} (median of {} earlier run{}; "
        "tolerance {}: {})",
        ends, probe, metric, key.size == kNoSize ? "" : " at " + format_bytes(key.size),
        cond_text.empty() ? "" : " [" + cond_text + "]", format_value(current), info.unit,
        worse * 100, info.better == Better::higher ? "below" : "above", format_value(before),
        info.unit, per_run.size(), per_run.size() == 1 ? "" : "s", percent(tolerance.fraction),
        tolerance.why);
    fall.evidence =
        fmt::format("{}{} {}{}: earlier {}; now {}", peer.empty() ? host + ": " : ends, probe,
                    metric, key.size == kNoSize ? "" : " at " + format_bytes(key.size),
                    earlier_values, format_value(current));
    const auto where = subject_of(host, subject, peer);
    SubjectFalls& falls = subjects[where];
    falls.host = where.first;
    falls.subject = where.second;
    Fall& kept = falls.falls[fmt::format("{}|{}|{}|{}|{}", key.host, key.probe, key.metric,
                                         key.peer, key.cond)];
    const std::size_t sizes = kept.sizes + 1;
    const std::size_t failed = kept.failed_sizes + (fall.severity == Severity::fail ? 1 : 0);
    const bool any_failed = kept.severity == Severity::fail && kept.sizes > 0;
    // The worst size (of equal falls, the smallest), whatever order the figures came in.
    if (kept.sizes == 0 || worse > kept.worse ||
        (worse == kept.worse && fall.size.value_or(kNoSize) < kept.size.value_or(kNoSize))) {
      kept = std::move(fall);
    }
    kept.sizes = sizes;
    kept.failed_sizes = failed;
    if (any_failed) kept.severity = Severity::fail;
  }
  for (auto& [where, falls] : subjects) {
    std::vector<const Fall*> order;
    for (const auto& [name, fall] : falls.falls) order.push_back(&fall);
    std::sort(order.begin(), order.end(), [](const Fall* a, const Fall* b) {
      if (a->severity != b->severity) return a->severity > b->severity;
      if (a->worse != b->worse) return a->worse > b->worse;
      return a->text < b->text;
    });
    const Fall& worst = *order.front();
    Finding f;
    f.severity = Severity::warn;
    for (const Fall* fall : order) {
      if (fall->severity == Severity::fail) f.severity = Severity::fail;
    }
    f.probe = worst.probe;
    f.metric = worst.metric;
    f.subject = falls.subject;
    f.host = falls.host;
    f.size_bytes = worst.size;
    f.observed = worst.current;
    f.expected = worst.before;
    f.unit = worst.unit;
    const bool link = falls.subject.find('/') != std::string::npos;
    f.message = fmt::format("{}{}: {} figure{} fell", link ? "" : falls.host + ": ", falls.subject,
                            order.size(), order.size() == 1 ? "" : "s");
    for (std::size_t i = 0; i < order.size(); ++i) {
      const Fall& fall = *order[i];
      f.message +=
          fmt::format("{} {} {}", i == 0 ? ":" : ";", severity_label(fall.severity), fall.text);
      if (fall.sizes > 1) {
        f.message += fmt::format(" [at {} sizes, {} beyond the tolerance; the worst shown]",
                                 fall.sizes, fall.failed_sizes);
      }
      f.evidence += (f.evidence.empty() ? "" : "; ") + fall.evidence;
    }
    f.source = fmt::format(
        "reference: the same host, subject, figure, size and conditions earlier; a figure "
        "fails beyond its tolerance and warns beyond half of it, its tolerance the widest of "
        "{} (--tolerance), {:g} robust sigmas of the earlier runs' figures (from {} runs) and "
        "the earlier samples' spread (for a time), at most {}",
        percent(options.tolerance), options.robust_sigmas, options.min_runs_for_spread,
        percent(options.max_tolerance));
    f.remedy = falls.subject.find("--") != std::string::npos
                   ? "the path got slower than it was: look at what changed on it since "
                     "(cabling, a switch port, its rail, a neighbour's load) and at both ends' "
                     "trends below"
                   : "the node got slower than it was: look at what changed since (firmware, "
                     "driver, BIOS, cabling, a neighbour's load) and at its trend below";
    result.findings.push_back(std::move(f));
  }
  std::sort(result.findings.begin(), result.findings.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.host, a.subject) < std::tie(b.host, b.subject);
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
