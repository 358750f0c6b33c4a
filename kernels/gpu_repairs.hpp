// What a FAIL of a gpu.* figure is and its first repair (ProbeInfo::repairs of every gpu.* probe):
// NVIDIA's guidance for row remapping and Xids, a link trained low reseated, wrong bits an RMA.
#pragma once

#include <vector>

#include "results/repair.hpp"

namespace fabcheck {

inline std::vector<RepairRule> gpu_repair_rules() {
  namespace act = repair_action;
  return {{"wrong_elements", "gpu-wrong-results", act::rma},
          {"row_remap_failure", "gpu-row-remap-failed", act::rma},
          {"*_pending", "gpu-memory-remap-pending", act::reboot},
          {"ecc_uncorrected_volatile", "gpu-ecc-uncorrected", act::reboot},
          {"nvlink_*", "nvlink-down", act::reboot},
          {"error_counter_delta", "gpu-link-errors", act::reseat},
          {"pcie_*", "pcie-link-degraded", act::reseat},
          {"foreign_memory_gb", "gpu-in-use", act::inspect},
          {"memory_used_gb", "gpu-in-use", act::inspect},
          {"temperature*", "gpu-thermal", act::inspect},
          {"thermal_throttle_fraction", "gpu-thermal", act::inspect},
          {"hw_slowdown_fraction", "gpu-hw-slowdown", act::inspect},
          {"*clock*", "gpu-throttled", act::inspect},
          {"*_fraction", "gpu-throttled", act::inspect},
          {"power_*", "gpu-throttled", act::inspect},
          {"", "gpu-slow", act::inspect, FailKind::noisy_figure}};
}

}  // namespace fabcheck
