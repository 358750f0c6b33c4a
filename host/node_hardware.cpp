// The node's GPUs and NVMe controllers on the PCI bus against its drivers and its profile.
#include "host/node_hardware.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "bench/sys/gpu_telemetry.hpp"
#include "bench/sys/text_scan.hpp"
#include "results/profile.hpp"

namespace fabcheck {
namespace {

constexpr const char* kSource = "the PCI bus (sysfs) is what the node has; drivers must show all";
constexpr int kMaxDevicesOfANode = 1024;

std::string what_is_missing(const PciDevice& gpu, const GpuDriverView& view) {
  if (gpu.driver.empty()) {
    return "no driver bound (the nvidia kernel module is not loaded), so no NVML, no CUDA "
           "device and no persistence daemon for it";
  }
  if (gpu.driver != "nvidia") {
    return "bound to " + gpu.driver + ", not to nvidia: no NVML or CUDA device for it";
  }
  if (!view.asked) return "";
  if (!view.nvml_problem.empty()) return "NVML does not start (" + view.nvml_problem + ")";
  if (view.nvml_bus_ids.count(normalize_bus_id(gpu.bdf)) == 0) {
    return "not seen by NVML (lost or fallen off the bus: dmesg for Xid 79, nvidia-smi -q)";
  }
  if (!view.cuda_problem.empty()) return "CUDA: " + view.cuda_problem;
  return "";
}

std::string counted(const std::vector<PciDevice>& devices) {
  std::map<std::string, int> count;
  for (const PciDevice& device : devices) ++count[device.vendor_device()];
  std::string text;
  for (const auto& [id, n] : count) text += (text.empty() ? "" : ", ") + id + " x" + std::to_string(n);
  return text;
}

// A count as text: "8".
std::string whole(double value) { return std::to_string(static_cast<long long>(value)); }

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  if (text.empty()) return parts;
  std::size_t start = 0;
  for (std::size_t at = text.find(separator); at != std::string::npos;
       start = at + 1, at = text.find(separator, start)) {
    parts.push_back(text.substr(start, at - start));
  }
  parts.push_back(text.substr(start));
  return parts;
}

Measurement node_record(const std::string& probe, const char* metric, std::size_t value) {
  Measurement m = make_measurement(probe, metric, static_cast<double>(value), "count", "node");
  return m;
}

std::optional<int> whole_number(const Profile& profile, const char* key) {
  const auto it = profile.node.find(key);
  if (it == profile.node.end()) return std::nullopt;
  const auto value = text::parse_number(it->second);
  if (!value || *value < 0 || *value > kMaxDevicesOfANode || *value != std::floor(*value)) {
    refuse_node_setting(profile, key,
                        "a whole number from 0 to " + std::to_string(kMaxDevicesOfANode));
  }
  return static_cast<int>(*value);
}

}  // namespace

NodeHardware compare_node_hardware(const std::vector<PciDevice>& devices,
                                   const GpuDriverView& view) {
  NodeHardware hardware;
  for (const PciDevice& device : devices) {
    if (is_nvidia_gpu(device)) hardware.gpus.push_back({device, what_is_missing(device, view)});
    if (is_nvme_controller(device)) hardware.nvme.push_back(device);
  }
  return hardware;
}

std::vector<Measurement> node_hardware_measurements(const NodeHardware& hardware,
                                                    const std::string& probe) {
  std::vector<PciDevice> gpus;
  std::vector<std::string> unusable_ids;
  // What is missing, each with the bus ids it is missing for, in the order first met.
  std::vector<std::pair<std::string, std::vector<std::string>>> missing_for;
  for (const GpuOnBus& gpu : hardware.gpus) {
    gpus.push_back(gpu.device);
    if (gpu.missing.empty()) continue;
    unusable_ids.push_back(gpu.device.bdf);
    auto same = std::find_if(missing_for.begin(), missing_for.end(),
                             [&](const auto& entry) { return entry.first == gpu.missing; });
    if (same == missing_for.end()) same = missing_for.insert(missing_for.end(), {gpu.missing, {}});
    same->second.push_back(gpu.device.bdf);
  }
  std::string missing;
  for (const auto& [what, ids] : missing_for)
    missing += (missing.empty() ? "" : "; ") + text::join(ids, ", ") + ": " + what;
  std::vector<Measurement> out;
  Measurement on_bus = node_record(probe, kGpusOnBusMetric, gpus.size());
  on_bus.params["bus_ids"] = text::join(gpus, ",", [](const PciDevice& d) { return d.bdf; });
  on_bus.params["devices"] = counted(gpus);
  out.push_back(std::move(on_bus));
  Measurement unusable = node_record(probe, kGpusUnusableMetric, unusable_ids.size());
  unusable.params["bus_ids"] = text::join(unusable_ids, ",");
  unusable.params["on_bus"] = std::to_string(gpus.size());
  if (!missing.empty()) unusable.params["missing"] = missing;
  out.push_back(std::move(unusable));
  Measurement nvme = node_record(probe, kNvmeOnBusMetric, hardware.nvme.size());
  nvme.params["bus_ids"] = text::join(hardware.nvme, ",", [](const PciDevice& d) { return d.bdf; });
  nvme.params["models"] =
      text::join(hardware.nvme, "|", [](const PciDevice& d) { return d.nvme_model; });
  out.push_back(std::move(nvme));
  return out;
}

