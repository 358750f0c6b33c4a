// The launch against what the plan needs: ranks per GPU, and the line to run instead.
#include "bench/cli/launch_check.hpp"

#include <algorithm>

#include "bench/sys/text_scan.hpp"

namespace fabcheck {
namespace {

// The command line without --single-process (the line to run starts MPI).
std::string relaunched(const std::string& command_line) {
  std::string line = command_line;
  const std::string flag = " --single-process";
  for (std::size_t at = line.find(flag); at != std::string::npos; at = line.find(flag, at)) {
    const std::size_t end = at + flag.size();
    if (end == line.size() || line[end] == ' ') {
      line.erase(at, flag.size());
    } else {
      at = end;
    }
  }
  return line;
}

}  // namespace

std::string launch_problem(const std::vector<Probe*>& probes,
                           const std::vector<std::string>& required, const LaunchShape& launch) {
  std::vector<std::string> together;  // probes that need every rank together
  std::vector<std::string> required_together;
  for (const Probe* probe : probes) {
    if (probe->info().scope != ProbeScope::world) continue;
    together.push_back(probe->id());
    if (std::find(required.begin(), required.end(), probe->id()) != required.end())
      required_together.push_back(probe->id());
  }
  if (together.empty()) return "";
  const int gpus = launch.gpus_on_bus;
  const int per_host = std::max(gpus, 2);
  std::string why;
  if (!required_together.empty() && gpus >= 2 && launch.ranks_per_host != gpus) {
    why = "this plan requires " + text::join(required_together, ", ") +
          " on every GPU: this node has " + std::to_string(gpus) +
          " NVIDIA GPUs on its PCI bus and " + std::to_string(launch.ranks_per_host) +
          " rank(s) of this run on it";
  } else if (!required_together.empty() && launch.ranks < 2) {
    why = "this plan requires " + text::join(required_together, ", ") +
          ", which measures nothing with one rank, and no launcher started more";
  } else if (launch.ranks == 1 && gpus >= 2) {
    why = text::join(together, ", ") + " with one rank on a node with " + std::to_string(gpus) +
          " NVIDIA GPUs on its PCI bus would measure none of their links";
  }
  if (why.empty()) return "";
  const std::string line = relaunched(launch.command_line);
  return why + "; run it with a rank per GPU:\n  mpirun -np " + std::to_string(per_host) + " " +
         line + "\n  srun --ntasks-per-node=" + std::to_string(per_host) + " " + line +
         "\n(across N nodes: mpirun -np " + std::to_string(per_host) + "*N --map-by ppr:" +
         std::to_string(per_host) + ":node, or srun -N N)";
}

}  // namespace fabcheck
