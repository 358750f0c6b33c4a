// IB counter snapshots kept in the run directory between fabric.ib_ports and fabric.ib_counters.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "fabric/ib_port.hpp"

namespace fabcheck {

struct StoredCounters {
  double taken_at_s = 0;  // now_seconds() when read
  std::map<std::string, CounterSnapshot> ports;
};

// <run_dir>/fabric/ib-counters.<host>.json
std::filesystem::path counter_snapshot_path(const std::filesystem::path& run_dir,
                                            const std::string& host);

void save_counter_snapshot(const std::filesystem::path& file, const StoredCounters& counters);
// nullopt when absent or unreadable.
std::optional<StoredCounters> load_counter_snapshot(const std::filesystem::path& file);

}  // namespace fabcheck
