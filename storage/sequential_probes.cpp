// storage.seq_write and storage.seq_read: 1 MiB transfers at QD 32 with O_DIRECT over a file per
// node, time-bounded, every byte written with the data pattern and every byte read verified.
#include "results/units.hpp"
#include "storage/local_probe.hpp"
#include "storage/probe_support.hpp"

namespace fabcheck {

namespace {

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

// Per-transfer latency of a bandwidth figure, for reading a slow result.
void add_latency_params(Measurement& measurement, const IoLoopResult& result) {
  measurement.params["lat_p50_us"] =
      std::to_string(static_cast<double>(result.latency_ns.percentile(50)) / 1e3);
  measurement.params["lat_p99_us"] =
      std::to_string(static_cast<double>(result.latency_ns.percentile(99)) / 1e3);
}

// The bandwidth of one timed loop, with what it did (queue depth, bytes, seconds, latencies).
Measurement bandwidth_measurement(LocalRun& run, const std::string& probe_id,
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

// One file of storage.file_size per host (per rank with --every-rank).
std::uint64_t one_file(const RunOptions& options, int world_size) {
  return local_pattern_bytes(options, world_size, storage_options_from(options).file_size);
}

// A timed phase of storage.duration_s plus the file written (seq_read) or read back (seq_write)
// once at the assumed rate.
ProbeEstimate estimate_sequential(const RunOptions& options, const JobShape&) {
  const StorageOptions storage = storage_options_from(options);
  return storage_estimate(
      options, storage.duration_s + assumed_storage_seconds(static_cast<double>(storage.file_size)),
      number_seconds(storage.duration_s) + ", file " + format_bytes(storage.file_size));
}

class SeqWriteProbe final : public LocalPatternProbe {
 public:
  SeqWriteProbe()
      : LocalPatternProbe({
            .id = "storage.seq_write",
            .description =
                "sequential 1 MiB writes at QD 32, O_DIRECT, per node; read back and verified",
            .metrics = sequential_metrics(),
            .scope = ProbeScope::host,
            .options = local_pattern_options(),
            .storage_bytes = one_file,
            .estimate = estimate_sequential,
            .plans = {{"gate"}, {"acceptance"}, {"sweep"}},
        }) {}

 protected:
  void run_on_path(LocalRun& run) override {
    auto engine = make_io_engine(run.engine_name, run.options.queue_depth);
    const auto file =
        run.scratch.create_file("r" + std::to_string(run.rank) + "-seq.dat", run.options.file_size);
    bool direct = false;
    const int handle =
        open_for_pattern(*engine, file, OpenAccess::read_write, run.options.direct, direct);
    set_sequential_params(run, direct);
    const IoLoopResult written =
        run_io_loop(*engine, handle, sequential_config(IoOp::write, run.options, file, run.rank));
    // Untimed read-back of what was written (the whole file once a pass completed).
    IoLoopConfig check = sequential_config(IoOp::read, run.options, file, run.rank);
    check.duration_s = 0;
    check.region_bytes = std::min(written.bytes, run.options.file_size);
    check.max_bytes = check.region_bytes;
    check.block_size = std::min(check.block_size, check.region_bytes);
    if (!direct) drop_page_cache(file);
    const IoLoopResult verified = run_io_loop(*engine, handle, check);
    engine->close(handle);

    run.sink.emit(bandwidth_measurement(run, id(), written));
    run.sink.emit(integrity_measurement(id(), run.target, file, verified.wrong_bytes,
                                        verified.first_bad_offset));
  }
};

class SeqReadProbe final : public LocalPatternProbe {
 public:
  SeqReadProbe()
      : LocalPatternProbe({
            .id = "storage.seq_read",
            .description =
                "sequential 1 MiB reads at QD 32, O_DIRECT, per node; every block verified",
            .metrics = sequential_metrics(),
            .scope = ProbeScope::host,
            .options = local_pattern_options(),
            .storage_bytes = one_file,
            .estimate = estimate_sequential,
            .plans = {{"gate"}, {"acceptance"}, {"sweep"}},
        }) {}

 protected:
  void run_on_path(LocalRun& run) override {
    auto engine = make_io_engine(run.engine_name, run.options.queue_depth);
    const auto file =
        run.scratch.create_file("r" + std::to_string(run.rank) + "-seq.dat", run.options.file_size);
    write_pattern_file(*engine, file, run.options.file_size, run.rank, run.options);
    bool direct = false;
    const int handle =
        open_for_pattern(*engine, file, OpenAccess::read_only, run.options.direct, direct);
    if (!direct) drop_page_cache(file);
    set_sequential_params(run, direct);
    const IoLoopResult read =
        run_io_loop(*engine, handle, sequential_config(IoOp::read, run.options, file, run.rank));
    engine->close(handle);

    run.sink.emit(bandwidth_measurement(run, id(), read));
    run.sink.emit(
        integrity_measurement(id(), run.target, file, read.wrong_bytes, read.first_bad_offset));
  }
};

}  // namespace

std::unique_ptr<Probe> make_seq_write_probe() { return std::make_unique<SeqWriteProbe>(); }
std::unique_ptr<Probe> make_seq_read_probe() { return std::make_unique<SeqReadProbe>(); }

}  // namespace fabcheck
