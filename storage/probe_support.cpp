// Shared storage-probe plumbing: run id, scratch directories across ranks, pattern files,
// checkpoint writes and measurement records.
#include "storage/probe_support.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <random>
#include <system_error>

#include "bench/core/rank_agreement.hpp"
#include "bench/sys/timer.hpp"

namespace fabcheck {

namespace fs = std::filesystem;

Requirement storage_path_requirement() {
  return {"--storage-path", true, [](const World&, const RunOptions& options) {
            return options.storage_paths.empty() ? std::string("no --storage-path given")
                                                 : std::string();
          }};
}

std::string number_seconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", seconds);
  return text;
}

double assumed_storage_seconds(double bytes) { return bytes / (kAssumedStorageGBps * 1e9); }

ProbeEstimate storage_estimate(const RunOptions& options, double per_path_s, std::string knobs) {
  const double paths = static_cast<double>(std::max<std::size_t>(1, options.storage_paths.size()));
  return {paths * (kAssumedStoragePathSetup_s + per_path_s), std::move(knobs)};
}

ProbeInfo storage_probe_info(ProbeInfo info) {
  info.needs.insert(info.needs.begin(), storage_path_requirement());
  info.heavy = true;
  info.plan_stage = plan_stage::storage;
  info.check_options = [](const RunOptions& options) { storage_options_from(options); };
  return info;
}

std::string shared_run_id(World& world) {
  std::string mine;
  if (world.is_root()) {
    std::random_device random;
    char suffix[9];
    std::snprintf(suffix, sizeof(suffix), "%08x", static_cast<unsigned>(random()));
    mine = utc_timestamp_compact() + "-" + world.host() + "-" + std::to_string(::getpid()) + "-" +
           suffix;
  }
  return world.broadcast_value(mine);
}

SharedScratch open_shared_scratch(World& world, const fs::path& path, const std::string& name) {
  SharedScratch scratch;
  const fs::path dir = path / name;
  // Each step can fail on some ranks only (a name taken, a folder not writable): every rank then
  // stops at once with a RankFailure naming the rank that failed, instead of waiting in the next
  // collective for a rank that left.
  run_on_every_rank(world, "creating the scratch folder " + dir.string(), [&] {
    if (world.is_root()) scratch.dir = ScratchDir::create(path, name);
  });
  run_on_every_rank(world, "creating the scratch folder " + dir.string() + " on each host", [&] {
    std::error_code error;
    const bool visible = world.is_root() || fs::is_directory(dir, error);
    if (!visible && world.local_rank() == 0) scratch.dir = ScratchDir::create(path, name);
  });
  run_on_every_rank(world, "opening the scratch folder " + dir.string(), [&] {
    if (!scratch.dir) scratch.dir = ScratchDir::join(dir);
  });
  std::vector<double> creators{scratch.dir->owns_directory() ? 1.0 : 0.0};
  world.sum_in_place(creators);
  scratch.shared_across_hosts = creators[0] == 1.0;
  return scratch;
}

void close_shared_scratch(World& world, SharedScratch& scratch) {
  if (scratch.dir && !scratch.dir->owns_directory()) scratch.dir.reset();
  world.barrier();
  scratch.dir.reset();
}

int open_for_pattern(IoEngine& engine, const fs::path& file, OpenAccess access, bool want_direct,
                     bool& direct) {
  direct = want_direct;
  if (want_direct) {
    try {
      return engine.open(file, {access, true});
    } catch (const std::system_error& error) {
      if (error.code().value() != EINVAL) throw;  // EINVAL: the filesystem refuses O_DIRECT
      direct = false;
    }
  }
  return engine.open(file, {access, false});
}

namespace {

void fsync_file(IoEngine& engine, int handle, const fs::path& file) {
  const IoRequest request{IoOp::fsync, handle, nullptr, 0, 0, 0};
  engine.submit({&request, 1});
  IoCompletion completion;
  while (engine.reap(1, {&completion, 1}) == 0) {
  }
  if (completion.result < 0) {
    throw std::system_error(static_cast<int>(-completion.result), std::generic_category(),
                            "fsync " + file.string());
  }
}

}  // namespace

void write_pattern_file(IoEngine& engine, const fs::path& file, std::uint64_t size, int rank,
                        const StorageOptions& options) {
  bool direct = false;
  const int handle = open_for_pattern(engine, file, OpenAccess::write_only, options.direct, direct);
  IoLoopConfig config;
  config.op = IoOp::write;
  config.block_size = std::min(options.block_size, size);
  config.queue_depth = options.queue_depth;
  config.region_bytes = size;
  config.max_bytes = size;
  config.pattern_rank = rank;
  config.file_label = file.string();
  run_io_loop(engine, handle, config);
  fsync_file(engine, handle, file);
  engine.close(handle);
}

CheckpointWrite write_checkpoint(IoEngine& engine, ScratchDir& scratch, const std::string& name,
                                 std::uint64_t size, int rank, const StorageOptions& options,
                                 double origin, const std::atomic<bool>* stop) {
  CheckpointWrite result;
  result.open_s = now_seconds() - origin;
  const fs::path file = scratch.create_file(name);
  const int handle =
      open_for_pattern(engine, file, OpenAccess::write_only, options.ckpt_direct, result.direct);
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

void drop_page_cache(const fs::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  ::fdatasync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

Measurement storage_measurement(const std::string& probe, const std::string& metric, double value,
                                const std::string& unit, const StorageTarget& target) {
  Measurement measurement = make_measurement(probe, metric, value, unit, target.path);
  measurement.params = target.params();
  return measurement;
}

Measurement integrity_measurement(const std::string& probe, const StorageTarget& target,
                                  const fs::path& file, std::uint64_t wrong_bytes,
                                  std::optional<std::uint64_t> first_bad_offset) {
  Measurement measurement = storage_measurement(probe, "wrong_elements",
                                                static_cast<double>(wrong_bytes), "count", target);
  measurement.params["file"] = file.string();
  measurement.params["element"] = "byte";
  if (first_bad_offset) {
    measurement.params["first_bad_offset"] = std::to_string(*first_bad_offset);
    measurement.message = "data mismatch in " + file.string() + " at offset " +
                          std::to_string(*first_bad_offset) + " (" + std::to_string(wrong_bytes) +
                          " bytes differ)";
  }
  return measurement;
}

}  // namespace fabcheck
