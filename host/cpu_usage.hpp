// CPU time on a host from /proc: per process (utime + stime of /proc/<pid>/stat, threads included)
// and for the whole machine (/proc/stat: busy, idle, steal), so that two readings a window apart
// say which other processes took how much CPU and how much the hypervisor stole.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace fabcheck {

struct ProcessCpu {
  std::string command;        // comm, "python3"
  int parent = 0;             // ppid
  std::uint64_t ticks = 0;    // utime + stime, in clock ticks
  std::uint64_t started = 0;  // starttime, in clock ticks since boot (tells a reused pid apart)
};

// pid -> its CPU time, every readable /proc/<pid>/stat under `proc_root`.
std::map<int, ProcessCpu> read_process_cpu(const std::filesystem::path& proc_root);

// One /proc/<pid>/stat line; false when malformed.
bool parse_process_stat(const std::string& line, ProcessCpu& out);

struct MachineCpu {
  std::uint64_t total = 0;  // every field of the "cpu" line
  std::uint64_t idle = 0;   // idle + iowait
  std::uint64_t steal = 0;
};

// The aggregate "cpu" line of <proc_root>/stat; all zero when unreadable.
MachineCpu read_machine_cpu(const std::filesystem::path& proc_root);

struct CpuConsumer {
  int pid = 0;
  std::string command;
  double cores = 0;  // CPU-seconds per second of the window: 1.0 is one core kept busy
};

// Processes outside `excluded` that used CPU between the readings, most first. A process that
// started during the window counts from zero; one whose pid was reused counts as new.
std::vector<CpuConsumer> cpu_consumers(const std::map<int, ProcessCpu>& before,
                                       const std::map<int, ProcessCpu>& after, double window_s,
                                       double ticks_per_s, const std::set<int>& excluded);

// `pids` and every ancestor of each (their launcher: mpirun, prted, orted, srun's stepd), pid 1
// and the kernel's threads' parent (pid 2) left out, as found in `processes`.
std::set<int> with_ancestors(const std::set<int>& pids, const std::map<int, ProcessCpu>& processes);

// Share of the machine's CPU time the hypervisor stole between the readings (0..1).
double steal_fraction(const MachineCpu& before, const MachineCpu& after);

}  // namespace fabcheck
