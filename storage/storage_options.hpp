// The storage probes' options, declared once (key, type, default, meaning, allowed values) and read
// from RunOptions::extra ("--opt storage.file_size=4G"); the defaults are sized for a gate
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
  std::uint64_t md_files = 0;       // storage.md_files: metadata files per rank
  std::uint64_t fsync_block = 0;    // storage.fsync_block: bytes written before each fsync
  std::uint64_t loader_bytes = 0;   // storage.loader_bytes: the data set of storage.loader
  std::uint64_t loader_sample = 0;  // storage.loader_sample: one sample = one small file
  std::uint64_t loader_shard = 0;   // storage.loader_shard: the same bytes in shards
  std::vector<int> loader_workers;  // storage.loader_workers: reader threads swept
};

// Every storage.* option; each probe declares the ones it reads.
struct StorageOptionSpecs {
  OptionSpec file_size, block_size, queue_depth, duration_s, engine, direct, ckpt_size, ckpt_direct,
      md_files, fsync_block, loader_bytes, loader_sample, loader_shard, loader_workers;
};
const StorageOptionSpecs& storage_option_specs();

// What the local patterns read (seq_write, seq_read, rand_read): file, transfers, time, engine.
std::vector<OptionSpec> local_pattern_options();
// What the checkpoint patterns read (ckpt_write, ckpt_read).
std::vector<OptionSpec> checkpoint_options();
// What storage.loader reads: the data set, sample and shard sizes, readers, time a point.
std::vector<OptionSpec> loader_options();

// Reads every storage.* option (the declared default where not given). Throws ConfigError naming
// the key, the value and the rule for a value outside it, and for a file smaller than one block.
StorageOptions storage_options_from(const RunOptions& options);

// The engine the options select (the build's default when none is named).
std::string selected_engine(const StorageOptions& options);

}  // namespace fabcheck
