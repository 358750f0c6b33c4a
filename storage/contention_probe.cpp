// storage.contention: the data-loading read (sequential 1 MiB, QD 32, O_DIRECT) alone, the
// checkpoint write (buffered + fsync) alone, then both at once on the same path, and how much each
// slows the other: slowdown = rate alone / rate together (1 = no interference).
#include <atomic>
#include <exception>
#include <thread>

#include "bench/sys/timer.hpp"
#include "results/units.hpp"
#include "storage/checkpoint_pattern.hpp"
#include "storage/local_probe.hpp"
#include "storage/pattern_file.hpp"
#include "storage/storage_estimate.hpp"
#include "storage/storage_measurement.hpp"

namespace fabcheck {

namespace {

std::vector<OptionSpec> contention_options() {
  std::vector<OptionSpec> options = local_pattern_options();
  options.push_back(storage_option_specs().ckpt_size);
  options.push_back(storage_option_specs().ckpt_direct);
  return options;
}

class ContentionProbe final : public LocalPatternProbe {
 public:
  ContentionProbe()
      : LocalPatternProbe({
            .id = "storage.contention",
            .description = "data-loading reads alone, checkpoint writes alone, then together: how "
                           "much each slows the other",
            .metrics = {{"read_alone_bw", {"GB/s", Better::higher}},
                        {"read_contended_bw", {"GB/s", Better::higher}},
                        {"write_alone_bw", {"GB/s", Better::higher}},
                        {"write_contended_bw", {"GB/s", Better::higher}},
                        {"read_slowdown", {"ratio", Better::lower}},
                        {"write_slowdown", {"ratio", Better::lower}},
                        {"wrong_elements", {"count", Better::lower}}},
            .scope = ProbeScope::host,
            .options = contention_options(),
            .storage_bytes =
                [](const RunOptions& options, int) {
                  const StorageOptions storage = storage_options_from(options);
                  return storage.file_size + storage.ckpt_size;
                },
            // The data file written; reads alone (a timed phase), the checkpoint written alone,
            // then both together (reads while the checkpoint is written, taken as twice as slow).
            .estimate =
                [](const RunOptions& options, const JobShape&) {
                  const StorageOptions storage = storage_options_from(options);
                  const double file_s =
                      assumed_storage_seconds(static_cast<double>(storage.file_size));
                  const double ckpt_s =
                      assumed_storage_seconds(static_cast<double>(storage.ckpt_size));
                  return storage_estimate(options, file_s + storage.duration_s + 3 * ckpt_s,
                                          number_seconds(storage.duration_s) + ", file " +
                                              format_bytes(storage.file_size) + ", checkpoint " +
                                              format_bytes(storage.ckpt_size));
                },
            .plans = {{"acceptance"}},
            // Each rank's figure is its share of the shared system, no property of its node.
            // Across nodes each measured alone on the path, its rates are the node's (one rank
            // per node, or each rank with --every-rank: ranks per node are part of the peers').
            .peers = {.compared = false,
                      .across_runs_only = {"read_alone_bw", "read_contended_bw", "write_alone_bw",
                                           "write_contended_bw"}},
        }) {}

