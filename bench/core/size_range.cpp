// Parsing of message-size sweeps given on the command line.
#include "bench/core/size_range.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "bench/sys/config_error.hpp"
#include "results/units.hpp"

namespace fabcheck {
namespace {

std::uint64_t parse_size_field(std::string_view field, std::string_view whole, const char* what) {
  const auto size = parse_byte_size(field);
  if (!size) {
    throw ConfigError("--sizes \"" + std::string(whole) + "\": " + what + " \"" +
                      std::string(field) + "\" is not a size (examples: 8, 4K, 256M, 1G)");
  }
  if (*size == 0) {
    throw ConfigError("--sizes \"" + std::string(whole) + "\": " + what + " must be above 0");
  }
  return *size;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return parts;
}

// "1,000,000": one number written with thousands separators, not a list of three sizes.
bool looks_like_digit_groups(std::string_view text) {
  const auto parts = split(text, ',');
  const auto digits = [](std::string_view part) {
    return !part.empty() &&
           std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (parts.size() < 2 || !digits(parts[0]) || parts[0].size() > 3 || parts[0][0] == '0')
    return false;
  return std::all_of(parts.begin() + 1, parts.end(),
                     [&](std::string_view part) { return part.size() == 3 && digits(part); }) &&
         std::any_of(parts.begin() + 1, parts.end(), [](std::string_view part) {
           return part[0] == '0';  // "1,000", "1,024": as a list, a size with a leading zero
         });
}

}  // namespace

std::vector<std::uint64_t> parse_size_sweep(std::string_view text) {
  if (looks_like_digit_groups(text)) {
    std::string plain(text);
    plain.erase(std::remove(plain.begin(), plain.end(), ','), plain.end());
    throw ConfigError("--sizes \"" + std::string(text) +
                      "\": a comma separates sizes (8,4K,1M); write one size without separators (" +
                      plain + ", or with a unit: 4K, 1M)");
  }
  if (text.find(',') != std::string_view::npos) {
    std::vector<std::uint64_t> sizes;
    for (auto part : split(text, ',')) sizes.push_back(parse_size_field(part, text, "size"));
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    return sizes;
  }
  const auto parts = split(text, ':');
  if (parts.size() == 1) return {parse_size_field(parts[0], text, "size")};
  if (parts.size() != 3) {
    throw ConfigError("--sizes \"" + std::string(text) +
                      "\": expected MIN:MAX:FACTOR (e.g. 8:256M:2), one size, or a comma list");
  }
  const std::uint64_t min = parse_size_field(parts[0], text, "MIN");
  const std::uint64_t max = parse_size_field(parts[1], text, "MAX");
  if (min > max) {
    throw ConfigError("--sizes \"" + std::string(text) + "\": MIN " + std::string(parts[0]) +
                      " is above MAX " + std::string(parts[1]));
  }
  std::uint64_t factor = 0;
  for (char c : parts[2]) {
    if (c < '0' || c > '9' || factor > 1000) {
      factor = 0;
      break;
    }
    factor = factor * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (factor < 2) {
    throw ConfigError("--sizes \"" + std::string(text) + "\": FACTOR \"" + std::string(parts[2]) +
                      "\" must be a whole number from 2 to 1000");
  }
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t size = min; size <= max; size *= factor) {
    sizes.push_back(size);
    if (size > std::numeric_limits<std::uint64_t>::max() / factor) break;
  }
  return sizes;
}

}  // namespace fabcheck
