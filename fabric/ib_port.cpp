// InfiniBand / RoCE port state, rate and counters, read from /sys/class/infiniband under a root.
#include "fabric/ib_port.hpp"

#include <algorithm>

#include "bench/sys/sysfs_file.hpp"
#include "bench/sys/text_scan.hpp"

namespace fabcheck {

namespace fs = std::filesystem;

namespace {

// "0x15b3" -> "15b3", as lspci writes PCI ids.
std::string strip_hex_prefix(const std::string& id) {
  return id.rfind("0x", 0) == 0 ? id.substr(2) : id;
}

void read_counter_dir(const fs::path& dir, const std::string& prefix, CounterSnapshot& into,
                      std::vector<SysfsProblem>* problems) {
  for (const auto& file : list_sysfs_dir(dir, problems)) {
    auto content = read_sysfs_text(file, problems);
    if (!content) continue;
    if (auto value = text::parse_unsigned(*content)) {
      into[prefix + "/" + file.filename().string()] = *value;
    } else if (problems && !content->empty() && *content != "N/A") {
      problems->push_back({file.string(), "holds \"" + *content + "\", not a counter"});
    }
  }
}

CounterSnapshot read_port_counters(const fs::path& port_dir, std::vector<SysfsProblem>* problems) {
  CounterSnapshot counters;
  read_counter_dir(port_dir / "counters", "counters", counters, problems);
  read_counter_dir(port_dir / "hw_counters", "hw_counters", counters, problems);
  return counters;
}

// A port attribute every port has: missing, unreadable or not understood is a problem.
template <typename Parse>
auto read_port_attribute(const fs::path& file, Parse&& parse, const char* expected,
                         std::vector<SysfsProblem>* problems) -> decltype(parse(std::string())) {
  const auto text = read_sysfs_text(file, problems);
  const std::size_t before = problems ? problems->size() : 0;
  if (!text) {
    std::error_code error;
    if (problems && problems->size() == before && !fs::exists(file, error))
      problems->push_back({file.string(), std::string("missing: every port has ") + expected});
    return {};
  }
  auto value = parse(*text);
  if (!value && problems)
    problems->push_back({file.string(), "holds \"" + *text + "\", not " + expected});
  return value;
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

std::vector<IbPortState> read_ib_ports(const fs::path& sysfs_root,
                                       std::vector<SysfsProblem>* problems) {
  std::vector<IbPortState> ports;
  for (const auto& device_dir : list_sysfs_dir(sysfs_root / "sys/class/infiniband", problems)) {
    std::string device = device_dir.filename().string();
    std::string bdf;
    std::error_code error;
    fs::path pci = fs::canonical(device_dir / "device", error);
    if (!error) bdf = pci.filename().string();
    std::string model;
    const auto vendor = read_sysfs_text(device_dir / "device" / "vendor");
    const auto id = read_sysfs_text(device_dir / "device" / "device");
    if (vendor && id) model = strip_hex_prefix(*vendor) + ":" + strip_hex_prefix(*id);
    for (const auto& port_dir : list_sysfs_dir(device_dir / "ports", problems)) {
      auto number = text::parse_small_int(port_dir.filename().string());
      if (!number) continue;
      IbPortState port;
      port.device = device;
      port.port = *number;
      port.pci_bdf = bdf;
      port.model = model;
      port.state = read_port_attribute(port_dir / "state", parse_coded_state,
                                       "a state (\"4: ACTIVE\")", problems);
      port.phys_state = read_port_attribute(port_dir / "phys_state", parse_coded_state,
                                            "a physical state (\"5: LinkUp\")", problems);
      port.rate_text = read_sysfs_text(port_dir / "rate").value_or("");
      port.rate_gbps = read_port_attribute(port_dir / "rate", parse_ib_rate_gbps,
                                           "a rate (\"400 Gb/sec (4X NDR)\")", problems);
      port.link_layer = read_sysfs_text(port_dir / "link_layer", problems).value_or("");
      port.counters = read_port_counters(port_dir, problems);
      ports.push_back(std::move(port));
    }
  }
  return ports;
}

std::map<std::string, CounterSnapshot> read_ib_counters(const fs::path& sysfs_root,
                                                        std::vector<SysfsProblem>* problems) {
  std::map<std::string, CounterSnapshot> snapshots;
  for (auto& port : read_ib_ports(sysfs_root, problems))
    snapshots[port.subject()] = std::move(port.counters);
  return snapshots;
}

}  // namespace fabcheck
