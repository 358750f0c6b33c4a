// `--profile auto`: the profile for this node from the GPU model and count NVML reports, and why.
#pragma once

#include <string>
#include <vector>

namespace fabcheck {

struct ProfileChoice {
  std::string name;    // "h200-sxm-8", or "generic-cpu"
  std::string reason;  // "8 x NVIDIA H200 detected by NVML -> h200-sxm-8"
};

// From the models of the node's GPUs (NVML names, in index order). `nvml_problem` is why NVML
// could not be asked ("" when it answered): then there is no GPU to go by.
//   8 x "NVIDIA H100 80GB HBM3"  -> h100-sxm-8     8 x "NVIDIA H200" -> h200-sxm-8
//   8 x "NVIDIA A100-SXM4-80GB"  -> a100-sxm-8     anything else     -> generic-cpu, saying why
ProfileChoice choose_profile_for_gpus(const std::vector<std::string>& models,
                                      const std::string& nvml_problem);

// The same for this node, through the process's NVML ("no GPU (NVML: libnvidia-ml.so.1 not found
// (driver not present)) -> generic-cpu" on a node without a driver).
ProfileChoice choose_profile_for_node();

}  // namespace fabcheck
