// Storage measurements: subject the path, params the target's description.
#include "storage/storage_measurement.hpp"

namespace fabcheck {

namespace fs = std::filesystem;

Measurement storage_measurement(const std::string& probe, const std::string& metric, double value,
                                const std::string& unit, const StorageTarget& target) {
  Measurement measurement = make_measurement(probe, metric, value, unit, target.path);
  measurement.params = target.params();
  return measurement;
}

Measurement integrity_measurement(const std::string& probe, const StorageTarget& target,
                                  const fs::path& file, std::uint64_t wrong_bytes,
                                  std::optional<std::uint64_t> first_bad_offset) {
  Measurement measurement = storage_measurement(probe, "wrong_elements",
                                                static_cast<double>(wrong_bytes), "count", target);
  measurement.params["file"] = file.string();
  measurement.params["element"] = "byte";
  if (first_bad_offset) {
    measurement.params["first_bad_offset"] = std::to_string(*first_bad_offset);
    measurement.message = "data mismatch in " + file.string() + " at offset " +
                          std::to_string(*first_bad_offset) + " (" + std::to_string(wrong_bytes) +
                          " bytes differ)";
  }
  return measurement;
}

}  // namespace fabcheck
