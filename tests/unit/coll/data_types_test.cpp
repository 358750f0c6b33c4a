// Element types and reductions (--dtype, --op): each type's encoding against hand-computed bits,
// each reduction's expected result against an oracle of plain C++ arithmetic in that type, the
// bounds that refuse what cannot be exact, the plan of combinations per backend, and wrong
// elements of non-float types counted.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

#include "bench/coll/data_types.hpp"
#include "bench/coll/host_elements.hpp"
#include "bench/coll/register.hpp"
#include "bench/coll/verification.hpp"
#include "bench/core/probe.hpp"
#include "bench/sys/config_error.hpp"

namespace fabcheck {
namespace {

using verify::DataType;
using verify::Element;
using verify::ReduceOp;

constexpr int kRanks = 4;
constexpr std::uint32_t kSeed = 11;

std::vector<std::int64_t> inputs_at(const Element& element, int nranks, std::uint64_t index) {
  std::vector<std::int64_t> values;
  for (int r = 0; r < nranks; ++r) {
    values.push_back(verify::input_integer(element, nranks, r, index, kSeed));
  }
  return values;
}

TEST(DataTypes, EachTypeEncodesAsHandComputedBits) {
  EXPECT_EQ(verify::element_bits(DataType::float32, 16), 0x41800000u);
  EXPECT_EQ(verify::element_bits(DataType::float32, -3), 0xC0400000u);
  EXPECT_EQ(verify::element_bits(DataType::float32, 0), 0u);
  EXPECT_EQ(verify::element_bits(DataType::float16, 3), 0x4200u);
  EXPECT_EQ(verify::element_bits(DataType::float16, 2048), 0x6800u);
  EXPECT_EQ(verify::element_bits(DataType::bfloat16, 256), 0x4380u);
  EXPECT_EQ(verify::element_bits(DataType::bfloat16, -16), 0xC180u);
  EXPECT_EQ(verify::element_bits(DataType::float64, 2048), 0x40A0000000000000u);
  // 5 x 2^-2 = 1.25: the average of 5 over 4 ranks.
  EXPECT_EQ(verify::element_bits(DataType::float16, 5, 2), 0x3D00u);
  EXPECT_EQ(verify::element_bits(DataType::float32, 5, 2), std::bit_cast<std::uint32_t>(1.25f));
  EXPECT_EQ(verify::element_bits(DataType::int8, -1), 0xFFu);
  EXPECT_EQ(verify::element_bits(DataType::uint8, 300), 44u);
  EXPECT_EQ(verify::element_bits(DataType::int32, -2), 0xFFFFFFFEu);
  EXPECT_EQ(verify::element_bits(DataType::uint64, -1), ~0ull);
  // Poison: a quiet NaN per floating type (no exact integer result is one).
  EXPECT_EQ(verify::poison_bits(DataType::float32), 0x7FC00000u);
  EXPECT_EQ(verify::poison_bits(DataType::float16), 0x7E00u);
  EXPECT_EQ(verify::poison_bits(DataType::bfloat16), 0x7FC0u);
  EXPECT_EQ(verify::poison_bits(DataType::float64), 0x7FF8000000000000u);
  EXPECT_EQ(verify::element_bytes(DataType::bfloat16), 2u);
  EXPECT_EQ(verify::element_bytes(DataType::uint64), 8u);
}

TEST(DataTypes, FloatSumInputsStayTodaysOneToSixteen) {
  const Element float_sum{};
  for (std::uint64_t i = 0; i < 200; ++i) {
    EXPECT_EQ(verify::input_bits(float_sum, kRanks, 1, i, kSeed),
              std::bit_cast<std::uint32_t>(verify::input_value(1, i, kSeed)));
    EXPECT_EQ(verify::reduced_bits(float_sum, kRanks, i, kSeed),
              std::bit_cast<std::uint32_t>(verify::reduced_value(kRanks, i, kSeed)));
  }
}

TEST(DataTypes, Int8SumWrapsAndProdStaysOdd) {
  int wrapped = 0;
  for (std::uint64_t i = 0; i < 200; ++i) {
    const auto values = inputs_at({DataType::int8, ReduceOp::sum}, kRanks, i);
    std::int8_t sum = 0;
    int exact = 0;
    for (const std::int64_t v : values) {
      EXPECT_GE(v, -128);
      EXPECT_LE(v, 127);
      sum = static_cast<std::int8_t>(sum + v);  // modular in C++20
      exact += static_cast<int>(v);
    }
    wrapped += exact != sum;
    EXPECT_EQ(verify::reduced_bits({DataType::int8, ReduceOp::sum}, kRanks, i, kSeed),
              static_cast<std::uint8_t>(sum));

    std::uint8_t product = 1;
    for (const std::int64_t v : inputs_at({DataType::int8, ReduceOp::prod}, kRanks, i)) {
      EXPECT_EQ(v & 1, 1) << "prod inputs are odd, so no product reaches 0";
      product = static_cast<std::uint8_t>(product * static_cast<std::uint8_t>(v));
    }
    EXPECT_EQ(verify::reduced_bits({DataType::int8, ReduceOp::prod}, kRanks, i, kSeed), product);
  }
  EXPECT_GT(wrapped, 50) << "int8 sums of 4 ranks wrap often";
}

TEST(DataTypes, MinAndMaxOverNegativeValuesCompareByTheTypesSign) {
  int negative_minimum = 0;
  int unsigned_differs = 0;
  for (std::uint64_t i = 0; i < 200; ++i) {
    const auto values = inputs_at({DataType::int32, ReduceOp::min}, kRanks, i);
    const std::int64_t minimum = *std::min_element(values.begin(), values.end());
    negative_minimum += minimum < 0;
    EXPECT_EQ(verify::reduced_bits({DataType::int32, ReduceOp::min}, kRanks, i, kSeed),
              static_cast<std::uint32_t>(minimum));

    std::vector<std::uint64_t> unsigned_values;
    for (const std::int64_t v : inputs_at({DataType::uint64, ReduceOp::max}, kRanks, i)) {
      unsigned_values.push_back(static_cast<std::uint64_t>(v));
    }
    const std::uint64_t largest = *std::max_element(unsigned_values.begin(), unsigned_values.end());
    EXPECT_EQ(verify::reduced_bits({DataType::uint64, ReduceOp::max}, kRanks, i, kSeed), largest);
    const std::int64_t signed_largest = *std::max_element(
        reinterpret_cast<const std::int64_t*>(unsigned_values.data()),
        reinterpret_cast<const std::int64_t*>(unsigned_values.data()) + unsigned_values.size());
    unsigned_differs += static_cast<std::uint64_t>(signed_largest) != largest;

    float smallest = 1e9f;
    for (const std::int64_t v : inputs_at({DataType::float32, ReduceOp::min}, kRanks, i)) {
      EXPECT_GE(v, -16);
      EXPECT_LE(v, 16);
      smallest = std::min(smallest, static_cast<float>(v));
    }
    EXPECT_EQ(verify::reduced_bits({DataType::float32, ReduceOp::min}, kRanks, i, kSeed),
              std::bit_cast<std::uint32_t>(smallest));
  }
  EXPECT_GT(negative_minimum, 100);
  EXPECT_GT(unsigned_differs, 20) << "a uint64 max is not the signed one";
}

TEST(DataTypes, FloatingResultsAreExactInAnyOrder) {
  std::mt19937 shuffle(3);
  for (std::uint64_t i = 0; i < 200; ++i) {
    for (const ReduceOp op : {ReduceOp::sum, ReduceOp::prod}) {
      auto values = inputs_at({DataType::float32, op}, kRanks, i);
      std::shuffle(values.begin(), values.end(), shuffle);
      float result = op == ReduceOp::sum ? 0.0f : 1.0f;
      for (const std::int64_t v : values) {
        result =
            op == ReduceOp::sum ? result + static_cast<float>(v) : result * static_cast<float>(v);
      }
      EXPECT_EQ(verify::reduced_bits({DataType::float32, op}, kRanks, i, kSeed),
                std::bit_cast<std::uint32_t>(result));
    }
    auto doubles = inputs_at({DataType::float64, ReduceOp::sum}, kRanks, i);
    std::shuffle(doubles.begin(), doubles.end(), shuffle);
    double sum = 0;
    for (const std::int64_t v : doubles) sum += static_cast<double>(v);
    EXPECT_EQ(verify::reduced_bits({DataType::float64, ReduceOp::sum}, kRanks, i, kSeed),
              std::bit_cast<std::uint64_t>(sum));
  }
  // The half product's +-2 come from the first 15 ranks only: |product| <= 2^15 on any count.
  for (std::uint64_t i = 0; i < 50; ++i) {
    for (const std::int64_t v : inputs_at({DataType::float16, ReduceOp::prod}, 40, i)) {
      EXPECT_TRUE(v == 1 || v == -1 || v == 2 || v == -2);
    }
    EXPECT_LE(
        std::abs(verify::input_integer({DataType::float16, ReduceOp::prod}, 40, 20, i, kSeed)), 1);
  }
}

TEST(DataTypes, AvgIsNcclsTruncatedDivisionOrAnExactPowerOfTwoScale) {
  int truncated_not_floor = 0;
  for (std::uint64_t i = 0; i < 200; ++i) {
    std::uint32_t wrapped = 0;
    for (const std::int64_t v : inputs_at({DataType::int32, ReduceOp::avg}, kRanks, i)) {
      wrapped += static_cast<std::uint32_t>(v);
    }
    const auto sum = static_cast<std::int32_t>(wrapped);
    const std::int32_t average = sum / kRanks;  // toward zero, as NCCL's FuncSumPostDiv
    truncated_not_floor += sum < 0 && sum % kRanks != 0;
    EXPECT_EQ(verify::reduced_bits({DataType::int32, ReduceOp::avg}, kRanks, i, kSeed),
              static_cast<std::uint32_t>(average));

    std::uint8_t unsigned_sum = 0;
    for (const std::int64_t v : inputs_at({DataType::uint8, ReduceOp::avg}, kRanks, i)) {
      unsigned_sum = static_cast<std::uint8_t>(unsigned_sum + v);
    }
    EXPECT_EQ(verify::reduced_bits({DataType::uint8, ReduceOp::avg}, kRanks, i, kSeed),
              unsigned_sum / kRanks);

    // NCCL's float avg: each input times 1/n (0.25, exact), then summed.
    float scaled = 0;
    for (const std::int64_t v : inputs_at({DataType::float32, ReduceOp::avg}, kRanks, i)) {
      scaled += static_cast<float>(v) * 0.25f;
    }
    EXPECT_EQ(verify::reduced_bits({DataType::float32, ReduceOp::avg}, kRanks, i, kSeed),
              std::bit_cast<std::uint32_t>(scaled));
  }
  EXPECT_GT(truncated_not_floor, 20) << "-7/4 is -1, not -2";
  EXPECT_TRUE(verify::exact_on({DataType::float32, ReduceOp::avg}, 8));
  EXPECT_FALSE(verify::exact_on({DataType::float32, ReduceOp::avg}, 3));
  EXPECT_TRUE(verify::exact_on({DataType::int64, ReduceOp::avg}, 3));
}

TEST(DataTypes, FloatingSumsAreBoundedByTheSignificand) {
  EXPECT_EQ(verify::sum_input_limit(DataType::float32, 1 << 20), 16u);
  EXPECT_EQ(verify::sum_input_limit(DataType::float32, 1 << 21), 8u);
  EXPECT_EQ(verify::sum_input_limit(DataType::bfloat16, 16), 16u);
  EXPECT_EQ(verify::sum_input_limit(DataType::bfloat16, 32), 8u);
  EXPECT_EQ(verify::sum_input_limit(DataType::bfloat16, 256), 1u);
  EXPECT_EQ(verify::sum_input_limit(DataType::bfloat16, 257), 0u);
  EXPECT_EQ(verify::sum_input_limit(DataType::float16, 2048), 1u);
  EXPECT_TRUE(verify::exact_on({DataType::bfloat16, ReduceOp::sum}, 256));
  EXPECT_FALSE(verify::exact_on({DataType::bfloat16, ReduceOp::sum}, 257));
  EXPECT_TRUE(verify::exact_on({DataType::bfloat16, ReduceOp::max}, 100000));
  // bfloat16 sums of 32 ranks: inputs 1..8, every sum at most 256 (exact).
  for (std::uint64_t i = 0; i < 100; ++i) {
    std::int64_t sum = 0;
    for (const std::int64_t v : inputs_at({DataType::bfloat16, ReduceOp::sum}, 32, i)) {
      EXPECT_GE(v, 1);
      EXPECT_LE(v, 8);
      sum += v;
    }
    EXPECT_EQ(verify::reduced_bits({DataType::bfloat16, ReduceOp::sum}, 32, i, kSeed),
              verify::element_bits(DataType::bfloat16, sum));
  }
}

RunOptions with(const std::string& dtype, const std::string& op) {
  RunOptions options;
  if (!dtype.empty()) options.extra["dtype"] = dtype;
  if (!op.empty()) options.extra["op"] = op;
  return options;
}

std::string refusal(const RunOptions& options, bool reduces, const std::string& backend,
                    int nranks) {
  try {
    element_plan(options, reduces, backend, nranks);
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "";
}

TEST(DataTypes, DefaultsAreFloatSumOnly) {
  const ElementPlan plan = element_plan(RunOptions{}, true, "mpi", 4);
  ASSERT_EQ(plan.run.size(), 1u);
  EXPECT_EQ(plan.run[0].type, DataType::float32);
  EXPECT_EQ(plan.run[0].op, ReduceOp::sum);
  EXPECT_TRUE(plan.left_out.empty());
  EXPECT_EQ(redop_label(plan.run[0], true), "sum");
  EXPECT_EQ(redop_label(plan.run[0], false), "none");
}

TEST(DataTypes, AllOnMpiRunsWhatMpiHasAndSaysWhatItLeftOut) {
  const ElementPlan reducing = element_plan(with("all", "all"), true, "mpi", 4);
  EXPECT_EQ(reducing.run.size(), 8u * 4u);  // 8 types x sum, prod, min, max
  EXPECT_EQ(reducing.left_out.size(), 2u * 5u + 8u);
  EXPECT_EQ(reducing.left_out.front(),
            (LeftOut{"int8/avg",
                     "the MPI backend has no avg operation (MPI has no average "
                     "reduction)"}));
  EXPECT_EQ(left_out_text(reducing),
            "int8/avg, uint8/avg, int32/avg, uint32/avg, int64/avg, uint64/avg, float/avg, "
            "double/avg: the MPI backend has no avg operation (MPI has no average reduction); "
            "half/sum, half/prod, half/min, half/max, half/avg: the MPI backend has no half type "
            "(MPI has no standard 16-bit floating type); bfloat16/sum, bfloat16/prod, "
            "bfloat16/min, bfloat16/max, bfloat16/avg: the MPI backend has no bfloat16 type (MPI "
            "has no standard 16-bit floating type)");
  EXPECT_EQ(left_out_text(element_plan(RunOptions{}, true, "mpi", 4)), "");
  const ElementPlan moving = element_plan(with("all", "all"), false, "mpi", 4);
  EXPECT_EQ(moving.run.size(), 8u);
  EXPECT_EQ(moving.left_out.size(), 2u);

  const ElementPlan nccl = element_plan(with("all", "all"), true, "nccl", 4);
  EXPECT_EQ(nccl.run.size(), 50u);
  EXPECT_TRUE(nccl.left_out.empty());
}

TEST(DataTypes, WhatCannotRunOrBeVerifiedIsRefusedWhenNamed) {
  EXPECT_EQ(refusal(with("half", ""), false, "mpi", 2),
            "--dtype half: the MPI backend has no half type (MPI has no standard 16-bit floating "
            "type)");
  EXPECT_EQ(refusal(with("all", "avg"), true, "mpi", 2),
            "--op avg: the MPI backend has no avg operation (MPI has no average reduction)");
  EXPECT_EQ(refusal(with("", "avg"), false, "mpi", 2), "") << "nothing reduced: op unused";
  const std::string bf16 = refusal(with("bfloat16", "sum"), true, "nccl", 300);
  EXPECT_NE(bf16.find("--dtype bfloat16 --op sum: a bfloat16 sum over 300 ranks is not exact"),
            std::string::npos)
      << bf16;
  EXPECT_NE(bf16.find("2^8"), std::string::npos) << bf16;
  EXPECT_NE(bf16.find("refused rather than run unverified"), std::string::npos) << bf16;
  EXPECT_NE(refusal(with("float", "avg"), true, "nccl", 3).find("power-of-two rank count"),
            std::string::npos);
  // Through all: left out with why, the rest run.
  const ElementPlan plan = element_plan(with("bfloat16", "all"), true, "nccl", 300);
  EXPECT_EQ(plan.run.size(), 3u);  // prod, min, max
  ASSERT_EQ(plan.left_out.size(), 2u);
  EXPECT_EQ(plan.left_out[0].what, "bfloat16/sum");
  EXPECT_NE(plan.left_out[0].why.find("not exact in every order"), std::string::npos);
  EXPECT_EQ(plan.left_out[1].what, "bfloat16/avg");
}

TEST(DataTypes, OptionsSuggestTheClosestName) {
  try {
    validate_option_value(dtype_option(), "foo", "--dtype");
    FAIL() << "foo accepted";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("\"foo\" is not an accepted value (did you mean "
                        "float?)"),
              std::string::npos)
        << error.what();
  }
  EXPECT_THROW(validate_option_value(redop_option(), "sum,mean", "--op"), ConfigError);
  validate_option_value(redop_option(), "all", "--op");
  validate_option_value(dtype_option(), "int8,bfloat16", "--dtype");
}

// Wrong elements of other types than float are counted: an int8 all-reduce whose sum did not wrap
// where it should, a uint64 max taken as signed, a bfloat16 element with one bit flipped.
TEST(DataTypes, WrongElementsOfEveryTypeAreCounted) {
  const Collective& all_reduce = find_collective("all_reduce");
  constexpr std::uint64_t kCount = 64;
  for (const Element element :
       {Element{DataType::int8, ReduceOp::sum}, Element{DataType::uint64, ReduceOp::max},
        Element{DataType::bfloat16, ReduceOp::sum}, Element{DataType::int32, ReduceOp::avg}}) {
    SCOPED_TRACE(data_type_name(element.type));
    std::vector<std::byte> output(kCount * verify::element_bytes(element.type));
    for (std::uint64_t i = 0; i < kCount; ++i) {
      set_element(output.data(), i, element.type, verify::reduced_bits(element, kRanks, i, kSeed));
    }
    EXPECT_EQ(count_wrong_elements(output.data(), kCount, all_reduce.expected, element, 0, kRanks,
                                   kCount, kCount, kSeed),
              0u);
    std::uint64_t spoiled = 0;
    for (std::uint64_t i = 0; i < kCount; i += 7) {
      set_element(output.data(), i, element.type, element_at(output.data(), i, element.type) ^ 1);
      ++spoiled;
    }
    EXPECT_EQ(count_wrong_elements(output.data(), kCount, all_reduce.expected, element, 0, kRanks,
                                   kCount, kCount, kSeed),
              spoiled);
    // A result that never arrived (the poison left in place) is wrong everywhere.
    poison_elements(output.data(), kCount, element.type);
    EXPECT_GT(count_wrong_elements(output.data(), kCount, all_reduce.expected, element, 0, kRanks,
                                   kCount, kCount, kSeed),
              kCount - 2);
  }
  // The int8 sum computed without wrapping (saturated, as a careless reduction might) is wrong
  // wherever the true sum leaves -128..127.
  const Element int8_sum{DataType::int8, ReduceOp::sum};
  std::vector<std::byte> saturated(kCount);
  std::uint64_t out_of_range = 0;
  for (std::uint64_t i = 0; i < kCount; ++i) {
    std::int64_t sum = 0;
    for (const std::int64_t v : inputs_at(int8_sum, kRanks, i)) sum += v;
    out_of_range += sum < -128 || sum > 127;
    set_element(saturated.data(), i, DataType::int8,
                verify::element_bits(DataType::int8, std::clamp<std::int64_t>(sum, -128, 127)));
  }
  EXPECT_GT(out_of_range, 0u);
  EXPECT_EQ(count_wrong_elements(saturated.data(), kCount, all_reduce.expected, int8_sum, 0, kRanks,
                                 kCount, kCount, kSeed),
            out_of_range);
}

}  // namespace
}  // namespace fabcheck
