// The run directory: its default name, made by the root (a directory of its own: one that exists
// is refused), and every rank learning the name and whether it was made.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "bench/core/world.hpp"
#include "results/run_writer.hpp"

namespace fabcheck {

// fabcheck-results/<UTC compact>-<root's host>, relative to where the run starts.
std::filesystem::path default_run_directory(const std::string& root_host);

struct RunDirectory {
  std::filesystem::path path;         // the same on every rank
  std::unique_ptr<RunWriter> writer;  // the root's, once made; null on every other rank
  std::string failure;                // why it could not be made, on every rank; "" when made

  bool made() const { return failure.empty(); }
};

// Every rank calls it: the root names `requested` (empty: the default, numbered -2, -3, ... when
// another run took the name in the same second) and makes it; every rank learns the path made
// and the outcome. Two broadcasts.
RunDirectory make_run_directory(World& world, std::filesystem::path requested);

}  // namespace fabcheck
