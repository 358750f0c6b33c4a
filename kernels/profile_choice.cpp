// Choosing a profile from the node's GPU model and count (NVML).
#include "kernels/profile_choice.hpp"

#include <algorithm>

#include "bench/sys/nvml_library.hpp"
#include "bench/sys/nvml_reader.hpp"

namespace fabcheck {
namespace {

constexpr const char* kFallback = "generic-cpu";
constexpr std::size_t kGpusPerProfile = 8;

bool contains(const std::string& text, const char* part) {
  return text.find(part) != std::string::npos;
}

// The family of a GPU model name, or "" for one without a profile. H100 PCIe and NVL boards have
// other links and figures than SXM, so only the SXM names match.
std::string profile_family(const std::string& model) {
  if (contains(model, "H200") && !contains(model, "NVL")) return "h200-sxm";
  if (contains(model, "H100") && (contains(model, "SXM") || contains(model, "HBM3")) &&
      !contains(model, "NVL") && !contains(model, "PCIe")) {
    return "h100-sxm";
  }
  if (contains(model, "A100") && contains(model, "SXM")) return "a100-sxm";
  return "";
}

}  // namespace

ProfileChoice choose_profile_for_gpus(const std::vector<std::string>& models,
                                      const std::string& nvml_problem) {
  if (!nvml_problem.empty()) {
    return {kFallback, "no GPU (" + nvml_problem + ") -> " + kFallback};
  }
  if (models.empty()) return {kFallback, std::string("no GPU (NVML sees none) -> ") + kFallback};
  const std::string& first = models.front();
  const bool same = std::all_of(models.begin(), models.end(),
                                [&](const std::string& model) { return model == first; });
  const std::string seen = std::to_string(models.size()) + " x " + first;
  if (!same) {
    return {kFallback, std::to_string(models.size()) + " GPUs of mixed models (" + first +
                           ", ...) detected by NVML: no profile fits -> " + kFallback};
  }
  const std::string family = profile_family(first);
  if (family.empty()) {
    return {kFallback, seen + " detected by NVML: no profile for this model -> " + kFallback};
  }
  const std::string name = family + "-" + std::to_string(kGpusPerProfile);
  if (models.size() != kGpusPerProfile) {
    return {kFallback, seen + " detected by NVML: " + name + " needs " +
                           std::to_string(kGpusPerProfile) + " GPUs -> " + kFallback};
  }
  return {name, seen + " detected by NVML -> " + name};
}

ProfileChoice choose_profile_for_node() {
  const NvmlSession& nvml = process_nvml();
  if (!nvml.ok()) return choose_profile_for_gpus({}, nvml.reason);
  std::vector<std::string> models;
  for (const NvmlDeviceIdentity& device : read_nvml_identities(*nvml.api, nvml.device_count)) {
    models.push_back(device.model);
  }
  return choose_profile_for_gpus(models, "");
}

}  // namespace fabcheck
