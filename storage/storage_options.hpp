// The storage probes' options, read from RunOptions::extra ("--opt storage.file_size=4G"); the
// defaults are sized for a gate (seconds, small files), a plan passes bigger ones for acceptance.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/core/probe.hpp"

namespace fabcheck {

struct StorageOptions {
  std::uint64_t file_size = 64ull << 20;  // storage.file_size: local pattern file per node
  std::uint64_t block_size = 1ull << 20;  // storage.block_size: sequential transfers
  std::uint32_t queue_depth = 32;         // storage.queue_depth: sequential and random QD32
  double duration_s = 2.0;                // storage.duration_s: time bound of each timed phase
  std::string engine;                     // storage.engine: io_uring, psync, null ("" default)
  bool direct = true;                     // storage.direct: O_DIRECT for the local patterns
  std::uint64_t ckpt_size = 64ull << 20;  // storage.ckpt_size: checkpoint file per rank
  bool ckpt_direct = false;               // storage.ckpt_direct: O_DIRECT checkpoint writes
  std::uint64_t md_files = 500;           // storage.md_files: metadata files per rank
  std::uint64_t fsync_block = 4096;       // storage.fsync_block: bytes written before each fsync
  std::uint64_t loader_bytes = 256ull
                               << 20;  // storage.loader_bytes: the data set of storage.loader
  std::uint64_t loader_sample = 128ull << 10;  // storage.loader_sample: one sample = one small file
  std::uint64_t loader_shard = 64ull << 20;    // storage.loader_shard: the same bytes in shards
  std::vector<int> loader_workers = {1, 4, 16};  // storage.loader_workers: reader threads swept
};

// Every key above with its meaning, for --help and error messages.
const std::vector<std::pair<std::string, std::string>>& storage_option_keys();

// Reads the storage.* keys of options.extra. Throws ConfigError("--opt storage.KEY: ...") naming
// the key and the value for an unknown storage.* key or a malformed or out-of-range value.
StorageOptions storage_options_from(const RunOptions& options);

// The engine the options select (the build's default when none is named).
std::string selected_engine(const StorageOptions& options);

}  // namespace fabcheck
