// Linux CPU lists as sysfs writes them ("0-3,8,10-11", e.g. a PCI device's local_cpulist).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabcheck {

// The CPUs listed, in order; nullopt for an empty or malformed list (reversed range, garbage, a CPU
// number at or above CPU_SETSIZE). Trailing newline and spaces are allowed.
std::optional<std::vector<int>> parse_cpu_list(const std::string& text);

// The CPUs (ascending) written back as a list: {0,1,2,3,8,10,11} -> "0-3,8,10-11"; "" for none.
// Any ascending numbers the same way (ranks: "0-3, 8" with `separator` ", ").
std::string format_cpu_list(const std::vector<int>& cpus, std::string_view separator = ",");

}  // namespace fabcheck
