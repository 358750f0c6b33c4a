// storage.ckpt_write and storage.ckpt_read: IO500 ior-easy's shape on all ranks at once. Each rank
// writes its own file sequentially, fsyncs and closes; the read-back reads another rank's file
// (on another host where that host's file is visible, to defeat the client cache) and verifies it.
#include <sys/stat.h>

#include "bench/sys/timer.hpp"
#include "storage/probe_support.hpp"
#include "storage/rank_timeline.hpp"

namespace fabcheck {

namespace fs = std::filesystem;

namespace {

std::string checkpoint_name(int rank) { return "r" + std::to_string(rank) + "-ckpt.dat"; }

// The rank whose file this rank reads: the next rank on another host whose file it can see, else
// the next rank on this host, else its own file.
struct Partner {
  int rank = 0;
  std::string placement;  // "other host", "same host", "own file"
};

Partner choose_partner(const World& world, const fs::path& dir) {
  const int n = world.size();
  auto visible = [&](int rank) {
    struct stat info {};
    return ::stat((dir / checkpoint_name(rank)).c_str(), &info) == 0;
  };
  for (int step = 1; step < n; ++step) {
    const int rank = (world.rank() + step) % n;
    if (world.hosts()[static_cast<std::size_t>(rank)] != world.host() && visible(rank)) {
      return {rank, "other host"};
    }
  }
  for (int step = 1; step < n; ++step) {
    const int rank = (world.rank() + step) % n;
    if (visible(rank)) return {rank, "same host"};
  }
  return {world.rank(), "own file"};
}

std::vector<MetricSpec> checkpoint_metrics(bool with_integrity) {
  std::vector<MetricSpec> specs = {{"bw_aggregate", {"GB/s", Better::higher}},
                                   {"bw_first_done", {"GB/s", Better::higher}},
                                   {"bw_rank", {"GB/s", Better::higher}}};
  if (with_integrity) specs.push_back({"wrong_elements", {"count", Better::lower}});
  return specs;
}

// Emits the per-rank rate on every rank and the aggregates (rank -1) on the root.
void emit_phase(World& world, MeasurementSink& sink, const std::string& probe,
                const StorageTarget& target, const std::map<std::string, std::string>& params,
                const RankPhase& mine, std::uint64_t size) {
  const PhaseAggregate all = aggregate_phase_across_ranks(world, mine);
  auto with_params = [&](Measurement measurement) {
    for (const auto& [key, value] : params) measurement.params[key] = value;
    measurement.size_bytes = size;
    return measurement;
  };
  const double own_seconds = mine.close_s - mine.open_s;
  Measurement rank_rate = with_params(storage_measurement(
      probe, "bw_rank", own_seconds > 0 ? mine.amount / own_seconds / 1e9 : 0, "GB/s", target));
  rank_rate.params["seconds"] = std::to_string(own_seconds);
  sink.emit(std::move(rank_rate));
  if (!world.is_root()) return;
  const std::map<std::string, std::string> timeline = {
      {"ranks", std::to_string(world.size())},
      {"total_bytes", std::to_string(static_cast<std::uint64_t>(all.total))},
      {"first_open_s", std::to_string(all.first_open_s)},
      {"first_close_s", std::to_string(all.first_close_s)},
      {"last_close_s", std::to_string(all.last_close_s)},
      {"clock", "offsets from a common barrier exit on each rank"}};
  for (const auto& [metric, rate] : {std::pair{"bw_aggregate", all.aggregate_rate},
                                     std::pair{"bw_first_done", all.first_done_rate}}) {
    Measurement measurement =
        with_params(storage_measurement(probe, metric, rate / 1e9, "GB/s", target));
    measurement.rank = -1;
    measurement.host = world.joined_hosts();  // combined across ranks: not stamped
    measurement.params["scope"] = "all ranks";
    for (const auto& [key, value] : timeline) measurement.params[key] = value;
    sink.emit(std::move(measurement));
  }
}

// One checkpoint file per rank of the world.
std::uint64_t file_per_rank(const RunOptions& options, int world_size) {
  return storage_options_from(options).ckpt_size * static_cast<std::uint64_t>(world_size);
}

class CheckpointProbe : public Probe {
 public:
  explicit CheckpointProbe(bool read_back)
      : Probe(storage_probe_info({
            .id = read_back ? "storage.ckpt_read" : "storage.ckpt_write",
            .description =
                read_back ? "every rank reads another rank's checkpoint file (another host where "
                            "possible) and verifies it; aggregate, first-done and per-rank GB/s"
                          : "every rank writes its own checkpoint file, fsync, close (ior-easy); "
                            "aggregate = bytes / (last close - first open), first-done, per-rank "
                            "GB/s",
            .metrics = checkpoint_metrics(read_back),
            .scope = ProbeScope::rank,
            .options = checkpoint_options(),
            .storage_bytes = file_per_rank,
            .plans = {{"acceptance"}},
            // Each rank's figure is its share of the shared system (striping, who started first),
            // no property of its node: four healthy ranks on one disk read 0.11 to 0.51 GB/s.
            .peers = {.compared = false},
        })),
        read_back_(read_back) {}

