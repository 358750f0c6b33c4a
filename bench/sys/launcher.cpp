// The launcher's variables: rank, size and job from the environment, the job's processes on this
// host, local ranks from host names.
#include "bench/sys/launcher.hpp"

#include <algorithm>
#include <cstdlib>

#include "bench/sys/procfs.hpp"

namespace fabcheck {
namespace {

// Where each launcher puts a process's rank (Open MPI, PMIx, MPICH's Hydra, Slurm), in the order
// they are asked. Where several are set they hold the same number (Open MPI sets both of its own).
constexpr const char* kRankVariables[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                          "SLURM_PROCID"};

}  // namespace

int launcher_rank() {
  for (const char* name : kRankVariables) {
    if (const char* value = std::getenv(name); value && *value) return std::atoi(value);
  }
  return 0;
}

int launcher_size() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE", "SLURM_NTASKS"}) {
    if (const char* value = std::getenv(name); value && *value)
      return std::max(1, std::atoi(value));
  }
  return 1;
}

int launcher_local_size() {
  for (const char* name :
       {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"}) {
    if (const char* value = std::getenv(name); value && *value)
      return std::max(1, std::atoi(value));
  }
  return 1;
}

std::string environment_value(const std::string& block, const std::string& name) {
  const std::string key = name + "=";
  for (std::size_t at = 0; at < block.size();) {
    const std::size_t end = std::min(block.find('\0', at), block.size());
    if (block.compare(at, key.size(), key) == 0)
      return block.substr(at + key.size(), end - at - key.size());
    at = end + 1;
  }
  return "";
}

std::string launcher_job_of(const std::string& environment) {
  if (auto space = environment_value(environment, "PMIX_NAMESPACE"); !space.empty()) return space;
  const std::string job = environment_value(environment, "SLURM_JOB_ID");
  return job.empty() ? "" : job + "." + environment_value(environment, "SLURM_STEP_ID");
}

std::string launcher_rank_of(const std::string& environment) {
  for (const char* name : kRankVariables) {
    if (auto value = environment_value(environment, name); !value.empty()) return value;
  }
  return "";
}

std::vector<JobProcess> job_processes_on_this_host(const std::string& job) {
  std::vector<JobProcess> processes;
  if (job.empty()) return processes;
  for (const pid_t pid : process_ids()) {
    const std::string environment = process_environment(pid);
    if (environment.empty() || launcher_job_of(environment) != job) continue;
    processes.push_back({pid, launcher_rank_of(environment)});
  }
  return processes;
}

std::pair<int, int> local_rank_of(const std::vector<std::string>& hosts, int rank) {
  const std::string& mine = hosts[static_cast<std::size_t>(rank)];
  int local_rank = 0;
  int local_size = 0;
  for (std::size_t r = 0; r < hosts.size(); ++r) {
    if (hosts[r] != mine) continue;
    if (static_cast<int>(r) < rank) ++local_rank;
    ++local_size;
  }
  return {local_rank, local_size};
}

}  // namespace fabcheck
