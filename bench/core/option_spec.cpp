// Checking and reading declared family options: one parser per type, one rule text per spec.
#include "bench/core/option_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

#include "bench/core/probe.hpp"
#include "bench/core/size_range.hpp"
#include "bench/sys/config_error.hpp"
#include "results/units.hpp"

namespace fabcheck {
namespace {

bool bounded_below(const OptionSpec& spec) { return std::isfinite(spec.min); }
bool bounded_above(const OptionSpec& spec) { return std::isfinite(spec.max); }

std::string show_number(double value) { return fmt::format("{}", value); }
std::string show_bytes(double value) { return format_bytes(static_cast<std::uint64_t>(value)); }

// "from 1 to 4096", "above 0 and at most 3600", "above 0 and below 1", "of at least 4KiB", ""
// (unbounded).
std::string range_text(const OptionSpec& spec, std::string (*show)(double)) {
  const bool low = bounded_below(spec);
  const bool high = bounded_above(spec);
  if (low && high && !spec.min_exclusive && !spec.max_exclusive)
    return "from " + show(spec.min) + " to " + show(spec.max);
  const std::string upper = (spec.max_exclusive ? "below " : "at most ") + show(spec.max);
  const std::string lower = (spec.min_exclusive ? "above " : "at least ") + show(spec.min);
  if (low && high) return lower + " and " + upper;
  if (low) return lower;
  if (high) return upper;
  return "";
}

bool in_range(const OptionSpec& spec, double value) {
  if (bounded_below(spec) && (spec.min_exclusive ? value <= spec.min : value < spec.min))
    return false;
  return !(bounded_above(spec) && (spec.max_exclusive ? value >= spec.max : value > spec.max));
}

[[noreturn]] void reject(const OptionSpec& spec, const std::string& value, const std::string& why,
                         const std::string& origin) {
  throw ConfigError(origin + " " + spec.key + "=" + value + ": " + why + "; expected " +
                    option_rule(spec));
}

// Parsed values, checked against the spec; `origin` names where the value came from.
std::uint64_t parse_bytes(const OptionSpec& spec, const std::string& value,
                          const std::string& origin) {
  const auto bytes = parse_byte_size(value);
  if (!bytes) reject(spec, value, "not a byte size", origin);
  if (!in_range(spec, static_cast<double>(*bytes))) reject(spec, value, "out of range", origin);
  if (spec.multiple_of > 1 && *bytes % spec.multiple_of != 0)
    reject(spec, value, "not a multiple of " + format_bytes(spec.multiple_of), origin);
  return *bytes;
}

std::vector<std::uint64_t> parse_sizes(const OptionSpec& spec, const std::string& value,
                                       const std::string& origin) {
  std::vector<std::uint64_t> sizes;
  try {
    sizes = parse_size_sweep(value);
  } catch (const ConfigError& error) {
    // The sweep parser speaks of --sizes; here the key and value lead the message already.
    std::string why = error.what();
    const std::string prefix = "--sizes \"" + value + "\": ";
    if (why.starts_with(prefix)) why.erase(0, prefix.size());
    reject(spec, value, why, origin);
  }
  if (sizes.empty()) reject(spec, value, "no size", origin);
  for (std::uint64_t size : sizes) {
    if (!in_range(spec, static_cast<double>(size)))
      reject(spec, value, format_bytes(size) + " is out of range", origin);
  }
  return sizes;
}

std::int64_t parse_integer(const OptionSpec& spec, const std::string& value,
                           const std::string& origin) {
  std::int64_t number = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (value.empty() || error != std::errc() || end != value.data() + value.size())
    reject(spec, value, "not a whole number", origin);
  if (!in_range(spec, static_cast<double>(number))) reject(spec, value, "out of range", origin);
  return number;
}

double parse_number(const OptionSpec& spec, const std::string& value, const std::string& origin) {
  double number = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (value.empty() || error != std::errc() || end != value.data() + value.size())
    reject(spec, value, "not a number", origin);
  if (!std::isfinite(number)) reject(spec, value, "not a finite number", origin);
  if (!in_range(spec, number)) reject(spec, value, "out of range", origin);
  return number;
}

bool parse_flag(const OptionSpec& spec, const std::string& value, const std::string& origin) {
  if (value == "1" || value == "true" || value == "yes" || value == "on") return true;
  if (value == "0" || value == "false" || value == "no" || value == "off") return false;
  reject(spec, value, "not a flag", origin);
}

const std::string& parse_choice(const OptionSpec& spec, const std::string& value,
                                const std::string& origin) {
  for (const std::string& choice : spec.choices) {
    if (choice == value) return choice;
  }
  reject(spec, value, "not an accepted value", origin);
}

std::vector<std::int64_t> parse_integers(const OptionSpec& spec, const std::string& value,
                                         const std::string& origin) {
  std::vector<std::int64_t> numbers;
  std::size_t start = 0;
  while (start <= value.size()) {
    const std::size_t comma = std::min(value.find(',', start), value.size());
    const std::string item = value.substr(start, comma - start);
    std::int64_t number = 0;
    const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), number);
    if (item.empty() || error != std::errc() || end != item.data() + item.size())
      reject(spec, value, "\"" + item + "\" is not a whole number", origin);
    if (!in_range(spec, static_cast<double>(number)))
      reject(spec, value, item + " is out of range", origin);
    numbers.push_back(number);
    start = comma + 1;
  }
  return numbers;
}

