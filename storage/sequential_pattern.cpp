// The sequential patterns' loop, params, figures, footprint and estimate.
#include "storage/sequential_pattern.hpp"

#include "results/units.hpp"
#include "storage/storage_estimate.hpp"

namespace fabcheck {

namespace {

// Per-transfer latency of a bandwidth figure, for reading a slow result.
void add_latency_params(Measurement& measurement, const IoLoopResult& result) {
  measurement.params["lat_p50_us"] =
      std::to_string(static_cast<double>(result.latency_ns.percentile(50)) / 1e3);
  measurement.params["lat_p99_us"] =
      std::to_string(static_cast<double>(result.latency_ns.percentile(99)) / 1e3);
}

}  // namespace

IoLoopConfig sequential_config(IoOp op, const StorageOptions& options, const std::string& file,
                               int rank) {
  IoLoopConfig config;
  config.op = op;
  config.block_size = options.block_size;
  config.queue_depth = options.queue_depth;
  config.region_bytes = options.file_size;
  config.duration_s = options.duration_s;
  config.pattern_rank = rank;
  config.file_label = file;
  return config;
}

void set_sequential_params(LocalRun& run, bool direct) {
  run.params["block_size"] = std::to_string(run.options.block_size);
  run.params["file_size"] = std::to_string(run.options.file_size);
  run.params["direct"] = direct ? "1" : "0 (filesystem refused O_DIRECT)";
}

Measurement sequential_bandwidth(LocalRun& run, const std::string& probe_id,
                                 const IoLoopResult& loop) {
  Measurement bw = run.measurement(probe_id, "bw", loop.gbps(), "GB/s");
  bw.size_bytes = run.options.block_size;
  bw.params["queue_depth"] = std::to_string(loop.queue_depth);
  bw.params["bytes"] = std::to_string(loop.bytes);
  bw.params["seconds"] = std::to_string(loop.seconds());
  add_latency_params(bw, loop);
  return bw;
}

std::vector<MetricSpec> sequential_metrics() {
  return {{"bw", {"GB/s", Better::higher}}, {"wrong_elements", {"count", Better::lower}}};
}

std::uint64_t one_file(const RunOptions& options, int world_size) {
  return local_pattern_bytes(options, world_size, storage_options_from(options).file_size);
}

ProbeEstimate estimate_sequential(const RunOptions& options, const JobShape&) {
  const StorageOptions storage = storage_options_from(options);
  return storage_estimate(
      options, storage.duration_s + assumed_storage_seconds(static_cast<double>(storage.file_size)),
      number_seconds(storage.duration_s) + ", file " + format_bytes(storage.file_size));
}

}  // namespace fabcheck
