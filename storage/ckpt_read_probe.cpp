// storage.ckpt_read: IO500 ior-easy's read-back on all ranks at once. Once every rank has written
// its checkpoint, each reads another rank's file (on another host where that host's file is
// visible, to defeat the client cache) and verifies it.
#include <sys/stat.h>

#include <algorithm>

#include "bench/sys/timer.hpp"
#include "storage/checkpoint_pattern.hpp"
#include "storage/pattern_file.hpp"
#include "storage/storage_measurement.hpp"

namespace fabcheck {

namespace fs = std::filesystem;

namespace {

// The rank whose file this rank reads: the next rank on another host whose file it can see, else
// the next rank on this host, else its own file.
struct Partner {
  int rank = 0;
  std::string placement;  // "other host", "same host", "own file"
};

Partner choose_partner(const World& world, const ScratchDir& scratch) {
  const int n = world.size();
  auto visible = [&](int rank) {
    struct stat info {};
    return scratch.stat_file(checkpoint_name(rank), info) == 0 && S_ISREG(info.st_mode);
  };
  for (int step = 1; step < n; ++step) {
    const int rank = (world.rank() + step) % n;
    if (world.hosts()[static_cast<std::size_t>(rank)] != world.host() && visible(rank)) {
      return {rank, "other host"};
    }
  }
  for (int step = 1; step < n; ++step) {
    const int rank = (world.rank() + step) % n;
    if (visible(rank)) return {rank, "same host"};
  }
  return {world.rank(), "own file"};
}

class CkptReadProbe final : public CheckpointProbe {
 public:
  CkptReadProbe()
      : CheckpointProbe({
            .id = "storage.ckpt_read",
            .description = "every rank reads another rank's checkpoint file (another host where "
                           "possible) and verifies it; aggregate, first-done and per-rank GB/s",
            .metrics = checkpoint_metrics(true),
            .scope = ProbeScope::rank,
            .options = checkpoint_options(),
            .storage_bytes = file_per_rank,
            .plans = {{"acceptance"}},
            // Each rank's figure is its share of the shared system (striping, who started first),
            // no property of its node: four healthy ranks on one disk read 0.11 to 0.51 GB/s.
            // Across nodes each measured alone on the path, the aggregate is the node's: its
            // ranks' bytes over its whole read (first open to last close), what its filesystem
            // client, mount and NIC sustain. Not bw_rank (even its ranks' median moves with who
            // started first) nor bw_first_done (one rank's). In a run of several hosts the
            // aggregate is theirs together, and the judge leaves it alone.
            .peers = {.compared = false, .across_runs_only = {"bw_aggregate"}},
        }) {}

 protected:
  void after_write(CheckpointPath& path) const override {
    World& world = path.world;
    const StorageOptions& options = path.options;
    std::map<std::string, std::string>& params = path.params;
    drop_page_cache(path.scratch, checkpoint_name(world.rank()));
    world.barrier();  // every file is complete before anyone reads
    const Partner partner = choose_partner(world, path.scratch);
    const fs::path file = path.scratch.path() / checkpoint_name(partner.rank);
    params["read_from"] = world.describe_rank(partner.rank);
    params["placement"] = partner.placement;
    params["file"] = file.string();

    world.barrier();
    const double origin = now_seconds();
    bool direct = false;
    const double open_s = now_seconds() - origin;
    const int handle = open_for_pattern(path.engine, path.scratch, file, OpenAccess::read_only, true, direct);
    IoLoopConfig config;
    config.op = IoOp::read;
    config.block_size = std::min(options.block_size, options.ckpt_size);
    config.queue_depth = options.queue_depth;
    config.region_bytes = options.ckpt_size;
    config.max_bytes = options.ckpt_size;
    config.pattern_rank = partner.rank;
    config.file_label = file.string();
    config.time_origin = origin;
    config.record_progress = true;
    const IoLoopResult read = run_io_loop(path.engine, handle, config);
    path.engine.close(handle);
    const double close_s = now_seconds() - origin;
    params["direct"] = std::string(direct ? "1" : "0");  // not a const char*: GCC bug 105651
    RankPhase mine{open_s, close_s, static_cast<double>(read.bytes), read.progress};
    emit_phase(world, path.sink, id(), path.target, params, mine, options.ckpt_size);
    path.sink.emit(
        integrity_measurement(id(), path.target, file, read.wrong_bytes, read.first_bad_offset));
  }
};

}  // namespace

std::unique_ptr<Probe> make_ckpt_read_probe() { return std::make_unique<CkptReadProbe>(); }

}  // namespace fabcheck
