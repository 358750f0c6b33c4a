// What the node physically has (the NVIDIA GPUs and NVMe controllers on its PCI bus) against what
// its drivers show and its profile promises: each GPU on the bus with what is missing to use it (a
// driver bound, NVML seeing it, CUDA), measured by node.preflight and judged against the profile's
// [node] gpus, nvme and nvme_model (or --expect-gpus / --expect-nvme).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "bench/sys/pci_devices.hpp"
#include "results/finding.hpp"
#include "results/measurement.hpp"
#include "results/metric_catalog.hpp"
#include "results/profile.hpp"

namespace fabcheck {

// node.preflight's records of the bus (subject "node"): the NVIDIA GPUs on it (params bus_ids,
// devices "10de:2330 x8"), those of them that cannot be used (params missing: "0000:18:00.0: no
// driver bound ...; ..."), and the NVMe controllers (params bus_ids, models).
inline constexpr const char* kGpusOnBusMetric = "gpus_on_bus";
inline constexpr const char* kGpusUnusableMetric = "gpus_unusable";
inline constexpr const char* kNvmeOnBusMetric = "nvme_on_bus";

// What the GPU drivers of this process say, for the comparison with the bus.
struct GpuDriverView {
  // false: the bus is a recorded tree (--sysfs-root), whose node's NVML and CUDA are not this
  // process's; only the drivers bound in the tree are compared.
  bool asked = true;
  std::string nvml_problem;            // why NVML could not start; "" when it did
  std::set<std::string> nvml_bus_ids;  // the GPUs NVML lists, "0000:18:00.0"
  std::string cuda_problem;  // why CUDA sees no device (e.g. "no CUDA device (...)"), "" when it
                             // sees some or was not asked (a build without CUDA is not asked)
};

struct GpuOnBus {
  PciDevice device;
  std::string missing;  // "" when usable; else what is missing, worst first
};

struct NodeHardware {
  std::vector<GpuOnBus> gpus;
  std::vector<PciDevice> nvme;
};

// Each NVIDIA GPU of `devices` with what is missing to use it: no driver bound (the nvidia module
// is not loaded), another driver bound (vfio-pci, nouveau), NVML not starting, NVML not listing
// it (lost, fallen off the bus), CUDA seeing no device. And the NVMe controllers.
NodeHardware compare_node_hardware(const std::vector<PciDevice>& devices,
                                   const GpuDriverView& view);

std::vector<Measurement> node_hardware_measurements(const NodeHardware& hardware,
                                                    const std::string& probe);

// The [node] keys: gpus (NVIDIA GPUs the node must have on its bus, every one usable), nvme (NVMe
// controllers) and nvme_model (text each controller's model must contain).
struct NodeHardwareExpectation {
  std::optional<int> gpus;
  std::optional<int> nvme;
  std::string nvme_model;
  // Where each came from, for messages: "profile h100-sxm-8 [node] gpus", "--expect-gpus".
  std::string gpus_from;
  std::string nvme_from;
  std::string model_from;
};

NodeSettingCatalog node_hardware_settings();
// Throws ConfigError naming file, line and value.
NodeHardwareExpectation node_hardware_expected(const Profile& profile);

// FAIL for a GPU on the bus that cannot be used (naming its bus id and what is missing), for fewer
// GPUs or NVMe controllers on the bus than expected (a profile promising GPUs on a node with none:
// FAIL, never WAIVED), and for a controller of another model; PASS naming the count when it holds.
// WARN for more GPUs than expected.
std::vector<Finding> judge_node_hardware(const std::vector<Measurement>& measurements,
                                         const NodeHardwareExpectation& expected);

}  // namespace fabcheck
