// Names of measurement statuses as they appear in the JSON records.
#include "results/measurement.hpp"

namespace fabcheck {

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
