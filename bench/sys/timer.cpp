// UTC timestamps for records and run-directory names.
#include "bench/sys/timer.hpp"

#include <ctime>

namespace fabcheck {
namespace {

std::string format_utc(std::time_t at, const char* format) {
  std::tm utc{};
  gmtime_r(&at, &utc);
  char text[64];
  const std::size_t length = std::strftime(text, sizeof(text), format, &utc);
  return std::string(text, length);
}

}  // namespace

std::string utc_timestamp(std::time_t at) { return format_utc(at, "%Y-%m-%dT%H:%M:%SZ"); }
std::string utc_timestamp() { return utc_timestamp(std::time(nullptr)); }
std::string utc_timestamp_compact() { return format_utc(std::time(nullptr), "%Y%m%dT%H%M%SZ"); }

}  // namespace fabcheck
