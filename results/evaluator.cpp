// Evaluator: turns measurements into findings by the profile's thresholds and the data-corruption
// rule.
#include "results/evaluator.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "results/tiers.hpp"
#include "results/units.hpp"

namespace fabcheck {
namespace {

constexpr const char* kWrongElementsMetric = "wrong_elements";

// Figures as people read them: "0.42", "480.5", "1905000".
std::string format_value(double value) {
  if (!std::isfinite(value)) return fmt::format("{}", value);
  if (std::fabs(value) >= 1000) return fmt::format("{:.0f}", value);
  return fmt::format("{:.4g}", value);
}

// " on node-a gpu3": where the figure was taken, when it is narrower than the whole world.
std::string location_of(const Measurement& m) {
  std::string where = m.host;
  if (!m.subject.empty() && m.subject != "world") {
    where += where.empty() ? m.subject : " " + m.subject;
  }
  if (!m.peer.empty()) where += " -> " + m.peer;  // a pair: the other end is half the story
  return where.empty() ? std::string() : " on " + where;
}

// " at 4KiB", and a collective's element type and reduction where they are not float/sum (--dtype,
// --op: " at 4KiB (int8 sum)", " at 4KiB (half)" where nothing is reduced), so that the findings of
// two sweeps at one size say which is which.
std::string size_part(const Measurement& m) {
  std::string part = m.size_bytes ? " at " + format_bytes(*m.size_bytes) : std::string();
  const auto type = m.params.find("type");
  const auto redop = m.params.find("redop");
  if (type == m.params.end() || redop == m.params.end()) return part;
  const bool reduced = redop->second != "none";
  if (type->second == "float" && (!reduced || redop->second == "sum")) return part;
  return part + " (" + type->second + (reduced ? " " + redop->second : std::string()) + ")";
}

std::string evidence_of(const Measurement& m) {
  std::string evidence = "observed " + format_value(m.value) + " " + m.unit;
  if (m.stats && m.stats->count > 0) {
    evidence +=
        fmt::format("; {} samples: median {}, p99 {}, cv {:.1f}%", m.stats->count,
                    format_value(m.stats->median), format_value(m.stats->p99), m.stats->cv * 100.0);
  }
  if (!m.params.empty()) {
    std::string params;
    for (const auto& [key, value] : m.params) {
      params += (params.empty() ? "" : " ") + key + "=" + value;
    }
    evidence += "; " + params;
  }
  if (!m.time_utc.empty()) evidence += "; at " + m.time_utc;
  return evidence;
}

std::string default_remedy(Severity severity) {
  switch (severity) {
    case Severity::warn:
      return "Re-run to confirm; compare with peer nodes and look for competing load, clocks or "
             "thermal throttling.";
    case Severity::fail:
      return "Check the component named (link width and speed, GPU clocks and health, driver and "
             "firmware versions); drain the node if a re-run confirms it.";
    case Severity::error:
      return "Read the message, fix the cause and re-run the probe.";
    case Severity::pass:
    case Severity::waived:
      return "";
  }
  return "";
}

// finding_about with the evaluator's evidence: the measurement's statistics.
Finding finding_from(const Measurement& m, Severity severity) {
  Finding finding = finding_about(m, severity);
  finding.evidence = evidence_of(m);
  return finding;
}

Finding status_finding(const Measurement& m) {
  const bool waived = m.status == MeasurementStatus::waived;
  Finding finding = finding_from(m, waived ? Severity::waived : Severity::error);
  finding.observed.reset();
  finding.evidence.clear();
  finding.message = m.probe + location_of(m) + (waived ? " waived: " : " error: ") + m.message;
  finding.remedy = default_remedy(finding.severity);
  return finding;
}

// "rank 1 (node-b): 12, rank 3 (node-c): 4": the ranks with a share above 0.
std::string wrong_ranks(const Measurement& m) {
  std::string ranks;
  for (const auto& figure : m.by_rank) {
    if (!(figure.value > 0)) continue;
    ranks += (ranks.empty() ? "rank " : ", rank ") + std::to_string(figure.rank) +
             (figure.host.empty() ? "" : " (" + figure.host + ")") + ": " +
             format_value(figure.value);
  }
  return ranks;
}

Finding wrong_elements_finding(const Measurement& m) {
  Finding finding = finding_from(m, Severity::fail);
  finding.expected = 0;
  finding.warn_at = 0;
  const std::string ranks = wrong_ranks(m);
  finding.message = m.probe + location_of(m) + size_part(m) + ": " + format_value(m.value) +
                    " wrong elements" + (ranks.empty() ? "" : " (" + ranks + ")");
  finding.remedy =
      "Data corruption: drain the node(s) named and run GPU memory and NVLink/IB diagnostics "
      "(e.g. dcgmi diag -r 3) before returning them to service.";
  // The backend's library is known to give these wrong (its "known_fault"): that first.
  if (const auto known = m.params.find("known_fault"); known != m.params.end()) {
    finding.remedy = known->second + " " + finding.remedy;
  }
  finding.source = "verification: every element of a collective's result is predictable";
  return finding;
}

bool subject_matches(const Expectation& expectation, const FigureView& figure) {
  return expectation.subject.empty() ||
         ::fnmatch(expectation.subject.c_str(), figure.subject->c_str(), 0) == 0;
}

bool size_matches(const Expectation& expectation, const FigureView& figure) {
  if (!expectation.min_size && !expectation.max_size) return true;
  if (!figure.size) return false;
  if (expectation.min_size && *figure.size < *expectation.min_size) return false;
  if (expectation.max_size && *figure.size > *expectation.max_size) return false;
  return true;
}

// Hosts a figure spans: its "hosts" parameter (a count, set by combined figures), else the
// comma-separated names in its host field.
std::size_t host_count(const FigureView& figure) {
  if (figure.hosts_param != nullptr) {
    try {
      return static_cast<std::size_t>(std::stoul(*figure.hosts_param));
    } catch (const std::exception&) {
      return 0;  // unreadable: matches no host scope
    }
  }
  const std::string& host = *figure.host;
  if (host.empty()) return 1;
  return static_cast<std::size_t>(std::count(host.begin(), host.end(), ',')) + 1;
}

// An expectation scoped to a backend judges only figures that say they came from it; one scoped to
// single or multi host only figures whose ranks spanned that many hosts.
bool scope_matches(const Expectation& expectation, const FigureView& figure) {
  if (expectation.backend) {
    if (figure.backend_param == nullptr || *figure.backend_param != *expectation.backend) {
      return false;
    }
  }
  if (expectation.hosts) {
    const std::size_t hosts = host_count(figure);
    if (hosts == 0) return false;
    if ((*expectation.hosts == HostScope::single) != (hosts == 1)) return false;
  }
  return true;
}

bool expectation_applies(const Expectation& expectation, const FigureView& figure) {
  return size_matches(expectation, figure) && scope_matches(expectation, figure) &&
         subject_matches(expectation, figure);
}

Severity judge(const Expectation& e, double observed) {
  if (e.better == Better::higher) {
    if (observed >= e.pass) return Severity::pass;
    if (observed >= e.warn) return Severity::warn;
    return Severity::fail;
  }
  if (observed <= e.pass) return Severity::pass;
  if (observed <= e.warn) return Severity::warn;
  return Severity::fail;
}

// What an expectation bounds of a measurement: its value, or a statistic of its samples
// (nullopt when it has none to give).
std::optional<double> bounded_figure(const Expectation& e, const Measurement& m) {
  if (e.stat.empty()) return m.value;
  if (!m.stats || m.stats->count == 0) return std::nullopt;
  if (e.stat == "p99") return m.stats->p99;
  if (e.stat == "max") return m.stats->max;
  if (!(m.stats->median > 0)) return std::nullopt;
  return m.stats->p99 / m.stats->median;
}

Finding threshold_finding(const Expectation& e, const Measurement& m) {
  const bool higher = e.better == Better::higher;
  const std::string figure_name = m.probe + " " + m.metric + (e.stat.empty() ? "" : " " + e.stat);
  const std::optional<double> observed = bounded_figure(e, m);
  Finding finding;
  if (!observed) {
    // Bounded, and nothing to judge it by: never a silent pass.
    finding = finding_from(m, Severity::error);
    finding.message = figure_name + location_of(m) + size_part(m) +
                      ": the figure carries no sample statistics (or a median of 0) to judge its " +
                      e.stat + " by (profile line " + std::to_string(e.line) + ")";
  } else if (!std::isfinite(*observed)) {
    finding = finding_from(m, Severity::error);
    finding.message =
        figure_name + location_of(m) + size_part(m) + ": the measured value is not a finite number";
  } else {
    finding = finding_from(m, judge(e, *observed));
    if (!e.stat.empty()) finding.observed = *observed;
    std::string message = figure_name + location_of(m) + size_part(m) + ": " +
                          format_value(*observed) + " " + e.unit + ", expected " +
                          (higher ? ">= " : "<= ") + format_value(e.pass) + " " + e.unit;
    if (finding.severity == Severity::warn) {
      message += (higher ? " (WARN from " : " (WARN up to ") + format_value(e.warn) + ")";
    } else if (finding.severity == Severity::fail) {
      message += (higher ? " (FAIL below " : " (FAIL above ") + format_value(e.warn) + ")";
    }
    finding.message = message;
  }
  finding.expected = e.pass;
  finding.warn_at = e.warn;
  finding.unit = e.unit;
  finding.source = e.source;
  if (finding.severity != Severity::pass) {
    finding.remedy = e.remedy.empty() ? default_remedy(finding.severity) : e.remedy;
  }
  return finding;
}

// A figure on a [[path]] that no threshold covers: the tier it matches, judged against the tier
// the path expects (FAIL below it).
Finding tier_finding(const TierPath& path, const Measurement& m) {
  const TierMatch match = classify_tier(path, m.value);
  const TierVerdict verdict = judge_tier(path, match, path.expect);
  Finding finding = finding_from(m, verdict.below_expected ? Severity::fail : Severity::pass);
  std::string per;
  if (path.divide_by != 1) {
    per = format_value(match.value) + " " + path.unit + " per " +
          (path.per.empty() ? std::string("unit") : path.per) + " ";
  }
  finding.message = m.probe + " " + m.metric + location_of(m) + size_part(m) + ": " +
                    format_value(m.value) + " " + m.unit + " " + per + verdict.text;
  const Tier* expected = find_tier(path, path.expect);
  if (expected != nullptr) {
    finding.expected = expected->min * path.divide_by;
    finding.source =
        "tier " + expected->name + " of [[path]] " + path.name + ": " + expected->source;
  } else {
    finding.source = "tiers of [[path]] " + path.name;
  }
  if (verdict.below_expected) {
    finding.remedy = "the path runs at a lower tier than this hardware should reach: " +
                     default_remedy(Severity::fail);
  }
  return finding;
}

// evaluate_measurement's rules for one figure, given its candidates.
std::vector<Finding> judge_figure(const Measurement& measurement, const Profile& profile,
                                  const FigureCandidates& candidates) {
  if (measurement.status != MeasurementStatus::ok) return {status_finding(measurement)};
  if (measurement.metric == kWrongElementsMetric && measurement.value > 0) {
    return {wrong_elements_finding(measurement)};
  }
  const FigureView figure = FigureView::of(measurement);
  std::vector<Finding> findings;
  const TierPath* path =
      candidates.on_path && std::isfinite(measurement.value)
          ? tier_path_for(profile, measurement.probe, measurement.metric, measurement.size_bytes)
          : nullptr;
  for (const Expectation* expectation : candidates.expectations) {
    if (!expectation_applies(*expectation, figure)) continue;
    findings.push_back(threshold_finding(*expectation, measurement));
    if (path != nullptr && findings.back().severity != Severity::error) {
      findings.back().message += tier_note(profile, measurement.probe, measurement.metric,
                                           measurement.size_bytes, measurement.value);
    }
  }
  if (findings.empty() && path != nullptr) findings.push_back(tier_finding(*path, measurement));
  return findings;
}

}  // namespace

std::vector<Finding> evaluate_measurement(const Measurement& measurement, const Profile& profile) {
  FigureCandidates candidates;
  for (const Expectation& e : profile.expectations) {
    if (e.probe == measurement.probe && e.metric == measurement.metric) {
      candidates.expectations.push_back(&e);
    }
  }
  candidates.on_path = true;  // tier_path_for looks for itself
  return judge_figure(measurement, profile, candidates);
}

std::vector<Finding> evaluate(const std::vector<Measurement>& measurements,
                              const Profile& profile) {
  const ProfileLookup lookup(profile);
  std::vector<Finding> findings;
  for (const Measurement& measurement : measurements) {
    std::vector<Finding> judged =
        judge_figure(measurement, profile, lookup.find(measurement.probe, measurement.metric));
    findings.insert(findings.end(), std::make_move_iterator(judged.begin()),
                    std::make_move_iterator(judged.end()));
  }
  return findings;
}

FigureView FigureView::of(const Measurement& m) {
  FigureView figure;
  figure.probe = &m.probe;
  figure.metric = &m.metric;
  figure.subject = &m.subject;
  figure.host = &m.host;
  figure.value = m.value;
  figure.size = m.size_bytes;
  figure.status = m.status;
  if (const auto backend = m.params.find("backend"); backend != m.params.end()) {
    figure.backend_param = &backend->second;
  }
  if (const auto hosts = m.params.find("hosts"); hosts != m.params.end()) {
    figure.hosts_param = &hosts->second;
  }
  return figure;
}

ProfileLookup::ProfileLookup(const Profile& profile) : profile_(profile) {
  for (const Expectation& e : profile.expectations) {
    by_figure_[{e.probe, e.metric}].expectations.push_back(&e);
  }
  for (const TierPath& path : profile.paths) {
    for (const auto& [probe, metric] : path.figures) by_figure_[{probe, metric}].on_path = true;
  }
}

const FigureCandidates& ProfileLookup::find(std::string_view probe, std::string_view metric) const {
  const auto found = by_figure_.find({probe, metric});
  return found == by_figure_.end() ? none_ : found->second;
}

std::size_t ProfileLookup::KeyHash::operator()(const Key& key) const {
  const std::hash<std::string_view> hash;
  return hash(key.first) * 31 + hash(key.second);
}

std::optional<std::size_t> count_passes(const FigureView& figure, const ProfileLookup& lookup) {
  if (figure.status != MeasurementStatus::ok) return std::nullopt;
  if (*figure.metric == kWrongElementsMetric && figure.value > 0) return std::nullopt;
  const FigureCandidates& candidates = lookup.find(*figure.probe, *figure.metric);
  const bool finite = std::isfinite(figure.value);
  std::size_t passes = 0;
  for (const Expectation* expectation : candidates.expectations) {
    if (!expectation_applies(*expectation, figure)) continue;
    // A bound on the samples' statistics needs the whole measurement: judged the full way.
    if (!expectation->stat.empty()) return std::nullopt;
    if (!finite || judge(*expectation, figure.value) != Severity::pass) return std::nullopt;
    ++passes;
  }
  if (passes > 0 || !candidates.on_path || !finite) return passes;
  const TierPath* path =
      tier_path_for(lookup.profile(), *figure.probe, *figure.metric, figure.size);
  if (path == nullptr) return 0;
  const TierMatch match = classify_tier(*path, figure.value);
  if (judge_tier(*path, match, path->expect).below_expected) return std::nullopt;
  return 1;
}

std::vector<Finding> verification_passes(const std::vector<Measurement>& measurements) {
  struct Tally {
    const Measurement* first = nullptr;
    std::size_t records = 0;
    bool any_wrong = false;
    std::set<std::string> hosts;
  };
  std::map<std::string, Tally> by_probe;
  for (const Measurement& m : measurements) {
    if (m.metric != kWrongElementsMetric || m.status != MeasurementStatus::ok) continue;
    Tally& tally = by_probe[m.probe];
    if (tally.first == nullptr) tally.first = &m;
    ++tally.records;
    tally.any_wrong = tally.any_wrong || m.value != 0;
    if (!m.host.empty()) tally.hosts.insert(m.host);
    for (const auto& entry : m.by_rank) {
      if (!entry.host.empty()) tally.hosts.insert(entry.host);
    }
  }
  std::vector<Finding> out;
  for (const auto& [probe, tally] : by_probe) {
    if (tally.any_wrong) continue;
    Finding finding = finding_from(*tally.first, Severity::pass);
    finding.subject = tally.first->subject;
    finding.host.clear();
    finding.rank = -1;
    finding.size_bytes.reset();
    finding.observed = 0;
    finding.expected = 0;
    finding.message =
        probe + ": every result verified, no wrong element (" + std::to_string(tally.records) +
        " checks" +
        (tally.hosts.empty() ? std::string()
                             : ", " + std::to_string(tally.hosts.size()) + " host(s)") +
        ")";
    finding.remedy.clear();
    finding.source = "verification: every element of a result is predictable";
    out.push_back(std::move(finding));
  }
  return out;
}

}  // namespace fabcheck
