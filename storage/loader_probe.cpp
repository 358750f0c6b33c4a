// storage.loader: a data loader's feed rate from a path. The same bytes once as many small files
// (one sample each, read whole at random: open, read, close, as a shuffled dataset is) and once as
// a few large shards read sequentially, each with 1, 4, 16 reader threads (storage.loader_workers),
// buffered as loaders read, the page cache dropped before each point; samples/s and GB/s.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <numeric>
#include <random>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "bench/sys/config_error.hpp"
#include "bench/sys/timer.hpp"
#include "results/units.hpp"
#include "storage/data_pattern.hpp"
#include "storage/local_probe.hpp"

namespace fabcheck {
namespace {

constexpr std::size_t kFilesPerDir = 1000;  // as datasets are laid out: no huge directories
constexpr std::size_t kShardChunk = 1 << 20;

const OptionSpec kLoaderBytes{
    .key = "storage.loader_bytes",
    .type = OptionType::byte_size,
    .default_value = "256M",
    .meaning = "data set of storage.loader, written twice (small files, shards)",
    .min = kStoragePageBytes,
    .multiple_of = 4096};
const OptionSpec kLoaderSample{.key = "storage.loader_sample",
                               .type = OptionType::byte_size,
                               .default_value = "128K",
                               .meaning = "sample size of storage.loader: one small file each",
                               .min = 8,
                               .multiple_of = 8};
const OptionSpec kLoaderShard{.key = "storage.loader_shard",
                              .type = OptionType::byte_size,
                              .default_value = "64M",
                              .meaning = "shard size of storage.loader's sequential layout",
                              .min = kStoragePageBytes,
                              .multiple_of = 4096};
const OptionSpec kLoaderWorkers{.key = "storage.loader_workers",
                                .type = OptionType::integer_list,
                                .default_value = "1,4,16",
                                .meaning = "reader threads storage.loader sweeps",
                                .min = 1,
                                .max = 1024};

// What storage.loader reads: the data set, sample and shard sizes, readers, time a point.
std::vector<OptionSpec> loader_options() {
  return {kLoaderBytes, kLoaderSample, kLoaderShard, kLoaderWorkers,
          storage_option_specs().duration_s};
}

struct LoaderOptions {
  std::uint64_t bytes = 0;   // storage.loader_bytes: the data set
  std::uint64_t sample = 0;  // storage.loader_sample: one sample = one small file
  std::uint64_t shard = 0;   // storage.loader_shard: the same bytes in shards
  std::vector<int> workers;  // storage.loader_workers: reader threads swept
};

// Throws ConfigError for a data set smaller than one sample or one shard.
LoaderOptions loader_options_from(const RunOptions& options) {
  LoaderOptions result;
  result.bytes = option_bytes(options, kLoaderBytes);
  result.sample = option_bytes(options, kLoaderSample);
  result.shard = option_bytes(options, kLoaderShard);
  for (const std::int64_t workers : option_integers(options, kLoaderWorkers))
    result.workers.push_back(static_cast<int>(workers));
  if (result.bytes < result.sample || result.bytes < result.shard) {
    throw ConfigError("--opt storage.loader_bytes=" + format_bytes(result.bytes) +
                      ": smaller than one sample (storage.loader_sample, " +
                      format_bytes(result.sample) + ") or one shard (storage.loader_shard, " +
                      format_bytes(result.shard) + ")");
  }
  return result;
}

void write_file(const ScratchDir& scratch, const std::filesystem::path& file, std::uint64_t size,
                int rank, std::uint64_t pattern_offset) {
  const UniqueFd fd = scratch.open_file(file, O_WRONLY);
  std::vector<std::byte> buffer(
      static_cast<std::size_t>(std::min<std::uint64_t>(size, kShardChunk)));
  for (std::uint64_t done = 0; done < size;) {
    const std::size_t length =
        static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), size - done));
    fill_pattern({buffer.data(), length}, rank, pattern_offset + done);
    const ssize_t wrote = ::pwrite(fd.get(), buffer.data(), length, static_cast<off_t>(done));
    if (wrote <= 0)
      throw std::system_error(errno, std::generic_category(), "write " + file.string());
    done += static_cast<std::uint64_t>(wrote);
  }
}

