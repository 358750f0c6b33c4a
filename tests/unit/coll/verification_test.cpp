// The verification scheme: inputs are small integers, expected outputs follow each collective's
// definition (checked here by simulating the collective on the host).
#include <gtest/gtest.h>

#include <vector>

#include "bench/coll/register.hpp"
#include "bench/coll/verification.hpp"

namespace fabcheck {
namespace {

TEST(Verification, InputsAreSmallIntegersThatDependOnRankIndexAndSeed) {
  int differs_by_rank = 0;
  int differs_by_seed = 0;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const float v = verify::input_value(0, i, 7);
    EXPECT_GE(v, 1.0f);
    EXPECT_LE(v, 16.0f);
    EXPECT_EQ(v, static_cast<float>(static_cast<int>(v)));
    differs_by_rank += v != verify::input_value(1, i, 7);
    differs_by_seed += v != verify::input_value(0, i, 8);
  }
  EXPECT_GT(differs_by_rank, 800);
  EXPECT_GT(differs_by_seed, 800);
}

TEST(Verification, ReducedValueIsTheSumOverRanks) {
  for (std::uint64_t i = 0; i < 50; ++i) {
    float sum = 0;
    for (int r = 0; r < 5; ++r) sum += verify::input_value(r, i, 3);
    EXPECT_EQ(verify::reduced_value(5, i, 3), sum);
  }
}

// Simulates each collective on host vectors and compares with expected_output under its entry's
// rule.
class SimulatedCollective : public ::testing::TestWithParam<int> {};

TEST_P(SimulatedCollective, ExpectedOutputMatchesTheDefinition) {
  const int n = GetParam();
  const std::uint32_t seed = 42;
  const std::uint64_t per = 5;  // elements per block
  auto input = [&](int r, std::uint64_t i) { return verify::input_value(r, i, seed); };
  for (int r = 0; r < n; ++r) {
    for (std::uint64_t i = 0; i < per * static_cast<std::uint64_t>(n); ++i) {
      const std::uint64_t block = i / per;
      const std::uint64_t offset = i % per;
      // all_gather: block b of the output is rank b's input.
      EXPECT_EQ(verify::expected_output(find_collective("all_gather").expected, r, n, per, per * n,
                                        i, seed),
                input(static_cast<int>(block), offset));
      // alltoall: block s of rank r's output is block r of rank s's input.
      EXPECT_EQ(verify::expected_output(find_collective("alltoall").expected, r, n, per * n,
                                        per * n, i, seed),
                input(static_cast<int>(block), static_cast<std::uint64_t>(r) * per + offset));
    }
    for (std::uint64_t i = 0; i < per; ++i) {
      // reduce_scatter: rank r holds the sum of block r.
      float sum = 0;
      for (int s = 0; s < n; ++s) sum += input(s, static_cast<std::uint64_t>(r) * per + i);
      EXPECT_EQ(verify::expected_output(find_collective("reduce_scatter").expected, r, n, per * n,
                                        per, i, seed),
                sum);
      EXPECT_EQ(
          verify::expected_output(find_collective("broadcast").expected, r, n, per, per, i, seed),
          input(0, i));
      EXPECT_EQ(
          verify::expected_output(find_collective("sendrecv").expected, r, n, per, per, i, seed),
          input((r + n - 1) % n, i));
      EXPECT_EQ(
          verify::expected_output(find_collective("all_reduce").expected, r, n, per, per, i, seed),
          verify::reduced_value(n, i, seed));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, SimulatedCollective, ::testing::Values(1, 2, 3, 8));

}  // namespace
}  // namespace fabcheck
