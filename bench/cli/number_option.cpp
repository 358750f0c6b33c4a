// The one range check of numeric flags: strict reading of the text, then the range.
#include "bench/cli/number_option.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdint>

namespace fabcheck {

std::string number_refusal(const std::string& text, const NumberRange& range) {
  const std::string wanted =
      fmt::format("{} {} {} to {}", range.integer ? "a whole number" : "a finite number",
                  range.min_exclusive ? "above" : "from", range.min, range.max);
  double value = 0;
  if (range.integer) {
    // Read as the widest integer: "-1", "1.5", "1e3", " 7" and "0x10" are not taken for another.
    std::int64_t whole = 0;
    const char* first = text.data();
    const char* last = text.data() + text.size();
    const auto [end, error] = std::from_chars(first, last, whole);
    if (text.empty() || error != std::errc() || end != last)
      return fmt::format("\"{}\" is not {}", text, wanted);
    value = static_cast<double>(whole);
  } else {
    // from_chars: no leading space or '+', no hexadecimal, the whole text or nothing.
    const char* first = text.data();
    const char* last = text.data() + text.size();
    const auto [end, error] = std::from_chars(first, last, value);
    if (text.empty() || error != std::errc() || end != last || !std::isfinite(value))
      return fmt::format("\"{}\" is not {}", text, wanted);
  }
  const bool above_min = range.min_exclusive ? value > range.min : value >= range.min;
  if (!above_min || value > range.max) return fmt::format("\"{}\" is not {}", text, wanted);
  return "";
}

CLI::Validator number_within(const NumberRange& range) {
  return CLI::Validator([range](std::string& text) { return number_refusal(text, range); },
                        range.integer ? "INT" : "NUMBER", "number-within");
}

}  // namespace fabcheck
