// `fabcheck evaluate DIR... [--profile P] [--out EVAL_DIR] [--history FILE.h5]`: re-judge stored
// runs without running anything, one node's or a whole sweep's, with the fleet's peers.
#include "bench/cli/evaluate_command.hpp"

#include <malloc.h>

#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "bench/cli/number_option.hpp"
#include "bench/cli/peer_settings.hpp"
#include "bench/cli/profile_lookup.hpp"
#include "bench/sys/config_error.hpp"
#include "results/evaluator.hpp"
#include "results/history.hpp"
#include "results/run_reader.hpp"

namespace fabcheck {
namespace {

// Profiles by the name or path a run recorded (or the one given), loaded once each.
class ProfileCache {
 public:
  ProfileCache(const Registry& registry, const std::string& given)
      : registry_(registry), given_(given) {
    if (!given_.empty()) given_profile_ = load_profile_for(given_, registry_, nullptr);
  }

  const Profile& operator()(const RunInfo& run) {
    if (given_profile_) return *given_profile_;
    std::lock_guard guard(lock_);
    const std::string key = run.profile_path + "\n" + run.profile_name;
    auto found = loaded_.find(key);
    if (found != loaded_.end()) return *found->second;
    std::error_code error;
    std::string source;
    if (!run.profile_path.empty() && std::filesystem::is_regular_file(run.profile_path, error)) {
      source = run.profile_path;
    } else if (!run.profile_name.empty()) {
      source = run.profile_name;
    } else {
      // No summary: the run is incomplete whatever its figures say; its peers and the family
      // judges still speak, thresholds cannot.
      auto none = std::make_unique<Profile>();
      none->name = "(none: the run names no profile)";
      return *(loaded_[key] = std::move(none));
    }
    try {
      auto profile = std::make_unique<Profile>(load_profile_for(source, registry_, nullptr));
      return *(loaded_[key] = std::move(profile));
    } catch (const ConfigError& error_loading) {
      throw ConfigError(run.dir + ": the run's profile \"" + source + "\" cannot be loaded here (" +
                        error_loading.what() + "); give --profile NAME|FILE");
    }
  }

