// Small text helpers the fabric parsers share: trimming, whole-token integer parsing, tokenising.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabcheck::text {

std::string_view trim(std::string_view text);

// The whole of `text` as a decimal integer (no sign, no spaces); nullopt otherwise or on overflow.
std::optional<std::uint64_t> parse_unsigned(std::string_view text);
std::optional<int> parse_small_int(std::string_view text);  // 0..INT_MAX

// The whole of `text` as a finite decimal number ("97.52", "1e3"); nullopt otherwise.
std::optional<double> parse_number(std::string_view text);

std::vector<std::string_view> split_whitespace(std::string_view text);

// Consumes `prefix` from the front of `text` when it is there.
bool consume(std::string_view& text, std::string_view prefix);

// Consumes leading decimal digits as an integer; nullopt (text untouched) when there are none.
std::optional<int> consume_int(std::string_view& text);

}  // namespace fabcheck::text
