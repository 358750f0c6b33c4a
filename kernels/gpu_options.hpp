// The gpu.* probes' own options (--opt key=value, declared here) and sizes, read with errors that
// name the value.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/core/probe.hpp"

namespace fabcheck {

// The options gpu.gemm reads: gemm_seconds, gemm_size, gpu.burn_s and gpu.sample_ms.
std::vector<OptionSpec> gemm_options();

// --opt gemm_seconds=S: how long each GEMM type is sustained (default 3; 0 < S <= 600).
double gemm_seconds(const RunOptions& options);

// --opt gpu.burn_s=S: how long the bf16 GEMM burns every GPU with clocks sampled throughout, for
// throttling over time (0 < S <= 3600; the acceptance plan sets 300); gemm_seconds when not given.
double gemm_burn_seconds(const RunOptions& options);

// --opt gpu.sample_ms=MS: how often the burn samples clocks, power, temperature and clock-event
// reasons (default 100; 10 <= MS <= 10000).
double clock_sample_period_s(const RunOptions& options);

// --opt gemm_size=N: the M = N = K of the GEMM (default 8192; 256 <= N <= 32768).
int gemm_size(const RunOptions& options);

// The copy sizes a bandwidth probe measures: --sizes when given, else `defaults`. Each size is
// rounded down to a multiple of 16 bytes (vector copies); a size below 16 bytes is a ConfigError.
std::vector<std::uint64_t> copy_sizes(const RunOptions& options,
                                      const std::vector<std::uint64_t>& defaults);

}  // namespace fabcheck
