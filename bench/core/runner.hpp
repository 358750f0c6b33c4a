// Runner: runs the chosen probes on every rank, gathers their measurements to the root, judges them
// against the profile and hands each step to the reporters (reporter.hpp): the run directory's
// files and whatever the request adds (the console, JSON lines); the exit code follows the verdict.
// It prints nothing and writes no file itself; summary.json's content is run_summary.hpp's, the run
// directory run_directory.hpp's.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/core/evidence.hpp"
#include "bench/core/probe.hpp"
#include "bench/core/registry.hpp"
#include "bench/core/reporter.hpp"
#include "bench/core/run_directory.hpp"
#include "results/profile.hpp"

namespace fabcheck {

// The watchdog's margin over a step's own limit: a probe not finished on every rank
// RunOptions::probe_timeout_s plus this after it began ends the run, so that a backend bounding its
// operations by the limit itself (NCCL aborts its communicators and names the GPUs) reports first.
inline constexpr double kWatchdogMargin_s = 15;

struct RunRequest {
  std::vector<Probe*> probes;
  std::vector<Judge> judges;
  std::vector<CounterMonitor> monitors;  // read around every heavy probe
  RunOptions options;
  Profile profile;
  std::string profile_reason;  // why this profile ("auto: no GPU ... -> generic-cpu")
  // The run directory asked for (--out); empty: the default (run_directory.hpp). Made by
  // make_run_directory, by the caller or by execute(World&).
  std::filesystem::path out_dir;
  std::string command_line;
  std::string plan_name;       // "" for --probes
  // The probes the plan requires (Registry::required_probes): one that judged nothing (waived, no
  // expectation matched its figures) is an ERROR finding, so the run is incomplete, never a pass.
  std::vector<std::string> required_probes;
  nlohmann::json versions;     // fabcheck, mpi, cuda, nccl, compiler
  nlohmann::json environment;  // NCCL_* and other variables worth keeping
  // --prometheus-dir: node_exporter's textfile directory, written with every final summary.
  std::filesystem::path prometheus_dir;
  // On a FAIL: gathers evidence on each node the FAIL findings name (empty: none gathered).
  EvidenceGatherer gather_evidence;
  // The most seconds gather_evidence takes on a node (the watchdog's limit for that step).
  double evidence_limit_s = 30;
  // Outputs besides the run directory's files (which the runner always writes, on the root): the
  // console or JSON lines. The root's hear the run; every rank's hear the problems of their rank
  // (a probe that threw there).
  std::vector<std::unique_ptr<Reporter>> reporters;
  // Seconds each probe is expected to take, in probe order (RunStart::estimated_s); may be empty.
  std::vector<double> estimated_s;
  // summary.json "estimate": the plan's estimate, the budget and its trimming (plan_text.hpp);
  // null: not written.
  nlohmann::json estimate;
};

class Runner {
 public:
  explicit Runner(RunRequest request);
  ~Runner();

  // Runs everything in `directory` (made by make_run_directory on every rank); returns the exit
  // code (0, 1 or 3; 2 when the directory could not be made or the run could not start), the same
  // on every rank. Until the Runner is destroyed (after the World, so MPI's finalize is covered),
  // an interrupt or the end of the run by a sentinel writes the run's last words: the summary
  // marked incomplete, with an ERROR finding when something failed.
  int execute(World& world, RunDirectory directory);
  // The same in the directory the request asks for (RunRequest::out_dir), made first.
  int execute(World& world);

 private:
  struct State;
  bool start(World& world, RunDirectory directory);
  void run_probe(World& world, Probe& probe);
  std::string waive_reason(World& world, Probe& probe);
  void gather_evidence(World& world);
  int finish(World& world);
  nlohmann::json write_summary(const std::string& reason);  // returns it
  void record(const Finding& finding);
  void write_last_words();
  // Hands an event to every reporter of the root; one that cannot write its file ends the run
  // after this probe (out of space). The caller holds the mutex.
  template <typename Event>
  void report(Event&& event);
  // Hands a problem to this rank's reporters. The caller holds the mutex.
  void report_problem(ProblemKind kind, std::string text);
  std::unique_ptr<State> state_;
};

}  // namespace fabcheck
