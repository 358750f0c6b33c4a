// `fabcheck run` and `fabcheck gate`: validate the request, start the World, run, exit by verdict.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <unistd.h>

#include "bench/cli/build_versions.hpp"
#include "bench/cli/command_line.hpp"
#include "bench/cli/commands.hpp"
#include "bench/cli/earlier_run_reader.hpp"
#include "bench/cli/evidence.hpp"
#include "bench/cli/launch_check.hpp"
#include "bench/cli/memory_plan.hpp"
#include "bench/cli/profile_lookup.hpp"
#include "bench/cli/run_environment.hpp"
#include "bench/cli/usage_error.hpp"
#include "bench/coll/coll_probes.hpp"
#include "bench/coll/data_types.hpp"
#include "bench/coll/mpi_call_plan.hpp"
#include "bench/coll/nccl_backend.hpp"
#include "bench/coll/node_bisect.hpp"
#include "bench/coll/node_pairs.hpp"
#include "bench/core/budget_fit.hpp"
#include "bench/core/console_reporter.hpp"
#include "bench/core/history_reporter.hpp"
#include "bench/core/json_lines_reporter.hpp"
#include "bench/core/plan.hpp"
#include "bench/core/plan_estimate.hpp"
#include "bench/core/plan_text.hpp"
#include "bench/core/planning_world.hpp"
#include "bench/core/run_directory.hpp"
#include "bench/core/runner.hpp"
#include "bench/core/size_range.hpp"
#include "bench/core/trimmed_plan.hpp"
#include "bench/cuda/cuda_availability.hpp"
#include "bench/sys/config_error.hpp"
#include "bench/sys/dir_handle.hpp"
#include "bench/sys/input_path.hpp"
#include "bench/sys/launcher.hpp"
#include "bench/sys/pci_devices.hpp"
#include "storage/path_validation.hpp"

