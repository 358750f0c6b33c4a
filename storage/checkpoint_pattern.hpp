// The checkpoint patterns' shared machinery (storage.ckpt_write, storage.ckpt_read, and the
// checkpoint half of storage.contention): IO500 ior-easy's shape, every rank writing its own file
// sequentially then fsync and close, timed from a common barrier; the phase's rates per rank and
// over all ranks; the frame that runs a checkpoint probe on each --storage-path.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bench/core/probe.hpp"
#include "storage/io_engine.hpp"
#include "storage/io_loop.hpp"
#include "storage/rank_timeline.hpp"
#include "storage/scratch_dir.hpp"
#include "storage/storage_options.hpp"
#include "storage/storage_target.hpp"

namespace fabcheck {

// The checkpoint shape: open, write `size` sequentially with `rank`'s pattern, fsync, close.
// Buffered at QD 1 unless options.ckpt_direct. Progress and the returned times are seconds after
// `origin`; the result's end_s is after the close.
struct CheckpointWrite {
  IoLoopResult loop;
  double open_s = 0;
  double close_s = 0;
  bool direct = false;
};
CheckpointWrite write_checkpoint(IoEngine& engine, ScratchDir& scratch, const std::string& name,
                                 std::uint64_t size, int rank, const StorageOptions& options,
                                 double origin, const std::atomic<bool>* stop = nullptr);

// "r3-ckpt.dat": the checkpoint file of `rank`.
std::string checkpoint_name(int rank);

// bw_aggregate, bw_first_done, bw_rank, and wrong_elements when the probe verifies what it reads.
std::vector<MetricSpec> checkpoint_metrics(bool with_integrity);

// One checkpoint file per rank of the world (ProbeInfo::storage_bytes).
std::uint64_t file_per_rank(const RunOptions& options, int world_size);

// Emits the per-rank rate of `mine` on every rank and the aggregates (rank -1) on the root, with
// `params` and size `size`. Every rank must call it.
void emit_phase(World& world, MeasurementSink& sink, const std::string& probe,
                const StorageTarget& target, const std::map<std::string, std::string>& params,
                const RankPhase& mine, std::uint64_t size);

// What a checkpoint probe has on one path once every rank's checkpoint is written.
struct CheckpointPath {
  World& world;
  const StorageOptions& options;
  const StorageTarget& target;
  ScratchDir& scratch;
  IoEngine& engine;
  MeasurementSink& sink;
  std::map<std::string, std::string> params;  // engine, block_size, shared_across_hosts, direct
  CheckpointWrite written;                    // this rank's
};

// The frame of a checkpoint probe: on each --storage-path, a scratch folder all ranks share, every
// rank's checkpoint written (after a barrier), then the probe's own step.
class CheckpointProbe : public Probe {
 public:
  // `info` as the probe declares it, completed by storage_probe_info.
  explicit CheckpointProbe(ProbeInfo info);
  // Every rank calls it.
  void run(RunContext& context, MeasurementSink& sink) final;

 protected:
  // The probe's step once every rank's checkpoint is written on one path (ckpt_write: the write's
  // rates; ckpt_read: reading another rank's file back).
  virtual void after_write(CheckpointPath& path) const = 0;

 private:
  void run_on_path(World& world, const StorageOptions& options, const StorageTarget& target,
                   ScratchDir& scratch, bool shared, MeasurementSink& sink) const;
};

}  // namespace fabcheck
