// The storage.* options several storage probes read (file, transfers, time, engine, checkpoint),
// declared once (key, type, default, meaning, allowed values) and read from RunOptions::extra
// ("--opt storage.file_size=4G"); an option only one probe reads is declared in that probe's file
// (storage.md_files, storage.fsync_block, storage.loader_*). The defaults are sized for a gate
// (seconds, small files), a plan passes bigger ones for acceptance.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/core/probe.hpp"

namespace fabcheck {

struct StorageOptions {
  std::uint64_t file_size = 0;      // storage.file_size: local pattern file per node
  std::uint64_t block_size = 0;     // storage.block_size: sequential transfers
  std::uint32_t queue_depth = 0;    // storage.queue_depth: sequential and random QD32
  double duration_s = 0;            // storage.duration_s: time bound of each timed phase
  std::string engine;               // storage.engine: io_uring, psync, null ("" default)
  bool direct = true;               // storage.direct: O_DIRECT for the local patterns
  std::uint64_t ckpt_size = 0;      // storage.ckpt_size: checkpoint file per rank
  bool ckpt_direct = false;         // storage.ckpt_direct: O_DIRECT checkpoint writes
};

// The storage.* options several probes read; each probe declares the ones it reads.
struct StorageOptionSpecs {
  OptionSpec file_size, block_size, queue_depth, duration_s, engine, direct, ckpt_size, ckpt_direct;
};
const StorageOptionSpecs& storage_option_specs();

// The smallest byte size a storage option takes: a page.
inline constexpr double kStoragePageBytes = 4096;

// What the local patterns read (seq_write, seq_read, rand_read): file, transfers, time, engine.
std::vector<OptionSpec> local_pattern_options();
// What the checkpoint patterns read (ckpt_write, ckpt_read).
std::vector<OptionSpec> checkpoint_options();

// Reads the shared storage.* options (the declared default where not given). Throws ConfigError
// naming the key, the value and the rule for a value outside it, and for a file smaller than one
// block.
StorageOptions storage_options_from(const RunOptions& options);

// The engine the options select (the build's default when none is named).
std::string selected_engine(const StorageOptions& options);

}  // namespace fabcheck
