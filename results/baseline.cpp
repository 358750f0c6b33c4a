// Baseline profiles from known-good runs: medians, spreads and thresholds, written as TOML.
#include "results/baseline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
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

// The figures of one (probe, metric, size, kind of subject), shape by shape, and which shapes
// each run measured (any status: a shape a run measured and lost is still its shape).
struct ShapeFigures {
  std::vector<double> values;       // the ok, finite ones
  std::vector<std::uint32_t> runs;  // each value's
  std::set<std::uint32_t> hosts;
  std::string backend;     // params["backend"]
  std::string host_scope;  // "single" (params["hosts"] 1), "multi" (more) or ""
};

struct FigureGroup {
  const MetricInfo* info = nullptr;
  std::map<std::string, ShapeFigures> shapes;                 // conditions -> figures
  std::map<std::uint32_t, std::set<std::string>> run_shapes;  // run -> the shapes it measured
};

using GroupKey = std::tuple<std::string, std::string, std::uint64_t, std::string>;

std::map<GroupKey, FigureGroup> golden_figures(const FleetStore& store,
                                               const MetricCatalog& catalog) {
  std::map<GroupKey, FigureGroup> groups;
  std::vector<std::string> classes(store.strings.size());
  std::vector<std::optional<std::string>> conditions(store.param_set_count());
  for (const FigureRow& row : store.rows) {
    const std::string& probe = store.strings.text(row.probe);
    const std::string& metric = store.strings.text(row.metric);
    const auto p = catalog.find(probe);
    if (p == catalog.end()) continue;
    const auto m = p->second.find(metric);
    if (m == p->second.end() || !is_performance_unit(m->second.unit)) continue;
    std::string& cls = classes[row.subject];
    if (cls.empty()) cls = subject_class(store.strings.text(row.subject));
    if (!conditions[row.params]) conditions[row.params] = store.conditions_text(row.params);
    const std::string& shape_text = *conditions[row.params];
    FigureGroup& group = groups[{probe, metric, row.size, cls}];
    group.info = &m->second;
    group.run_shapes[row.run].insert(shape_text);
    if (row.status != MeasurementStatus::ok || !std::isfinite(row.value)) continue;
    ShapeFigures& shape = group.shapes[shape_text];
    if (shape.values.empty()) {
      shape.backend = std::string(store.param(row, "backend"));
      const std::string_view hosts = store.param(row, "hosts");
      shape.host_scope = hosts.empty() ? "" : hosts == "1" ? "single" : "multi";
    }
    shape.values.push_back(row.value);
    shape.runs.push_back(row.run);
    shape.hosts.insert(row.host);
  }
  return groups;
}

// `value` in six significant digits (as the profile writes it), rounded toward the lenient side
// (down where higher is better), so that the figure it was made from still passes.
double lenient_number(double value, bool higher_is_better) {
  double rounded = std::stod(number(value));
  if (higher_is_better ? rounded > value : rounded < value) {
    const double step = std::pow(10.0, std::floor(std::log10(std::fabs(value))) - 5);
    rounded = std::stod(number(higher_is_better ? rounded - step : rounded + step));
  }
  return rounded;
}