 private:
  const Registry& registry_;
  std::string given_;
  std::optional<Profile> given_profile_;
  std::mutex lock_;
  std::map<std::string, std::unique_ptr<Profile>> loaded_;
};

std::vector<Judge> judges_where(const Registry& registry, bool across_hosts) {
  std::vector<Judge> judges;
  for (const Judge& judge : registry.judges()) {
    // The peers of the whole fleet are judged once, over every run (results/fleet_evaluation).
    if (judge.name == "peers" || judge.across_runs) continue;
    if (judge.across_hosts == across_hosts) judges.push_back(judge);
  }
  return judges;
}

std::vector<Finding> run_all_judges(const std::vector<Judge>& judges,
                                    const std::vector<Measurement>& measurements,
                                    const Profile& profile) {
  std::vector<Finding> findings;
  for (JudgeScope scope : {JudgeScope::each_probe, JudgeScope::whole_run}) {
    for (Finding& f : run_judges(judges, scope, measurements, profile)) {
      findings.push_back(std::move(f));
    }
  }
  return findings;
}

void print_summary(const FleetEvaluation& e, const EvaluateArgs& args, std::FILE* out) {
  std::fprintf(out,
               "# evaluated %zu run(s): %zu node(s), %zu measurements, in %.2f s; profile %s%s\n",
               e.store.runs.size(), e.nodes.size(), e.store.rows.size(), e.seconds,
               e.profile_name.c_str(), args.profile.empty() ? " (each run's own)" : "");
  const std::size_t limit =
      args.all ? e.findings.size() : std::min<std::size_t>(50, e.findings.size());
  std::size_t shown = 0;
  for (const Finding& f : e.findings) {
    if (f.severity == Severity::waived && !args.all) continue;
    if (shown++ >= limit) break;
    std::fprintf(out, "%-6s %-14s %s\n", severity_label(f.severity), f.host.c_str(),
                 f.message.c_str());
  }
  const std::size_t problems = e.findings.size();
  if (shown > limit || (!args.all && problems > limit)) {
    std::fprintf(out, "... %zu findings in all (--all shows every one; --out writes them)\n",
                 problems);
  }
  std::map<Verdict, int> verdicts;
  for (const NodeSummary& node : e.nodes) ++verdicts[node.verdict];
  if (e.nodes.size() > 1) {
    std::fprintf(out, "nodes: %zu: %d pass, %d warn, %d fail, %d incomplete\n", e.nodes.size(),
                 verdicts[Verdict::pass], verdicts[Verdict::warn], verdicts[Verdict::fail],
                 verdicts[Verdict::incomplete]);
    for (const NodeSummary& node : e.nodes) {
      if (node.verdict == Verdict::pass && !args.all) continue;
      std::string label = to_string(node.verdict);
      for (char& c : label) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      const std::string worst = node.findings.empty() ? node.incomplete_reason
                                                      : e.findings[node.findings.front()].message;
      std::fprintf(out, "  %-10s %-14s %d fail, %d warn, %d error: %s\n", label.c_str(),
                   node.host.c_str(), node.counts.at(Severity::fail),
                   node.counts.at(Severity::warn), node.counts.at(Severity::error), worst.c_str());
    }
  }
  if (!e.links.empty()) {
    std::fprintf(out, "links (%zu): between two nodes, counted for neither and draining neither:\n",
                 e.links.size());
    std::size_t listed = 0;
    for (const std::size_t i : e.links) {
      if (!args.all && ++listed > 50) {
        std::fprintf(out, "  ... (--all lists every one)\n");
        break;
      }
      const Finding& f = e.findings[i];
      std::fprintf(out, "  %-6s %s %s %s\n", severity_label(f.severity), f.subject.c_str(),
                   f.probe.c_str(), f.metric.c_str());
    }
  }
  std::string drain;
  for (const std::string& host : e.drain) drain += " " + host;
  std::string recheck;
  for (const std::string& host : e.recheck) recheck += " " + host;
  std::fprintf(out, "drain (%zu):%s\n", e.drain.size(), drain.empty() ? " none" : drain.c_str());
  if (!e.recheck.empty())
    std::fprintf(out, "recheck (%zu):%s\n", e.recheck.size(), recheck.c_str());
  std::fprintf(out, "%s\n", verdict_line(e.verdict, e.counts).c_str());
}

}  // namespace

CLI::App* add_evaluate_command(CLI::App& app, EvaluateArgs& args) {
  auto* command = app.add_subcommand(
      "evaluate",
      "Re-judge stored runs: one run directory, many, or directories of them (a sweep), with "
      "peers across the fleet; per-node and fleet verdicts, nodes to drain");
  command->add_option("DIR", args.dirs, "Run directories, or directories holding them")->required();
  command->add_option("--profile", args.profile,
                      "Profile NAME or FILE for every run (default: each run's own)");
  command->add_option("--out", args.out,
                      "Write findings.jsonl, fleet.json and drain.txt into this new directory");
  command->add_option("--history", args.history,
                      "Append the runs' figures to this fleet history (HDF5)");
  add_number_option(*command, "--threads", args.threads, "Threads reading and judging runs", 1,
                    4096)
      ->capture_default_str();
  command->add_flag("--all", args.all, "Print every finding and node, not only the worst");
  return command;
}

FleetEvaluation evaluate_runs(const std::vector<std::string>& dirs, const std::string& profile,
                              const Registry& registry, unsigned threads) {
  // Run after run allocates and frees the same memory: keep what is freed for the next run instead
  // of handing it back to the kernel and faulting it in again (4096 nodes: 2.2-2.7 s of system time
  // down to 1.2 s, for some 0.3 GB more at the peak).
  ::mallopt(M_TRIM_THRESHOLD, 1 << 30);
  ::mallopt(M_MMAP_THRESHOLD, 1 << 30);
  const auto run_dirs = find_run_dirs(dirs);
  ProfileCache profiles(registry, profile);
  const std::vector<Judge> per_host = judges_where(registry, false);
  const std::vector<Judge> across = judges_where(registry, true);
  FleetEvaluationOptions options;
  options.profile_for = [&profiles](const RunInfo& run) -> const Profile& { return profiles(run); };
  options.judge_host = [&per_host](const std::vector<Measurement>& measurements,
                                   const Profile& judged_by) {
    return run_all_judges(per_host, measurements, judged_by);
  };
  if (!across.empty()) {
    options.judge_run = [&across](const std::vector<Measurement>& measurements,
                                  const Profile& judged_by) {
      return run_all_judges(across, measurements, judged_by);
    };
  }
  // Only the rows some judge declares it reads become measurements again (Judge::reads).
  options.judges_read = [&per_host, &across](const std::string& probe, const std::string& metric) {
    return reads_figure(per_host, probe, metric) || reads_figure(across, probe, metric);
  };
  // Judges of one kind of record across every run: called once over the fleet.
  std::vector<Judge> fleet;
  for (const Judge& judge : registry.judges()) {
    if (judge.across_runs) fleet.push_back(judge);
  }
  if (!fleet.empty()) {
    options.judge_fleet = [&fleet](const std::vector<Measurement>& measurements,
                                   const Profile& judged_by) {
      return run_all_judges(fleet, measurements, judged_by);
    };
    options.fleet_reads = [&fleet](const std::string& probe, const std::string& metric) {
      return reads_figure(fleet, probe, metric);
    };
  }
  const MetricCatalog catalog = registry.catalog();
  options.peers = peer_judge_options(registry, catalog);
  options.threads = std::max(1u, threads);
  return evaluate_fleet(run_dirs, options);
}

int evaluate_command(const EvaluateArgs& args, const Registry& registry, std::FILE* out) {
  FleetEvaluation evaluation;
  try {
    evaluation = evaluate_runs(args.dirs, args.profile, registry,
                               static_cast<unsigned>(std::max(1, args.threads)));
    if (!args.out.empty()) write_fleet_evaluation(evaluation, args.out);
    if (!args.history.empty()) append_history(args.history, evaluation.store);
  } catch (const ConfigError& error) {
    std::fprintf(stderr, "fabcheck: %s\n", error.what());
    return 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "fabcheck evaluate: %s\n", error.what());
    return 3;
  }
  print_summary(evaluation, args, out);
  if (!args.out.empty()) std::fprintf(out, "written: %s\n", args.out.c_str());
  if (!args.history.empty()) std::fprintf(out, "history: appended to %s\n", args.history.c_str());
  return exit_code_of(evaluation.verdict);
}

}  // namespace fabcheck
