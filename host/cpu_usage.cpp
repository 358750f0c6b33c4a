// /proc readers for CPU time and what changed between two readings.
#include "host/cpu_usage.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "bench/sys/text_scan.hpp"

namespace fabcheck {

bool parse_process_stat(const std::string& line, ProcessCpu& out) {
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses; it ends at the last ')'.
  const std::size_t open = line.find('(');
  const std::size_t close = line.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return false;
  out.command = line.substr(open + 1, close - open - 1);
  const auto fields = text::split_whitespace(std::string_view(line).substr(close + 1));
  // After comm: state(0) ppid(1) ... utime(11) stime(12) ... starttime(19).
  if (fields.size() < 20) return false;
  const auto ppid = text::parse_unsigned(fields[1]);
  const auto utime = text::parse_unsigned(fields[11]);
  const auto stime = text::parse_unsigned(fields[12]);
  const auto started = text::parse_unsigned(fields[19]);
  if (!ppid || !utime || !stime || !started) return false;
  out.parent = static_cast<int>(*ppid);
  out.ticks = *utime + *stime;
  out.started = *started;
  return true;
}

std::map<int, ProcessCpu> read_process_cpu(const std::filesystem::path& proc_root) {
  std::map<int, ProcessCpu> processes;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(proc_root, error)) {
    const std::string name = entry.path().filename().string();
    const auto pid = text::parse_small_int(name);
    if (!pid) continue;
    std::ifstream in(entry.path() / "stat");
    std::string line;
    if (!in || !std::getline(in, line)) continue;  // gone meanwhile
    ProcessCpu process;
    if (parse_process_stat(line, process)) processes[*pid] = std::move(process);
  }
  return processes;
}

MachineCpu read_machine_cpu(const std::filesystem::path& proc_root) {
  MachineCpu cpu;
  std::ifstream in(proc_root / "stat");
  std::string line;
  if (!in || !std::getline(in, line) || line.rfind("cpu ", 0) != 0) return cpu;
  const auto fields = text::split_whitespace(std::string_view(line).substr(4));
  // user nice system idle iowait irq softirq steal guest guest_nice; guests are inside user.
  for (std::size_t i = 0; i < fields.size() && i < 8; ++i) {
    const auto value = text::parse_unsigned(fields[i]).value_or(0);
    cpu.total += value;
    if (i == 3 || i == 4) cpu.idle += value;
    if (i == 7) cpu.steal = value;
  }
  return cpu;
}

std::vector<CpuConsumer> cpu_consumers(const std::map<int, ProcessCpu>& before,
                                       const std::map<int, ProcessCpu>& after, double window_s,
                                       double ticks_per_s, const std::set<int>& excluded) {
  std::vector<CpuConsumer> consumers;
  if (window_s <= 0 || ticks_per_s <= 0) return consumers;
  for (const auto& [pid, now] : after) {
    if (excluded.count(pid) > 0) continue;
    const auto was = before.find(pid);
    const bool same =
        was != before.end() && was->second.started == now.started && was->second.ticks <= now.ticks;
    const std::uint64_t used = same ? now.ticks - was->second.ticks : now.ticks;
    if (used == 0) continue;
    consumers.push_back({pid, now.command, static_cast<double>(used) / ticks_per_s / window_s});
  }
  std::sort(consumers.begin(), consumers.end(), [](const CpuConsumer& a, const CpuConsumer& b) {
    return a.cores != b.cores ? a.cores > b.cores : a.pid < b.pid;
  });
  return consumers;
}

std::set<int> with_ancestors(const std::set<int>& pids,
                             const std::map<int, ProcessCpu>& processes) {
  std::set<int> out = pids;
  for (int pid : pids) {
    int current = pid;
    for (int depth = 0; depth < 64; ++depth) {
      const auto found = processes.find(current);
      if (found == processes.end()) break;
      const int parent = found->second.parent;
      if (parent <= 2) break;
      out.insert(parent);
      current = parent;
    }
  }
  return out;
}

double steal_fraction(const MachineCpu& before, const MachineCpu& after) {
  if (after.total <= before.total || after.steal < before.steal) return 0;
  return static_cast<double>(after.steal - before.steal) /
         static_cast<double>(after.total - before.total);
}

}  // namespace fabcheck
