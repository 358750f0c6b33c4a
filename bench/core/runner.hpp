// Runner: runs the chosen probes on every rank, gathers their measurements to the root, judges them
// against the profile and writes the run directory as it goes; the exit code follows the verdict.
#pragma once

#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/core/evidence.hpp"
#include "bench/core/probe.hpp"
#include "bench/core/registry.hpp"
#include "results/profile.hpp"
#include "results/run_writer.hpp"

namespace fabcheck {

struct RunRequest {
  std::vector<Probe*> probes;
  std::vector<Judge> judges;
  std::vector<CounterMonitor> monitors;  // read around every heavy probe
  RunOptions options;
  Profile profile;
  std::string profile_reason;  // why this profile ("auto: no GPU ... -> generic-cpu")
  // Empty: ./fabcheck-results/<UTC timestamp>-<root's host>/, chosen by the root for every rank.
  std::filesystem::path out_dir;
  std::string command_line;
  std::string plan_name;       // "" for --probes
  nlohmann::json versions;     // fabcheck, mpi, cuda, nccl, compiler
  nlohmann::json environment;  // NCCL_* and other variables worth keeping
  // --prometheus-dir: node_exporter's textfile directory, written with every final summary.
  std::filesystem::path prometheus_dir;
  // On a FAIL: gathers evidence on each node the FAIL findings name (empty: none gathered).
  EvidenceGatherer gather_evidence;
  // The most seconds gather_evidence takes on a node (the watchdog's limit for that step).
  double evidence_limit_s = 30;
};

class Runner {
 public:
  Runner(RunRequest request, std::FILE* console);
  ~Runner();

  // Runs everything; returns the exit code (0, 1 or 3; 2 when the run directory cannot be made),
  // the same on every rank. Until the Runner is destroyed (after the World, so MPI's finalize is
  // covered), an interrupt or the end of the run by a sentinel writes the run's last words: the
  // summary marked incomplete, with an ERROR finding when something failed.
  int execute(World& world);

 private:
  struct State;
  void run_probe(World& world, Probe& probe);
  void gather_evidence(World& world);
  void write_summary(const std::string& incomplete_reason);
  nlohmann::json timing_json() const;  // summary.json "timing"; the caller holds the mutex
  void record(const Finding& finding);
  void write_last_words();
  // Writes through the writer; a write that fails ends the run after this probe (out of space).
  template <typename Write>
  void keep(Write&& write);
  std::unique_ptr<State> state_;
};

}  // namespace fabcheck