 protected:
  void run_on_path(LocalRun& run) override {
    const std::string rank = std::to_string(run.rank);
    const auto data = run.scratch.create_file("r" + rank + "-data.dat", run.options.file_size);
    {
      auto engine = make_io_engine(run.engine_name, run.options.queue_depth);
      write_pattern_file(*engine, run.scratch, data, run.options.file_size, run.rank, run.options);
    }
    drop_page_cache(run.scratch, data);

    IoLoopResult read_alone = read_data(run, data, nullptr);
    const CheckpointWrite write_alone = write_ckpt(run, "r" + rank + "-ckpt-alone.dat", nullptr);
    run.scratch.remove_file(run.scratch.path() / ("r" + rank + "-ckpt-alone.dat"));

    // Together: the reader runs until the checkpoint is durable (and at least its duration once).
    std::atomic<bool> writer_done{false};
    CheckpointWrite write_together;
    std::exception_ptr writer_error;
    std::thread writer([&] {
      try {
        write_together = write_ckpt(run, "r" + rank + "-ckpt-together.dat", nullptr);
      } catch (...) {
        writer_error = std::current_exception();
      }
      writer_done = true;
    });
    IoLoopResult read_together;
    std::exception_ptr reader_error;
    try {
      read_together = read_data(run, data, &writer_done);
    } catch (...) {
      reader_error = std::current_exception();
    }
    writer.join();
    if (writer_error) std::rethrow_exception(writer_error);
    if (reader_error) std::rethrow_exception(reader_error);

    const double write_alone_bw = checkpoint_gbps(write_alone);
    const double write_together_bw = checkpoint_gbps(write_together);
    run.params["block_size"] = std::to_string(run.options.block_size);
    run.params["read_queue_depth"] = std::to_string(run.options.queue_depth);
    run.params["file_size"] = std::to_string(run.options.file_size);
    run.params["ckpt_size"] = std::to_string(run.options.ckpt_size);
    emit(run, "read_alone_bw", read_alone.gbps(), "GB/s");
    emit(run, "read_contended_bw", read_together.gbps(), "GB/s");
    emit(run, "write_alone_bw", write_alone_bw, "GB/s");
    emit(run, "write_contended_bw", write_together_bw, "GB/s");
    emit(run, "read_slowdown", ratio(read_alone.gbps(), read_together.gbps()), "ratio");
    emit(run, "write_slowdown", ratio(write_alone_bw, write_together_bw), "ratio");
    const std::uint64_t wrong = read_alone.wrong_bytes + read_together.wrong_bytes;
    auto first_bad =
        read_alone.first_bad_offset ? read_alone.first_bad_offset : read_together.first_bad_offset;
    run.sink.emit(integrity_measurement(id(), run.target, data, wrong, first_bad));
  }

 private:
  IoLoopResult read_data(LocalRun& run, const std::filesystem::path& data,
                         const std::atomic<bool>* writer_done) const {
    auto engine = make_io_engine(run.engine_name, run.options.queue_depth);
    bool direct = false;
    const int handle =
        open_for_pattern(*engine, run.scratch, data, OpenAccess::read_only, run.options.direct, direct);
    IoLoopConfig config;
    config.op = IoOp::read;
    config.block_size = run.options.block_size;
    config.queue_depth = run.options.queue_depth;
    config.region_bytes = run.options.file_size;
    config.duration_s = writer_done == nullptr ? run.options.duration_s : 0;
    config.pattern_rank = run.rank;
    config.file_label = data.string();
    config.stop = writer_done;
    IoLoopResult result = run_io_loop(*engine, handle, config);
    engine->close(handle);
    return result;
  }

  CheckpointWrite write_ckpt(LocalRun& run, const std::string& name,
                             const std::atomic<bool>* stop) const {
    auto engine = make_io_engine(run.engine_name, run.options.queue_depth);
    return write_checkpoint(*engine, run.scratch, name, run.options.ckpt_size, run.rank,
                            run.options, now_seconds(), stop);
  }

  static double checkpoint_gbps(const CheckpointWrite& write) {
    const double seconds = write.close_s - write.open_s;
    return seconds > 0 ? static_cast<double>(write.loop.bytes) / seconds / 1e9 : 0;
  }

  static double ratio(double alone, double together) { return together > 0 ? alone / together : 0; }

  void emit(LocalRun& run, const std::string& metric, double value, const std::string& unit) const {
    run.sink.emit(run.measurement(id(), metric, value, unit));
  }
};

}  // namespace

std::unique_ptr<Probe> make_contention_probe() { return std::make_unique<ContentionProbe>(); }

}  // namespace fabcheck
