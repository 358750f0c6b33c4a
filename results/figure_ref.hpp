// FigureRef: a (probe, metric) pattern naming the measurements a judge reads, so that a caller
// holding thousands of stored runs (fabcheck evaluate) builds only the measurements some judge
// looks at.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fabcheck {

// The measurements of one figure, or of several:
//   probe  "gpu.health" (that probe), "gpu.*" (every probe of the gpu family: ids starting with
//          "gpu."), or "*" (every probe);
//   metric "error_counter_delta" (that metric), or empty: every metric of those probes.
// {"*", ""} is every measurement.
struct FigureRef {
  std::string probe;
  std::string metric;

  bool matches(std::string_view measurement_probe, std::string_view measurement_metric) const;
  bool is_everything() const { return probe == "*" && metric.empty(); }
  friend bool operator==(const FigureRef&, const FigureRef&) = default;
};

// Whether any of `figures` names (probe, metric).
bool any_figure_matches(const std::vector<FigureRef>& figures, std::string_view probe,
                        std::string_view metric);

// "gpu.health/error_counter_delta", "gpu.*/temperature_c", "node.kernel_log/*", "*/*".
std::string figure_name(const FigureRef& figure);

}  // namespace fabcheck
