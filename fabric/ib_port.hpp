// InfiniBand / RoCE port state, rate and counters, read from /sys/class/infiniband under a root.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/sys/sysfs_file.hpp"

namespace fabcheck {

// "400 Gb/sec (4X NDR)" -> 400; "2.5 Gb/sec (1X SDR)" -> 2.5; anything else -> nullopt.
std::optional<double> parse_ib_rate_gbps(std::string_view text);

// "4: ACTIVE" -> {4, "ACTIVE"}; "5: LinkUp" -> {5, "LinkUp"}; nullopt when malformed.
struct SysfsCodedState {
  int code = 0;
  std::string name;
};
std::optional<SysfsCodedState> parse_coded_state(std::string_view text);

using CounterSnapshot = std::map<std::string, std::uint64_t>;  // "counters/symbol_error" -> value

struct IbPortState {
  std::string device;  // "mlx5_0"
  int port = 0;
  std::string pci_bdf;  // of the HCA, from the device link
  std::string model;    // PCI "vendor:device" of the HCA ("15b3:1021"), "" when unreadable
  std::optional<SysfsCodedState> state;       // 4: ACTIVE
  std::optional<SysfsCodedState> phys_state;  // 5: LinkUp
  std::optional<double> rate_gbps;
  std::string rate_text;     // "400 Gb/sec (4X NDR)"
  std::string link_layer;    // "InfiniBand", "Ethernet"
  CounterSnapshot counters;  // both counters/ and hw_counters/, keyed "<dir>/<name>"

  std::string subject() const { return device + "/" + std::to_string(port); }  // "mlx5_0/1"
  bool active() const { return state && state->code == 4 && phys_state && phys_state->code == 5; }
};

// Every port of every device under <sysfs_root>/sys/class/infiniband, sorted by device and port.
// No such directory (no RDMA device, or no driver) gives an empty list. What cannot be read or
// understood (a folder that cannot be listed; a port's state, physical state or rate missing,
// unreadable or not what it should be; a counter that is not a number) is added to `problems`.
std::vector<IbPortState> read_ib_ports(const std::filesystem::path& sysfs_root,
                                       std::vector<SysfsProblem>* problems = nullptr);

// Only the counters of each port (for before/after snapshots), keyed by port subject.
std::map<std::string, CounterSnapshot> read_ib_counters(
    const std::filesystem::path& sysfs_root, std::vector<SysfsProblem>* problems = nullptr);

}  // namespace fabcheck