NodeSettingCatalog node_hardware_settings() {
  return {
      {"gpus", "NVIDIA GPUs the node must have on its PCI bus, each with the nvidia driver, NVML "
               "and CUDA seeing it; fewer (or none) is a FAIL"},
      {"nvme", "NVMe controllers the node must have on its PCI bus; fewer is a FAIL"},
      {"nvme_model", "text every NVMe controller's model must contain (e.g. \"PM1743\")"},
  };
}

NodeHardwareExpectation node_hardware_expected(const Profile& profile) {
  NodeHardwareExpectation expected;
  expected.gpus = whole_number(profile, "gpus");
  expected.nvme = whole_number(profile, "nvme");
  if (const auto model = profile.node.find("nvme_model"); model != profile.node.end())
    expected.nvme_model = model->second;
  auto origin = [&](const std::string& key) {
    const auto line = profile.node_lines.find(key);
    // Line 0: set by the command line's flag (bench/cli/profile_lookup.hpp).
    if (line != profile.node_lines.end() && line->second == 0 && key != "nvme_model")
      return "--expect-" + key;
    return "profile " + profile.name + " [node] " + key;
  };
  expected.gpus_from = origin("gpus");
  expected.nvme_from = origin("nvme");
  expected.model_from = origin("nvme_model");
  return expected;
}

std::vector<Finding> judge_node_hardware(const std::vector<Measurement>& measurements,
                                         const NodeHardwareExpectation& expected) {
  std::vector<Finding> out;
  for (const Measurement& m : measurements) {
    if (m.status != MeasurementStatus::ok) continue;
    const FindingAdder add(m, out, kSource);
    const std::string host = m.host.empty() ? std::string("this node") : m.host;
    if (m.metric == kGpusUnusableMetric && m.value > 0) {
      add(Severity::fail, 0,
          whole(m.value) + " of the " + param_of(m, "on_bus") +
              " NVIDIA GPUs on the PCI bus of " + host + " cannot be used: " +
              param_of(m, "missing"),
          "load the driver (modprobe nvidia; dmesg for NVRM errors after a kernel update: "
          "rebuild the module with DKMS), start nvidia-persistenced, reboot a GPU that fell off "
          "the bus; drain the node until every GPU is back");
    } else if (m.metric == kGpusOnBusMetric && expected.gpus) {
      const int want = *expected.gpus;
      const std::string ids = param_of(m, "bus_ids");
      if (m.value < want) {
        add(Severity::fail, want,
            std::to_string(want) + " NVIDIA GPUs expected (" + expected.gpus_from + "), " +
                whole(m.value) + " on the PCI bus of " + host +
                (ids.empty() ? std::string() : " (" + ids + ")"),
            "a GPU missing from the bus: reseat or replace it (lspci -d 10de:, the BMC's "
            "inventory); a node of another kind: give it its own profile");
      } else if (m.value > want) {
        add(Severity::warn, want,
            whole(m.value) + " NVIDIA GPUs on the PCI bus of " + host + ", " +
                std::to_string(want) + " expected (" + expected.gpus_from + ")",
            "check that the node runs the profile meant for it");
      } else {
        add(Severity::pass, want,
            whole(m.value) + " NVIDIA GPUs on the PCI bus of " + host + " (" +
                param_of(m, "devices") + "), as " + expected.gpus_from + " expects",
            "");
      }
    } else if (m.metric == kNvmeOnBusMetric && (expected.nvme || !expected.nvme_model.empty())) {
      if (expected.nvme) {
        const int want = *expected.nvme;
        if (m.value < want) {
          add(Severity::fail, want,
              std::to_string(want) + " NVMe controllers expected (" + expected.nvme_from + "), " + whole(m.value) + " on the PCI bus of " + host,
              "a drive missing from the bus: reseat or replace it (lspci -d ::0108, nvme list)");
        } else {
          add(Severity::pass, want,
              whole(m.value) + " NVMe controllers on the PCI bus of " + host + ", " +
                  std::to_string(want) + " expected",
              "");
        }
      }
      if (!expected.nvme_model.empty()) {
        const std::vector<std::string> ids = split(param_of(m, "bus_ids"), ',');
        const std::vector<std::string> models = split(param_of(m, "models"), '|');
        std::string wrong;
        for (std::size_t i = 0; i < ids.size() && i < models.size(); ++i) {
          if (models[i].find(expected.nvme_model) == std::string::npos)
            wrong += (wrong.empty() ? "" : ", ") + ids[i] + " \"" + models[i] + "\"";
        }
        if (!wrong.empty()) {
          add(Severity::fail, 0,
              "NVMe controllers of " + host + " not of model \"" + expected.nvme_model +
                  "\" (" + expected.model_from + "): " + wrong,
              "replace the drive with the model the node is specified with, or fix the profile");
        }
      }
    }
  }
  return out;
}

}  // namespace fabcheck
