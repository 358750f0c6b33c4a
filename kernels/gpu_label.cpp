// GpuLabel: subject and params shared by every gpu.* measurement; CUDA ordinal to NVML index.
#include "kernels/gpu_label.hpp"

#include "bench/sys/gpu_telemetry.hpp"
#include "bench/sys/nvml_library.hpp"
#include "bench/sys/nvml_reader.hpp"

namespace fabcheck {

Measurement gpu_measurement(const GpuLabel& label, const std::string& probe,
                            const std::string& metric, double value, const std::string& unit) {
  Measurement m = make_measurement(probe, metric, value, unit, label.subject());
  if (!label.bus_id.empty()) m.params["bus_id"] = label.bus_id;
  if (!label.model.empty()) m.params["model"] = label.model;
  return m;
}

GpuLabel label_for_cuda_device(int ordinal, const std::string& bus_id, const std::string& model) {
  GpuLabel label{ordinal, normalize_bus_id(bus_id), model};
  const NvmlSession& nvml = process_nvml();
  if (!nvml.ok()) return label;
  for (const NvmlDeviceIdentity& device : read_nvml_identities(*nvml.api, nvml.device_count)) {
    if (device.bus_id == label.bus_id) {
      label.index = device.index;
      if (!device.model.empty()) label.model = device.model;
      break;
    }
  }
  return label;
}

}  // namespace fabcheck
