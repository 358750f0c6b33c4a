// summary.json: what it says of a run (the run's record, which the runner keeps as the run goes),
// where the time went, and the rules that say whether and why a run is incomplete.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/finding.hpp"
#include "results/repair.hpp"

namespace fabcheck {

// Where the time went (summary.json "timing"): the process's age when the first probe began (MPI
// start-up, the world, the run directory), each probe, the whole-run judges, evidence on a FAIL,
// and writing run.h5 and the final summary.
struct RunTiming {
  double startup_s = 0;
  double first_probe_at = 0;  // now_seconds() when the first probe began; 0 before
  std::vector<std::pair<std::string, double>> probe_seconds;
  double judgement_s = 0;
  double evidence_s = 0;
  double writing_s = 0;
};

// summary.json "timing" at `now` (now_seconds()).
nlohmann::json timing_json(const RunTiming& timing, double now);

// The run as summary.json tells it: what was asked, and what has happened so far.
struct RunRecord {
  nlohmann::json versions = nlohmann::json::object();  // fabcheck, mpi, cuda, nccl, compiler
  nlohmann::json environment;
  std::string command_line;
  std::string plan_name;  // "" for --probes
  std::string profile_name;
  std::string profile_path;
  std::string profile_reason;
  nlohmann::json estimate;  // the plan's estimate (plan_text.hpp); null: not written
  std::string run_dir;

  std::string started_utc;
  std::vector<std::string> hosts;                        // in order of their lowest rank
  nlohmann::json host_ranks = nlohmann::json::object();  // host -> its ranks
  int ranks = 0;
  std::vector<Finding> findings;  // as written, remedies included
  std::vector<std::string> probes_run;
  std::vector<std::pair<std::string, std::string>> probes_waived;   // id, why
  std::vector<std::pair<std::string, std::string>> probes_errored;  // id, its first error
  std::vector<std::string> evidence_hosts;  // hosts whose evidence/<host>/ was written
  RunTiming timing;
  RepairTable repairs;  // the run's probes' ProbeInfo::repairs, by id
};

class RunSummary {
 public:
  RunRecord run;

  // summary.json as it stands. `reason`: kRunInProgress while the run goes (a placeholder any
  // later summary replaces), "" at its end, else why it ended early (a timeout, an interrupt): the
  // first such reason sticks. A probe that errored makes a run incomplete too.
  nlohmann::json json(const std::string& reason);

  // The end of the run, before its final summary: incomplete when results could not all be
  // written (`stop_reason`, the first write error, "" when none) or when nothing was judged (an
  // empty profile, sizes below one element, all waived: not a pass).
  void judge_completion(const std::string& stop_reason);
  // After the final summary: true when a write error came while writing it (`stop_reason` is not
  // yet in the incomplete reason), which now says so instead: the summary is written once more.
  bool take_late_write_error(const std::string& stop_reason);

  // The run ended early or is incomplete: exit code 3.
  bool ended_early() const { return !incomplete_reason_.empty(); }

 private:
  std::string incomplete_reason_;  // sticky once set
};

// summary.json's incomplete_reason, "" when null.
std::string incomplete_reason_of(const nlohmann::json& summary);

}  // namespace fabcheck
