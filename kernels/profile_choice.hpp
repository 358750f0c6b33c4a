// `--profile auto`: the profile for this node from the NVIDIA GPUs on its PCI bus (device ids and
// count), NVML only confirming, and why.
#pragma once

#include <string>
#include <vector>

#include "bench/sys/pci_devices.hpp"

namespace fabcheck {

struct ProfileChoice {
  // "h200-sxm-8", "generic-cpu"; "" when no profile fits the GPUs on the bus (the caller refuses
  // the run: judging a GPU node as a CPU node would waive every GPU check).
  std::string name;
  std::string reason;  // "8 x 10de:2335 (H200 SXM) on the PCI bus -> h200-sxm-8; NVML: ..."
};

// The board a device id is, with the profile family of its 8-GPU node ("h100-sxm"), "" for
// boards without one. Ids from the PCI ID Repository (pci-ids.ucw.cz, vendor 10de).
struct GpuBoard {
  const char* name;    // "H100 SXM5 80GB"
  const char* family;  // "h100-sxm", or ""
};
GpuBoard gpu_board_of(const std::string& device_id);

// From the NVIDIA GPUs on the bus and what NVML says of this node (`nvml_models`, in index order;
// `nvml_problem` is why NVML could not be asked, "" when it answered):
//   no NVIDIA GPU on the bus                -> generic-cpu
//   N x one board of a family (any N)       -> <family>-8 (its [node] gpus = 8 judges a missing
//                                              GPU; NVML's view is told, never decides)
//   other boards, or a mixture              -> "" (no profile fits: give --profile)
ProfileChoice choose_profile_for_bus(const std::vector<PciDevice>& gpus_on_bus,
                                     const std::vector<std::string>& nvml_models,
                                     const std::string& nvml_problem);

// The same for this node: the bus under <sysfs_root>/sys/bus/pci, the process's NVML.
ProfileChoice choose_profile_for_node(const std::string& sysfs_root = "/");

}  // namespace fabcheck