std::vector<std::string> parse_choice_list(const OptionSpec& spec, const std::string& value,
                                           const std::string& origin) {
  if (value == "all") return spec.choices;
  std::vector<std::string> chosen;
  std::size_t start = 0;
  while (start <= value.size()) {
    const std::size_t comma = std::min(value.find(',', start), value.size());
    const std::string item = value.substr(start, comma - start);
    if (std::find(spec.choices.begin(), spec.choices.end(), item) == spec.choices.end()) {
      const std::string closest = closest_name(item, spec.choices);
      reject(spec, value,
             "\"" + item + "\" is not an accepted value" +
                 (closest.empty() ? "" : " (did you mean " + closest + "?)"),
             origin);
    }
    if (std::find(chosen.begin(), chosen.end(), item) == chosen.end()) chosen.push_back(item);
    start = comma + 1;
  }
  return chosen;
}

const std::string& parse_text(const OptionSpec& spec, const std::string& value,
                              const std::string& origin) {
  if (value.empty()) reject(spec, value, "empty", origin);
  return value;
}

// The text a reader parses: the given value, else the default.
const std::string& text_of(const RunOptions& options, const OptionSpec& spec, OptionType type) {
  if (spec.type != type)
    throw std::logic_error("option " + spec.key + " is a " + option_type_name(spec.type) +
                           ", read as a " + option_type_name(type));
  const auto found = options.extra.find(spec.key);
  return found == options.extra.end() ? spec.default_value : found->second;
}

constexpr const char* kReadOrigin = "--opt";

// Edits (insert, delete, replace) between two keys, for "did you mean".
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string closest_name(const std::string& key, const std::vector<std::string>& candidates) {
  std::string closest;
  std::size_t best = std::max<std::size_t>(3, key.size() / 4) + 1;
  for (const std::string& candidate : candidates) {
    const std::size_t distance = edit_distance(key, candidate);
    if (distance < best) {
      best = distance;
      closest = candidate;
    }
  }
  return closest;
}

const char* option_type_name(OptionType type) {
  switch (type) {
    case OptionType::byte_size:
      return "byte size";
    case OptionType::size_sweep:
      return "size sweep";
    case OptionType::integer:
      return "integer";
    case OptionType::number:
      return "number";
    case OptionType::flag:
      return "flag";
    case OptionType::choice:
      return "choice";
    case OptionType::integer_list:
      return "integer list";
    case OptionType::choice_list:
      return "choice list";
    case OptionType::text:
      return "text";
  }
  return "?";
}

