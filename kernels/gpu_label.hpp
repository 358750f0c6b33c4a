// GpuLabel: how every gpu.* measurement names its GPU (subject "gpu<N>", bus id and model params),
// the same index whether the figure came from NVML or from CUDA.
#pragma once

#include <string>

#include "results/measurement.hpp"

namespace fabcheck {

struct GpuLabel {
  int index = 0;       // NVML index where NVML knows the bus id, else the CUDA ordinal
  std::string bus_id;  // "0000:17:00.0"
  std::string model;   // "NVIDIA H100 80GB HBM3"

  std::string subject() const { return "gpu" + std::to_string(index); }
};

// A measurement of `label`'s GPU: subject, params bus_id and model set; the rest left to the
// caller.
Measurement gpu_measurement(const GpuLabel& label, const std::string& probe,
                            const std::string& metric, double value, const std::string& unit);

// The label of the CUDA device at `bus_id`: NVML's index for it when this process's NVML knows
// the bus id (CUDA ordinals follow CUDA_VISIBLE_DEVICES, NVML's indices do not), else `ordinal`.
GpuLabel label_for_cuda_device(int ordinal, const std::string& bus_id, const std::string& model);

}  // namespace fabcheck
