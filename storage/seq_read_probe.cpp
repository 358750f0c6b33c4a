// storage.seq_read: sequential 1 MiB reads at QD 32 with O_DIRECT of a file per node written with
// the data pattern beforehand, time-bounded, every block verified.
#include "storage/local_probe.hpp"
#include "storage/pattern_file.hpp"
#include "storage/sequential_pattern.hpp"
#include "storage/storage_measurement.hpp"

namespace fabcheck {

namespace {

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
    write_pattern_file(*engine, run.scratch, file, run.options.file_size, run.rank, run.options);
    bool direct = false;
    const int handle =
        open_for_pattern(*engine, run.scratch, file, OpenAccess::read_only, run.options.direct, direct);
    if (!direct) drop_page_cache(run.scratch, file);
    set_sequential_params(run, direct);
    const IoLoopResult read =
        run_io_loop(*engine, handle, sequential_config(IoOp::read, run.options, file, run.rank));
    engine->close(handle);

    run.sink.emit(sequential_bandwidth(run, id(), read));
    run.sink.emit(
        integrity_measurement(id(), run.target, file, read.wrong_bytes, read.first_bad_offset));
  }
};

}  // namespace

std::unique_ptr<Probe> make_seq_read_probe() { return std::make_unique<SeqReadProbe>(); }

}  // namespace fabcheck
