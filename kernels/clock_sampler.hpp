// GPU clocks, power, temperature and clock-event ("throttle") reasons sampled through NVML every
// period (100 ms by default) on a thread of its own while a burn keeps the GPUs busy.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "bench/sys/nvml_library.hpp"

namespace fabcheck {

struct ClockSample {
  double t_s = 0;  // since sampling started
  std::optional<double> sm_mhz;
  std::optional<double> power_w;
  std::optional<double> temperature_c;
  std::optional<std::uint64_t> reasons;  // nvml_reasons bits
};

using ClockSeries = std::vector<ClockSample>;

// One sample of the GPU at NVML index `index`, at `t_s`; nullopt when it cannot be opened.
std::optional<ClockSample> read_clock_sample(const NvmlFunctions& api, unsigned index, double t_s);

class ClockSampler {
 public:
  // Starts sampling the GPUs at `indices` every `period_s`.
  ClockSampler(std::shared_ptr<const NvmlFunctions> api, std::vector<unsigned> indices,
               double period_s);
  ~ClockSampler();
  ClockSampler(const ClockSampler&) = delete;
  ClockSampler& operator=(const ClockSampler&) = delete;

  // Stops and returns one series per index, in the order given.
  std::vector<ClockSeries> stop();

 private:
  std::shared_ptr<const NvmlFunctions> api_;
  std::vector<unsigned> indices_;
  double period_s_;
  std::vector<ClockSeries> series_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace fabcheck
