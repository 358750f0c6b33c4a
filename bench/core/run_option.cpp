// Family options: text, bounded numbers and flags, each refused with its key and value.
#include "bench/core/run_option.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "results/config_error.hpp"

namespace fabcheck {

std::string text_option(const RunOptions& options, const std::string& key) {
  const auto found = options.extra.find(key);
  return found == options.extra.end() ? std::string() : found->second;
}

double number_option(const RunOptions& options, const std::string& key, double fallback, double min,
                     double max) {
  const std::string text = text_option(options, key);
  if (text.empty()) return fallback;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !std::isfinite(value) || value < min || value > max) {
    char range[96];
    std::snprintf(range, sizeof range, "[%g, %g]", min, max);
    throw ConfigError("--opt " + key + "=" + text + ": expected a number in " + range);
  }
  return value;
}

bool flag_option(const RunOptions& options, const std::string& key, bool fallback) {
  const std::string text = text_option(options, key);
  if (text.empty()) return fallback;
  if (text == "1" || text == "true" || text == "yes" || text == "on") return true;
  if (text == "0" || text == "false" || text == "no" || text == "off") return false;
  throw ConfigError("--opt " + key + "=" + text + ": expected 1 or 0 (true/false, yes/no, on/off)");
}

}  // namespace fabcheck
