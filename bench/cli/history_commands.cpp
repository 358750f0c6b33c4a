// `fabcheck baseline RUN_DIR... -o profile.toml` and `fabcheck compare RUN_DIR --against
// RUN_DIR|HISTORY.h5`: expectations from golden runs, and regressions against earlier figures.
#include "bench/cli/history_commands.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>

#include "bench/cli/number_option.hpp"
#include "bench/sys/config_error.hpp"
#include "bench/sys/dir_handle.hpp"
#include "bench/sys/timer.hpp"
#include "fabric/link_measurements.hpp"
#include "results/baseline.hpp"
#include "results/compare.hpp"
#include "results/history.hpp"
#include "results/robust_stats.hpp"
#include "results/run_reader.hpp"
#include "results/units.hpp"
#include "results/verdict.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;

FleetStore read_runs(const std::vector<std::string>& dirs) {
  FleetStore store;
  for (const fs::path& dir : find_run_dirs(dirs)) read_run_dir(dir, store);
  return store;
}

// What the golden nodes' links and ports are, as the fabric judge's [node] keys: the median PCIe
// generation and width of each kind of device, the median count of active RDMA ports and their
// median rate.
std::string node_table(const FleetStore& store) {
  std::map<std::string, std::vector<double>> values;  // metric -> values
  for (const FigureRow& row : store.rows) {
    if (row.status != MeasurementStatus::ok || !std::isfinite(row.value)) continue;
    const std::string& probe = store.strings.text(row.probe);
    if (probe != kPcieLinksProbe && probe != kIbPortsProbe) continue;
    values[probe + "/" + store.strings.text(row.metric)].push_back(row.value);
  }
  std::string lines;
  for (const char* kind : {"gpu", "hca", "nic", "nvme"}) {
    const std::string prefix = std::string(kPcieLinksProbe) + "/" + kind;
    const auto gen = values.find(prefix + "_link_gen");
    const auto width = values.find(prefix + "_link_width");
    if (gen == values.end() || width == values.end()) continue;
    lines += fmt::format("{}_pcie = \"{:.0f}x{:.0f}\"\n", kind, std::floor(median_of(gen->second)),
                         std::floor(median_of(width->second)));
  }
  const auto ports = values.find(std::string(kIbPortsProbe) + "/active_ports");
  if (ports != values.end()) {
    lines += fmt::format("ib_ports = {:.0f}\n", std::floor(median_of(ports->second)));
  }
  const auto rate = values.find(std::string(kIbPortsProbe) + "/port_rate");
  if (rate != values.end()) lines += fmt::format("ib_rate_gbps = {:g}\n", median_of(rate->second));
  if (lines.empty()) return "";
  return "# What the golden nodes have (medians), for the fabric judge.\n[node]\n" + lines;
}

bool is_history_file(const std::string& path) {
  std::error_code error;
  return path.size() > 3 && (path.ends_with(".h5") || path.ends_with(".hdf5") ||
                             (fs::exists(path, error) && !fs::is_directory(path, error)));
}

}  // namespace

CLI::App* add_baseline_command(CLI::App& app, BaselineArgs& args) {
  auto* command = app.add_subcommand(
      "baseline",
      "Write a profile from known-good runs: the median and spread of each figure, thresholds "
      "from them, and the [node] table the golden nodes show");
  command->add_option("RUN_DIR", args.dirs, "Known-good run directories (or directories of them)")
      ->required();
  command->add_option("-o,--out", args.out, "The profile file to write (never written over)")
      ->required();
  command->add_option("--name", args.name, "The profile's name (default: the file's stem)");
  add_number_option(*command, "--pass-fraction", args.pass_fraction,
                    "PASS down to the median less this fraction", 0, 1, /*min_exclusive=*/true)
      ->capture_default_str();
  add_number_option(*command, "--fail-fraction", args.fail_fraction,
                    "FAIL beyond the median less this fraction", 0, 1, /*min_exclusive=*/true)
      ->capture_default_str();
  return command;
}

CLI::App* add_compare_command(CLI::App& app, CompareArgs& args) {
  auto* command = app.add_subcommand(
      "compare",
      "Compare runs with earlier figures (a run directory or a fleet history): figures that "
      "fell by more than a tolerance for the same host, subject and size, and each node's trend");
  command->add_option("RUN_DIR", args.dirs, "Run directories (or directories of them)")->required();
  command
      ->add_option("--against", args.against,
                   "An earlier run directory (or directory of them), or a history .h5")
      ->required();
  add_number_option(*command, "--tolerance", args.tolerance,
                    "The least tolerance: FAIL a figure worse than its reference by more than "
                    "this fraction, or by more than the reference's own spread gives (3 robust "
                    "sigmas of the earlier runs, the earlier samples' p99 over median; at most "
                    "50%); WARN beyond half of it",
                    0, 1, /*min_exclusive=*/true)
      ->capture_default_str();
  add_number_option(*command, "--last", args.last,
                    "History runs of each host to compare with (0: all)", 0, 1000000)
      ->capture_default_str();
  command->add_flag("--all", args.all,
                    "Print every regression and every node's trend, not only the worst");
  return command;
}

