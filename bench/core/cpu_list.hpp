// Linux CPU lists as sysfs writes them ("0-3,8,10-11", e.g. a PCI device's local_cpulist).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace fabcheck {

// The CPUs listed, in order; nullopt for an empty or malformed list (reversed range, garbage, a CPU
// number at or above CPU_SETSIZE). Trailing newline and spaces are allowed.
std::optional<std::vector<int>> parse_cpu_list(const std::string& text);

}  // namespace fabcheck
