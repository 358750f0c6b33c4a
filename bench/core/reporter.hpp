// Reporter: one output of a run (the console, JSON lines, a file of the run directory). The
// command hands the reporters the plan first (`plan`, on the first rank, before anything starts;
// alone with --dry-run). The runner then hands every reporter the same events, on the root only,
// in this order:
//   run_started, summary (in progress)
//   for each probe: probe_started; note, progress and step while it runs (the root's own, as they
//     come), tick about once a second between them;
//     note (the other ranks'), measurements (every rank's, gathered; none when waived), finding
//     (each judgement), probe_finished, summary (in progress)
//   finding (the whole-run judges), evidence (per host, on a FAIL), results_complete,
//   summary (final; once more when the summary itself could not be written), run_finished.
// An interrupt or a failure elsewhere may end the run early: then the signal thread sends finding
// (the ERROR, when something failed), summary (final) and run_finished with last_words set, never
// at the same time as another event, and the process exits.
// `problem` comes on every rank, whenever that rank has one (a probe threw there; on the root also
// results it cannot write, a run that cannot start): on a rank other than the root it is the only
// event its reporters hear.
// A reporter that cannot write its file throws ResultsWriteError: the run ends after the probe in
// flight and is marked incomplete; any other output problem is the reporter's to report.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/core/probe.hpp"
#include "results/finding.hpp"
#include "results/measurement.hpp"
#include "results/verdict.hpp"

namespace fabcheck {

struct BudgetFit;
struct PlanEstimate;

// The plan before anything runs: each probe's estimate, what will be waived, the budget's trimming.
struct RunPlan {
  std::string name;  // the plan's, "--probes" for a selection
  const JobShape* job = nullptr;
  const PlanEstimate* estimate = nullptr;
  const BudgetFit* fit = nullptr;  // --budget's trimming; null without one
  bool alone = false;              // --dry-run: the plan is all the command prints
};

enum class ProblemKind {
  probe_failed,         // a probe threw on this rank (its ERROR measurement says it too)
  results_not_written,  // a file of the run directory: the run ends after the probe in flight
  run_not_started,      // the run directory (or the run's start) failed: exit code 2
};

// What a rank could not do, in one line for a person ("rank 1 (node-b): coll.all_reduce: ...").
struct RunProblem {
  ProblemKind kind = ProblemKind::probe_failed;
  std::string text;
};

// The line a person reads on the rank's stderr: "fabcheck: <text>\n".
inline std::string problem_line(const RunProblem& problem) {
  return "fabcheck: " + problem.text + "\n";
}

struct RunStart {
  std::string plan;  // "" for --probes
  std::vector<const ProbeInfo*> probes;
  std::vector<std::string> hosts;
  int ranks = 0;
  std::filesystem::path run_dir;
  std::string profile;
  std::string profile_reason;
  std::string version;
  // Seconds each probe is expected to take, in probe order (0: no estimate); empty when the plan
  // carries none. The console's "estimated remaining" uses them where given.
  std::vector<double> estimated_s;
};

struct ProbeStart {
  const ProbeInfo* probe = nullptr;
  int index = 0;  // 1 .. count
  int count = 0;
};

enum class ProbeOutcome { ran, waived, errored };
const char* to_string(ProbeOutcome outcome);

struct ProbeEnd {
  const ProbeInfo* probe = nullptr;
  int index = 0;
  int count = 0;
  ProbeOutcome outcome = ProbeOutcome::ran;
  std::string reason;  // why waived, or the first error
  double seconds = 0;  // wall time of the probe on the root
};

struct RunEnd {
  Verdict verdict = Verdict::pass;
  int exit_code = 0;
  std::string incomplete_reason;  // "" when the run completed
  const std::vector<Finding>* findings = nullptr;
  const nlohmann::json* summary = nullptr;  // the final summary.json (timing, counts)
  // Sent by the signal thread (interrupt, a rank stopped): the process exits right after.
  bool last_words = false;
};

class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void plan(const RunPlan& /*plan*/) {}
  virtual void problem(const RunProblem& /*problem*/) {}
  virtual void run_started(const RunStart& /*run*/) {}
  virtual void probe_started(const ProbeStart& /*probe*/) {}
  // What a probe says about how it runs (backend and ranks, a round of node pairs); one or more
  // whole lines.
  virtual void note(const ProbeStart& /*probe*/, const std::string& /*text*/) {}
  // A figure the root emitted while the probe runs (a collective's size as it completes).
  virtual void progress(const ProbeStart& /*probe*/, const Measurement& /*figure*/) {}
  // The probe's own count of its steps (a collective's sizes): a step began, or the last ended.
  virtual void step(const ProbeStart& /*probe*/, const ProgressStep& /*step*/) {}
  // About a second passed while the probe runs (the console's clock); skipped when another event
  // is being handed out at the time.
  virtual void tick(const ProbeStart& /*probe*/) {}
  virtual void measurements(const ProbeInfo& /*probe*/,
                            const std::vector<Measurement>& /*every_rank*/) {}
  virtual void finding(const Finding& /*finding*/) {}
  virtual void probe_finished(const ProbeEnd& /*probe*/) {}
  // Files a host gathered about the FAIL findings that name it (evidence/<host>/).
  virtual void evidence(const std::string& /*host*/,
                        const std::vector<std::pair<std::string, std::string>>& /*files*/) {}
  // Every measurement and finding of the run is in; the final summary follows.
  virtual void results_complete(const std::vector<Measurement>& /*measurements*/,
                                const std::vector<Finding>& /*findings*/) {}
  // summary.json as it stands; `final` at the end (or the last words), otherwise in progress.
  virtual void summary(const nlohmann::json& /*summary*/, bool /*final*/) {}
  virtual void run_finished(const RunEnd& /*run*/) {}
};

}  // namespace fabcheck
