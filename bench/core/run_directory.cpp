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
  std::string failure;
  if (world.is_root()) {
    // The default name is made unique by a number when taken (two runs in the same second); a
    // name the user gave is theirs, and refused when it exists.
    const bool numbered = requested.empty();
    if (numbered) requested = default_run_directory(world.host());
    try {
      directory.writer = std::make_unique<RunWriter>(requested, numbered);
      requested = directory.writer->dir();
    } catch (const std::exception& error) {
      failure = error.what();
    }
  }
  directory.path = world.broadcast_value(requested.string());
  directory.failure = world.broadcast_value(failure);
  return directory;
}

}  // namespace fabcheck
