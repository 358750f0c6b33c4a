// The subcommands of the fabcheck binary; each returns the process exit code.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench/core/registry.hpp"

namespace fabcheck {

struct RunArgs {
  std::string probes;
  std::string plan;
  std::string profile = "auto";
  std::string sizes;
  std::optional<int> iters;
  std::optional<int> warmup;
  std::optional<double> timeout_s;
  std::string out;
  std::string backend;
  std::string placement;
  std::string dtype;  // collective element types: a comma list or all
  std::string op;     // reduction operations of the reducing collectives
  std::vector<std::string> storage_paths;
  std::string sysfs_root;
  std::string pairs;               // coll.node_pairs schedule: all, quick
  std::vector<std::string> extra;  // key=value
  std::string prometheus_dir;      // node_exporter textfile directory
  std::string history;             // --history FILE.h5: append the finished run's figures
  bool every_rank = false;         // host-scoped probes on every rank
  bool single_process = false;
  bool quiet = false;              // only the verdict line
  bool json = false;               // the run's events as JSON lines on stdout
  std::optional<double> budget_s;  // --budget: trim the plan to fit (bench/core/plan_estimate.hpp)
  std::string estimate_from;       // --estimate-from RUN_DIR: estimates from its measured times
  bool dry_run = false;            // print the plan and its estimate only
  std::vector<std::string> profile_dirs;  // --profile-dir (repeatable): site profiles first
  // --expect-gpus, --expect-hcas, --expect-nvme: the node's hardware, over the profile's [node]
  std::optional<int> expect_gpus;
  std::optional<int> expect_hcas;
  std::optional<int> expect_nvme;
};

// Validates everything first (ConfigError -> exit 2 with nothing written), then starts MPI (unless
// single_process or built without it) and runs.
int run_command(const RunArgs& args, const Registry& registry, int argc, char** argv);

struct ListArgs {
  std::string backend;   // judge applicability for this collective backend
  bool options = false;  // list the family options and profile [node] keys instead of probes
  bool plans = false;    // list the built-in plans (probes, options) instead of probes
  bool json = false;     // JSON lines instead of text
};

int list_command(const Registry& registry, const ListArgs& args, int argc, char** argv);

// Lists fabcheck's scratch folders under each path and removes those left by runs that are gone
// (only those; not with `dry_run`). Exit code: 0, 2 for a path that is not a folder, 3 when a
// folder could not be removed.
int clean_command(const std::vector<std::string>& storage_paths, bool dry_run);

// `fabcheck answer`'s options: with `outcomes`, each node's outcome of the run is appended to that
// log (results/fail_streak.hpp) and a drain for noisy figures only waits for `fail_streak`.
struct AnswerArgs {
  std::string run_dir;
  std::string outcomes;           // the node outcome log ("": none)
  std::string fail_streak = "1";  // "N" in a row or "N/M"; needs `outcomes` when N > 1
};

// A run's answer for scheduler scripts, from RUN_DIR/summary.json: "drain|hold<TAB>HOST<TAB>REASON
// <TAB>CODE<TAB>REPAIR" for each node to take out of service, "watch<TAB>...<TAB>STREAK" (the same
// fields and how far its streak is) for a node failing only noisy figures whose fail streak is not
// yet long enough (not taken out),
// "across<TAB>HOSTS<TAB>REASON" for each FAIL measured across several hosts (it drains nobody).
// Exit code: the run's (0 pass or warn, or a FAIL whose every node is watched; 1 fail; 3
// incomplete, also for a run that never finished or has no summary), 2 for a file that cannot be
// a summary or a bad --fail-streak. An outcome log that cannot be used (refused, unreadable) is
// said on stderr and every FAIL drains.
int answer_command(const AnswerArgs& args);

}  // namespace fabcheck
