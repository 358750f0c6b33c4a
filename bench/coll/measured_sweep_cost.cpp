// A sweep's cost from an earlier run's per-size step times.
#include "bench/coll/measured_sweep_cost.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "bench/coll/collective.hpp"
#include "bench/sys/text_scan.hpp"

namespace fabcheck {
namespace {

// One size and placement as the earlier run measured it.
struct MeasuredStep {
  std::uint64_t size = 0;
  double operation_s = 0;  // the median time of one operation
  double rest_s = 0;       // the step's time less its operations: buffers, the check, barriers
  int ops_per_sample = 1;
};

// A parameter that is a number at least 0; nullopt when missing or anything else.
std::optional<double> number_param(const Measurement& m, const char* key) {
  const auto it = m.params.find(key);
  if (it == m.params.end()) return std::nullopt;
  const auto value = text::parse_number(it->second);
  if (!value || *value < 0) return std::nullopt;
  return value;
}

// Between a and b at fraction f of the way, on a log scale where both are positive.
double between(double a, double b, double f) {
  if (a > 0 && b > 0) return std::exp(std::log(a) + f * (std::log(b) - std::log(a)));
  return a + f * (b - a);
}

MeasuredStep step_at(const std::vector<MeasuredStep>& steps, std::uint64_t size) {
  if (size <= steps.front().size) return steps.front();
  if (size >= steps.back().size) {
    MeasuredStep largest = steps.back();
    const double scale = static_cast<double>(size) / static_cast<double>(largest.size);
    largest.operation_s *= scale;
    largest.rest_s *= scale;
    return largest;
  }
  const auto above =
      std::lower_bound(steps.begin(), steps.end(), size,
                       [](const MeasuredStep& s, std::uint64_t v) { return s.size < v; });
  if (above->size == size) return *above;
  const MeasuredStep& low = *(above - 1);
  const MeasuredStep& high = *above;
  const double f =
      (std::log(static_cast<double>(size)) - std::log(static_cast<double>(low.size))) /
      (std::log(static_cast<double>(high.size)) - std::log(static_cast<double>(low.size)));
  MeasuredStep mid = low;
  mid.size = size;
  mid.operation_s = between(low.operation_s, high.operation_s, f);
  mid.rest_s = between(low.rest_s, high.rest_s, f);
  return mid;
}

}  // namespace

std::optional<ProbeEstimate> measured_sweep_estimate(const SweepConfig& config,
                                                     const std::string& probe_id,
                                                     const std::string& backend, int ranks,
                                                     const EarlierRun& earlier) {
  std::map<Placement, std::vector<MeasuredStep>> by_placement;
  double steps_s = 0;  // the earlier sweep's steps, all together
  for (const Measurement& m : earlier.measurements) {
    if (m.probe != probe_id || m.metric != "time_us" || m.rank != -1 || !m.size_bytes) continue;
    const auto param = [&m](const char* key) {
      const auto it = m.params.find(key);
      return it == m.params.end() ? std::string() : it->second;
    };
    if (param("backend") != backend || param("ranks") != std::to_string(ranks)) continue;
    const auto step_s = number_param(m, "step_s");
    const auto operations = number_param(m, "operations");
    if (!step_s || !operations || *operations < 1 || !std::isfinite(m.value)) continue;
    MeasuredStep step;
    step.size = *m.size_bytes;
    step.operation_s = std::max(0.0, m.value) * 1e-6;
    step.rest_s = std::max(0.0, *step_s - *operations * step.operation_s);
    step.ops_per_sample =
        std::max(1, static_cast<int>(number_param(m, "ops_per_sample").value_or(1)));
    const Placement placement =
        param("placement") == "in" ? Placement::in_place : Placement::out_of_place;
    by_placement[placement].push_back(step);
    steps_s += *step_s;
  }
  if (by_placement.empty()) return std::nullopt;
  for (auto& [placement, steps] : by_placement) {
    std::sort(steps.begin(), steps.end(),
              [](const MeasuredStep& a, const MeasuredStep& b) { return a.size < b.size; });
  }
  const Collective& collective = *config.collective;
  double seconds = 0;
  int sizes_measured = 0;
  int sizes_run = 0;
  for (const std::uint64_t size : config.sizes) {
    const CollectiveShape shape = collective_shape(collective, size, ranks, sizeof(float));
    if (shape.size_bytes == 0) continue;
    ++sizes_run;
    bool measured_here = false;
    for (const Placement placement : config.placements) {
      const auto it =
          by_placement.contains(placement) ? by_placement.find(placement) : by_placement.begin();
      const MeasuredStep step = step_at(it->second, shape.size_bytes);
      measured_here = measured_here || std::any_of(it->second.begin(), it->second.end(),
                                                   [&shape](const MeasuredStep& there) {
                                                     return there.size == shape.size_bytes;
                                                   });
      const int ops = config.ops_per_sample > 0 ? config.ops_per_sample : step.ops_per_sample;
      const double operations = step_operations(config, ops);
      seconds += operations * step.operation_s + step.rest_s;
    }
    if (measured_here) ++sizes_measured;
  }
  // The probe's time there outside its steps: making the communicator, the gather.
  const auto probe = earlier.probe_seconds.find(probe_id);
  const double outside_s =
      probe == earlier.probe_seconds.end() ? 0.0 : std::max(0.0, probe->second - steps_s);
  return ProbeEstimate{outside_s + seconds,
                       fmt::format("per-size times measured in {} ({} of {} sizes there)",
                                   earlier.dir.string(), sizes_measured, sizes_run)};
}

}  // namespace fabcheck
