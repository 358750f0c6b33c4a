// Measurements on a storage target: stamped with what backs the path, and the integrity figure.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "results/measurement.hpp"
#include "storage/storage_target.hpp"

namespace fabcheck {

// A measurement on a storage target: subject = the path, params = what backs it plus `extra`.
Measurement storage_measurement(const std::string& probe, const std::string& metric, double value,
                                const std::string& unit, const StorageTarget& target);

// wrong_elements (bytes that differ from the data pattern; above 0 is a FAIL), naming the file and
// the first bad offset in params and message.
Measurement integrity_measurement(const std::string& probe, const StorageTarget& target,
                                  const std::filesystem::path& file, std::uint64_t wrong_bytes,
                                  std::optional<std::uint64_t> first_bad_offset);

}  // namespace fabcheck
