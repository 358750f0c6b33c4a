// Small text helpers every layer shares: trimming, case, joining, whole-token integer parsing,
// tokenising.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabcheck::text {

// `text` without the white space (space, tab, CR, LF, FF, VT) around it.
std::string_view trim(std::string_view text);

// `text` with its ASCII letters in lower case, whatever the locale ("0000:3B:00.0" ->
// "0000:3b:00.0").
std::string lower(std::string_view text);

// Whether `a` and `b` are the same but for the case of ASCII letters ("ib" and "IB").
bool equal_ignoring_case(std::string_view a, std::string_view b);

// The items with `separator` between them ("a, b, c"); "" when there are none.
template <typename Range>
std::string join(const Range& items, std::string_view separator) {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out += separator;
    out += item;
    first = false;
  }
  return out;
}

// The same, each item written as `to_text(item)` says (a number, a field of a struct).
template <typename Range, typename ToText>
std::string join(const Range& items, std::string_view separator, ToText to_text) {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out += separator;
    out += to_text(item);
    first = false;
  }
  return out;
}

// The items that are not empty, with `separator` between them (quoted lines of which some may be
// missing).
std::string join_non_empty(const std::vector<std::string>& items, std::string_view separator);

// The whole of `text` as a decimal integer (no sign, no spaces); nullopt otherwise or on overflow.
std::optional<std::uint64_t> parse_unsigned(std::string_view text);
std::optional<int> parse_small_int(std::string_view text);  // 0..INT_MAX

// The whole of `text` as a finite decimal number ("97.52", "1e3"); nullopt otherwise.
std::optional<double> parse_number(std::string_view text);

std::vector<std::string_view> split_whitespace(std::string_view text);
// The pieces of `text` between `separator`s, empty ones kept ("a,,b" -> "a", "", "b"; "" -> "").
std::vector<std::string_view> split(std::string_view text, char separator);

// Consumes `prefix` from the front of `text` when it is there.
bool consume(std::string_view& text, std::string_view prefix);

// Consumes leading decimal digits as an integer; nullopt (text untouched) when there are none.
std::optional<int> consume_int(std::string_view& text);

}  // namespace fabcheck::text
