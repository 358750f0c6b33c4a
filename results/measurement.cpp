// Making a measurement, reading its params, and the names of its statuses in the JSON records.
#include "results/measurement.hpp"

#include <utility>

namespace fabcheck {

Measurement make_measurement(std::string probe, std::string metric, double value, std::string unit,
                             std::string subject) {
  Measurement m;
  m.probe = std::move(probe);
  m.metric = std::move(metric);
  m.value = value;
  m.unit = std::move(unit);
  m.subject = std::move(subject);
  return m;
}

const char* to_string(MeasurementStatus status) {
  switch (status) {
    case MeasurementStatus::ok:
      return "ok";
    case MeasurementStatus::error:
      return "error";
    case MeasurementStatus::waived:
      return "waived";
  }
  return "unknown";
}

std::optional<MeasurementStatus> measurement_status_from_string(const std::string& text) {
  if (text == "ok") return MeasurementStatus::ok;
  if (text == "error") return MeasurementStatus::error;
  if (text == "waived") return MeasurementStatus::waived;
  return std::nullopt;
}

std::string param_of(const Measurement& measurement, const std::string& key) {
  const auto it = measurement.params.find(key);
  return it == measurement.params.end() ? std::string() : it->second;
}

}  // namespace fabcheck
