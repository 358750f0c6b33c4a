// The strict reading of a measurement line (JsonLine + read_measurement_fields) and a field by
// field comparison with another reading, for the one-pass scan's differential test and fuzz target.
#pragma once

#include <bit>
#include <cstdint>
#include <string>
#include <string_view>

#include "bench/sys/config_error.hpp"
#include "results/json_line.hpp"
#include "results/record_lines.hpp"

namespace fabcheck::testing {

// True when the strict path accepts `line`; `out`'s views point into `line` or `json`.
inline bool read_strictly(JsonLine& json, std::string_view line, MeasurementFields& out) {
  static const std::string file = "measurements.jsonl";
  if (!json.parse(line)) return false;
  try {
    read_measurement_fields(json, {&file, 1}, out);
  } catch (const ConfigError&) {
    return false;
  }
  return true;
}

// Doubles compared bit for bit (a NaN equals the same NaN, 0.0 differs from -0.0).
inline bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

// The first field in which `a` and `b` differ ("" when none).
inline std::string first_difference(const MeasurementFields& a, const MeasurementFields& b) {
  const std::pair<const char*, bool> fields[] = {
      {"probe", a.probe == b.probe},
      {"metric", a.metric == b.metric},
      {"unit", a.unit == b.unit},
      {"host", a.host == b.host},
      {"subject", a.subject == b.subject},
      {"peer", a.peer == b.peer},
      {"status_text", a.status_text == b.status_text},
      {"message", a.message == b.message},
      {"time_utc", a.time_utc == b.time_utc},
      {"value", same_bits(a.value, b.value)},
      {"rank", a.rank == b.rank},
      {"size_bytes", a.size_bytes == b.size_bytes},
      {"params", a.params == b.params},
      {"stats", a.stats.has_value() == b.stats.has_value()},
      {"status", a.status == b.status},
  };
  for (const auto& [name, same] : fields) {
    if (!same) return name;
  }
  if (a.stats && b.stats) {
    const SampleStats& x = *a.stats;
    const SampleStats& y = *b.stats;
    if (x.count != y.count) return "stats.count";
    const std::pair<const char*, bool> numbers[] = {
        {"stats.min", same_bits(x.min, y.min)},    {"stats.median", same_bits(x.median, y.median)},
        {"stats.max", same_bits(x.max, y.max)},    {"stats.p99", same_bits(x.p99, y.p99)},
        {"stats.mean", same_bits(x.mean, y.mean)}, {"stats.cv", same_bits(x.cv, y.cv)},
    };
    for (const auto& [name, same] : numbers) {
      if (!same) return name;
    }
  }
  return "";
}

}  // namespace fabcheck::testing
