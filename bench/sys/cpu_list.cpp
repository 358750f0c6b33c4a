// Linux CPU lists as sysfs writes them.
#include "bench/sys/cpu_list.hpp"

#include <sched.h>

#include <sstream>

namespace fabcheck {

std::optional<std::vector<int>> parse_cpu_list(const std::string& text) {
  std::vector<int> cpus;
  std::string trimmed = text;
  while (!trimmed.empty() && (trimmed.back() == '\n' || trimmed.back() == ' ')) trimmed.pop_back();
  if (trimmed.empty()) return std::nullopt;
  std::stringstream in(trimmed);
  std::string range;
  while (std::getline(in, range, ',')) {
    const auto dash = range.find('-');
    try {
      std::size_t used = 0;
      const int first = std::stoi(range.substr(0, dash), &used);
      if (used != (dash == std::string::npos ? range.size() : dash)) return std::nullopt;
      int last = first;
      if (dash != std::string::npos) {
        const std::string tail = range.substr(dash + 1);
        last = std::stoi(tail, &used);
        if (used != tail.size()) return std::nullopt;
      }
      if (first < 0 || last < first || last >= CPU_SETSIZE) return std::nullopt;
      for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return cpus;
}

std::string format_cpu_list(const std::vector<int>& cpus, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    out += (out.empty() ? std::string() : std::string(separator)) + std::to_string(cpus[i]) +
           (j > i ? "-" + std::to_string(cpus[j]) : "");
    i = j + 1;
  }
  return out;
}

}  // namespace fabcheck