  void run(RunContext& context, MeasurementSink& sink) override {
    const StorageOptions options = storage_options_from(context.options);
    World& world = context.world;
    const std::string name = scratch_dir_name(shared_run_id(world) + "-" + probe_name());
    for (const std::string& path : context.options.storage_paths) {
      const StorageTarget target = discover_storage_target(path, context.options.sysfs_root);
      SharedScratch scratch = open_shared_scratch(world, path, name);
      run_on_path(world, options, target, *scratch.dir, scratch.shared_across_hosts, sink);
      close_shared_scratch(world, scratch);
    }
  }

 private:
  std::string probe_name() const { return read_back_ ? "ckpt_read" : "ckpt_write"; }

  void run_on_path(World& world, const StorageOptions& options, const StorageTarget& target,
                   ScratchDir& scratch, bool shared, MeasurementSink& sink) const {
    auto engine = make_io_engine(selected_engine(options), options.queue_depth);
    std::map<std::string, std::string> params = {{"engine", engine->name()},
                                                 {"block_size", std::to_string(options.block_size)},
                                                 {"shared_across_hosts", shared ? "1" : "0"}};
    world.barrier();
    double origin = now_seconds();
    const CheckpointWrite written =
        write_checkpoint(*engine, scratch, checkpoint_name(world.rank()), options.ckpt_size,
                         world.rank(), options, origin);
    params["direct"] = written.direct ? "1" : "0 (buffered + fsync)";
    if (!read_back_) {
      RankPhase mine{written.open_s, written.close_s, static_cast<double>(written.loop.bytes),
                     written.loop.progress};
      emit_phase(world, sink, id(), target, params, mine, options.ckpt_size);
      return;
    }
    drop_page_cache(scratch.path() / checkpoint_name(world.rank()));
    world.barrier();  // every file is complete before anyone reads
    const Partner partner = choose_partner(world, scratch.path());
    const fs::path file = scratch.path() / checkpoint_name(partner.rank);
    params["read_from"] = world.describe_rank(partner.rank);
    params["placement"] = partner.placement;
    params["file"] = file.string();

    world.barrier();
    origin = now_seconds();
    bool direct = false;
    const double open_s = now_seconds() - origin;
    const int handle = open_for_pattern(*engine, file, OpenAccess::read_only, true, direct);
    IoLoopConfig config;
    config.op = IoOp::read;
    config.block_size = std::min(options.block_size, options.ckpt_size);
    config.queue_depth = options.queue_depth;
    config.region_bytes = options.ckpt_size;
    config.max_bytes = options.ckpt_size;
    config.pattern_rank = partner.rank;
    config.file_label = file.string();
    config.time_origin = origin;
    config.record_progress = true;
    const IoLoopResult read = run_io_loop(*engine, handle, config);
    engine->close(handle);
    const double close_s = now_seconds() - origin;
    params["direct"] = direct ? "1" : "0";
    RankPhase mine{open_s, close_s, static_cast<double>(read.bytes), read.progress};
    emit_phase(world, sink, id(), target, params, mine, options.ckpt_size);
    sink.emit(integrity_measurement(id(), target, file, read.wrong_bytes, read.first_bad_offset));
  }

  bool read_back_;
};

}  // namespace

std::unique_ptr<Probe> make_ckpt_write_probe() { return std::make_unique<CheckpointProbe>(false); }
std::unique_ptr<Probe> make_ckpt_read_probe() { return std::make_unique<CheckpointProbe>(true); }

}  // namespace fabcheck
