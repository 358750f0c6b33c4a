// What ranks share on a storage path: a run id they agree on and one scratch folder (one per host
// where a path is node-local).
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "bench/core/world.hpp"
#include "storage/scratch_dir.hpp"

namespace fabcheck {

// "<UTC time>-<root's host>-<root pid>-<8 random hex digits>", decided on the root and broadcast
// (every rank must call it): a name no earlier run, nor a planted folder, can have taken.
std::string shared_run_id(World& world);

// A scratch directory all ranks use under `path`: the root creates it; where ranks on other hosts
// do not see it (a node-local path), local rank 0 of each such host creates its own. Every rank
// must call it. `shared_across_hosts` says whether one directory served every host.
struct SharedScratch {
  std::unique_ptr<ScratchDir> dir;
  bool shared_across_hosts = false;
};
SharedScratch open_shared_scratch(World& world, const std::filesystem::path& path,
                                  const std::string& name);
// Removes every rank's files, then (after a barrier) the directory. Every rank must call it.
void close_shared_scratch(World& world, SharedScratch& scratch);

}  // namespace fabcheck
