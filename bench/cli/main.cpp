// fabcheck's entry point: the command line (CLI11) and its subcommands.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>
#include <string_view>

#include "bench/cli/build_versions.hpp"
#include "bench/cli/commands.hpp"
#include "bench/cli/evaluate_command.hpp"
#include "bench/cli/exit_report.hpp"
#include "bench/cli/fabric_commands.hpp"
#include "bench/cli/history_commands.hpp"
#include "bench/cli/host_commands.hpp"
#include "bench/cli/number_option.hpp"
#include "bench/cli/probe_families.hpp"
#include "bench/cli/run_flag_help.hpp"
#include "bench/cli/usage_error.hpp"
#include "bench/core/interrupt.hpp"
#include "bench/core/sentinel.hpp"

namespace {

// The flags of `run` (plan "": with --probes and --plan) and of a plan's own command (gate, ...).
void add_run_options(CLI::App& command, fabcheck::RunArgs& args, const std::string& plan) {
  if (plan.empty()) {
    command.add_option("--probes", args.probes,
                       "Probes to run: ID[,ID...]; FAMILY.* takes a family");
    command.add_option("--plan", args.plan, "A built-in plan: gate, acceptance, sweep, quick");
  } else {
    // A plan's command runs that plan: --plan may name it again; another plan, or --probes, is
    // refused (plan_command_refusal) with the line that does it.
    command.add_option("--plan", args.plan)->group("");
    command.add_option("--probes", args.probes)->group("");
  }
  command
      .add_option(
          "--profile", args.profile,
          "Expected figures: auto (from the GPUs on this node's PCI bus), a NAME (--profile-dir, "
          "$FABCHECK_PROFILE_PATH, <prefix>/share/fabcheck/profiles) or a FILE")
      ->capture_default_str();
  command.add_option("--profile-dir", args.profile_dirs,
                     "A folder of site profiles searched before the installed ones (repeatable; "
                     "also $FABCHECK_PROFILE_PATH, a colon list)");
  fabcheck::add_number_option(
      command, "--expect-gpus", args.expect_gpus,
      "NVIDIA GPUs this node must have on its PCI bus, each usable (over [node] gpus)", 0, 1024);
  fabcheck::add_number_option(command, "--expect-hcas", args.expect_hcas,
                              "Active IB/RoCE ports this node must have (over [node] hcas)", 0,
                              1024);
  fabcheck::add_number_option(
      command, "--expect-nvme", args.expect_nvme,
      "NVMe controllers this node must have on its PCI bus (over [node] nvme)", 0, 1024);
  command.add_option("--sizes", args.sizes,
                     "Message sizes: MIN:MAX:FACTOR (8:256M:2), SIZE, or a list");
  fabcheck::add_number_option(command, "--iters", args.iters, fabcheck::iters_help(plan), 1,
                              fabcheck::kMostIterations);
  fabcheck::add_number_option(command, "--warmup", args.warmup, fabcheck::warmup_help(plan), 0,
                              fabcheck::kMostIterations);
  fabcheck::add_number_option(command, "--timeout", args.timeout_s, fabcheck::timeout_help(plan), 0,
                              fabcheck::kMostRunSeconds, /*min_exclusive=*/true);
  command.add_option("--out", args.out, "Run directory (default ./fabcheck-results/<UTC>-<host>/)");
  command.add_option("--backend", args.backend,
                     "Collective backend: mpi or nccl (default: nccl with GPUs)");
  command.add_option("--placement", args.placement, "Collective buffers: out, in or both");
  command.add_option("--dtype", args.dtype,
                     "Collective element types, each its own sweep: int8, uint8, int32, uint32, "
                     "int64, uint64, half, float, double, bfloat16 (a comma list, or all; default "
                     "float; the MPI backend has no half or bfloat16)");
  command.add_option("--op", args.op,
                     "Reduction operations of all_reduce and reduce_scatter, each its own sweep: "
                     "sum, prod, min, max, avg (a comma list, or all; default sum; the MPI backend "
                     "has no avg)");
  command.add_option("--storage-path", args.storage_paths,
                     "A directory to test storage in (repeatable)");
  command.add_option("--sysfs-root", args.sysfs_root, "Read sysfs below this folder (default /)");
  command.add_option(
      "--pairs", args.pairs,
      "coll.node_pairs: all (every pair, circle method), quick (ring + shuffles), or "
      "bisect (coll.node_bisect in its place: log2 steps to a slow node)");
  command.add_option("--opt", args.extra, "Family option KEY=VALUE (repeatable)");
  command.add_option("--prometheus-dir", args.prometheus_dir,
                     "Also write the metrics as DIR/fabcheck_<plan>.prom (node_exporter textfile "
                     "collector directory; must exist)");
  command.add_option("--history", args.history,
                     "Append the finished run's figures to this fleet history (HDF5), as "
                     "`evaluate --history` does; `compare --against` reads it");
  command.add_flag("--every-rank", args.every_rank,
                   "Host-scoped probes (PCIe, IB, topology, storage local) on every rank, not once "
                   "per host");
  command.add_flag("--single-process", args.single_process,
                   "Do not start MPI even if built with it");
  auto* quiet = command.add_flag(
      "--quiet", args.quiet, "Print only the verdict line (and errors): no tables, no progress");
  command
      .add_flag("--json", args.json,
                "JSON lines on stdout, one object per event (results/schema/README.md)")
      ->excludes(quiet);
  fabcheck::add_number_option(command, "--budget", args.budget_s,
                              "Seconds the run should take: repetitions, durations, sizes and "
                              "then probes are trimmed until the estimate fits",
                              0, fabcheck::kMostRunSeconds, /*min_exclusive=*/true);
  command.add_option("--estimate-from", args.estimate_from,
                     "An earlier run directory on this job: the collectives estimate their time "
                     "(and --budget trims) from the per-size times measured there, not assumed "
                     "rates");
  command.add_flag("--dry-run", args.dry_run,
                   "Print the plan with each probe's estimated time, and exit (runs nothing)");
}

// Why `fabcheck PLAN` cannot take what it was given ("" when it can): --plan of another plan, or
// --probes.
std::string plan_command_refusal(const fabcheck::RunArgs& args, const std::string& plan) {
  if (!args.probes.empty()) {
    return "`fabcheck " + plan + "` runs plan " + plan +
           "'s probes; to choose probes: fabcheck run --probes " + args.probes;
  }
  if (!args.plan.empty() && args.plan != plan) {
    return "`fabcheck " + plan + "` runs plan " + plan + "; for plan " + args.plan +
           ": fabcheck run --plan " + args.plan;
  }
  return "";
}

// Runs plan `plan`'s command, or refuses what it cannot take (exit 2).
int run_plan_command(fabcheck::RunArgs& args, const std::string& plan,
                     const fabcheck::Registry& registry, int argc, char** argv) {
  if (const std::string why = plan_command_refusal(args, plan); !why.empty()) {
    fabcheck::report_usage_error(why);
    return 2;
  }
  args.plan = plan;
  return fabcheck::run_command(args, registry, argc, argv);
}

}  // namespace

