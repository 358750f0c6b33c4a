// Choosing a profile from the NVIDIA GPUs on the PCI bus, NVML confirming.
#include "kernels/profile_choice.hpp"

#include <algorithm>

#include "bench/sys/nvml_library.hpp"
#include "bench/sys/nvml_reader.hpp"

namespace fabcheck {
namespace {

constexpr const char* kFallback = "generic-cpu";
constexpr std::size_t kGpusPerProfile = 8;

// What NVML says, for the reason: it confirms, or says why it cannot.
std::string nvml_view(std::size_t on_bus, const std::vector<std::string>& models,
                      const std::string& problem) {
  if (!problem.empty()) return "NVML cannot confirm (" + problem + ")";
  if (models.empty()) return "NVML sees none of them";
  const std::string seen = std::to_string(models.size()) + " x " + models.front();
  if (models.size() < on_bus) {
    return "NVML sees only " + std::to_string(models.size()) + " of them (" + seen + ")";
  }
  return "NVML confirms " + seen;
}

}  // namespace

GpuBoard gpu_board_of(const std::string& device_id) {
  std::string id = device_id;
  if (id.rfind("0x", 0) == 0) id.erase(0, 2);
  // pci.ids: 2330 "GH100 [H100 SXM5 80GB]", 2335 "GH100 [H200 SXM 141GB]", 20b0/20b2 "GA100
  // [A100 SXM4 40GB/80GB]"; the PCIe and NVL boards have other links and figures than SXM.
  if (id == "2330") return {"H100 SXM5 80GB", "h100-sxm"};
  if (id == "2335") return {"H200 SXM 141GB", "h200-sxm"};
  if (id == "20b0") return {"A100 SXM4 40GB", "a100-sxm"};
  if (id == "20b2") return {"A100 SXM4 80GB", "a100-sxm"};
  if (id == "2331") return {"H100 PCIe", ""};
  if (id == "2321") return {"H100 NVL", ""};
  if (id == "20b1" || id == "20f1") return {"A100 PCIe 40GB", ""};
  if (id == "20b5") return {"A100 PCIe 80GB", ""};
  return {"", ""};
}

ProfileChoice choose_profile_for_bus(const std::vector<PciDevice>& gpus_on_bus,
                                     const std::vector<std::string>& nvml_models,
                                     const std::string& nvml_problem) {
  if (gpus_on_bus.empty()) {
    std::string reason = std::string("no NVIDIA GPU on the PCI bus -> ") + kFallback;
    if (nvml_problem.empty() && !nvml_models.empty())
      reason += " (yet NVML lists " + std::to_string(nvml_models.size()) + ")";
    return {kFallback, reason};
  }
  const std::string& first = gpus_on_bus.front().device;
  const bool same = std::all_of(gpus_on_bus.begin(), gpus_on_bus.end(),
                                [&](const PciDevice& gpu) { return gpu.device == first; });
  const GpuBoard board = gpu_board_of(first);
  const std::string seen = std::to_string(gpus_on_bus.size()) + " x " +
                           gpus_on_bus.front().vendor_device() +
                           (board.name[0] != '\0' ? std::string(" (") + board.name + ")" : "") +
                           " on the PCI bus";
  const std::string nvml = nvml_view(gpus_on_bus.size(), nvml_models, nvml_problem);
  if (!same) {
    return {"", std::to_string(gpus_on_bus.size()) +
                    " NVIDIA GPUs of mixed models on the PCI bus: no shipped profile fits (" +
                    nvml + ")"};
  }
  if (board.family[0] == '\0') {
    return {"", seen + ": no shipped profile for this board (" + nvml + ")"};
  }
  const std::string name = std::string(board.family) + "-" + std::to_string(kGpusPerProfile);
  std::string reason = seen + " -> " + name;
  if (gpus_on_bus.size() != kGpusPerProfile) {
    reason += " (its node has " + std::to_string(kGpusPerProfile) + "; [node] gpus judges it)";
  }
  return {name, reason + "; " + nvml};
}

ProfileChoice choose_profile_for_node(const std::string& sysfs_root) {
  const std::vector<PciDevice> gpus = nvidia_gpus(read_pci_devices(sysfs_root));
  const NvmlSession& nvml = process_nvml();
  if (!nvml.ok()) return choose_profile_for_bus(gpus, {}, nvml.reason);
  std::vector<std::string> models;
  for (const NvmlDeviceIdentity& device : read_nvml_identities(*nvml.api, nvml.device_count)) {
    models.push_back(device.model);
  }
  return choose_profile_for_bus(gpus, models, "");
}

}  // namespace fabcheck
