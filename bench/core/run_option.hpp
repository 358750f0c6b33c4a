// Reading one family option (--opt key=value) with an error that names the key and the value.
#pragma once

#include <string>

#include "bench/core/probe.hpp"

namespace fabcheck {

// The value of --opt key=..., or "" when it was not given.
std::string text_option(const RunOptions& options, const std::string& key);

// The number given for `key` (fallback when absent); ConfigError "--opt key=value: expected a
// number in [min, max]" when it is not one or lies outside.
double number_option(const RunOptions& options, const std::string& key, double fallback, double min,
                     double max);

// 1/true/yes/on or 0/false/no/off (fallback when absent); ConfigError otherwise.
bool flag_option(const RunOptions& options, const std::string& key, bool fallback);

}  // namespace fabcheck
