// UTC timestamps for records and run-directory names.
#include "bench/sys/timer.hpp"

#include <ctime>

namespace fabcheck {
namespace {

std::string format_utc(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[64];
  const std::size_t length = std::strftime(text, sizeof(text), format, &utc);
  return std::string(text, length);
}

}  // namespace

std::string utc_timestamp() { return format_utc("%Y-%m-%dT%H:%M:%SZ"); }
std::string utc_timestamp_compact() { return format_utc("%Y%m%dT%H%M%SZ"); }

}  // namespace fabcheck
