// Fleet evaluation: many run directories judged together (each run re-judged, then peers across
// the fleet), a verdict per node and for the fleet, and the nodes to drain.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/finding.hpp"
#include "results/fleet_store.hpp"
#include "results/peer_judge.hpp"
#include "results/profile.hpp"
#include "results/verdict.hpp"

namespace fabcheck {

struct FleetEvaluationOptions {
  // The profile a run is judged against (its own, or one given for all); may throw ConfigError.
  // Called from several threads: it must be safe to.
  std::function<const Profile&(const RunInfo&)> profile_for;
  // Every row is judged by the evaluator's rules (results/evaluator.hpp); a row that only passes
  // is counted without being turned back into a measurement.
  // The per-host family judges: called with one host's measurements of one run (those
  // `judges_read` names, and maybe others), returning every finding, PASS included. May be empty.
  std::function<std::vector<Finding>(const std::vector<Measurement>&, const Profile&)> judge_host;
  // Judges that compare the hosts of one run with each other (node pairs): called once per run
  // with its hosts' measurements (as judge_host's), when the run has several hosts. May be empty.
  std::function<std::vector<Finding>(const std::vector<Measurement>&, const Profile&)> judge_run;
  // Whether judge_host or judge_run reads figures of this probe and metric (asked once per pair
  // and run); empty: they read every figure.
  std::function<bool(const std::string& probe, const std::string& metric)> judges_read;
  // Judges that compare one kind of record across every run (the GEMM output hash of like GPUs):
  // called once after every run was read, with the fleet's rows of the figures `fleet_reads`
  // names, judged by the first run's profile. May be empty.
  std::function<std::vector<Finding>(const std::vector<Measurement>&, const Profile&)> judge_fleet;
  std::function<bool(const std::string& probe, const std::string& metric)> fleet_reads;
  PeerJudgeOptions peers;  // catalog and exclusions; the profile is filled in per fleet
  unsigned threads = 2;
};

struct NodeSummary {
  std::string host;
  Verdict verdict = Verdict::pass;
  std::map<Severity, int> counts;
  std::vector<std::string> runs;      // run directories that measured it
  std::string incomplete_reason;      // the first, when a run of it did not finish
  std::vector<std::size_t> findings;  // indices of its non-PASS findings, worst first
};

struct FleetEvaluation {
  FleetStore store;
  std::vector<Finding> findings;   // every non-PASS finding (PASS ones are only counted)
  std::vector<NodeSummary> nodes;  // in host order
  // Indices of the findings about a link between two nodes (subject "a--b", or
  // "a/mlx5_3--b/mlx5_3" for one rail, both ends hosts of the fleet), worst first: they count
  // for the fleet's verdict but for neither node's, and drain nobody.
  std::vector<std::size_t> links;
  std::map<Severity, int> counts;  // PASS included
  Verdict verdict = Verdict::pass;
  std::vector<std::string> drain;    // nodes with a FAIL of their own (not a link's)
  std::vector<std::string> recheck;  // nodes with no FAIL but an incomplete run or an ERROR
  std::string profile_name;          // the profile the peer notes used
  double seconds = 0;                // wall time of the evaluation
  double seconds_runs = 0;           // of which reading and judging the runs (in parallel)
  double seconds_peers = 0;          // and judging the peers across the fleet (one thread)
};

// The two ends of a link subject ("a--b", "a/mlx5_3--b/mlx5_3" -> a, b), or nothing.
std::optional<std::pair<std::string, std::string>> link_ends(const std::string& subject);

// Reads and judges every run (in parallel), then the peers of the whole fleet. Throws ConfigError
// for unreadable or malformed inputs (naming file and line).
FleetEvaluation evaluate_fleet(const std::vector<std::filesystem::path>& run_dirs,
                               const FleetEvaluationOptions& options);

// fleet.json: the fleet's verdict and counts, the nodes to drain and recheck, the links, and every
// node's summary.
nlohmann::json fleet_summary_json(const FleetEvaluation& evaluation);

// Writes findings.jsonl (non-PASS findings, each naming its host and subject), fleet.json and
// drain.txt (one host a line) into `dir`, which must not exist or be empty (ConfigError).
void write_fleet_evaluation(const FleetEvaluation& evaluation, const std::filesystem::path& dir);

}  // namespace fabcheck
