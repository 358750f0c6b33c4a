// The checkpoint patterns' shared machinery: the write, the phase's rates, the frame on each path.
#include "storage/checkpoint_pattern.hpp"

#include <algorithm>
#include <utility>

#include "bench/sys/timer.hpp"
#include "storage/pattern_file.hpp"
#include "storage/shared_scratch.hpp"
#include "storage/storage_measurement.hpp"
#include "storage/storage_probe_info.hpp"

namespace fabcheck {

namespace fs = std::filesystem;

CheckpointWrite write_checkpoint(IoEngine& engine, ScratchDir& scratch, const std::string& name,
                                 std::uint64_t size, int rank, const StorageOptions& options,
                                 double origin, const std::atomic<bool>* stop) {
  CheckpointWrite result;
  result.open_s = now_seconds() - origin;
  const fs::path file = scratch.create_file(name);
  const int handle =
      open_for_pattern(engine, scratch, file, OpenAccess::write_only, options.ckpt_direct, result.direct);
  IoLoopConfig config;
  config.op = IoOp::write;
  config.block_size = std::min(options.block_size, size);
  config.queue_depth = result.direct ? options.queue_depth : 1;
  config.region_bytes = size;
  config.max_bytes = size;
  config.pattern_rank = rank;
  config.file_label = file.string();
  config.time_origin = origin;
  config.record_progress = true;
  config.stop = stop;
  result.loop = run_io_loop(engine, handle, config);
  fsync_file(engine, handle, file);
  engine.close(handle);
  result.loop.end_s = now_seconds();
  result.close_s = result.loop.end_s - origin;
  return result;
}

std::string checkpoint_name(int rank) { return "r" + std::to_string(rank) + "-ckpt.dat"; }

std::vector<MetricSpec> checkpoint_metrics(bool with_integrity) {
  std::vector<MetricSpec> specs = {{"bw_aggregate", {"GB/s", Better::higher}},
                                   {"bw_first_done", {"GB/s", Better::higher}},
                                   {"bw_rank", {"GB/s", Better::higher}}};
  if (with_integrity) specs.push_back({"wrong_elements", {"count", Better::lower}});
  return specs;
}

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

std::uint64_t file_per_rank(const RunOptions& options, int world_size) {
  return storage_options_from(options).ckpt_size * static_cast<std::uint64_t>(world_size);
}

CheckpointProbe::CheckpointProbe(ProbeInfo info) : Probe(storage_probe_info(std::move(info))) {}

void CheckpointProbe::run(RunContext& context, MeasurementSink& sink) {
  const StorageOptions options = storage_options_from(context.options);
  World& world = context.world;
  const std::string name = scratch_dir_name(shared_run_id(world) + "-" + probe_short_name(id()));
  for (const std::string& path : context.options.storage_paths) {
    const StorageTarget target = discover_storage_target(path, context.options.sysfs_root);
    SharedScratch scratch = open_shared_scratch(world, path, name);
    run_on_path(world, options, target, *scratch.dir, scratch.shared_across_hosts, sink);
    close_shared_scratch(world, scratch);
  }
}

void CheckpointProbe::run_on_path(World& world, const StorageOptions& options,
                                  const StorageTarget& target, ScratchDir& scratch, bool shared,
                                  MeasurementSink& sink) const {
  auto engine = make_io_engine(selected_engine(options), options.queue_depth);
  CheckpointPath path{world,
                      options,
                      target,
                      scratch,
                      *engine,
                      sink,
                      {{"engine", engine->name()},
                       {"block_size", std::to_string(options.block_size)},
                       {"shared_across_hosts", shared ? "1" : "0"}},
                      {}};
  world.barrier();
  const double origin = now_seconds();
  path.written = write_checkpoint(*engine, scratch, checkpoint_name(world.rank()),
                                  options.ckpt_size, world.rank(), options, origin);
  path.params["direct"] = path.written.direct ? "1" : "0 (buffered + fsync)";
  after_write(path);
}

}  // namespace fabcheck
