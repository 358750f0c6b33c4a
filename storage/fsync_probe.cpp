// storage.fsync_lat: buffered write of storage.fsync_block bytes, then fsync, repeated for
// storage.duration_s; the fsync is timed alone, the pair gives the commit rate.
#include "storage/fsync_probe.hpp"

#include <fcntl.h>

#include <chrono>
#include <system_error>

#include "bench/sys/timer.hpp"
#include "results/units.hpp"
#include "storage/aligned_buffer.hpp"
#include "storage/data_pattern.hpp"
#include "storage/latency_histogram.hpp"
#include "storage/local_probe.hpp"
#include "storage/storage_estimate.hpp"

namespace fabcheck {

namespace {

const OptionSpec kFsyncBlock{.key = "storage.fsync_block",
                             .type = OptionType::byte_size,
                             .default_value = "4K",
                             .meaning = "bytes written before each fsync in storage.fsync_lat",
                             .min = 8,
                             .max = 1ull << 30,
                             .multiple_of = 8};

std::int64_t complete_one(IoEngine& engine, const IoRequest& request) {
  engine.submit({&request, 1});
  IoCompletion completion;
  while (engine.reap(1, {&completion, 1}) == 0) {
  }
  return completion.result;
}

class FsyncLatencyProbe final : public LocalPatternProbe {
 public:
  FsyncLatencyProbe()
      : LocalPatternProbe({
            .id = "storage.fsync_lat",
            .description = "small buffered write + fsync per node: fsync latency p50/p99/p99.9",
            .metrics = {{"fsync_p50_us", {"us", Better::lower}},
                        {"fsync_p99_us", {"us", Better::lower}},
                        {"fsync_p999_us", {"us", Better::lower}},
                        {"commits", {"IOPS", Better::higher}}},
            .scope = ProbeScope::host,
            .options = {kFsyncBlock, storage_option_specs().duration_s,
                        storage_option_specs().engine},
            .storage_bytes =
                [](const RunOptions& options, int) {
                  return option_bytes(options, kFsyncBlock) * kFsyncBlocks;
                },
            // One timed phase.
            .estimate =
                [](const RunOptions& options, const JobShape&) {
                  const double duration_s = storage_options_from(options).duration_s;
                  return storage_estimate(options, duration_s, number_seconds(duration_s));
                },
            .plans = {{"acceptance"}},
        }) {}

 protected:
  void run_on_path(LocalRun& run) override {
    auto engine = make_io_engine(run.engine_name, 1);
    const std::uint64_t block = option_bytes(run.run_options, kFsyncBlock);
    const auto file = run.scratch.create_file("r" + std::to_string(run.rank) + "-fsync.dat",
                                              block * kFsyncBlocks);
    const int handle = engine->adopt(run.scratch.open_file(file, O_WRONLY));
    AlignedBuffer buffer(block);
    LatencyHistogram fsync_ns;
    std::uint64_t commits = 0;
    const double start = now_seconds();
    double end = start;
    while (end - start < run.options.duration_s) {
      const std::uint64_t offset = (commits % kFsyncBlocks) * block;
      fill_pattern(buffer.span(), run.rank, offset);
      const IoRequest write{IoOp::write, handle, buffer.data(), static_cast<std::uint32_t>(block),
                            offset,      0};
      const std::int64_t written = complete_one(*engine, write);
      if (written != static_cast<std::int64_t>(block)) {
        throw std::system_error(written < 0 ? static_cast<int>(-written) : EIO,
                                std::generic_category(), "write " + file.string());
      }
      const auto before = std::chrono::steady_clock::now();
      const std::int64_t synced = complete_one(*engine, {IoOp::fsync, handle, nullptr, 0, 0, 0});
      const auto after = std::chrono::steady_clock::now();
      if (synced < 0) {
        throw std::system_error(static_cast<int>(-synced), std::generic_category(),
                                "fsync " + file.string());
      }
      fsync_ns.record(static_cast<std::uint64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(after - before).count()));
      ++commits;
      end = now_seconds();
    }
    engine->close(handle);

    run.params["block_size"] = std::to_string(block);
    run.params["fsyncs"] = std::to_string(commits);
    auto emit = [&](const std::string& metric, double p, bool with_stats) {
      Measurement measurement =
          run.measurement(id(), metric, static_cast<double>(fsync_ns.percentile(p)) / 1e3, "us");
      measurement.size_bytes = block;
      if (with_stats) measurement.stats = fsync_ns.stats_us();
      run.sink.emit(std::move(measurement));
    };
    emit("fsync_p50_us", 50, false);
    emit("fsync_p99_us", 99, true);
    emit("fsync_p999_us", 99.9, false);
    Measurement rate =
        run.measurement(id(), "commits", static_cast<double>(commits) / (end - start), "IOPS");
    rate.size_bytes = block;
    run.sink.emit(std::move(rate));
  }
};

}  // namespace

std::unique_ptr<Probe> make_fsync_lat_probe() { return std::make_unique<FsyncLatencyProbe>(); }

}  // namespace fabcheck
