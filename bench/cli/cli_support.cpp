// What the commands share: profile folders, launcher rank, versions, the command line.
#include "bench/cli/cli_support.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "bench/core/rank_status.hpp"
#include "bench/core/world.hpp"
#include "bench/sys/config_error.hpp"
#include "kernels/profile_choice.hpp"

namespace fabcheck {

std::vector<std::filesystem::path> profile_dirs() {
  std::vector<std::filesystem::path> dirs;
  if (const char* dir = std::getenv("FABCHECK_PROFILE_DIR"); dir && *dir) dirs.emplace_back(dir);
  std::error_code error;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) dirs.push_back(exe.parent_path().parent_path() / "share" / "fabcheck" / "profiles");
  dirs.push_back(std::filesystem::path(FABCHECK_SOURCE_DIR) / "results" / "profiles");
  return dirs;
}

Profile load_profile_for(const std::string& name_or_file, const Registry& registry,
                         std::string* why) {
  std::string name = name_or_file;
  if (name == "auto") {
    const ProfileChoice choice = choose_profile_for_node();
    name = choice.name;
    if (why) *why = "auto: " + choice.reason;
  } else if (why) {
    *why = "given";
  }
  return registry.load_profile(resolve_profile(name, profile_dirs()));
}

void report_usage_error(const std::string& message) {
  if (launcher_rank() == 0) {
    std::fprintf(stderr, "fabcheck: %s\n", message.c_str());
  } else {
    rank_status().exit_note.store(message);
  }
}

std::map<std::string, std::string> run_environment(char** environment) {
  static const char* const kPrefixes[] = {"NCCL_",  "UCX_",      "UCC_",     "FI_",
                                          "HCOLL_", "OMPI_MCA_", "PMIX_MCA_"};
  static const char* const kNames[] = {"CUDA_VISIBLE_DEVICES",
                                       "CUDA_DEVICE_ORDER",
                                       "NVIDIA_VISIBLE_DEVICES",
                                       "OMPI_COMM_WORLD_SIZE",
                                       "OMPI_COMM_WORLD_LOCAL_SIZE",
                                       "OMPI_UNIVERSE_SIZE",
                                       "SLURM_JOB_ID",
                                       "SLURM_JOB_NODELIST",
                                       "SLURM_NNODES",
                                       "SLURM_NTASKS",
                                       "SLURM_STEP_ID",
                                       "SLURM_CPUS_PER_TASK"};
  // What mpirun sets for its own processes (addresses, job ids, session folders, a transport key).
  static const char* const kLauncherInternal[] = {"OMPI_MCA_orte_",
                                                  "OMPI_MCA_ess",
                                                  "OMPI_MCA_pmix",
                                                  "OMPI_MCA_initial_wdir",
                                                  "OMPI_MCA_shmem_RUNTIME_QUERY_hint",
                                                  "OMPI_MCA_mpi_oversubscribe"};
  std::map<std::string, std::string> kept;
  for (char** entry = environment; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string text = *entry;
    const auto equals = text.find('=');
    if (equals == std::string::npos) continue;
    const std::string name = text.substr(0, equals);
    bool keep = std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
    for (const char* prefix : kPrefixes) keep = keep || name.rfind(prefix, 0) == 0;
    for (const char* internal : kLauncherInternal) keep = keep && name.rfind(internal, 0) != 0;
    if (keep) kept[name] = text.substr(equals + 1);
  }
  return kept;
}

nlohmann::json build_versions() {
  nlohmann::json versions = {{"fabcheck", FABCHECK_VERSION}, {"compiler", __VERSION__}};
  versions["mpi"] = mpi_library_version();
#if defined(FABCHECK_CUDA_VERSION) && defined(FABCHECK_NCCL_VERSION)
  versions["cuda"] = FABCHECK_CUDA_VERSION;
  versions["nccl"] = FABCHECK_NCCL_VERSION;
#else
  versions["cuda"] = "";
  versions["nccl"] = "";
#endif
  return versions;
}

void check_cli_number(const std::string& flag, double value, double min, double max,
                      bool min_exclusive) {
  const bool above_min = min_exclusive ? value > min : value >= min;
  if (std::isfinite(value) && above_min && value <= max) return;
  throw ConfigError(fmt::format("{} {}: expected a finite number {} {} and at most {}", flag, value,
                                min_exclusive ? "above" : "of at least", min, max));
}

std::string joined_command_line(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.find_first_of(" \t'\"$") != std::string::npos) {
      std::string quoted = "'";
      for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
      arg = quoted + "'";
    }
    line += (i ? " " : "") + arg;
  }
  return line;
}

}  // namespace fabcheck
