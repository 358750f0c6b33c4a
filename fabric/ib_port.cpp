// InfiniBand / RoCE port state, rate and counters, read from /sys/class/infiniband under a root.
#include "fabric/ib_port.hpp"

#include <algorithm>

#include "fabric/sysfs_file.hpp"
#include "fabric/text_scan.hpp"

namespace fabcheck {

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> sorted_entries(const fs::path& dir) {
  std::vector<fs::path> entries;
  std::error_code error;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    entries.push_back(it->path());
  }
  std::sort(entries.begin(), entries.end());
  return entries;
}

void read_counter_dir(const fs::path& dir, const std::string& prefix, CounterSnapshot& into) {
  for (const auto& file : sorted_entries(dir)) {
    auto content = read_sysfs_text(file);
    if (!content) continue;
    if (auto value = text::parse_unsigned(*content)) {
      into[prefix + "/" + file.filename().string()] = *value;
    }
  }
}

CounterSnapshot read_port_counters(const fs::path& port_dir) {
  CounterSnapshot counters;
  read_counter_dir(port_dir / "counters", "counters", counters);
  read_counter_dir(port_dir / "hw_counters", "hw_counters", counters);
  return counters;
}

}  // namespace

std::optional<double> parse_ib_rate_gbps(std::string_view text) {
  auto tokens = text::split_whitespace(text);
  if (tokens.size() < 2 || tokens[1] != "Gb/sec") return std::nullopt;
  auto rate = text::parse_number(tokens[0]);
  if (!rate || *rate <= 0) return std::nullopt;
  return rate;
}

std::optional<SysfsCodedState> parse_coded_state(std::string_view text) {
  std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  auto code = text::parse_small_int(text::trim(text.substr(0, colon)));
  std::string_view name = text::trim(text.substr(colon + 1));
  if (!code || name.empty()) return std::nullopt;
  return SysfsCodedState{*code, std::string(name)};
}

std::vector<IbPortState> read_ib_ports(const fs::path& sysfs_root) {
  std::vector<IbPortState> ports;
  for (const auto& device_dir : sorted_entries(sysfs_root / "sys/class/infiniband")) {
    std::string device = device_dir.filename().string();
    std::string bdf;
    std::error_code error;
    fs::path pci = fs::canonical(device_dir / "device", error);
    if (!error) bdf = pci.filename().string();
    for (const auto& port_dir : sorted_entries(device_dir / "ports")) {
      auto number = text::parse_small_int(port_dir.filename().string());
      if (!number) continue;
      IbPortState port;
      port.device = device;
      port.port = *number;
      port.pci_bdf = bdf;
      if (auto state = read_sysfs_text(port_dir / "state")) port.state = parse_coded_state(*state);
      if (auto phys = read_sysfs_text(port_dir / "phys_state")) {
        port.phys_state = parse_coded_state(*phys);
      }
      port.rate_text = read_sysfs_text(port_dir / "rate").value_or("");
      port.rate_gbps = parse_ib_rate_gbps(port.rate_text);
      port.link_layer = read_sysfs_text(port_dir / "link_layer").value_or("");
      port.counters = read_port_counters(port_dir);
      ports.push_back(std::move(port));
    }
  }
  return ports;
}

std::map<std::string, CounterSnapshot> read_ib_counters(const fs::path& sysfs_root) {
  std::map<std::string, CounterSnapshot> snapshots;
  for (auto& port : read_ib_ports(sysfs_root)) snapshots[port.subject()] = std::move(port.counters);
  return snapshots;
}

}  // namespace fabcheck
