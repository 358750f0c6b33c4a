// The sequential patterns' shared machinery (storage.seq_write, storage.seq_read): 1 MiB transfers
// at QD 32 over a file per node, time-bounded; their IO loop, params, figures, footprint and
// estimate.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/core/probe.hpp"
#include "storage/io_loop.hpp"
#include "storage/local_probe.hpp"
#include "storage/storage_options.hpp"

namespace fabcheck {

// The timed loop over the file: storage.block_size transfers at storage.queue_depth over
// storage.file_size for storage.duration_s, with `rank`'s pattern.
IoLoopConfig sequential_config(IoOp op, const StorageOptions& options, const std::string& file,
                               int rank);

// block_size, file_size and whether O_DIRECT was had, on every measurement of the run.
void set_sequential_params(LocalRun& run, bool direct);

// The bandwidth of one timed loop, with what it did (queue depth, bytes, seconds, latencies).
Measurement sequential_bandwidth(LocalRun& run, const std::string& probe_id,
                                 const IoLoopResult& loop);

// bw and wrong_elements.
std::vector<MetricSpec> sequential_metrics();

// One file of storage.file_size per host (per rank with --every-rank).
std::uint64_t one_file(const RunOptions& options, int world_size);

// A timed phase of storage.duration_s plus the file written (seq_read) or read back (seq_write)
// once at the assumed rate.
ProbeEstimate estimate_sequential(const RunOptions& options, const JobShape& job);

}  // namespace fabcheck
