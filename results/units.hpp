// Byte sizes as people write them ("8", "4K", "256M", "1G") and as fabcheck prints them; short
// times as a person reads them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fabcheck {

// Parses "8", "4K", "4k", "256M", "1G", "2T" (binary multiples; an optional trailing "B" or "iB").
// Returns nullopt for anything else, including overflow, negatives and fractions.
std::optional<std::uint64_t> parse_byte_size(std::string_view text);

// "8B", "4KiB", "256MiB", "1.5GiB": exact multiples print without a fraction.
std::string format_bytes(std::uint64_t bytes);

// A time in microseconds to three figures in the unit that suits it: "850 us", "94 ms", "2.5 s".
std::string format_microseconds(double us);

}  // namespace fabcheck