std::string option_rule(const OptionSpec& spec) {
  std::string rule;
  switch (spec.type) {
    case OptionType::byte_size:
      rule = "a byte size (4096, 4K, 256M, 1G)";
      if (const auto range = range_text(spec, show_bytes); !range.empty()) rule += " " + range;
      if (spec.multiple_of > 1) rule += ", a multiple of " + format_bytes(spec.multiple_of);
      return rule;
    case OptionType::size_sweep:
      rule = "sizes: MIN:MAX:FACTOR (8:256M:2), a SIZE, or a list (1M,4M)";
      if (const auto range = range_text(spec, show_bytes); !range.empty())
        rule += ", each " + range;
      return rule;
    case OptionType::integer:
      rule = "a whole number";
      if (const auto range = range_text(spec, show_number); !range.empty()) rule += " " + range;
      return rule;
    case OptionType::number:
      rule = "a finite number";
      if (const auto range = range_text(spec, show_number); !range.empty()) rule += " " + range;
      return rule;
    case OptionType::flag:
      return "a flag: 1/0, true/false, yes/no, on/off";
    case OptionType::choice:
      return "one of " + fmt::format("{}", fmt::join(spec.choices, ", "));
    case OptionType::integer_list:
      rule = "whole numbers separated by commas (1,4,16)";
      if (const auto range = range_text(spec, show_number); !range.empty())
        rule += ", each " + range;
      return rule;
    case OptionType::choice_list:
      return "one or more of " + fmt::format("{}", fmt::join(spec.choices, ", ")) +
             " separated by commas, or all";
    case OptionType::text:
      return "any text that is not empty";
  }
  return rule;
}

void validate_option_value(const OptionSpec& spec, const std::string& value,
                           const std::string& origin) {
  switch (spec.type) {
    case OptionType::byte_size:
      parse_bytes(spec, value, origin);
      return;
    case OptionType::size_sweep:
      parse_sizes(spec, value, origin);
      return;
    case OptionType::integer:
      parse_integer(spec, value, origin);
      return;
    case OptionType::number:
      parse_number(spec, value, origin);
      return;
    case OptionType::flag:
      parse_flag(spec, value, origin);
      return;
    case OptionType::choice:
      parse_choice(spec, value, origin);
      return;
    case OptionType::integer_list:
      parse_integers(spec, value, origin);
      return;
    case OptionType::choice_list:
      parse_choice_list(spec, value, origin);
      return;
    case OptionType::text:
      parse_text(spec, value, origin);
      return;
  }
}

std::uint64_t option_bytes(const RunOptions& options, const OptionSpec& spec) {
  return parse_bytes(spec, text_of(options, spec, OptionType::byte_size), kReadOrigin);
}

std::vector<std::uint64_t> option_sizes(const RunOptions& options, const OptionSpec& spec) {
  return parse_sizes(spec, text_of(options, spec, OptionType::size_sweep), kReadOrigin);
}

std::int64_t option_integer(const RunOptions& options, const OptionSpec& spec) {
  return parse_integer(spec, text_of(options, spec, OptionType::integer), kReadOrigin);
}

double option_number(const RunOptions& options, const OptionSpec& spec) {
  return parse_number(spec, text_of(options, spec, OptionType::number), kReadOrigin);
}

bool option_flag(const RunOptions& options, const OptionSpec& spec) {
  return parse_flag(spec, text_of(options, spec, OptionType::flag), kReadOrigin);
}

std::string option_choice(const RunOptions& options, const OptionSpec& spec) {
  return parse_choice(spec, text_of(options, spec, OptionType::choice), kReadOrigin);
}

std::vector<std::int64_t> option_integers(const RunOptions& options, const OptionSpec& spec) {
  return parse_integers(spec, text_of(options, spec, OptionType::integer_list), kReadOrigin);
}

std::string option_text(const RunOptions& options, const OptionSpec& spec) {
  return parse_text(spec, text_of(options, spec, OptionType::text), kReadOrigin);
}

std::vector<std::string> option_choices(const RunOptions& options, const OptionSpec& spec) {
  return parse_choice_list(spec, text_of(options, spec, OptionType::choice_list), kReadOrigin);
}

bool option_given(const RunOptions& options, const OptionSpec& spec) {
  return options.extra.count(spec.key) != 0;
}

}  // namespace fabcheck
