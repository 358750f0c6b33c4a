// Pins the calling thread to the CPUs nearest a PCI device (its local_cpulist in sysfs) for a
// scope, so pinned host buffers allocated inside land on the GPU's NUMA node (first touch).
#pragma once

#include <sched.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bench/sys/cpu_list.hpp"

namespace fabcheck {

class ScopedCpuAffinity {
 public:
  // Reads <sysfs_root>/sys/bus/pci/devices/<bus_id>/local_cpulist. When it cannot (no such file,
  // a VM without NUMA information), leaves the affinity alone and says why in note().
  ScopedCpuAffinity(const std::string& bus_id, const std::filesystem::path& sysfs_root);
  ~ScopedCpuAffinity();
  ScopedCpuAffinity(const ScopedCpuAffinity&) = delete;
  ScopedCpuAffinity& operator=(const ScopedCpuAffinity&) = delete;

  bool pinned() const { return pinned_; }
  // "cpus 0-27,56-83" or why not pinned.
  const std::string& note() const { return note_; }

 private:
  cpu_set_t previous_{};
  bool pinned_ = false;
  std::string note_;
};

}  // namespace fabcheck
