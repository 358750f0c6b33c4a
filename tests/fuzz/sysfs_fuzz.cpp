// libFuzzer target: arbitrary bytes through every sysfs attribute parser and a device directory
// whose attribute files hold them, plus the perftest output parsers.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "fabric/ib_port.hpp"
#include "fabric/pcie_affinity.hpp"
#include "fabric/pcie_link.hpp"
#include "fabric/perftest_output.hpp"

namespace {

// One scratch device directory per process, rewritten for every input.
const std::filesystem::path& scratch_device() {
  static const std::filesystem::path dir = [] {
    auto path = std::filesystem::temp_directory_path() /
                ("fabcheck-sysfs-fuzz-" + std::to_string(getpid())) / "0000:17:00.0";
    std::filesystem::create_directories(path);
    return path;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  fabcheck::parse_link_speed_gts(text);
  fabcheck::parse_aer_total(text);
  fabcheck::parse_ib_rate_gbps(text);
  fabcheck::parse_coded_state(text);
  fabcheck::parse_cpu_list(text);
  fabcheck::classify_pci_device(text, text);
  fabcheck::parse_perftest_bw_text(text);
  fabcheck::parse_perftest_lat_text(text);
  fabcheck::parse_perftest_bw_json(text);
  fabcheck::parse_perftest_lat_json(text);
  const auto& dir = scratch_device();
  for (const char* name : {"class", "vendor", "current_link_speed", "max_link_speed",
                           "current_link_width", "max_link_width", "aer_dev_fatal"}) {
    std::ofstream(dir / name, std::ios::binary | std::ios::trunc) << text;
  }
  auto state = fabcheck::read_pcie_device(dir, "0000:17:00.0");
  state.describe();
  return 0;
}
