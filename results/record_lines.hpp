// Measurement and Finding records read from parsed JSON lines (results/json_line.hpp), strictly:
// the same fields, types and schema version record_json.hpp writes, checked without building a
// JSON document per record.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "results/finding.hpp"
#include "results/json_line.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

// Where a record came from, for messages ("run/measurements.jsonl:12").
struct RecordPlace {
  const std::string* file = nullptr;
  std::size_t line = 0;
  std::string describe() const;
};

// A measurement record's fields as views into the parsed line (valid while the line is).
struct MeasurementFields {
  std::string_view probe, metric, unit, host, subject, peer, status_text, message, time_utc;
  double value = 0;
  int rank = -1;
  std::optional<std::uint64_t> size_bytes;
  std::vector<std::pair<std::string_view, std::string_view>> params;  // in the line's order
  std::optional<SampleStats> stats;
  MeasurementStatus status = MeasurementStatus::ok;
};

// Throws ConfigError naming the place and the field for a missing or mistyped field, an unknown
// status, a wrong "kind" or a schema version this build does not read.
void read_measurement_fields(const JsonLine& json, const RecordPlace& place,
                             MeasurementFields& out);
Measurement to_measurement(const MeasurementFields& fields);

Finding read_finding_line(const JsonLine& json, const RecordPlace& place);

// The "kind" of a record ("measurement", "finding", "summary"), "" when absent or not a string.
std::string_view record_kind(const JsonLine& json);

}  // namespace fabcheck
