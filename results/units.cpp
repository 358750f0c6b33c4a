// Parsing and printing byte sizes with binary multiples (K = 1024).
#include "results/units.hpp"

#include <array>
#include <cctype>
#include <limits>

#include <fmt/format.h>

namespace fabcheck {
namespace {

// Power of 1024 named by a multiplier letter ('K' = 1 ... 'E' = 6); -1 for anything else.
int binary_exponent(char letter) {
  switch (std::toupper(static_cast<unsigned char>(letter))) {
    case 'K':
      return 1;
    case 'M':
      return 2;
    case 'G':
      return 3;
    case 'T':
      return 4;
    case 'P':
      return 5;
    case 'E':
      return 6;
    default:
      return -1;
  }
}

// What may follow the digits and multiplier: nothing, "B", or (after a multiplier) "iB".
bool is_byte_suffix(std::string_view rest, bool after_multiplier) {
  if (rest.empty() || rest == "B" || rest == "b") return true;
  return after_multiplier && (rest == "iB" || rest == "ib");
}

}  // namespace

std::optional<std::uint64_t> parse_byte_size(std::string_view text) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  std::size_t pos = 0;
  std::uint64_t number = 0;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
    const auto digit = static_cast<std::uint64_t>(text[pos] - '0');
    if (number > (kMax - digit) / 10) return std::nullopt;
    number = number * 10 + digit;
    ++pos;
  }
  if (pos == 0) return std::nullopt;  // empty, sign, fraction without digits, garbage
  std::string_view rest = text.substr(pos);
  int exponent = 0;
  if (!rest.empty() && binary_exponent(rest.front()) > 0) {
    exponent = binary_exponent(rest.front());
    rest.remove_prefix(1);
  }
  if (!is_byte_suffix(rest, exponent > 0)) return std::nullopt;
  for (int i = 0; i < exponent; ++i) {
    if (number > kMax / 1024) return std::nullopt;
    number *= 1024;
  }
  return number;
}

std::string format_bytes(std::uint64_t bytes) {
  static constexpr std::array<const char*, 7> kUnits = {"B",   "KiB", "MiB", "GiB",
                                                        "TiB", "PiB", "EiB"};
  std::size_t unit = 0;
  std::uint64_t scale = 1;
  while (unit + 1 < kUnits.size() && bytes / scale >= 1024) {
    scale *= 1024;
    ++unit;
  }
  if (bytes % scale == 0) return fmt::format("{}{}", bytes / scale, kUnits[unit]);
  std::string number =
      fmt::format("{:.2f}", static_cast<double>(bytes) / static_cast<double>(scale));
  while (number.back() == '0') number.pop_back();
  if (number.back() == '.') number.pop_back();
  return number + kUnits[unit];
}

std::string format_microseconds(double us) {
  if (us >= 1e6) return fmt::format("{:.3g} s", us / 1e6);
  if (us >= 1e3) return fmt::format("{:.3g} ms", us / 1e3);
  return fmt::format("{:.3g} us", us);
}

}  // namespace fabcheck