// A shape's median, spread and thresholds from its own figures alone.
BaselineShape shape_thresholds(const FleetStore& store, const std::string& conditions,
                               const ShapeFigures& figures, bool higher_is_better,
                               const BaselineOptions& options) {
  BaselineShape shape;
  shape.conditions = conditions;
  const PeerSummary peers = summarise_peers(figures.values);
  shape.median = peers.median;
  shape.mad = peers.mad;
  shape.figures = peers.count;
  std::size_t worst = 0;
  for (std::size_t i = 1; i < figures.values.size(); ++i) {
    if (higher_is_better ? figures.values[i] < figures.values[worst]
                         : figures.values[i] > figures.values[worst]) {
      worst = i;
    }
  }
  shape.worst = figures.values[worst];
  shape.worst_run = store.runs[figures.runs[worst]].dir;
  const double sigma = kMadToSigma * peers.mad;
  const double scale = std::fabs(peers.median);
  const double spread_margin =
      std::max(options.pass_fraction * scale, options.robust_sigmas * sigma);
  const double worst_margin = std::fabs(shape.worst - peers.median);
  shape.by_worst = worst_margin > spread_margin;
  const double pass_margin = std::max(spread_margin, worst_margin);
  const double fail_margin =
      std::max({options.fail_fraction * scale, 2 * options.robust_sigmas * sigma,
                pass_margin + (options.fail_fraction - options.pass_fraction) * scale});
  if (higher_is_better) {
    shape.pass = lenient_number(peers.median - pass_margin, true);
    shape.warn = std::min(shape.pass, lenient_number(peers.median - fail_margin, true));
  } else {
    shape.pass = lenient_number(peers.median + pass_margin, false);
    shape.warn = std::max(shape.pass, lenient_number(peers.median + fail_margin, false));
  }
  return shape;
}

// "a, b, c and 4 more"
std::string some_runs(const FleetStore& store, const std::vector<std::uint32_t>& runs) {
  std::string text;
  for (std::size_t i = 0; i < runs.size() && i < 3; ++i) {
    text += (i == 0 ? "" : ", ") + store.runs[runs[i]].dir;
  }
  if (runs.size() > 3) text += fmt::format(" and {} more", runs.size() - 3);
  return text;
}

std::string shape_words(const std::string& conditions) {
  return conditions.empty() ? "(no conditions)" : conditions;
}

}  // namespace

std::vector<BaselineEntry> baseline_entries(const FleetStore& store,
                                            const BaselineOptions& options) {
  std::vector<BaselineEntry> entries;
  if (options.catalog == nullptr) return entries;
  for (const auto& [key, group] : golden_figures(store, *options.catalog)) {
    if (group.shapes.empty()) continue;
    const auto& [probe, metric, size, cls] = key;
    // The profile's scope keys separate shapes of other backends or host scopes, where every
    // shape says which (and the backend is one a profile may name).
    std::set<std::string> backends, scopes;
    bool backend_known = true, scope_known = true;
    for (const auto& [conditions, shape] : group.shapes) {
      backends.insert(shape.backend);
      scopes.insert(shape.host_scope);
      backend_known = backend_known && (shape.backend == "mpi" || shape.backend == "nccl");
      scope_known = scope_known && !shape.host_scope.empty();
    }
    const bool by_backend = backend_known && backends.size() > 1;
    const bool by_scope = scope_known && scopes.size() > 1;
    std::map<std::pair<std::string, std::string>, std::vector<const std::string*>> parts;
    for (const auto& [conditions, shape] : group.shapes) {
      parts[{by_backend ? shape.backend : "", by_scope ? shape.host_scope : ""}].push_back(
          &conditions);
    }
    for (const auto& [scope, shape_names] : parts) {
      BaselineEntry e;
      e.probe = probe;
      e.metric = metric;
      e.unit = group.info->unit;
      e.subject_pattern = subject_pattern(cls);
      e.has_size = size != kNoSize;
      e.size = e.has_size ? size : 0;
      e.higher_is_better = group.info->better == Better::higher;
      e.backend = scope.first;
      e.host_scope = scope.second;
      std::set<std::uint32_t> hosts;
      const BaselineShape* lenient = nullptr;
      for (const std::string* name : shape_names) {
        const ShapeFigures& figures = group.shapes.at(*name);
        e.shapes.push_back(shape_thresholds(store, *name, figures, e.higher_is_better, options));
        hosts.insert(figures.hosts.begin(), figures.hosts.end());
        e.figures += figures.values.size();
      }
      for (const BaselineShape& shape : e.shapes) {
        if (lenient == nullptr ||
            (e.higher_is_better ? shape.pass < lenient->pass : shape.pass > lenient->pass)) {
          lenient = &shape;
        }
      }
      e.pass = lenient->pass;
      e.median = lenient->median;
      e.mad = lenient->mad;
      e.warn = lenient->warn;
      for (const BaselineShape& shape : e.shapes) {
        e.warn = e.higher_is_better ? std::min(e.warn, shape.warn) : std::max(e.warn, shape.warn);
      }
      e.hosts = hosts.size();
      for (BaselineShape& shape : e.shapes) {
        for (const double value : group.shapes.at(shape.conditions).values) {
          if (e.higher_is_better ? value < e.pass : value > e.pass) ++shape.outside;
        }
      }
      entries.push_back(std::move(e));
    }
  }
  return entries;
}

