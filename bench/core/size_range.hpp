// Message-size sweeps: "--sizes MIN:MAX:FACTOR" (8:256M:2), a single size ("1M"), or a list
// ("1M,4M").
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace fabcheck {

// Geometric sweep from min to max inclusive, multiplying by factor (an integer >= 2); the last size
// is max only when it lies on the sweep. Throws ConfigError naming the value when malformed:
// unparsable sizes, min > max, zero, a factor below 2.
std::vector<std::uint64_t> parse_size_sweep(std::string_view text);

}  // namespace fabcheck