int baseline_command(const BaselineArgs& args, const Registry& registry, std::FILE* out) {
  try {
    if (!(args.pass_fraction > 0 && args.pass_fraction < args.fail_fraction &&
          args.fail_fraction < 1)) {
      throw ConfigError("--pass-fraction and --fail-fraction: expected 0 < pass < fail < 1");
    }
    std::error_code error;
    if (fs::exists(args.out, error) || fs::is_symlink(args.out, error)) {
      throw ConfigError(args.out, 0,
                        "exists; a profile is never written over (choose another "
                        "name or remove it)");
    }
    const FleetStore store = read_runs(args.dirs);
    const MetricCatalog catalog = registry.catalog();
    BaselineOptions options;
    options.catalog = &catalog;
    options.name = args.name.empty() ? fs::path(args.out).stem().string() : args.name;
    options.pass_fraction = args.pass_fraction;
    options.fail_fraction = args.fail_fraction;
    options.created_utc = utc_timestamp();
    options.extra_toml = node_table(store);
    for (const RunInfo& run : store.runs) {
      if (!run.incomplete_reason.empty() || run.verdict == "fail") {
        std::fprintf(
            stderr,
            "fabcheck baseline: note: %s is not a clean run (%s); its figures "
            "count all the same\n",
            run.dir.c_str(),
            run.incomplete_reason.empty() ? "verdict fail" : run.incomplete_reason.c_str());
      }
    }
    // Runs of different shapes (ranks, hosts, placement, backend, type...) are never pooled into
    // one expectation: refused, naming the runs of each shape.
    const std::vector<std::string> mixed = baseline_mixed_shapes(store, options);
    if (!mixed.empty()) {
      std::string lines;
      for (std::size_t i = 0; i < mixed.size() && i < 5; ++i) lines += "\n  " + mixed[i];
      if (mixed.size() > 5) lines += fmt::format("\n  ... and {} more figures", mixed.size() - 5);
      throw ConfigError(fmt::format(
          "the runs measured {} figure(s) in different shapes, which one profile cannot hold "
          "apart (it keeps one expectation per figure and size): give `baseline` the runs of one "
          "shape, one profile per shape:{}",
          mixed.size(), lines));
    }
    for (const BaselineEntry& e : baseline_entries(store, options)) {
      for (const BaselineShape& shape : e.shapes) {
        // A golden figure far from the others sets its threshold: said, since it may not be good.
        const double gap = std::fabs(shape.worst - shape.median) / std::fabs(shape.median);
        if (shape.by_worst && gap > args.fail_fraction) {
          std::fprintf(stderr,
                       "fabcheck baseline: note: %s %s%s (%s): the worst golden figure, %g %s in "
                       "%s, is %.0f%% from their median %g: PASS reaches down to it (leave that "
                       "run out if it was not good)\n",
                       e.probe.c_str(), e.metric.c_str(),
                       e.has_size ? (" at " + format_bytes(e.size)).c_str() : "",
                       shape.conditions.empty() ? "no conditions" : shape.conditions.c_str(),
                       shape.worst, e.unit.c_str(), shape.worst_run.c_str(), gap * 100,
                       shape.median);
        }
        if (shape.outside == 0) continue;
        std::fprintf(stderr,
                     "fabcheck baseline: note: %zu of the %zu golden figures of %s %s%s (%s) are "
                     "beyond its PASS threshold %g %s: the runs holding them would not pass\n",
                     shape.outside, shape.figures, e.probe.c_str(), e.metric.c_str(),
                     e.has_size ? (" at " + format_bytes(e.size)).c_str() : "",
                     shape.conditions.empty() ? "no conditions" : shape.conditions.c_str(), e.pass,
                     e.unit.c_str());
      }
    }
    const std::string text = baseline_profile_toml(store, options);
    // What is written must load: checked against this build's probes and judges first.
    Profile checked = parse_profile(text, args.out, catalog, registry.node_settings());
    if (checked.expectations.empty()) {
      throw ConfigError("no performance figure in the runs given: nothing to baseline");
    }
    // Written as a new name in its folder, held open (refused when another user could replace
    // what is in it): a temporary file linked to the name, so a file or link planted under the
    // name meanwhile makes it fail instead of being written through.
    const fs::path out_path(args.out);
    const DirHandle folder = DirHandle::open_output_folder(out_path.parent_path(), "-o");
    try {
      folder.publish_file(out_path.filename().string(), text, 0644, false);
    } catch (const std::system_error& failure) {
      throw ConfigError(args.out, 0,
                        failure.code().value() == EEXIST
                            ? std::string("appeared while the profile was made; a profile is "
                                          "never written over")
                            : std::string("cannot write: ") + failure.what());
    }
    std::fprintf(out, "baseline %s: %zu expectations from %zu run(s), %zu figures -> %s\n",
                 options.name.c_str(), checked.expectations.size(), store.runs.size(),
                 store.rows.size(), args.out.c_str());
    return 0;
  } catch (const ConfigError& error) {
    std::fprintf(stderr, "fabcheck: %s\n", error.what());
    return 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "fabcheck baseline: %s\n", error.what());
    return 3;
  }
}