std::vector<std::string> baseline_mixed_shapes(const FleetStore& store,
                                               const BaselineOptions& options) {
  std::vector<std::string> lines;
  if (options.catalog == nullptr) return lines;
  for (const auto& [key, group] : golden_figures(store, *options.catalog)) {
    std::map<std::set<std::string>, std::vector<std::uint32_t>> runs_by_shapes;
    for (const auto& [run, shapes] : group.run_shapes) runs_by_shapes[shapes].push_back(run);
    if (runs_by_shapes.size() < 2) continue;
    const auto& [probe, metric, size, cls] = key;
    std::string line = fmt::format("{} {}{} ({}):", probe, metric,
                                   size == kNoSize ? "" : " at " + format_bytes(size), cls);
    bool first = true;
    for (const auto& [shapes, runs] : runs_by_shapes) {
      std::string words;
      for (const std::string& shape : shapes) {
        words += (words.empty() ? "" : " + ") + ("[" + shape_words(shape) + "]");
      }
      line += fmt::format("{} {} in {}", first ? "" : ";", words, some_runs(store, runs));
      first = false;
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

std::string baseline_profile_toml(const FleetStore& store, const BaselineOptions& options) {
  std::set<std::string> hosts;
  for (const RunInfo& run : store.runs) hosts.insert(run.hosts.begin(), run.hosts.end());
  std::string text = fmt::format(
      "# {}: a baseline written by `fabcheck baseline` on {} from {} run(s) on {} host(s).\n"
      "# Each [[expect]] is the median of the golden figures for its probe, metric, size, kind "
      "of\n# subject and shape (conditions); PASS down to {:.0f}% from it (or {:g} robust sigmas "
      "of the\n# figures' own spread, or the worst golden figure, if wider), FAIL beyond {:.0f}% "
      "(or twice\n# that spread, or the PASS margin and the difference); WARN between.\n# Runs:",
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
    if (!e.backend.empty()) text += "backend = " + toml_quote(e.backend) + "\n";
    if (!e.host_scope.empty()) text += "hosts = " + toml_quote(e.host_scope) + "\n";
    text += "pass = " + number(e.pass) + "\n";
    text += "warn = " + number(e.warn) + "\n";
    std::string shapes;
    if (e.shapes.size() == 1) {
      shapes = "; shape " + shape_words(e.shapes.front().conditions);
      if (e.shapes.front().by_worst) {
        shapes += fmt::format("; PASS down to the worst golden figure, {:.6g} {} in {}",
                              e.shapes.front().worst, e.unit, e.shapes.front().worst_run);
      }
    } else {
      shapes = fmt::format(
          "; {} shapes the profile cannot tell apart, each from its own figures, "
          "the thresholds the most lenient's:",
          e.shapes.size());
      for (const BaselineShape& shape : e.shapes) {
        shapes += fmt::format(" {}: median {:.6g}, MAD {:.3g}, {} figures, the worst {:.6g};",
                              shape_words(shape.conditions), shape.median, shape.mad, shape.figures,
                              shape.worst);
      }
      shapes.pop_back();
    }
    text += "source = " +
            toml_quote(fmt::format(
                "baseline {}: median {:.6g} {}, MAD {:.3g}, over {} figures on {} host(s){}{}",
                options.created_utc, e.median, e.unit, e.mad, e.figures, e.hosts,
                e.has_size ? " at " + format_bytes(e.size) : "", shapes)) +
            "\n";
  }
  return text;
}

}  // namespace fabcheck
