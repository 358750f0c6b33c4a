// The shared storage.* option declarations and their reading into StorageOptions.
#include "storage/storage_options.hpp"

#include "bench/sys/config_error.hpp"
#include "results/units.hpp"
#include "storage/io_engine.hpp"

namespace fabcheck {

namespace {

StorageOptionSpecs make_specs() {
  using T = OptionType;
  std::vector<std::string> engines = available_io_engines();
  return {
      .file_size = {.key = "storage.file_size",
                    .type = T::byte_size,
                    .default_value = "64M",
                    .meaning =
                        "file per node for the local patterns (seq_*, rand_read, contention)",
                    .min = kStoragePageBytes,
                    .multiple_of = 4096},
      .block_size = {.key = "storage.block_size",
                     .type = T::byte_size,
                     .default_value = "1M",
                     .meaning = "sequential transfer size",
                     .min = kStoragePageBytes,
                     .max = 1ull << 30,
                     .multiple_of = 4096},
      .queue_depth = {.key = "storage.queue_depth",
                      .type = T::integer,
                      .default_value = "32",
                      .meaning = "queue depth of the sequential and QD32 patterns",
                      .min = 1,
                      .max = 4096},
      .duration_s = {.key = "storage.duration_s",
                     .type = T::number,
                     .default_value = "2",
                     .meaning = "seconds each timed phase lasts",
                     .min = 0,
                     .max = 3600,
                     .min_exclusive = true,
                     .budget_floor = "0.5"},
      .engine = {.key = "storage.engine",
                 .type = T::choice,
                 .default_value = default_io_engine(),
                 .meaning = "IO engine (the build's best by default)",
                 .choices = engines},
      .direct = {.key = "storage.direct",
                 .type = T::flag,
                 .default_value = "1",
                 .meaning = "O_DIRECT for the local patterns (buffered where refused)"},
      .ckpt_size = {.key = "storage.ckpt_size",
                    .type = T::byte_size,
                    .default_value = "64M",
                    .meaning = "checkpoint file per rank",
                    .min = kStoragePageBytes,
                    .multiple_of = 4096},
      .ckpt_direct = {.key = "storage.ckpt_direct",
                      .type = T::flag,
                      .default_value = "0",
                      .meaning = "O_DIRECT checkpoint writes instead of buffered + fsync"},
  };
}

}  // namespace

const StorageOptionSpecs& storage_option_specs() {
  static const StorageOptionSpecs specs = make_specs();
  return specs;
}

std::vector<OptionSpec> local_pattern_options() {
  const StorageOptionSpecs& s = storage_option_specs();
  return {s.file_size, s.block_size, s.queue_depth, s.duration_s, s.engine, s.direct};
}

std::vector<OptionSpec> checkpoint_options() {
  const StorageOptionSpecs& s = storage_option_specs();
  return {s.ckpt_size, s.ckpt_direct, s.block_size, s.queue_depth, s.engine};
}

StorageOptions storage_options_from(const RunOptions& options) {
  const StorageOptionSpecs& s = storage_option_specs();
  StorageOptions result;
  result.file_size = option_bytes(options, s.file_size);
  result.block_size = option_bytes(options, s.block_size);
  result.queue_depth = static_cast<std::uint32_t>(option_integer(options, s.queue_depth));
  result.duration_s = option_number(options, s.duration_s);
  if (option_given(options, s.engine)) result.engine = option_choice(options, s.engine);
  result.direct = option_flag(options, s.direct);
  result.ckpt_size = option_bytes(options, s.ckpt_size);
  result.ckpt_direct = option_flag(options, s.ckpt_direct);
  if (result.file_size < result.block_size) {
    throw ConfigError("--opt storage.file_size=" + format_bytes(result.file_size) +
                      ": smaller than storage.block_size (" + format_bytes(result.block_size) +
                      "); expected a file of at least one block");
  }
  return result;
}

std::string selected_engine(const StorageOptions& options) {
  return options.engine.empty() ? default_io_engine() : options.engine;
}

}  // namespace fabcheck