// Writes back every file written so far with one syncfs instead of one fsync a file (thousands of
// cache flushes, most of the probe's time): pages must be clean before drop_cached can drop them.
void sync_written(const ScratchDir& scratch) {
  if (::syncfs(scratch.folder_fd()) != 0)
    throw std::system_error(errno, std::generic_category(), "syncfs " + scratch.path().string());
}

// Drops the files' clean pages so every read comes from the device or the server.
void drop_cached(const ScratchDir& scratch, const std::vector<std::filesystem::path>& files) {
  for (const auto& file : files) {
    try {
      ::posix_fadvise(scratch.open_file(file, O_RDONLY).get(), 0, 0, POSIX_FADV_DONTNEED);
    } catch (const std::system_error&) {
      // Best effort: the read that follows reports a file that is not there.
    }
  }
}

struct ReadPoint {
  std::uint64_t files = 0;
  std::uint64_t bytes = 0;
  std::uint64_t wrong = 0;  // files whose first word is not the pattern's
  double seconds = 0;
};

// `workers` threads take files from `order` in turn (each file at most once) until all are read or
// `duration_s` passed; each file is opened, read whole in `chunk` pieces and closed.
ReadPoint read_files(const ScratchDir& scratch, const std::vector<std::filesystem::path>& files,
                     const std::vector<std::uint64_t>& pattern_offsets,
                     const std::vector<std::size_t>& order, std::size_t chunk, int workers,
                     double duration_s, int rank) {
  std::atomic<std::size_t> next{0};
  std::atomic<std::uint64_t> done_files{0}, done_bytes{0}, wrong{0};
  std::atomic<bool> failed{false};
  std::string failure;
  std::mutex failure_mutex;
  const double start = now_seconds();
  const double deadline = start + duration_s;
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w) {
    threads.emplace_back([&] {
      std::vector<std::byte> buffer(chunk);
      while (!failed && now_seconds() < deadline) {
        const std::size_t index = next.fetch_add(1);
        if (index >= order.size()) return;
        const std::size_t which = order[index];
        int fd = -1;
        try {
          fd = scratch.open_file(files[which], O_RDONLY).release();
        } catch (const std::system_error&) {
        }
        bool ok = fd >= 0;
        std::uint64_t got = 0;
        bool first = true;
        while (ok) {
          const ssize_t n = ::read(fd, buffer.data(), buffer.size());
          if (n < 0 && errno == EINTR) continue;
          if (n < 0) ok = false;
          if (n <= 0) break;
          if (first && n >= 8) {
            std::uint64_t word = 0;
            std::memcpy(&word, buffer.data(), sizeof word);
            if (word != pattern_word(rank, pattern_offsets[which])) ++wrong;
            first = false;
          }
          got += static_cast<std::uint64_t>(n);
        }
        if (fd >= 0) ::close(fd);
        if (!ok || got == 0) {
          std::lock_guard lock(failure_mutex);
          if (!failed.exchange(true)) failure = "cannot read " + files[which].string();
          return;
        }
        ++done_files;
        done_bytes += got;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  if (failed) throw std::runtime_error("storage.loader: " + failure);
  return {done_files.load(), done_bytes.load(), wrong.load(), now_seconds() - start};
}

// The small files and the shards, each the whole data set: per host, or per rank when every rank
// runs the pattern.
std::uint64_t both_layouts(const RunOptions& options, int world_size) {
  return local_pattern_bytes(options, world_size, 2 * loader_options_from(options).bytes);
}

class LoaderProbe final : public LocalPatternProbe {
 public:
  LoaderProbe()
      : LocalPatternProbe({
            .id = "storage.loader",
            .description =
                "a data loader's feed rate: the same bytes as many small files read whole at "
                "random and as large shards read in sequence, 1/4/16 reader threads "
                "(storage.loader_*), in samples/s and GB/s",
            .metrics = {{"small_files_samples_per_s", {"samples/s", Better::higher}},
                        {"small_files_gbps", {"GB/s", Better::higher}},
                        {"shards_samples_per_s", {"samples/s", Better::higher}},
                        {"shards_gbps", {"GB/s", Better::higher}},
                        {"small_vs_shards", {"ratio", Better::higher}},
                        {"wrong_elements", {"count", Better::lower}}},
            .scope = ProbeScope::host,
            .options = loader_options(),
            .storage_bytes = both_layouts,
            .check_options = [](const RunOptions& options) { loader_options_from(options); },
            .plans = {{"acceptance"}},
        }) {}

 protected:
  void run_on_path(LocalRun& run) override {
    const LoaderOptions o = loader_options_from(run.run_options);
    const double duration_s = run.options.duration_s;
    const std::size_t samples = static_cast<std::size_t>(o.bytes / o.sample);
    const std::size_t shards = static_cast<std::size_t>(o.bytes / o.shard);
    std::vector<std::filesystem::path> small, shard_files;
    std::vector<std::uint64_t> small_offsets, shard_offsets;
    for (std::size_t i = 0; i < samples; ++i) {
      if (i % kFilesPerDir == 0)
        run.scratch.create_subdir("small-" + std::to_string(i / kFilesPerDir));
      const std::string name =
          "small-" + std::to_string(i / kFilesPerDir) + "/" + std::to_string(i) + ".bin";
      small.push_back(run.scratch.create_file(name, o.sample));
      small_offsets.push_back(static_cast<std::uint64_t>(i) * o.sample);
      write_file(run.scratch, small.back(), o.sample, run.rank, small_offsets.back());
    }
    for (std::size_t i = 0; i < shards; ++i) {
      shard_files.push_back(
          run.scratch.create_file("shard-" + std::to_string(i) + ".bin", o.shard));
      shard_offsets.push_back(static_cast<std::uint64_t>(i) * o.shard);
      write_file(run.scratch, shard_files.back(), o.shard, run.rank, shard_offsets.back());
    }
    sync_written(run.scratch);
    run.params["samples"] = std::to_string(samples);
    run.params["sample_bytes"] = std::to_string(o.sample);
    run.params["shards"] = std::to_string(shards);
    run.params["shard_bytes"] = std::to_string(o.shard);

    std::vector<std::size_t> shuffled(samples);
    std::iota(shuffled.begin(), shuffled.end(), 0);
    std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(0x10ade5));
    std::vector<std::size_t> in_order(shards);
    std::iota(in_order.begin(), in_order.end(), 0);
    double best_small = 0, best_shards = 0;
    std::uint64_t wrong = 0;
    for (const int workers : o.workers) {
      drop_cached(run.scratch, small);
      const ReadPoint s = read_files(run.scratch, small, small_offsets, shuffled, o.sample, workers,
                                     duration_s, run.rank);
      drop_cached(run.scratch, shard_files);
      const ReadPoint h = read_files(run.scratch, shard_files, shard_offsets, in_order, kShardChunk, workers,
                                     duration_s, run.rank);
      wrong += s.wrong + h.wrong;
      const double small_gbps = s.seconds > 0 ? static_cast<double>(s.bytes) / s.seconds / 1e9 : 0;
      const double shard_gbps = h.seconds > 0 ? static_cast<double>(h.bytes) / h.seconds / 1e9 : 0;
      best_small = std::max(best_small, small_gbps);
      best_shards = std::max(best_shards, shard_gbps);
      auto emit = [&](const char* metric, double value, const char* unit, const ReadPoint& point) {
        Measurement m = run.measurement(id(), metric, value, unit);
        m.params["workers"] = std::to_string(workers);
        m.params["files_read"] = std::to_string(point.files);
        m.params["seconds"] = std::to_string(point.seconds);
        run.sink.emit(std::move(m));
      };
      emit("small_files_samples_per_s",
           s.seconds > 0 ? static_cast<double>(s.files) / s.seconds : 0, "samples/s", s);
      emit("small_files_gbps", small_gbps, "GB/s", s);
      emit("shards_samples_per_s",
           h.seconds > 0
               ? static_cast<double>(h.bytes) / static_cast<double>(o.sample) / h.seconds
               : 0,
           "samples/s", h);
      emit("shards_gbps", shard_gbps, "GB/s", h);
    }
    Measurement ratio = run.measurement(id(), "small_vs_shards",
                                        best_shards > 0 ? best_small / best_shards : 0, "ratio");
    run.sink.emit(std::move(ratio));
    Measurement checked =
        run.measurement(id(), "wrong_elements", static_cast<double>(wrong), "count");
    run.sink.emit(std::move(checked));
  }
};

}  // namespace

std::unique_ptr<Probe> make_loader_probe() { return std::make_unique<LoaderProbe>(); }

}  // namespace fabcheck
