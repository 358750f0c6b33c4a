// The fleet history in a build without HDF5: refused with a message saying why.
#include "results/history.hpp"
#include "bench/sys/config_error.hpp"

namespace fabcheck {

bool history_available() { return false; }

void append_history(const std::filesystem::path& file, const FleetStore& /*store*/) {
  throw ConfigError(file.string(), 0, "this fabcheck was built without HDF5: no history");
}

FleetStore read_history(const std::filesystem::path& file, const std::set<std::string>* /*hosts*/,
                        std::size_t /*last_runs*/) {
  throw ConfigError(file.string(), 0, "this fabcheck was built without HDF5: no history");
}

}  // namespace fabcheck
