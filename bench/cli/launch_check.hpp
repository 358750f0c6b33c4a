// Whether the ranks the launcher started can judge what the run promises: collectives on a node
// with several GPUs need a rank a GPU, and a plan's required collectives need every GPU's rank (or
// two ranks at least on a node without GPUs). Refused before anything runs, with the line to use.
#pragma once

#include <string>
#include <vector>

#include "bench/core/probe.hpp"

namespace fabcheck {

struct LaunchShape {
  int ranks = 1;           // the job's, as the launcher tells (1: no launcher)
  int ranks_per_host = 1;  // on this host
  int gpus_on_bus = 0;     // NVIDIA GPUs on this node's PCI bus
  std::string command_line;  // this command, for the line to run instead
};

// "" when the launch fits; else the usage error: what is wrong and the mpirun and srun lines
// (e.g. "mpirun -np 8 fabcheck gate"). `required` holds the plan's required probe ids.
std::string launch_problem(const std::vector<Probe*>& probes,
                           const std::vector<std::string>& required, const LaunchShape& launch);

}  // namespace fabcheck
