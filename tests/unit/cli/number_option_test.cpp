// The one range check of numeric flags (issue 23 item 12): each kind of text that broke a flag is
// refused with the rule it missed, in-range text passes, and add_number_option cuts the range to
// what the variable holds (tests/scripts/test_numeric_flags.py checks every flag goes through it).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "bench/cli/number_option.hpp"

namespace fabcheck {
namespace {

const NumberRange kCount{0, 1000, true, false};
const NumberRange kSeconds{0, 3600, false, true};

TEST(NumberOption, EveryTextThatBrokeAFlagIsRefusedNamingTheRule) {
  for (const char* text : {"-1", "1.5", "1e3", " 7", "+7", "0x10", "5x", "", "-", "1001",
                           "18446744073709551616", "99999999999999999999"}) {
    EXPECT_EQ(number_refusal(text, kCount),
              "\"" + std::string(text) + "\" is not a whole number from 0 to 1000")
        << text;
  }
  for (const char* text : {"nan", "NaN", "inf", "-inf", "infinity", "1e400", "-0.5", "0",
                           "3600.001", " 3", "0x10", "1/2", "5%"}) {
    EXPECT_EQ(number_refusal(text, kSeconds),
              "\"" + std::string(text) + "\" is not a finite number above 0 to 3600")
        << text;
  }
}

TEST(NumberOption, TextWithinTheRangePasses) {
  for (const char* text : {"0", "7", "1000"}) EXPECT_EQ(number_refusal(text, kCount), "") << text;
  for (const char* text : {"0.001", "1e3", "3600", "2.5"}) {
    EXPECT_EQ(number_refusal(text, kSeconds), "") << text;
  }
}

TEST(NumberOption, TheRangeIsCutToWhatTheVariableHolds) {
  CLI::App app;
  std::uint8_t small = 0;
  int whole = 0;
  add_number_option(app, "--small", small, "", -5, 1e9);
  add_number_option(app, "--whole", whole, "", 0, 1e12);
  EXPECT_NO_THROW(app.parse("--small 255 --whole 2147483647", false));
  EXPECT_EQ(small, 255);
  EXPECT_EQ(whole, 2147483647);
  CLI::App again;
  add_number_option(again, "--small", small, "", -5, 1e9);
  try {
    again.parse("--small 256", false);
    FAIL() << "256 went into a uint8_t";
  } catch (const CLI::ValidationError& error) {
    EXPECT_NE(std::string(error.what()).find("\"256\" is not a whole number from 0 to 255"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace fabcheck
