// The run id decided on the root, and the scratch folder every rank opens.
#include "storage/shared_scratch.hpp"

#include <unistd.h>

#include <cstdio>
#include <random>
#include <system_error>
#include <vector>

#include "bench/core/rank_agreement.hpp"
#include "bench/sys/timer.hpp"

namespace fabcheck {

namespace fs = std::filesystem;

std::string shared_run_id(World& world) {
  std::string mine;
  if (world.is_root()) {
    std::random_device random;
    char suffix[9];
    std::snprintf(suffix, sizeof(suffix), "%08x", static_cast<unsigned>(random()));
    mine = utc_timestamp_compact() + "-" + world.host() + "-" + std::to_string(::getpid()) + "-" +
           suffix;
  }
  return world.broadcast_value(mine);
}

SharedScratch open_shared_scratch(World& world, const fs::path& path, const std::string& name) {
  SharedScratch scratch;
  const fs::path dir = path / name;
  // Each step can fail on some ranks only (a name taken, a folder not writable): every rank then
  // stops at once with a RankFailure naming the rank that failed, instead of waiting in the next
  // collective for a rank that left.
  run_on_every_rank(world, "creating the scratch folder " + dir.string(), [&] {
    if (world.is_root()) scratch.dir = ScratchDir::create(path, name);
  });
  run_on_every_rank(world, "creating the scratch folder " + dir.string() + " on each host", [&] {
    std::error_code error;
    const bool visible = world.is_root() || fs::is_directory(dir, error);
    if (!visible && world.local_rank() == 0) scratch.dir = ScratchDir::create(path, name);
  });
  run_on_every_rank(world, "opening the scratch folder " + dir.string(), [&] {
    if (!scratch.dir) scratch.dir = ScratchDir::join(dir);
  });
  std::vector<double> creators{scratch.dir->owns_directory() ? 1.0 : 0.0};
  world.sum_in_place(creators);
  scratch.shared_across_hosts = creators[0] == 1.0;
  return scratch;
}

void close_shared_scratch(World& world, SharedScratch& scratch) {
  if (scratch.dir && !scratch.dir->owns_directory()) scratch.dir.reset();
  world.barrier();
  scratch.dir.reset();
}

}  // namespace fabcheck