int compare_command(const CompareArgs& args, const Registry& registry, std::FILE* out) {
  Comparison comparison;
  std::string reference_words;
  std::size_t now_runs = 0;
  try {
    if (!(args.tolerance > 0 && args.tolerance < 1)) {
      throw ConfigError("--tolerance: expected a fraction between 0 and 1");
    }
    const FleetStore now = read_runs(args.dirs);
    now_runs = now.runs.size();
    FleetStore reference;
    if (is_history_file(args.against)) {
      std::set<std::string> hosts;
      for (const RunInfo& run : now.runs) hosts.insert(run.hosts.begin(), run.hosts.end());
      reference = read_history(args.against, &hosts, args.last);
      // The runs compared may be in the history already (`run --history`): they are no
      // reference, and --last N counts N others.
      auto itself = runs_compared(now, reference);
      auto own = static_cast<std::size_t>(std::count(itself.begin(), itself.end(), true));
      if (own > 0 && args.last > 0) {
        reference = read_history(args.against, &hosts, args.last + own);
        itself = runs_compared(now, reference);
        own = static_cast<std::size_t>(std::count(itself.begin(), itself.end(), true));
      }
      reference_words =
          fmt::format("{} earlier run(s) of history {}", reference.runs.size() - own, args.against);
    } else {
      reference = read_runs({args.against});
      reference_words = fmt::format("{} run(s) in {}", reference.runs.size(), args.against);
    }
    const MetricCatalog catalog = registry.catalog();
    CompareOptions options;
    options.catalog = &catalog;
    options.tolerance = args.tolerance;
    comparison = compare_figures(now, reference, options);
  } catch (const ConfigError& error) {
    std::fprintf(stderr, "fabcheck: %s\n", error.what());
    return 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "fabcheck compare: %s\n", error.what());
    return 3;
  }
  std::fprintf(out,
               "# compared %zu figures of %zu run(s) with %s (tolerance at least %.0f%%, wider "
               "where the earlier figures spread wider, at most 50%%); %zu figures have no "
               "earlier value\n",
               comparison.compared, now_runs, reference_words.c_str(), args.tolerance * 100,
               comparison.only_now);
  std::set<std::string> regressed;
  std::size_t shown = 0;
  for (const Finding& f : comparison.findings) {
    regressed.insert(f.host);
    // A link's other end ("a/mlx5_0--b/mlx5_0").
    const auto link = f.subject.find("--");
    if (link != std::string::npos) {
      const std::string other = f.subject.substr(link + 2);
      if (other.find('/') != std::string::npos) regressed.insert(other.substr(0, other.find('/')));
    }
    if (!args.all && ++shown > 50) continue;
    std::fprintf(out, "%-6s %s\n", severity_label(f.severity), f.message.c_str());
  }
  if (shown > 50) {
    std::fprintf(out, "... %zu subjects fell in all (--all shows every one)\n",
                 comparison.findings.size());
  }
  if (comparison.findings.empty()) std::fprintf(out, "no figure fell beyond the tolerance\n");
  bool header = false;
  for (const NodeTrend& trend : comparison.trends) {
    if (!args.all && regressed.count(trend.host) == 0) continue;
    if (!header) {
      std::fprintf(out, "trend (median over the node's figures of value / reference):\n");
      header = true;
    }
    std::string points;
    for (const TrendPoint& point : trend.points) {
      points += fmt::format("  {} {:.2f}", point.when, point.ratio);
    }
    std::fprintf(out, "  %-14s%s\n", trend.host.c_str(), points.c_str());
  }
  std::fprintf(out, "%s\n", verdict_line(comparison.findings).c_str());
  return exit_code_of(verdict_of(comparison.findings));
}

}  // namespace fabcheck
