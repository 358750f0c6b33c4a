// Pids of this run's ranks per host, gathered once, for telling own GPU memory from foreign.
#include "bench/core/run_processes.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace fabcheck {

std::vector<unsigned> own_pid_aliases(const std::filesystem::path& proc_root) {
  std::vector<unsigned> pids{static_cast<unsigned>(::getpid())};
  std::ifstream status(proc_root / "self" / "status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("NSpid:", 0) != 0) continue;
    std::istringstream fields(line.substr(6));
    unsigned pid = 0;
    while (fields >> pid) {
      if (std::find(pids.begin(), pids.end(), pid) == pids.end()) pids.push_back(pid);
    }
    break;
  }
  return pids;
}

std::set<unsigned> run_pids_on_this_host(World& world, const std::vector<unsigned>& mine_pids) {
  // Every rank's pids, on every rank; the ones of ranks on this host kept.
  const auto every_rank = world.all_gather_values(mine_pids);
  std::set<unsigned> pids;
  for (std::size_t rank = 0; rank < every_rank.size(); ++rank) {
    if (world.hosts()[rank] == world.host())
      pids.insert(every_rank[rank].begin(), every_rank[rank].end());
  }
  pids.insert(mine_pids.begin(), mine_pids.end());
  return pids;
}

bool pid_visible_here(unsigned pid, const std::filesystem::path& proc_root) {
  std::error_code error;
  return std::filesystem::exists(proc_root / std::to_string(pid), error);
}

}  // namespace fabcheck
