// Reading the gpu.* probes' options: gemm_seconds, gemm_size, gpu.burn_s, gpu.sample_ms and copy
// sizes.
#include "kernels/gpu_options.hpp"

#include "bench/sys/config_error.hpp"
#include "results/units.hpp"

namespace fabcheck {
namespace {

const OptionSpec kGemmSeconds{.key = "gemm_seconds",
                              .type = OptionType::number,
                              .default_value = "3",
                              .meaning =
                                  "seconds each GEMM type is sustained (clocks and "
                                  "temperature settle)",
                              .min = 0,
                              .max = 600,
                              .min_exclusive = true,
                              .budget_floor = "1"};
const OptionSpec kGemmSize{.key = "gemm_size",
                           .type = OptionType::integer,
                           .default_value = "8192",
                           .meaning = "M = N = K of the GEMM",
                           .min = 256,
                           .max = 32768};

const OptionSpec kBurnSeconds{.key = "gpu.burn_s",
                              .type = OptionType::number,
                              .meaning =
                                  "seconds the bf16 GEMM burns every GPU with clocks sampled "
                                  "throughout (absent: gemm_seconds)",
                              .min = 0.1,
                              .max = 3600,
                              .budget_floor = "10"};
const OptionSpec kSampleMs{.key = "gpu.sample_ms",
                           .type = OptionType::number,
                           .default_value = "100",
                           .meaning =
                               "milliseconds between clock, power, temperature and clock-event "
                               "samples during the burn",
                           .min = 10,
                           .max = 10000};

}  // namespace

std::vector<OptionSpec> gemm_options() {
  return {kGemmSeconds, kGemmSize, kBurnSeconds, kSampleMs};
}

double gemm_seconds(const RunOptions& options) { return option_number(options, kGemmSeconds); }

double gemm_burn_seconds(const RunOptions& options) {
  if (!option_given(options, kBurnSeconds)) return gemm_seconds(options);
  return option_number(options, kBurnSeconds);
}

double clock_sample_period_s(const RunOptions& options) {
  return option_number(options, kSampleMs) / 1000;
}

int gemm_size(const RunOptions& options) {
  return static_cast<int>(option_integer(options, kGemmSize));
}

std::vector<std::uint64_t> copy_sizes(const RunOptions& options,
                                      const std::vector<std::uint64_t>& defaults) {
  const std::vector<std::uint64_t>& chosen = options.sizes.empty() ? defaults : options.sizes;
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t size : chosen) {
    if (size < 16) {
      throw ConfigError("--sizes: " + format_bytes(size) +
                        " is too small for a GPU copy (at least 16 bytes)");
    }
    sizes.push_back(size - size % 16);
  }
  return sizes;
}

}  // namespace fabcheck
