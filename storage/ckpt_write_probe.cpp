// storage.ckpt_write: IO500 ior-easy's write on all ranks at once. Each rank writes its own file
// sequentially, fsyncs and closes; the rates are the write's, per rank and over all ranks.
#include "storage/checkpoint_pattern.hpp"

namespace fabcheck {

namespace {

class CkptWriteProbe final : public CheckpointProbe {
 public:
  CkptWriteProbe()
      : CheckpointProbe({
            .id = "storage.ckpt_write",
            .description = "every rank writes its own checkpoint file, fsync, close (ior-easy); "
                           "aggregate = bytes / (last close - first open), first-done, per-rank "
                           "GB/s",
            .metrics = checkpoint_metrics(false),
            .scope = ProbeScope::rank,
            .options = checkpoint_options(),
            .storage_bytes = file_per_rank,
            .plans = {{"acceptance"}},
            // Each rank's figure is its share of the shared system (striping, who started first),
            // no property of its node: four healthy ranks on one disk read 0.11 to 0.51 GB/s.
            // Across nodes each measured alone on the path, the aggregate is the node's: its
            // ranks' bytes over its whole write (first open to last close), what its filesystem
            // client, mount and NIC sustain. Not bw_rank (even its ranks' median moves with who
            // started first) nor bw_first_done (one rank's). In a run of several hosts the
            // aggregate is theirs together, and the judge leaves it alone.
            .peers = {.compared = false, .across_runs_only = {"bw_aggregate"}},
        }) {}

 protected:
  void after_write(CheckpointPath& path) const override {
    const CheckpointWrite& written = path.written;
    RankPhase mine{written.open_s, written.close_s, static_cast<double>(written.loop.bytes),
                   written.loop.progress};
    emit_phase(path.world, path.sink, id(), path.target, path.params, mine, path.options.ckpt_size);
  }
};

}  // namespace

std::unique_ptr<Probe> make_ckpt_write_probe() { return std::make_unique<CkptWriteProbe>(); }

}  // namespace fabcheck
