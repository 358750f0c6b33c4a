// Thread affinity to a PCI device's local CPUs, from sysfs local_cpulist.
#include "bench/sys/cpu_affinity.hpp"

#include <fstream>
#include <sstream>

namespace fabcheck {

ScopedCpuAffinity::ScopedCpuAffinity(const std::string& bus_id,
                                     const std::filesystem::path& sysfs_root) {
  const auto path = sysfs_root / "sys/bus/pci/devices" / bus_id / "local_cpulist";
  std::ifstream in(path);
  std::string text;
  if (!in || !std::getline(in, text)) {
    note_ = "not pinned: cannot read " + path.string();
    return;
  }
  const auto cpus = parse_cpu_list(text);
  if (!cpus || cpus->empty()) {
    note_ = "not pinned: " + path.string() + " holds \"" + text + "\"";
    return;
  }
  if (sched_getaffinity(0, sizeof previous_, &previous_) != 0) {
    note_ = "not pinned: sched_getaffinity failed";
    return;
  }
  cpu_set_t wanted;
  CPU_ZERO(&wanted);
  for (int cpu : *cpus) CPU_SET(cpu, &wanted);
  if (sched_setaffinity(0, sizeof wanted, &wanted) != 0) {
    note_ = "not pinned: sched_setaffinity to " + text + " failed";
    return;
  }
  pinned_ = true;
  note_ = "cpus " + text;
}

ScopedCpuAffinity::~ScopedCpuAffinity() {
  if (pinned_) (void)sched_setaffinity(0, sizeof previous_, &previous_);
}

}  // namespace fabcheck
