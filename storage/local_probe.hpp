// LocalPatternProbe: the frame of the per-node patterns (seq_write, seq_read, rand_read,
// fsync_lat, contention): one rank per host runs them, in a scratch directory of its own under
// each --storage-path, with the engine the options select.
#pragma once

#include <map>
#include <string>

#include "bench/core/probe.hpp"
#include "storage/io_engine.hpp"
#include "storage/scratch_dir.hpp"
#include "storage/storage_options.hpp"
#include "storage/storage_target.hpp"

namespace fabcheck {

// What a local pattern works with on one path.
struct LocalRun {
  const StorageTarget& target;
  ScratchDir& scratch;
  const StorageOptions& options;
  const RunOptions& run_options;  // for the options the probe declares itself
  std::string engine_name;
  int rank = 0;
  MeasurementSink& sink;
  std::map<std::string, std::string> params;  // added to every measurement (bs, qd, direct...)

  // A measurement with subject = the path and params = target + engine + `params`.
  Measurement measurement(const std::string& probe, const std::string& metric, double value,
                          const std::string& unit) const;
};

// What a local pattern has on one path at once: `per_owner` bytes per host, or per rank when every
// rank runs the pattern (--every-rank: all of them on one path at worst).
std::uint64_t local_pattern_bytes(const RunOptions& options, int world_size,
                                  std::uint64_t per_owner);

class LocalPatternProbe : public Probe {
 public:
  // `info` as the probe declares it, completed by storage_probe_info.
  explicit LocalPatternProbe(ProbeInfo info);
  // Every rank calls it (for the run id); local rank 0 of each host runs the pattern on each path.
  void run(RunContext& context, MeasurementSink& sink) final;

 protected:
  virtual void run_on_path(LocalRun& run) = 0;
};

}  // namespace fabcheck
