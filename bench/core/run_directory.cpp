// The run directory named, made on the root, and told to every rank.
#include "bench/core/run_directory.hpp"

#include <exception>

#include "bench/sys/timer.hpp"

namespace fabcheck {

std::filesystem::path default_run_directory(const std::string& root_host) {
  return std::filesystem::path("fabcheck-results") / (utc_timestamp_compact() + "-" + root_host);
}

RunDirectory make_run_directory(World& world, std::filesystem::path requested) {
  RunDirectory directory;
  if (requested.empty() && world.is_root()) requested = default_run_directory(world.host());
  directory.path = world.broadcast_value(requested.string());
  std::string failure;
  if (world.is_root()) {
    try {
      directory.writer = std::make_unique<RunWriter>(directory.path);
    } catch (const std::exception& error) {
      failure = error.what();
    }
  }
  directory.failure = world.broadcast_value(failure);
  return directory;
}

}  // namespace fabcheck
