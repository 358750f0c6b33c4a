// The variables that shape a run, kept from the environment; the launcher's own left out.
#include "bench/cli/run_environment.hpp"

#include <algorithm>
#include <iterator>

namespace fabcheck {

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

}  // namespace fabcheck
