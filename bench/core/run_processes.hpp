// The processes of this run, so a GPU's memory held by fabcheck's own ranks is never "foreign":
// every rank's pid as each pid namespace sees it (containers: NVML may report the host's pid).
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "bench/core/world.hpp"

namespace fabcheck {

// This process's pids: getpid() and every entry of the NSpid line of <proc_root>/self/status (the
// pid in each pid namespace from the /proc mount's down to the process's own, so a rank in a
// nested namespace also knows the pid its parent namespace, and NVML there, reports).
std::vector<unsigned> own_pid_aliases(const std::filesystem::path& proc_root = "/proc");

// The pids of every rank on this rank's host, each rank giving `mine` (every rank must call it: a
// World collective).
std::set<unsigned> run_pids_on_this_host(World& world,
                                         const std::vector<unsigned>& mine = own_pid_aliases());

// Whether `pid` names a process in this process's pid namespace (a pid NVML reports from another
// namespace, e.g. the host's when fabcheck runs in a container, usually does not).
bool pid_visible_here(unsigned pid, const std::filesystem::path& proc_root = "/proc");

}  // namespace fabcheck
