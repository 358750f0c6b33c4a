// Baseline profiles from known-good runs: medians, spreads and thresholds, written as TOML.
#include "results/baseline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "results/robust_stats.hpp"
#include "results/units.hpp"

namespace fabcheck {
namespace {

// A TOML basic string: quotes, backslashes and control characters escaped.
std::string toml_quote(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

// Six significant digits, always readable back as the same number by TOML.
std::string number(double value) {
  std::string text = fmt::format("{:.6g}", value);
  if (text.find_first_of(".eE") == std::string::npos && text != "inf" && text != "nan") {
    text += ".0";
  }
  return text;
}

}  // namespace

std::vector<BaselineEntry> baseline_entries(const FleetStore& store,
                                            const BaselineOptions& options) {
  std::vector<BaselineEntry> entries;
  if (options.catalog == nullptr) return entries;
  using Key = std::tuple<std::string, std::string, std::uint64_t, std::string>;
  struct Values {
    std::vector<double> values;
    std::set<std::uint32_t> hosts;
    const MetricInfo* info = nullptr;
  };
  std::map<Key, Values> groups;
  std::vector<std::string> classes(store.strings.size());
  for (const FigureRow& row : store.rows) {
    if (row.status != MeasurementStatus::ok || !std::isfinite(row.value)) continue;
    const std::string& probe = store.strings.text(row.probe);
    const std::string& metric = store.strings.text(row.metric);
    const auto p = options.catalog->find(probe);
    if (p == options.catalog->end()) continue;
    const auto m = p->second.find(metric);
    if (m == p->second.end() || !is_performance_unit(m->second.unit)) continue;
    std::string& cls = classes[row.subject];
    if (cls.empty()) cls = subject_class(store.strings.text(row.subject));
    Values& group = groups[{probe, metric, row.size, cls}];
    group.values.push_back(row.value);
    group.hosts.insert(row.host);
    group.info = &m->second;
  }
  for (const auto& [key, group] : groups) {
    const auto& [probe, metric, size, cls] = key;
    BaselineEntry e;
    e.probe = probe;
    e.metric = metric;
    e.unit = group.info->unit;
    e.subject_pattern = subject_pattern(cls);
    e.has_size = size != kNoSize;
    e.size = e.has_size ? size : 0;
    e.higher_is_better = group.info->better == Better::higher;
    const PeerSummary peers = summarise_peers(group.values);
    e.median = peers.median;
    e.mad = peers.mad;
    e.figures = peers.count;
    e.hosts = group.hosts.size();
    const double sigma = kMadToSigma * peers.mad;
    const double scale = std::fabs(peers.median);
    const double pass_margin =
        std::max(options.pass_fraction * scale, options.robust_sigmas * sigma);
    const double fail_margin =
        std::max(options.fail_fraction * scale, 2 * options.robust_sigmas * sigma);
    if (e.higher_is_better) {
      e.pass = std::stod(number(peers.median - pass_margin));
      e.warn = std::min(e.pass, std::stod(number(peers.median - fail_margin)));
    } else {
      e.pass = std::stod(number(peers.median + pass_margin));
      e.warn = std::max(e.pass, std::stod(number(peers.median + fail_margin)));
    }
    entries.push_back(e);
  }
  return entries;
}

std::string baseline_profile_toml(const FleetStore& store, const BaselineOptions& options) {
  std::set<std::string> hosts;
  for (const RunInfo& run : store.runs) hosts.insert(run.hosts.begin(), run.hosts.end());
  std::string text = fmt::format(
      "# {}: a baseline written by `fabcheck baseline` on {} from {} run(s) on {} host(s).\n"
      "# Each [[expect]] is the median of the golden figures for its probe, metric, size and kind "
      "of\n# subject; PASS down to {:.0f}% from it (or {:g} robust sigmas of the figures' own "
      "spread, if wider),\n# FAIL beyond {:.0f}% (or twice that spread); WARN between.\n# Runs:",
      options.name, options.created_utc, store.runs.size(), hosts.size(),
      options.pass_fraction * 100, options.robust_sigmas, options.fail_fraction * 100);
  for (const RunInfo& run : store.runs) text += "\n#   " + run.dir;
  text += "\n[profile]\nname = " + toml_quote(options.name) + "\n";
  text += "description = " +
          toml_quote(options.description.empty()
                         ? fmt::format("baseline of {} known-good run(s) on {} host(s)",
                                       store.runs.size(), hosts.size())
                         : options.description) +
          "\n";
  if (!options.extra_toml.empty()) text += "\n" + options.extra_toml;
  for (const BaselineEntry& e : baseline_entries(store, options)) {
    text += "\n[[expect]]\n";
    text += "probe = " + toml_quote(e.probe) + "\n";
    text += "metric = " + toml_quote(e.metric) + "\n";
    text += "unit = " + toml_quote(e.unit) + "\n";
    text += "subject = " + toml_quote(e.subject_pattern) + "\n";
    if (e.has_size) text += "sizes = " + toml_quote(std::to_string(e.size)) + "\n";
    text += "pass = " + number(e.pass) + "\n";
    text += "warn = " + number(e.warn) + "\n";
    text += "source = " +
            toml_quote(fmt::format(
                "baseline {}: median {:.6g} {}, MAD {:.3g}, over {} figures on {} host(s){}",
                options.created_utc, e.median, e.unit, e.mad, e.figures, e.hosts,
                e.has_size ? " at " + format_bytes(e.size) : "")) +
            "\n";
  }
  return text;
}

}  // namespace fabcheck