int run_main(int argc, char** argv) {
  fabcheck::Registry registry;
  fabcheck::register_all_probes(registry);

  CLI::App app{
      "fabcheck: GPU-cluster fabric validation (collectives, links, storage) with verdicts"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(),
                       "Print fabcheck's version and the CUDA, NCCL and MPI it was built with");
  auto* version = app.add_subcommand("version", "Print what --version prints");

  auto* list = app.add_subcommand("list", "List probes and whether each applies on this node");
  fabcheck::ListArgs list_args;
  list->add_option("--backend", list_args.backend, "Collective backend to judge applicability for");
  list->add_flag("--options", list_args.options,
                 "List the options each probe family reads (--opt KEY=VALUE) and profile keys");
  list->add_flag("--plans", list_args.plans, "List the built-in plans: probes and options");
  list->add_flag("--json", list_args.json, "JSON lines (one probe, option or plan a line)");

  fabcheck::RunArgs run_args;
  auto* run = app.add_subcommand("run", "Run probes (--probes or --plan) and judge them");
  add_run_options(*run, run_args, "");

  fabcheck::RunArgs gate_args;
  auto* gate = app.add_subcommand("gate", "Pre-job gate: run --plan gate (under a minute)");
  add_run_options(*gate, gate_args, "gate");

  fabcheck::RunArgs acceptance_args;
  auto* acceptance = app.add_subcommand(
      "acceptance", "New nodes: run --plan acceptance (full sweeps, sustained load, storage)");
  add_run_options(*acceptance, acceptance_args, "acceptance");

  fabcheck::EvaluateArgs evaluate_args;
  CLI::App* evaluate = fabcheck::add_evaluate_command(app, evaluate_args);

  fabcheck::BaselineArgs baseline_args;
  CLI::App* baseline = fabcheck::add_baseline_command(app, baseline_args);
  fabcheck::CompareArgs compare_args;
  CLI::App* compare = fabcheck::add_compare_command(app, compare_args);

  fabcheck::AnswerArgs answer_args;
  auto* answer = app.add_subcommand(
      "answer", "A run's answer for scheduler scripts: the nodes to drain or hold, and why");
  answer->add_option("RUN_DIR", answer_args.run_dir, "A run directory")->required();
  answer->add_option("--outcomes", answer_args.outcomes,
                     "Append each node's outcome to this log (JSON lines) and judge streaks by it");
  answer->add_option("--fail-streak", answer_args.fail_streak,
                     "Drain for noisy figures only after N failing runs in a row, or N of the last "
                     "M (N/M); facts drain at once (default 1)");

  fabcheck::RunArgs sweep_args;
  auto* sweep = app.add_subcommand(
      "sweep", "Fleet sweep across nodes under mpirun: run --plan sweep (each node, every pair)");
  add_run_options(*sweep, sweep_args, "sweep");

  fabcheck::NcclLogArgs nccl_log_args;
  CLI::App* nccl_log = fabcheck::add_nccl_log_command(app, nccl_log_args);
  fabcheck::InventoryArgs inventory_args;
  CLI::App* inventory = fabcheck::add_inventory_command(app, inventory_args);
  fabcheck::KernelLogArgs kernel_log_args;
  CLI::App* kernel_log = fabcheck::add_kernel_log_command(app, kernel_log_args);

  std::vector<std::string> clean_paths;
  bool clean_dry_run = false;
  auto* clean = app.add_subcommand(
      "clean", "Remove the scratch fabcheck left under a storage path by runs that are gone");
  clean->add_option("--storage-path", clean_paths, "A directory storage probes ran in (repeatable)")
      ->required();
  clean->add_flag("--dry-run", clean_dry_run, "Only list what would be removed");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& help) {
    return app.exit(help);
  } catch (const CLI::CallForAllHelp& help) {
    return app.exit(help);
  } catch (const CLI::CallForVersion&) {
    std::fputs(fabcheck::version_text(fabcheck::build_versions()).c_str(), stdout);
    return 0;
  } catch (const CLI::ParseError& error) {
    fabcheck::report_usage_error(std::string(error.what()) + "\nRun with --help for usage.");
    return 2;
  }

  if (version->parsed()) {
    std::fputs(fabcheck::version_text(fabcheck::build_versions()).c_str(), stdout);
    return 0;
  }
  if (list->parsed()) return fabcheck::list_command(registry, list_args, argc, argv);
  if (run->parsed()) return fabcheck::run_command(run_args, registry, argc, argv);
  if (gate->parsed()) return run_plan_command(gate_args, "gate", registry, argc, argv);
  if (acceptance->parsed())
    return run_plan_command(acceptance_args, "acceptance", registry, argc, argv);
  if (evaluate->parsed()) return fabcheck::evaluate_command(evaluate_args, registry, stdout);
  if (baseline->parsed()) return fabcheck::baseline_command(baseline_args, registry, stdout);
  if (compare->parsed()) return fabcheck::compare_command(compare_args, registry, stdout);
  if (answer->parsed()) return fabcheck::answer_command(answer_args);
  if (sweep->parsed()) return run_plan_command(sweep_args, "sweep", registry, argc, argv);
  if (nccl_log->parsed()) return fabcheck::nccl_log_main(nccl_log_args);
  if (inventory->parsed()) return fabcheck::inventory_main(inventory_args, registry);
  if (clean->parsed()) return fabcheck::clean_command(clean_paths, clean_dry_run);
  if (kernel_log->parsed()) return fabcheck::kernel_log_main(kernel_log_args);
  return 2;
}

int main(int argc, char** argv) {
  // `run`, `gate`, `acceptance` and `sweep` are watched from outside by a sentinel process from
  // the first instruction to the last (it forks here, before any thread or MPI); the other commands
  // just handle signals.
  const std::string_view command = argc > 1 ? argv[1] : "";
  const bool runs_probes =
      command == "run" || command == "gate" || command == "acceptance" || command == "sweep";
  if (runs_probes) {
    fabcheck::start_sentinel(fabcheck::launcher_rank());
  } else {
    fabcheck::install_interrupt_handling();
  }
  const int code = run_main(argc, argv);
  fabcheck::report_exit_code(code);
  fabcheck::rank_exiting(code);
  return code;
}
