// Matching measurements against the figures a judge declares it reads.
#include "results/figure_ref.hpp"

#include <algorithm>

namespace fabcheck {

bool FigureRef::matches(std::string_view measurement_probe,
                        std::string_view measurement_metric) const {
  if (!metric.empty() && metric != measurement_metric) return false;
  if (probe == "*") return true;
  if (probe.size() >= 2 && probe.compare(probe.size() - 2, 2, ".*") == 0) {
    // "gpu.*": the family's prefix with its dot.
    const std::string_view family = std::string_view(probe).substr(0, probe.size() - 1);
    return measurement_probe.substr(0, family.size()) == family;
  }
  return probe == measurement_probe;
}

bool any_figure_matches(const std::vector<FigureRef>& figures, std::string_view probe,
                        std::string_view metric) {
  return std::any_of(figures.begin(), figures.end(),
                     [&](const FigureRef& f) { return f.matches(probe, metric); });
}

std::string figure_name(const FigureRef& figure) {
  return figure.probe + "/" + (figure.metric.empty() ? std::string("*") : figure.metric);
}

}  // namespace fabcheck
