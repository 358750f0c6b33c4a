// LocalPatternProbe: run id, per-host scratch directory, discovery, then the pattern.
#include "storage/local_probe.hpp"

#include <cstdio>

#include "storage/shared_scratch.hpp"
#include "storage/storage_measurement.hpp"
#include "storage/storage_probe_info.hpp"

namespace fabcheck {

Measurement LocalRun::measurement(const std::string& probe, const std::string& metric, double value,
                                  const std::string& unit) const {
  Measurement result = storage_measurement(probe, metric, value, unit, target);
  result.params["engine"] = engine_name;
  for (const auto& [key, text] : params) result.params[key] = text;
  return result;
}

std::uint64_t local_pattern_bytes(const RunOptions& options, int world_size,
                                  std::uint64_t per_owner) {
  return options.host_probes_on_every_rank ? per_owner * static_cast<std::uint64_t>(world_size)
                                           : per_owner;
}

LocalPatternProbe::LocalPatternProbe(ProbeInfo info) : Probe(storage_probe_info(std::move(info))) {}

void LocalPatternProbe::run(RunContext& context, MeasurementSink& sink) {
  const StorageOptions options = storage_options_from(context.options);
  World& world = context.world;
  const std::string run_id = shared_run_id(world);
  if (!context.runs_host_scoped()) return;
  // One scratch folder per host, or per rank when every rank runs the pattern.
  const std::string owner = context.options.host_probes_on_every_rank
                                ? world.host() + "-r" + std::to_string(world.rank())
                                : world.host();
  const std::string name = scratch_dir_name(run_id + "-" + owner + "-" + probe_short_name(id()));
  for (const std::string& path : context.options.storage_paths) {
    const StorageTarget target = discover_storage_target(path, context.options.sysfs_root);
    sink.note(id() + " " + target.summary() + "\n");
    auto scratch = ScratchDir::create(path, name);
    LocalRun local{target,       *scratch, options, context.options, selected_engine(options),
                   world.rank(), sink,     {}};
    run_on_path(local);
    if (!scratch->remove_all()) {
      throw std::runtime_error("could not remove all of " + scratch->path().string());
    }
  }
}

}  // namespace fabcheck
