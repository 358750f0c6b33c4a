// The clock sampler's thread: a sample of every GPU each period, on a steady schedule.
#include "kernels/clock_sampler.hpp"

#include <algorithm>
#include <chrono>

namespace fabcheck {

std::optional<ClockSample> read_clock_sample(const NvmlFunctions& api, unsigned index, double t_s) {
  nvmlDevice_t device = nullptr;
  if (api.handle_by_index(index, &device) != NVML_SUCCESS) return std::nullopt;
  ClockSample sample;
  sample.t_s = t_s;
  unsigned value = 0;
  if (api.clock && api.clock(device, NVML_CLOCK_SM, &value) == NVML_SUCCESS) sample.sm_mhz = value;
  if (api.power_usage_mw && api.power_usage_mw(device, &value) == NVML_SUCCESS)
    sample.power_w = value / 1000.0;
  if (api.temperature && api.temperature(device, NVML_TEMPERATURE_GPU, &value) == NVML_SUCCESS)
    sample.temperature_c = value;
  unsigned long long reasons = 0;
  if (api.clock_event_reasons && api.clock_event_reasons(device, &reasons) == NVML_SUCCESS)
    sample.reasons = reasons;
  return sample;
}

ClockSampler::ClockSampler(std::shared_ptr<const NvmlFunctions> api, std::vector<unsigned> indices,
                           double period_s)
    : api_(std::move(api)),
      indices_(std::move(indices)),
      period_s_(period_s > 0 ? period_s : 0.1),
      series_(indices_.size()) {
  thread_ = std::thread([this] {
    const auto start = std::chrono::steady_clock::now();
    auto next = start;
    while (!stopping_.load()) {
      const double t_s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      for (std::size_t i = 0; i < indices_.size(); ++i) {
        if (auto sample = read_clock_sample(*api_, indices_[i], t_s)) series_[i].push_back(*sample);
      }
      next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(period_s_));
      // A late sample is not made up for: the schedule restarts from now.
      if (next < std::chrono::steady_clock::now()) next = std::chrono::steady_clock::now();
      while (!stopping_.load() && std::chrono::steady_clock::now() < next) {
        std::this_thread::sleep_until(
            std::min(next, std::chrono::steady_clock::now() + std::chrono::milliseconds(20)));
      }
    }
  });
}

ClockSampler::~ClockSampler() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
}

std::vector<ClockSeries> ClockSampler::stop() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
  return series_;
}

}  // namespace fabcheck
