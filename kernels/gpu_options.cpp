// Reading the gpu.* probes' options: gemm_seconds, gemm_size and copy sizes.
#include "kernels/gpu_options.hpp"

#include <cstdlib>

#include "bench/core/run_option.hpp"
#include "results/config_error.hpp"
#include "results/units.hpp"

namespace fabcheck {
namespace {

std::string option_text(const RunOptions& options, const char* key) {
  const auto found = options.extra.find(key);
  return found == options.extra.end() ? std::string() : found->second;
}

}  // namespace

double gemm_seconds(const RunOptions& options) {
  const std::string text = option_text(options, "gemm_seconds");
  if (text.empty()) return 3.0;
  char* end = nullptr;
  const double seconds = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !(seconds > 0) || seconds > 600) {
    throw ConfigError("--opt gemm_seconds=" + text + ": expected seconds in (0, 600]");
  }
  return seconds;
}

double gemm_burn_seconds(const RunOptions& options) {
  if (text_option(options, "gpu.burn_s").empty()) return gemm_seconds(options);
  return number_option(options, "gpu.burn_s", 0, 0.1, 3600);
}

double clock_sample_period_s(const RunOptions& options) {
  return number_option(options, "gpu.sample_ms", 100, 10, 10000) / 1000;
}

int gemm_size(const RunOptions& options) {
  const std::string text = option_text(options, "gemm_size");
  if (text.empty()) return 8192;
  char* end = nullptr;
  const long size = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0' || size < 256 || size > 32768) {
    throw ConfigError("--opt gemm_size=" + text + ": expected an integer in [256, 32768]");
  }
  return static_cast<int>(size);
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
