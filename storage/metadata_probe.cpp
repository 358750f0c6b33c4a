// storage.metadata: mdtest-easy's shape. Every rank creates, stats and removes storage.md_files
// empty files in a directory of its own; each phase starts on a barrier and its rate is the total
// over the slowest rank's time.
#include <sys/stat.h>

#include <cerrno>
#include <system_error>

#include "bench/core/rank_agreement.hpp"
#include "bench/sys/timer.hpp"
#include "storage/rank_timeline.hpp"
#include "storage/shared_scratch.hpp"
#include "storage/storage_measurement.hpp"
#include "storage/storage_probe_info.hpp"

namespace fabcheck {

namespace fs = std::filesystem;

namespace {

const OptionSpec kMdFiles{.key = "storage.md_files",
                          .type = OptionType::integer,
                          .default_value = "500",
                          .meaning = "empty files per rank for storage.metadata",
                          .min = 1,
                          .max = 10'000'000};

std::uint64_t md_files(const RunOptions& options) {
  return static_cast<std::uint64_t>(option_integer(options, kMdFiles));
}

class MetadataProbe final : public Probe {
 public:
  MetadataProbe()
      : Probe(storage_probe_info({
            .id = "storage.metadata",
            .description =
                "empty files in a directory per rank: create, stat and remove rates over all ranks",
            .metrics = {{"create_rate", {"op/s", Better::higher}},
                        {"stat_rate", {"op/s", Better::higher}},
                        {"remove_rate", {"op/s", Better::higher}}},
            .scope = ProbeScope::world,
            .options = {kMdFiles},
            .storage_bytes =
                [](const RunOptions& options, int world_size) {
                  // inodes and directory blocks, roughly
                  return md_files(options) *
                         static_cast<std::uint64_t>(world_size) * 4096;
                },
            .plans = {{"acceptance"}},
        })) {}

  void run(RunContext& context, MeasurementSink& sink) override {
    const std::uint64_t files = md_files(context.options);
    World& world = context.world;
    const std::string name = scratch_dir_name(shared_run_id(world) + "-metadata");
    for (const std::string& path : context.options.storage_paths) {
      const StorageTarget target = discover_storage_target(path, context.options.sysfs_root);
      SharedScratch scratch = open_shared_scratch(world, path, name);
      run_on_path(world, files, target, *scratch.dir, scratch.shared_across_hosts, sink);
      close_shared_scratch(world, scratch);
    }
  }

 private:
  void run_on_path(World& world, std::uint64_t files, const StorageTarget& target,
                   ScratchDir& scratch, bool shared, MeasurementSink& sink) const {
    const std::string dir = "r" + std::to_string(world.rank()) + "-md";
    run_on_every_rank(world, "creating each rank's folder in " + scratch.path().string(),
                      [&] { scratch.create_subdir(dir); });
    std::vector<fs::path> paths;
    paths.reserve(files);
    for (std::uint64_t i = 0; i < files; ++i) paths.push_back(dir + "/f" + std::to_string(i));

    const double created = timed_phase(world, "creating files", [&] {
      for (const fs::path& relative : paths) scratch.create_file(relative.string());
    });
    const double statted = timed_phase(world, "stat of the files", [&] {
      struct stat info {};
      for (const fs::path& relative : paths) {
        if (const int error = scratch.stat_file(relative, info); error != 0) {
          throw std::system_error(error, std::generic_category(),
                                  "stat " + (scratch.path() / relative).string());
        }
      }
    });
    const double removed = timed_phase(world, "removing the files", [&] {
      for (const fs::path& relative : paths) scratch.remove_file(scratch.path() / relative);
    });

    const std::map<std::string, double> phase_seconds = {
        {"create_rate", created}, {"stat_rate", statted}, {"remove_rate", removed}};
    for (const auto& [metric, seconds] : phase_seconds) {
      const PhaseAggregate all = aggregate_phase_across_ranks(
          world, RankPhase{0, seconds, static_cast<double>(files), {}});
      if (!world.is_root()) continue;
      Measurement measurement =
          storage_measurement(id(), metric, all.aggregate_rate, "op/s", target);
      measurement.rank = -1;
      measurement.host = world.joined_hosts();  // combined across ranks: not stamped
      measurement.params["scope"] = "all ranks";
      measurement.params["ranks"] = std::to_string(world.size());
      measurement.params["files_per_rank"] = std::to_string(files);
      measurement.params["slowest_rank_s"] = std::to_string(all.last_close_s);
      measurement.params["first_done_rate"] = std::to_string(all.first_done_rate);
      measurement.params["shared_across_hosts"] = shared ? "1" : "0";
      sink.emit(std::move(measurement));
    }
  }

  // Seconds the phase took on this rank, from a common barrier exit. Times `body` from a common
  // start; a failure on any rank then ends the phase on every rank, naming it (after the clock
  // stopped, so the agreement costs nothing timed).
  template <typename Body>
  static double timed_phase(World& world, const std::string& step, Body&& body) {
    world.barrier();
    const double start = now_seconds();
    std::string error;
    try {
      body();
    } catch (const std::exception& failure) {
      error = failure.what();
    }
    const double seconds = now_seconds() - start;
    agree_on_success(world, step, error);
    return seconds;
  }
};

}  // namespace

std::unique_ptr<Probe> make_metadata_probe() { return std::make_unique<MetadataProbe>(); }

}  // namespace fabcheck
