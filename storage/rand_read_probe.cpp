// storage.rand_read: 4 KiB random reads with O_DIRECT at QD 1 and QD 32 over a file per node:
// IOPS and latency p50/p99/p99.9 from a histogram, every block verified.
#include "results/units.hpp"
#include "storage/io_loop.hpp"
#include "storage/latency_histogram.hpp"
#include "storage/local_probe.hpp"
#include "storage/pattern_file.hpp"
#include "storage/storage_estimate.hpp"
#include "storage/storage_measurement.hpp"

namespace fabcheck {

namespace {

constexpr std::uint64_t kRandomBlock = 4096;
constexpr std::uint32_t kDeepQueue = 32;

std::vector<MetricSpec> rand_read_metrics() {
  std::vector<MetricSpec> specs;
  for (const char* qd : {"qd1", "qd32"}) {
    const std::string suffix = std::string("_") + qd;
    specs.push_back({"iops" + suffix, {"IOPS", Better::higher}});
    specs.push_back({"lat_p50_us" + suffix, {"us", Better::lower}});
    specs.push_back({"lat_p99_us" + suffix, {"us", Better::lower}});
    specs.push_back({"lat_p999_us" + suffix, {"us", Better::lower}});
  }
  specs.push_back({"wrong_elements", {"count", Better::lower}});
  return specs;
}

class RandReadProbe final : public LocalPatternProbe {
 public:
  RandReadProbe()
      : LocalPatternProbe({
            .id = "storage.rand_read",
            .description =
                "4 KiB random reads, O_DIRECT, at QD 1 and QD 32, per node; IOPS and p50/p99/p99.9",
            .metrics = rand_read_metrics(),
            .scope = ProbeScope::host,
            .options = local_pattern_options(),
            .storage_bytes =
                [](const RunOptions& options, int world_size) {
                  return local_pattern_bytes(options, world_size,
                                             storage_options_from(options).file_size);
                },
            // The file written once, then a timed phase at QD 1 and one at QD 32.
            .estimate =
                [](const RunOptions& options, const JobShape&) {
                  const StorageOptions storage = storage_options_from(options);
                  return storage_estimate(
                      options,
                      assumed_storage_seconds(static_cast<double>(storage.file_size)) +
                          2 * storage.duration_s,
                      "2 phases of " + number_seconds(storage.duration_s) + ", file " +
                          format_bytes(storage.file_size));
                },
            .plans = {{"acceptance"}},
        }) {}

 protected:
  void run_on_path(LocalRun& run) override {
    auto engine = make_io_engine(run.engine_name, kDeepQueue);
    const auto file = run.scratch.create_file("r" + std::to_string(run.rank) + "-rand.dat",
                                              run.options.file_size);
    write_pattern_file(*engine, run.scratch, file, run.options.file_size, run.rank, run.options);
    bool direct = false;
    const int handle =
        open_for_pattern(*engine, run.scratch, file, OpenAccess::read_only, run.options.direct, direct);
    if (!direct) drop_page_cache(run.scratch, file);
    run.params["block_size"] = std::to_string(kRandomBlock);
    run.params["file_size"] = std::to_string(run.options.file_size);
    run.params["direct"] = direct ? "1" : "0 (filesystem refused O_DIRECT)";

    std::uint64_t wrong_bytes = 0;
    std::optional<std::uint64_t> first_bad;
    for (const std::uint32_t depth : {1u, kDeepQueue}) {
      IoLoopConfig config;
      config.op = IoOp::read;
      config.random = true;
      config.block_size = kRandomBlock;
      config.queue_depth = depth;
      config.region_bytes = run.options.file_size;
      config.duration_s = run.options.duration_s;
      config.pattern_rank = run.rank;
      config.seed = 0x5eed0000u + depth;
      config.file_label = file.string();
      const IoLoopResult result = run_io_loop(*engine, handle, config);
      wrong_bytes += result.wrong_bytes;
      if (result.first_bad_offset && !first_bad) first_bad = result.first_bad_offset;
      emit_phase(run, depth == 1 ? "_qd1" : "_qd32", result);
    }
    engine->close(handle);
    run.sink.emit(integrity_measurement(id(), run.target, file, wrong_bytes, first_bad));
  }

 private:
  void emit_phase(LocalRun& run, const std::string& suffix, const IoLoopResult& result) const {
    const LatencyHistogram& latency = result.latency_ns;
    auto emit = [&](const std::string& metric, double value, const std::string& unit,
                    bool with_stats) {
      Measurement measurement = run.measurement(id(), metric + suffix, value, unit);
      measurement.size_bytes = kRandomBlock;
      measurement.params["queue_depth"] = std::to_string(result.queue_depth);
      measurement.params["ios"] = std::to_string(result.ops);
      if (with_stats) {
        measurement.stats = latency.stats_us();
        for (const auto& [name, p] : {std::pair{"p50_us", 50.0},
                                      {"p99_us", 99.0},
                                      {"p99.9_us", 99.9},
                                      {"p99.99_us", 99.99}}) {
          measurement.params[name] =
              std::to_string(static_cast<double>(latency.percentile(p)) / 1e3);
        }
      }
      run.sink.emit(std::move(measurement));
    };
    emit("iops", result.iops(), "IOPS", false);
    emit("lat_p50_us", static_cast<double>(latency.percentile(50)) / 1e3, "us", false);
    emit("lat_p99_us", static_cast<double>(latency.percentile(99)) / 1e3, "us", true);
    emit("lat_p999_us", static_cast<double>(latency.percentile(99.9)) / 1e3, "us", false);
  }
};

}  // namespace

std::unique_ptr<Probe> make_rand_read_probe() { return std::make_unique<RandReadProbe>(); }

}  // namespace fabcheck
