// Parsing of the storage.* options with ConfigError messages that name key and value.
#include "storage/storage_options.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "results/config_error.hpp"
#include "results/units.hpp"
#include "storage/io_engine.hpp"

namespace fabcheck {

namespace {

ConfigError bad_value(const std::string& key, const std::string& value, const std::string& why) {
  return ConfigError("--opt " + key, 0, "\"" + value + "\" " + why);
}

std::uint64_t read_size(const std::string& key, const std::string& value, std::uint64_t minimum,
                        std::uint64_t multiple) {
  const auto size = parse_byte_size(value);
  if (!size) throw bad_value(key, value, "is not a byte size (like 4096, 4K, 256M, 1G)");
  if (*size < minimum) {
    throw bad_value(key, value, "is below the minimum of " + format_bytes(minimum));
  }
  if (*size % multiple != 0) {
    throw bad_value(key, value, "is not a multiple of " + format_bytes(multiple));
  }
  return *size;
}

std::uint64_t read_count(const std::string& key, const std::string& value, std::uint64_t minimum,
                         std::uint64_t maximum) {
  std::uint64_t count = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), count);
  if (error != std::errc() || end != value.data() + value.size()) {
    throw bad_value(key, value, "is not a whole number");
  }
  if (count < minimum || count > maximum) {
    throw bad_value(key, value,
                    "is outside " + std::to_string(minimum) + ".." + std::to_string(maximum));
  }
  return count;
}

double read_seconds(const std::string& key, const std::string& value) {
  double seconds = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (error != std::errc() || end != value.data() + value.size() || !std::isfinite(seconds) ||
      seconds <= 0 || seconds > 3600) {
    throw bad_value(key, value, "is not a number of seconds in (0, 3600]");
  }
  return seconds;
}

bool read_flag(const std::string& key, const std::string& value) {
  if (value == "1" || value == "true" || value == "yes" || value == "on") return true;
  if (value == "0" || value == "false" || value == "no" || value == "off") return false;
  throw bad_value(key, value, "is not a flag (1/0, true/false, yes/no, on/off)");
}

}  // namespace

const std::vector<std::pair<std::string, std::string>>& storage_option_keys() {
  static const std::vector<std::pair<std::string, std::string>> keys = {
      {"storage.file_size", "file per node for the local patterns (default 64M)"},
      {"storage.block_size", "sequential transfer size (default 1M)"},
      {"storage.queue_depth", "queue depth of the sequential and QD32 patterns (default 32)"},
      {"storage.duration_s", "time bound of each timed phase in seconds (default 2)"},
      {"storage.engine", "io_uring, psync or null (default: io_uring where available)"},
      {"storage.direct", "O_DIRECT for the local patterns (default 1)"},
      {"storage.ckpt_size", "checkpoint file per rank (default 64M)"},
      {"storage.ckpt_direct", "O_DIRECT checkpoint writes instead of buffered + fsync (default 0)"},
      {"storage.md_files", "empty files per rank for storage.metadata (default 500)"},
      {"storage.fsync_block", "bytes written before each fsync in storage.fsync_lat (default 4K)"},
      {"storage.loader_bytes", "data set of storage.loader, written twice (default 256M)"},
      {"storage.loader_sample",
       "sample size of storage.loader: one small file each (default 128K)"},
      {"storage.loader_shard", "shard size of storage.loader's sequential layout (default 64M)"},
      {"storage.loader_workers", "reader threads storage.loader sweeps (default 1,4,16)"},
  };
  return keys;
}

StorageOptions storage_options_from(const RunOptions& options) {
  StorageOptions result;
  constexpr std::uint64_t kPage = 4096;
  for (const auto& [key, value] : options.extra) {
    if (key.rfind("storage.", 0) != 0) continue;
    if (key == "storage.file_size") {
      result.file_size = read_size(key, value, kPage, kPage);
    } else if (key == "storage.block_size") {
      result.block_size = read_size(key, value, kPage, kPage);
      if (result.block_size > (1ull << 30)) throw bad_value(key, value, "is above 1G");
    } else if (key == "storage.queue_depth") {
      result.queue_depth = static_cast<std::uint32_t>(read_count(key, value, 1, 4096));
    } else if (key == "storage.duration_s") {
      result.duration_s = read_seconds(key, value);
    } else if (key == "storage.engine") {
      bool known = false;
      for (const std::string& engine : available_io_engines()) known = known || engine == value;
      if (!known) make_io_engine(value, 1);  // throws the ConfigError listing the engines
      result.engine = value;
    } else if (key == "storage.direct") {
      result.direct = read_flag(key, value);
    } else if (key == "storage.ckpt_size") {
      result.ckpt_size = read_size(key, value, kPage, kPage);
    } else if (key == "storage.ckpt_direct") {
      result.ckpt_direct = read_flag(key, value);
    } else if (key == "storage.md_files") {
      result.md_files = read_count(key, value, 1, 10'000'000);
    } else if (key == "storage.fsync_block") {
      result.fsync_block = read_size(key, value, 8, 8);
    } else if (key == "storage.loader_bytes") {
      result.loader_bytes = read_size(key, value, kPage, kPage);
    } else if (key == "storage.loader_sample") {
      result.loader_sample = read_size(key, value, 8, 8);
    } else if (key == "storage.loader_shard") {
      result.loader_shard = read_size(key, value, kPage, kPage);
    } else if (key == "storage.loader_workers") {
      result.loader_workers.clear();
      std::size_t start = 0;
      while (start <= value.size()) {
        const std::size_t comma = std::min(value.find(',', start), value.size());
        result.loader_workers.push_back(
            static_cast<int>(read_count(key, value.substr(start, comma - start), 1, 1024)));
        start = comma + 1;
      }
    } else {
      std::string known;
      for (const auto& [name, meaning] : storage_option_keys()) {
        known += (known.empty() ? "" : ", ") + name;
      }
      throw ConfigError("--opt " + key, 0, "unknown storage option (known: " + known + ")");
    }
  }
  if (result.loader_bytes < result.loader_sample || result.loader_bytes < result.loader_shard) {
    throw bad_value("storage.loader_bytes", std::to_string(result.loader_bytes),
                    "is smaller than one sample or one shard");
  }
  if (result.file_size < result.block_size) {
    throw bad_value("storage.file_size", std::to_string(result.file_size),
                    "is smaller than storage.block_size (" + format_bytes(result.block_size) + ")");
  }
  return result;
}

std::string selected_engine(const StorageOptions& options) {
  return options.engine.empty() ? default_io_engine() : options.engine;
}

}  // namespace fabcheck
