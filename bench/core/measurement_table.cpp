// The console table of a probe's measurements.
#include "bench/core/measurement_table.hpp"

#include <fmt/format.h>

#include "results/units.hpp"

namespace fabcheck {

std::string measurement_table(const std::string& probe_id,
                              const std::vector<Measurement>& measurements) {
  if (measurements.empty()) return "";
  std::string table =
      "# " + probe_id + "\n" +
      fmt::format("# {:<28} {:<22} {:>9} {:>12} {:<8} {:>10} {:>10}  {}\n", "subject", "metric",
                  "size", "value", "unit", "median", "p99", "where");
  for (const auto& m : measurements) {
    const std::string size = m.size_bytes ? format_bytes(*m.size_bytes) : "-";
    const std::string where =
        m.rank >= 0 ? m.host + " (rank " + std::to_string(m.rank) + ")" : m.host;
    if (m.status != MeasurementStatus::ok) {
      table += fmt::format("  {:<28} {:<22} {:>9} {:>12} {:<8} {}\n", m.subject, m.metric, size,
                           to_string(m.status), "", m.message);
      continue;
    }
    const std::string median = m.stats ? fmt::format("{:.4g}", m.stats->median) : "";
    const std::string p99 = m.stats ? fmt::format("{:.4g}", m.stats->p99) : "";
    table += fmt::format("  {:<28} {:<22} {:>9} {:>12.4g} {:<8} {:>10} {:>10}  {}\n", m.subject,
                         m.metric, size, m.value, m.unit, median, p99, where);
  }
  return table;
}

}  // namespace fabcheck
