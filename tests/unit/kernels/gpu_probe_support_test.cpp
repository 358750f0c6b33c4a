// Host-side pieces of the gpu.* probes: which GPUs a rank drives, CPU lists, options, bandwidth
// figures from samples, the verification pattern and the GEMM reference.
#include <gtest/gtest.h>

#include <cmath>

#include "bench/sys/config_error.hpp"
#include "bench/sys/cpu_affinity.hpp"
#include "bench/sys/gpu_assignment.hpp"
#include "kernels/bandwidth_sample.hpp"
#include "kernels/gemm_reference.hpp"
#include "kernels/gpu_options.hpp"
#include "kernels/random_pattern.hpp"

namespace fabcheck {
namespace {

TEST(DevicesForRank, OnePerRankOrAllInOneProcess) {
  EXPECT_EQ(devices_for_rank(0, 1, 8), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(devices_for_rank(3, 8, 8), (std::vector<int>{3}));
  EXPECT_EQ(devices_for_rank(1, 4, 8), (std::vector<int>{1, 5}));
  EXPECT_EQ(devices_for_rank(5, 16, 8), (std::vector<int>{5}));
  EXPECT_EQ(devices_for_rank(13, 16, 8), (std::vector<int>{5}));
  EXPECT_TRUE(devices_for_rank(0, 1, 0).empty());
}

TEST(CpuList, ParsesSysfsRanges) {
  EXPECT_EQ(parse_cpu_list("0-3,8-9\n"), (std::vector<int>{0, 1, 2, 3, 8, 9}));
  EXPECT_EQ(parse_cpu_list("5"), (std::vector<int>{5}));
  EXPECT_FALSE(parse_cpu_list(""));
  EXPECT_FALSE(parse_cpu_list("3-1"));
  EXPECT_FALSE(parse_cpu_list("a-b"));
  EXPECT_FALSE(parse_cpu_list("1-2x"));
}

TEST(CpuAffinity, MissingSysfsEntryLeavesAffinityAloneAndSaysWhy) {
  ScopedCpuAffinity affinity("0000:ff:1f.7", "/nonexistent-sysfs-root");
  EXPECT_FALSE(affinity.pinned());
  EXPECT_EQ(affinity.note(),
            "not pinned: cannot read "
            "/nonexistent-sysfs-root/sys/bus/pci/devices/0000:ff:1f.7/local_cpulist");
}

TEST(GpuOptions, DefaultsAndValues) {
  RunOptions options;
  EXPECT_EQ(gemm_seconds(options), 3.0);
  EXPECT_EQ(gemm_size(options), 8192);
  options.extra = {{"gemm_seconds", "20"}, {"gemm_size", "4096"}};
  EXPECT_EQ(gemm_seconds(options), 20.0);
  EXPECT_EQ(gemm_size(options), 4096);
  EXPECT_EQ(copy_sizes(options, {1 << 20}), (std::vector<std::uint64_t>{1 << 20}));
  options.sizes = {1000, 4096};
  EXPECT_EQ(copy_sizes(options, {1 << 20}), (std::vector<std::uint64_t>{992, 4096}));
}

TEST(GpuOptions, BadValuesAreConfigErrorsNamingThem) {
  RunOptions options;
  options.extra = {{"gemm_seconds", "ten"}};
  EXPECT_THROW(
      {
        try {
          gemm_seconds(options);
        } catch (const ConfigError& error) {
          EXPECT_STREQ(error.what(),
                       "--opt gemm_seconds=ten: not a number; expected a finite number above 0 "
                       "and at most 600");
          throw;
        }
      },
      ConfigError);
  options.extra = {{"gemm_size", "100"}};
  EXPECT_THROW(gemm_size(options), ConfigError);
  options.sizes = {8};
  EXPECT_THROW(copy_sizes(options, {}), ConfigError);
}

TEST(BandwidthSample, MedianOfPerSampleRates) {
  const GpuLabel label{2, "0000:3a:00.0", "NVIDIA H100 80GB HBM3"};
  // 1e9 bytes in 0.5, 0.4 and 0.25 s: 2, 2.5 and 4 GB/s; the median is 2.5.
  const Measurement m =
      bandwidth_measurement(label, "gpu.h2d", "bw", 1 << 30, 1e9, {0.5, 0.4, 0.25});
  EXPECT_EQ(m.probe, "gpu.h2d");
  EXPECT_EQ(m.subject, "gpu2");
  EXPECT_EQ(m.unit, "GB/s");
  EXPECT_DOUBLE_EQ(m.value, 2.5);
  EXPECT_EQ(m.size_bytes, std::uint64_t{1} << 30);
  ASSERT_TRUE(m.stats);
  EXPECT_EQ(m.stats->count, 3u);
  EXPECT_DOUBLE_EQ(m.stats->min, 2.0);
  EXPECT_DOUBLE_EQ(m.stats->max, 4.0);
  EXPECT_EQ(m.params.at("bus_id"), "0000:3a:00.0");
  EXPECT_EQ(m.params.at("model"), "NVIDIA H100 80GB HBM3");
  EXPECT_THROW(bandwidth_measurement(label, "gpu.h2d", "bw", 1, 1, {}), std::invalid_argument);
  EXPECT_THROW(bandwidth_measurement(label, "gpu.h2d", "bw", 1, 1, {0.0}), std::invalid_argument);
}

TEST(RandomPattern, NeverZeroDiffersBySeedAndIndexAndCatchesBadCopies) {
  std::vector<std::uint64_t> data(4096);
  for (std::size_t i = 0; i < data.size(); ++i) {
    data[i] = pattern_value(7, i);
    EXPECT_NE(data[i], 0u);
  }
  EXPECT_NE(pattern_value(7, 0), pattern_value(8, 0));
  EXPECT_NE(pattern_value(7, 0), pattern_value(7, 1));
  EXPECT_EQ(count_pattern_mismatches(data.data(), data.size(), 7), 0u);
  data[10] = 0;
  data[4095] ^= 1;
  EXPECT_EQ(count_pattern_mismatches(data.data(), data.size(), 7), 2u);
  EXPECT_EQ(count_pattern_mismatches(data.data(), data.size(), 8), 4096u);
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const float value = pattern_float(3, i);
    EXPECT_NE(value, 0.0f);
    EXPECT_GE(value, -1.0f);
    EXPECT_LT(value, 1.0f);
  }
  EXPECT_EQ(triad_value(1, 2, 3, 5), pattern_value(1, 5) + 3 * pattern_value(2, 5));
}

TEST(GemmReference, Bf16RoundingAndExpectedElement) {
  EXPECT_EQ(round_to_bf16(1.0f), 1.0f);
  EXPECT_EQ(round_to_bf16(1.00390625f), 1.0f);       // 1 + 2^-8: a tie, to even
  EXPECT_EQ(round_to_bf16(1.01171875f), 1.015625f);  // 1 + 3 * 2^-8: a tie, to even (up)
  EXPECT_EQ(bf16_bits_to_float(0x3F80), 1.0f);
  EXPECT_EQ(bf16_bits_to_float(0xC000), -2.0f);
  // n = 2: C(1,0) = A(1,0) B(0,0) + A(1,1) B(1,0), A(r,c) at r + c*n.
  const double a10 = pattern_float(11, 1), a11 = pattern_float(11, 3);
  const double b00 = pattern_float(12, 0), b10 = pattern_float(12, 1);
  const GemmElementCheck check = gemm_element_check(11, 12, 2, 1, 0, false);
  EXPECT_DOUBLE_EQ(check.expected, a10 * b00 + a11 * b10);
  EXPECT_GT(check.tolerance, 0);
  // A missing result (zero) is far outside the tolerance at a realistic size.
  const GemmElementCheck big = gemm_element_check(11, 12, 2048, 5, 7, true);
  EXPECT_GT(std::fabs(big.expected), big.tolerance) << big.expected << " " << big.tolerance;
}

}  // namespace
}  // namespace fabcheck
