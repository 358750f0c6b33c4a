// storage.seq_write: sequential 1 MiB writes at QD 32 with O_DIRECT over a file per node,
// time-bounded, every byte written with the data pattern, then read back and verified.
#include "storage/local_probe.hpp"
#include "storage/pattern_file.hpp"
#include "storage/sequential_pattern.hpp"
#include "storage/storage_measurement.hpp"

namespace fabcheck {

namespace {

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
        open_for_pattern(*engine, run.scratch, file, OpenAccess::read_write, run.options.direct, direct);
    set_sequential_params(run, direct);
    const IoLoopResult written =
        run_io_loop(*engine, handle, sequential_config(IoOp::write, run.options, file, run.rank));
    // Untimed read-back of what was written (the whole file once a pass completed).
    IoLoopConfig check = sequential_config(IoOp::read, run.options, file, run.rank);
    check.duration_s = 0;
    check.region_bytes = std::min(written.bytes, run.options.file_size);
    check.max_bytes = check.region_bytes;
    check.block_size = std::min(check.block_size, check.region_bytes);
    if (!direct) drop_page_cache(run.scratch, file);
    const IoLoopResult verified = run_io_loop(*engine, handle, check);
    engine->close(handle);

    run.sink.emit(sequential_bandwidth(run, id(), written));
    run.sink.emit(integrity_measurement(id(), run.target, file, verified.wrong_bytes,
                                        verified.first_bad_offset));
  }
};

}  // namespace

std::unique_ptr<Probe> make_seq_write_probe() { return std::make_unique<SeqWriteProbe>(); }

}  // namespace fabcheck