namespace fabcheck {
namespace {

// Refuses collective sizes whose buffers cannot fit (memory_plan.hpp), before anything starts.
void plan_memory(const RunRequest& request) {
  const RunOptions& options = request.options;
  const std::string backend = !options.backend.empty()        ? options.backend
                              : cuda_availability().available ? "nccl"
                                                              : "mpi";
  const auto need = largest_collective_need(request.probes, options, backend, launcher_size());
  if (!need) return;
  check_memory_plan(*need, backend, launcher_local_size(),
                    backend == "mpi" ? host_memory_available() : std::nullopt,
                    backend == "nccl" ? largest_gpu_memory_free() : std::nullopt);
}

RunRequest build_request(const RunArgs& args, const Registry& registry) {
  if (args.probes.empty() == args.plan.empty()) {
    throw ConfigError("give exactly one of --probes ID[,ID...] or --plan NAME");
  }
  RunRequest request;
  if (!args.plan.empty()) {
    const Plan& plan = find_plan(args.plan);
    request.plan_name = plan.name;
    request.options = plan.options;
    registry.validate_options(plan.options.extra, "plan " + plan.name);
    request.probes = registry.plan_probes(plan.name);
    request.required_probes = registry.required_probes(plan.name);
  } else {
    request.probes = registry.select(args.probes);
  }
  RunOptions& options = request.options;
  if (!args.sizes.empty()) options.sizes = parse_size_sweep(args.sizes);
  // Their ranges are checked as the command line is read (bench/cli/number_option.hpp).
  if (args.iters) options.iters = *args.iters;
  if (args.warmup) options.warmup = *args.warmup;
  if (args.timeout_s) options.probe_timeout_s = *args.timeout_s;
  // Family options: each key declared by some probe, each value within its rule, before anything
  // runs; --opt overrides the plan's value.
  std::map<std::string, std::string> given;
  for (const auto& pair : args.extra) {
    const auto equals = pair.find('=');
    if (equals == std::string::npos || equals == 0) {
      throw ConfigError("--opt \"" + pair + "\": expected KEY=VALUE");
    }
    given[pair.substr(0, equals)] = pair.substr(equals + 1);
  }
  registry.validate_options(given, "--opt");
  for (const auto& key : Registry::unread_options(given, request.probes)) {
    if (launcher_rank() == 0)
      std::fprintf(stderr, "fabcheck: note: --opt %s: no probe of this run reads it\n",
                   key.c_str());
  }
  for (const auto& [key, value] : given) options.extra[key] = value;
  if (!args.placement.empty()) {
    registry.validate_options({{placement_option().key, args.placement}}, "--placement");
    options.extra[placement_option().key] = args.placement;
  }
  // --dtype and --op as nccl-tests' -d and -o; a bad name is refused (exit 2) with the closest one.
  if (!args.dtype.empty()) {
    registry.validate_options({{dtype_option().key, args.dtype}}, "--dtype");
    options.extra[dtype_option().key] = args.dtype;
  }
  if (!args.op.empty()) {
    registry.validate_options({{redop_option().key, args.op}}, "--op");
    options.extra[redop_option().key] = args.op;
  }
  if (!args.pairs.empty()) {
    registry.validate_options({{"pairs", args.pairs}}, "--pairs");
    options.extra["pairs"] = args.pairs;
  }
  // --pairs bisect: the bisection (coll.node_bisect) runs where the plan has the pair sweep.
  if (option_choice(options, pair_schedule_option()) == "bisect") {
    Probe* bisect = registry.find(kNodeBisectProbe);
    for (Probe*& probe : request.probes) {
      if (probe->info().id == kNodePairsProbe) probe = bisect;
    }
    for (std::string& id : request.required_probes) {
      if (id == kNodePairsProbe) id = kNodeBisectProbe;
    }
  }
  // A value given with --opt meets the rules across options of every probe that reads it, in this
  // run or not: a bad combination is refused (exit 2), never only noted as unread.
  std::vector<Probe*> checked = request.probes;
  for (Probe* probe : registry.all()) {
    const bool reads_given =
        std::any_of(probe->info().options.begin(), probe->info().options.end(),
                    [&](const OptionSpec& spec) { return given.count(spec.key) != 0; });
    if (reads_given && std::find(checked.begin(), checked.end(), probe) == checked.end())
      checked.push_back(probe);
  }
  check_probe_options(checked, options);
  if (!args.backend.empty()) {
    if (args.backend != "mpi" && args.backend != "nccl") {
      throw ConfigError("--backend \"" + args.backend + "\": expected mpi or nccl");
    }
    if (args.backend == "nccl") {
      const CudaAvailability nccl = cuda_availability();
      if (!nccl.available) throw ConfigError("--backend nccl: " + nccl.reason);
    }
    options.backend = args.backend;
  }
  options.host_probes_on_every_rank = args.every_rank;
  options.storage_paths = args.storage_paths;
  if (!options.storage_paths.empty()) {
    validate_storage_paths(options.storage_paths,
                           planned_storage_bytes(request.probes, options, launcher_size()));
  }
  if (!args.sysfs_root.empty()) options.sysfs_root = args.sysfs_root;
  plan_memory(request);

  request.profile = load_profile_for(args.profile, registry, &request.profile_reason,
                                     args.profile_dirs, options.sysfs_root);
  // --expect-*: the node's hardware over the profile's [node] table, checked as the table is.
  for (const auto& [key, value] :
       {std::pair<const char*, std::optional<int>>{"gpus", args.expect_gpus},
        {"hcas", args.expect_hcas},
        {"nvme", args.expect_nvme}}) {
    if (value) override_node_setting(request.profile, key, *value);
  }
  for (const Judge& judge : registry.judges()) {
    if (judge.validate) judge.validate(request.profile);
  }
  // The site's SDC settings over the plan's; --opt over them.
  for (const auto& [key, value] : request.profile.sdc) {
    if (!given.count("sdc." + key)) options.extra["sdc." + key] = value;
  }
  // coll.node_pairs picks what to measure again by the rule its judge will apply.
  if (const auto gap = request.profile.node.find("pair_min_gap"); gap != request.profile.node.end())
    options.extra["pairs.min_gap"] = gap->second;
  request.judges = registry.judges();
  request.monitors = registry.counter_monitors();
  if (!args.out.empty()) {
    // Only a new path: whatever is there (even an empty directory, which someone else may own
    // and plant links in) is refused, named for what it is.
    const std::string what = describe_path(args.out);
    if (what.rfind("missing", 0) != 0) {
      throw ConfigError("--out " + args.out + ": is " + what +
                        "; a run writes only into a directory it creates (give a path that "
                        "does not exist yet)");
    }
    request.out_dir = args.out;
  }
  if (!args.prometheus_dir.empty()) {
    std::error_code error;
    if (!std::filesystem::is_directory(args.prometheus_dir, error) ||
        ::access(args.prometheus_dir.c_str(), W_OK | X_OK) != 0) {
      throw ConfigError("--prometheus-dir " + args.prometheus_dir +
                        ": not a directory this user can write (node_exporter's textfile "
                        "directory must exist)");
    }
    DirHandle::open_output_folder(args.prometheus_dir, "--prometheus-dir");  // safe, else exit 2
    request.prometheus_dir = args.prometheus_dir;
  }
  if (!args.history.empty()) check_history_file(args.history);
  // On a FAIL, each node it names gathers what an engineer asks for next (ops/evidence).
  const EvidenceLimits limits;
  request.gather_evidence = [limits](const std::vector<Finding>& failures,
                                     const std::filesystem::path& run_dir) {
    return gather_evidence(failures, run_dir, limits);
  };
  // Its own limit, plus the time to read the NCCL logs and the kernel log it filters.
  request.evidence_limit_s = limits.total_s + 10;
  request.versions = build_versions();
  request.environment = run_environment(environ);
  return request;
}

// What is known of the job before it starts: ranks and hosts from the launcher, the backend the
// collectives would choose.
JobShape job_shape(const RunArgs& args, const RunRequest& request) {
  JobShape job;
  job.ranks = std::max(1, launcher_size());
  job.ranks_per_host = std::clamp(launcher_local_size(), 1, job.ranks);
  job.hosts = (job.ranks + job.ranks_per_host - 1) / job.ranks_per_host;
  job.mpi = mpi_available() && !args.single_process;
  const std::string& backend = request.options.backend;
  job.backend = !backend.empty()                ? backend
                : cuda_availability().available ? "nccl"
                : job.mpi                       ? "mpi"
                                                : "";
  for (const Probe* probe : request.probes) job.plan.push_back(probe->id());
  // The first rank's estimates are the ones shown and the ones --budget trims by (its trimmed plan
  // is sent to every rank), so only it reads the earlier run: a node without the folder is fine.
  if (!args.estimate_from.empty() && launcher_rank() == 0) {
    job.earlier = std::make_shared<EarlierRun>(read_earlier_run(args.estimate_from));
  }
  return job;
}

// The plan before the run: the job as the launcher describes it, each probe's estimate, and the
// budget's trimming when --budget asks.
struct PlannedRun {
  JobShape job;
  PlanEstimate estimate;
  std::optional<BudgetFit> fit;
};

// Estimates the plan and trims it to --budget (exit 2 on a budget that is not a positive number).
// The request's options and probes become the trimmed ones.
PlannedRun plan_the_run(const RunArgs& args, const Registry& registry, RunRequest& request) {
  PlannedRun planned;
  planned.job = job_shape(args, request);
  const auto world = make_planning_world(planned.job);
  const WaiverCheck waived = [&world](const Probe& probe, const RunOptions& options) {
    const Applicability here = applicability_of(probe, *world, options);
    return here.applies ? std::string() : here.reason;
  };
  if (args.budget_s) {
    auto& fit = planned.fit.emplace(fit_to_budget(request.probes, request.options, planned.job,
                                                  *args.budget_s, waived, request.required_probes));
    // Trimmed values follow the options' rules (a failure here is a bug in the trimming).
    registry.validate_options(fit.options.extra, "--budget");
    check_probe_options(fit.probes, fit.options);
    request.options = fit.options;
    request.probes = fit.probes;
    planned.estimate = fit.trimmed;
  } else {
    planned.estimate = estimate_plan(request.probes, request.options, planned.job, waived);
  }
  const BudgetFit* fit = planned.fit ? &*planned.fit : nullptr;
  request.estimate = plan_estimate_json(planned.estimate, fit);
  for (const PlannedProbe& probe : planned.estimate.probes)
    request.estimated_s.push_back(probe.seconds);
  return planned;
}

// Where the run is shown: JSON lines of its events, or the console.
std::unique_ptr<Reporter> make_display(const RunArgs& args) {
  if (args.json) return make_json_lines_reporter(stdout);
  ConsoleOptions console;
  console.quiet = args.quiet;
  console.progress = progress_style_for(stderr);
  return make_console_reporter(console);
}

}  // namespace

int run_command(const RunArgs& args, const Registry& registry, int argc, char** argv) {
  RunRequest request;
  std::vector<Probe*> untrimmed;
  PlannedRun planned;
  try {
    request = build_request(args, registry);
    untrimmed = request.probes;
    planned = plan_the_run(args, registry, request);
    // Fewer ranks than the plan needs would judge less than it promises: refused with the line.
    LaunchShape launch;
    launch.ranks = args.single_process ? 1 : planned.job.ranks;
    launch.ranks_per_host = args.single_process ? 1 : planned.job.ranks_per_host;
    launch.gpus_on_bus =
        static_cast<int>(nvidia_gpus(read_pci_devices(request.options.sysfs_root)).size());
    launch.command_line = joined_command_line(argc, argv);
    if (const std::string problem = launch_problem(request.probes, request.required_probes, launch);
        !problem.empty()) {
      throw ConfigError(problem);
    }
  } catch (const ConfigError& error) {
    report_usage_error(error.what());
    return 2;
  }
  request.reporters.push_back(make_display(args));
  // The plan, before the first probe, on the first rank: the console leaves it out with --quiet,
  // JSON lines print it only as the whole output of --dry-run.
  if (launcher_rank() == 0) {
    const RunPlan plan{request.plan_name.empty() ? "--probes" : request.plan_name, &planned.job,
                       &planned.estimate, planned.fit ? &*planned.fit : nullptr, args.dry_run};
    for (auto& reporter : request.reporters) reporter->plan(plan);
  }
  // The plan alone: no MPI, no run directory, nothing on the storage paths.
  if (args.dry_run) return 0;
  request.command_line = joined_command_line(argc, argv);
  if (!args.history.empty()) {
    request.reporters.push_back(make_history_reporter(args.history, args.json ? stderr : stdout));
  }
  // Declared before the World, destroyed after it (MPI's finalize is covered by its last words).
  std::unique_ptr<Runner> runner;
  std::unique_ptr<World> world;
  if (mpi_available() && !args.single_process) world = make_mpi_world(&argc, &argv);
  if (!world) world = make_single_world();
  // Every rank runs the root's trimmed plan, even where its own estimate differed (another
  // backend, another number of ranks on its host).
  if (args.budget_s) {
    const auto plan = world->broadcast_value(trimmed_plan_of(request.options, request.probes));
    apply_trimmed_plan(plan, request.options, request.probes, untrimmed);
  }
  RunDirectory directory = make_run_directory(*world, request.out_dir);
  runner = std::make_unique<Runner>(std::move(request));
  const int exit_code = runner->execute(*world, std::move(directory));
  world.reset();
  return exit_code;
}

}  // namespace fabcheck
