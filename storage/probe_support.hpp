// What every storage probe shares: when it applies, the run id all ranks agree on, the scratch
// directory per path (one per host, or one shared by all ranks), files prepared with the data
// pattern, the checkpoint write, and measurements stamped with the target's description.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "bench/core/probe.hpp"
#include "storage/io_engine.hpp"
#include "storage/io_loop.hpp"
#include "storage/scratch_dir.hpp"
#include "storage/storage_options.hpp"
#include "storage/storage_target.hpp"

namespace fabcheck {

// Met when at least one --storage-path is given ("no --storage-path given" otherwise).
Requirement storage_path_requirement();

// A storage probe's declaration completed with what every storage probe shares: it needs a
// --storage-path, loads the storage (heavy), and checks its options together before the run.
ProbeInfo storage_probe_info(ProbeInfo info);

// Estimates (ProbeInfo::estimate) of the storage probes: a rate and a cost per path assumed, not
// measured. 0.2 GB/s is a slow SATA drive or a busy network file system (a two-core VM's ext4
// measured 0.46-0.59 GB/s); the second per path pays for describing the target and the scratch.
constexpr double kAssumedStorageGBps = 0.2;
constexpr double kAssumedStoragePathSetup_s = 1.0;
// "2 s", "0.5 s": a duration in a plan's knobs.
std::string number_seconds(double seconds);
// Seconds to move `bytes` at the assumed rate.
double assumed_storage_seconds(double bytes);
// `per_path` seconds on each --storage-path (they run one after another) plus the set-up of each.
ProbeEstimate storage_estimate(const RunOptions& options, double per_path_s, std::string knobs);

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

// Opens `file` with O_DIRECT when asked and the filesystem allows it, else buffered; `direct`
// says which it got.
int open_for_pattern(IoEngine& engine, const std::filesystem::path& file, OpenAccess access,
                     bool want_direct, bool& direct);

// Writes [0, size) of `file` with `rank`'s pattern (untimed preparation) and fsyncs it.
void write_pattern_file(IoEngine& engine, const std::filesystem::path& file, std::uint64_t size,
                        int rank, const StorageOptions& options);

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

// Drops the page cache of a file this process wrote (posix_fadvise DONTNEED), so a later read
// comes from the device or server; best effort.
void drop_page_cache(const std::filesystem::path& file);

// A measurement on a storage target: subject = the path, params = what backs it plus `extra`.
Measurement storage_measurement(const std::string& probe, const std::string& metric, double value,
                                const std::string& unit, const StorageTarget& target);

// wrong_elements (bytes that differ from the data pattern; above 0 is a FAIL), naming the file and
// the first bad offset in params and message.
Measurement integrity_measurement(const std::string& probe, const StorageTarget& target,
                                  const std::filesystem::path& file, std::uint64_t wrong_bytes,
                                  std::optional<std::uint64_t> first_bad_offset);

}  // namespace fabcheck
