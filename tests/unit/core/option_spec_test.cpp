// Declared options: every type's accepted and refused values, the rule text, defaults, and the
// messages that name key, value and rule.
#include <gtest/gtest.h>

#include <cmath>

#include "bench/core/option_spec.hpp"
#include "bench/core/probe.hpp"
#include "bench/sys/config_error.hpp"

namespace fabcheck {
namespace {

std::string refusal(const OptionSpec& spec, const std::string& value) {
  try {
    validate_option_value(spec, value, "--opt");
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "";
}

RunOptions given(const std::string& key, const std::string& value) {
  RunOptions options;
  options.extra[key] = value;
  return options;
}

const OptionSpec kSeconds{.key = "t.seconds",
                          .type = OptionType::number,
                          .default_value = "2",
                          .meaning = "m",
                          .min = 0,
                          .max = 3600,
                          .min_exclusive = true};
const OptionSpec kBytes{.key = "t.bytes",
                        .type = OptionType::byte_size,
                        .default_value = "64M",
                        .meaning = "m",
                        .min = 4096,
                        .max = 1ull << 30,
                        .multiple_of = 4096};
const OptionSpec kCount{.key = "t.count",
                        .type = OptionType::integer,
                        .default_value = "32",
                        .meaning = "m",
                        .min = 1,
                        .max = 4096};
const OptionSpec kFlag{
    .key = "t.flag", .type = OptionType::flag, .default_value = "0", .meaning = "m"};
const OptionSpec kChoice{.key = "t.choice",
                         .type = OptionType::choice,
                         .default_value = "out",
                         .meaning = "m",
                         .choices = {"out", "in", "both"}};
const OptionSpec kSweep{
    .key = "t.sizes", .type = OptionType::size_sweep, .default_value = "1K:64M:4", .meaning = "m"};

TEST(OptionSpec, NumbersMustBeFiniteAndInRange) {
  for (const char* good : {"0.5", "3600", "1e3"}) EXPECT_EQ(refusal(kSeconds, good), "") << good;
  EXPECT_EQ(refusal(kSeconds, "inf"),
            "--opt t.seconds=inf: not a finite number; expected a finite number above 0 and at "
            "most 3600");
  EXPECT_EQ(refusal(kSeconds, "nan"),
            "--opt t.seconds=nan: not a finite number; expected a finite number above 0 and at "
            "most 3600");
  EXPECT_EQ(refusal(kSeconds, "0"),
            "--opt t.seconds=0: out of range; expected a finite number above 0 and at most 3600");
  EXPECT_EQ(refusal(kSeconds, "-5"),
            "--opt t.seconds=-5: out of range; expected a finite number above 0 and at most 3600");
  EXPECT_EQ(refusal(kSeconds, "3600.5"),
            "--opt t.seconds=3600.5: out of range; expected a finite number above 0 and at most "
            "3600");
  for (const char* bad : {"", "2s", " 2", "2 ", "0x10", "--1"})
    EXPECT_NE(refusal(kSeconds, bad).find("not a number"), std::string::npos) << bad;
}

TEST(OptionSpec, ByteSizesHonourRangeAndMultiple) {
  EXPECT_EQ(refusal(kBytes, "8K"), "");
  EXPECT_EQ(refusal(kBytes, "1G"), "");
  EXPECT_EQ(refusal(kBytes, "lots"),
            "--opt t.bytes=lots: not a byte size; expected a byte size (4096, 4K, 256M, 1G) from "
            "4KiB to 1GiB, a multiple of 4KiB");
  EXPECT_NE(refusal(kBytes, "1000").find("t.bytes=1000: out of range"), std::string::npos);
  EXPECT_NE(refusal(kBytes, "2G").find("t.bytes=2G: out of range"), std::string::npos);
  EXPECT_NE(refusal(kBytes, "6K").find("not a multiple of 4KiB"), std::string::npos);
  EXPECT_NE(refusal(kBytes, "-4K").find("not a byte size"), std::string::npos);
}

TEST(OptionSpec, IntegersFlagsChoicesAndSweeps) {
  EXPECT_EQ(refusal(kCount, "4096"), "");
  EXPECT_EQ(refusal(kCount, "0"),
            "--opt t.count=0: out of range; expected a whole number from 1 to 4096");
  EXPECT_NE(refusal(kCount, "1.5").find("not a whole number"), std::string::npos);
  for (const char* good : {"1", "0", "true", "off", "yes"}) EXPECT_EQ(refusal(kFlag, good), "");
  EXPECT_EQ(refusal(kFlag, "maybe"),
            "--opt t.flag=maybe: not a flag; expected a flag: 1/0, true/false, yes/no, on/off");
  EXPECT_EQ(refusal(kChoice, "both"), "");
  EXPECT_EQ(refusal(kChoice, "sideways"),
            "--opt t.choice=sideways: not an accepted value; expected one of out, in, both");
  EXPECT_EQ(refusal(kSweep, "8:256M:2"), "");
  EXPECT_EQ(refusal(kSweep, "1M,4M"), "");
  const std::string garbage = refusal(kSweep, "garbage");
  EXPECT_EQ(garbage.rfind("--opt t.sizes=garbage: ", 0), 0u) << garbage;
  EXPECT_EQ(garbage.find("--sizes"), std::string::npos) << garbage;
  EXPECT_NE(garbage.find("expected sizes: MIN:MAX:FACTOR"), std::string::npos) << garbage;
}

TEST(OptionSpec, OriginLeadsTheMessage) {
  try {
    validate_option_value(kChoice, "x", "plan gate");
    FAIL() << "accepted";
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()).rfind("plan gate t.choice=x: ", 0), 0u) << error.what();
  }
}

TEST(OptionSpec, ReadersReturnTheDefaultOrTheGivenValue) {
  const RunOptions none;
  EXPECT_DOUBLE_EQ(option_number(none, kSeconds), 2.0);
  EXPECT_EQ(option_bytes(none, kBytes), 64ull << 20);
  EXPECT_EQ(option_integer(none, kCount), 32);
  EXPECT_FALSE(option_flag(none, kFlag));
  EXPECT_EQ(option_choice(none, kChoice), "out");
  EXPECT_EQ(option_sizes(none, kSweep).front(), 1024u);
  EXPECT_FALSE(option_given(none, kFlag));

  EXPECT_DOUBLE_EQ(option_number(given("t.seconds", "0.25"), kSeconds), 0.25);
  EXPECT_EQ(option_bytes(given("t.bytes", "8K"), kBytes), 8192u);
  EXPECT_TRUE(option_flag(given("t.flag", "on"), kFlag));
  EXPECT_TRUE(option_given(given("t.flag", "on"), kFlag));
  EXPECT_EQ(option_sizes(given("t.sizes", "4M,1M"), kSweep),
            (std::vector<std::uint64_t>{1u << 20, 4u << 20}));
  EXPECT_THROW(option_number(given("t.seconds", "inf"), kSeconds), ConfigError);
  // Reading a spec as another type is a bug in the probe, not bad input.
  EXPECT_THROW(option_flag(none, kSeconds), std::logic_error);
}

TEST(OptionSpec, RuleTextSaysTheRange) {
  EXPECT_EQ(option_rule(kCount), "a whole number from 1 to 4096");
  EXPECT_EQ(
      option_rule(OptionSpec{
          .key = "k", .type = OptionType::number, .default_value = "1", .meaning = "m", .min = 0}),
      "a finite number at least 0");
  EXPECT_EQ(option_rule(kChoice), "one of out, in, both");
}

TEST(OptionSpec, ChoiceListsTakeCommasOrAllAndSuggestTheClosestChoice) {
  const OptionSpec types{.key = "t.types",
                         .type = OptionType::choice_list,
                         .default_value = "float",
                         .meaning = "m",
                         .choices = {"int8", "float", "double"}};
  EXPECT_EQ(option_choices(RunOptions{}, types), (std::vector<std::string>{"float"}));
  EXPECT_EQ(option_choices(given("t.types", "double,int8,double"), types),
            (std::vector<std::string>{"double", "int8"}));
  EXPECT_EQ(option_choices(given("t.types", "all"), types),
            (std::vector<std::string>{"int8", "float", "double"}));
  EXPECT_EQ(refusal(types, "int8,flaot"),
            "--opt t.types=int8,flaot: \"flaot\" is not an accepted value (did you mean float?); "
            "expected one or more of int8, float, double separated by commas, or all");
  EXPECT_EQ(refusal(types, "int8,xyzzyq").find("did you mean"), std::string::npos);
  EXPECT_NE(refusal(types, "").find("\"\" is not an accepted value"), std::string::npos);
  EXPECT_NE(refusal(types, "int8,").find("\"\" is not an accepted value"), std::string::npos);
  EXPECT_EQ(refusal(types, "int8,double"), "");
}

TEST(OptionSpec, IntegerListsTextAndOpenRanges) {
  const OptionSpec workers{.key = "t.workers",
                           .type = OptionType::integer_list,
                           .default_value = "1,4,16",
                           .meaning = "m",
                           .min = 1,
                           .max = 1024};
  EXPECT_EQ(option_integers(RunOptions{}, workers), (std::vector<std::int64_t>{1, 4, 16}));
  EXPECT_EQ(option_integers(given("t.workers", "2"), workers), (std::vector<std::int64_t>{2}));
  EXPECT_NE(refusal(workers, "1,0").find("t.workers=1,0: 0 is out of range"), std::string::npos)
      << refusal(workers, "1,0");
  EXPECT_NE(refusal(workers, "1,,2").find("not a whole number"), std::string::npos);
  EXPECT_NE(refusal(workers, "").find("not a whole number"), std::string::npos);
  EXPECT_EQ(option_rule(workers),
            "whole numbers separated by commas (1,4,16), each from 1 to 1024");

  const OptionSpec file{.key = "t.file", .type = OptionType::text, .meaning = "m"};
  EXPECT_EQ(option_text(given("t.file", "/var/log/kern.log"), file), "/var/log/kern.log");
  EXPECT_NE(refusal(file, "").find("t.file=: empty"), std::string::npos) << refusal(file, "");
  EXPECT_FALSE(option_given(RunOptions{}, file));

  const OptionSpec gap{.key = "t.gap",
                       .type = OptionType::number,
                       .default_value = "0.5",
                       .meaning = "m",
                       .min = 0,
                       .max = 1,
                       .min_exclusive = true,
                       .max_exclusive = true};
  EXPECT_EQ(option_rule(gap), "a finite number above 0 and below 1");
  EXPECT_EQ(refusal(gap, "0.99"), "");
  EXPECT_NE(refusal(gap, "1").find("out of range"), std::string::npos);
  EXPECT_NE(refusal(gap, "0").find("out of range"), std::string::npos);
}

}  // namespace
}  // namespace fabcheck
