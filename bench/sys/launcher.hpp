// What the launcher (mpirun, srun) tells a process before MPI starts: its rank and the job's size
// from the environment, the job a process of another environment block belongs to, and each
// rank's place among the ranks of its host.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace fabcheck {

// This process's rank as the launcher set it in the environment (OMPI_COMM_WORLD_RANK, PMIX_RANK,
// PMI_RANK, SLURM_PROCID), before MPI starts; 0 when not launched by one.
int launcher_rank();
// How many ranks the launcher started (1 when not launched by one).
int launcher_size();
// How many of them run on this host (OMPI_COMM_WORLD_LOCAL_SIZE, MPI_LOCALNRANKS,
// SLURM_NTASKS_PER_NODE); 1 when unknown.
int launcher_local_size();

// The value of `name` in a NUL-separated environment block (/proc/PID/environ); empty when absent.
std::string environment_value(const std::string& block, const std::string& name);
// The launcher's name for the job of an environment block (Open MPI and Slurm with PMIx:
// PMIX_NAMESPACE; Slurm: job and step), and the rank's number in it (the variables
// launcher_rank() reads); empty when not launched so.
std::string launcher_job_of(const std::string& environment);
std::string launcher_rank_of(const std::string& environment);

// The processes of launcher job `job` on this host (from every readable /proc/PID/environ), each
// with its rank in the job; this process among them.
struct JobProcess {
  pid_t pid = 0;
  std::string rank;
};
std::vector<JobProcess> job_processes_on_this_host(const std::string& job);

// Ranks per host from host names: returns (local_rank, local_size) of `rank`.
std::pair<int, int> local_rank_of(const std::vector<std::string>& hosts, int rank);

}  // namespace fabcheck
