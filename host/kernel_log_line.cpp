// Kernel log time prefixes: kmsg records, bracketed seconds or ctime, ISO 8601, classic syslog.
#include "host/kernel_log_line.hpp"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>

#include "bench/sys/timer.hpp"

namespace fabcheck {
namespace {

constexpr double kDay_s = 86400;
constexpr std::string_view kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Exactly `count` digits at `at` as a number; -1 when not digits.
int digits(std::string_view text, std::size_t at, std::size_t count) {
  if (at + count > text.size()) return -1;
  int value = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    if (!is_digit(text[i])) return -1;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

int month_index(std::string_view name) {
  for (int i = 0; i < 12; ++i) {
    if (name == kMonths[i]) return i;
  }
  return -1;
}

bool valid_clock(int hour, int minute, int second) {
  return hour >= 0 && hour < 24 && minute >= 0 && minute < 60 && second >= 0 && second <= 60;
}

double from_utc(std::tm& fields) { return static_cast<double>(timegm(&fields)); }

double from_local(std::tm& fields) {
  fields.tm_isdst = -1;
  return static_cast<double>(std::mktime(&fields));
}

// "HH:MM:SS" at `at`; false when malformed.
bool read_clock(std::string_view text, std::size_t at, std::tm& fields) {
  if (at + 8 > text.size() || text[at + 2] != ':' || text[at + 5] != ':') return false;
  fields.tm_hour = digits(text, at, 2);
  fields.tm_min = digits(text, at + 3, 2);
  fields.tm_sec = digits(text, at + 6, 2);
  return valid_clock(fields.tm_hour, fields.tm_min, fields.tm_sec);
}

// ISO 8601 date-time at the start of `text`; sets `consumed`. A missing zone means local time.
std::optional<double> iso_prefix(std::string_view text, std::size_t& consumed) {
  std::tm fields{};
  const int year = digits(text, 0, 4);
  const int month = digits(text, 5, 2);
  const int day = digits(text, 8, 2);
  if (year < 1970 || text.size() < 10 || text[4] != '-' || text[7] != '-' || month < 1 ||
      month > 12 || day < 1 || day > 31) {
    return std::nullopt;
  }
  fields.tm_year = year - 1900;
  fields.tm_mon = month - 1;
  fields.tm_mday = day;
  std::size_t at = 10;
  double fraction = 0;
  bool has_clock = false;
  if (at < text.size() && (text[at] == 'T' || text[at] == ' ') &&
      read_clock(text, at + 1, fields)) {
    has_clock = true;
    at += 9;
    if (at < text.size() && (text[at] == '.' || text[at] == ',')) {
      double scale = 0.1;
      ++at;
      const std::size_t first = at;
      while (at < text.size() && is_digit(text[at])) {
        fraction += (text[at] - '0') * scale;
        scale /= 10;
        ++at;
      }
      if (at == first) return std::nullopt;
    }
  }
  std::optional<double> offset_s;
  if (has_clock && at < text.size()) {
    if (text[at] == 'Z') {
      offset_s = 0;
      ++at;
    } else if (text[at] == '+' || text[at] == '-') {
      const int hours = digits(text, at + 1, 2);
      std::size_t minutes_at = at + 3;
      if (minutes_at < text.size() && text[minutes_at] == ':') ++minutes_at;
      const int minutes = digits(text, minutes_at, 2);
      if (hours < 0 || minutes < 0 || hours > 23 || minutes > 59) return std::nullopt;
      offset_s = (text[at] == '-' ? -1.0 : 1.0) * (hours * 3600.0 + minutes * 60.0);
      at = minutes_at + 2;
    }
  }
  consumed = at;
  if (offset_s) return from_utc(fields) - *offset_s + fraction;
  return from_local(fields) + fraction;
}

// "Tue Mar  5 10:21:33 2024" (dmesg -T), local time.
std::optional<double> ctime_stamp(std::string_view text) {
  if (text.size() < 24 || text[3] != ' ' || text[7] != ' ') return std::nullopt;
  const int month = month_index(text.substr(4, 3));
  if (month < 0) return std::nullopt;
  std::tm fields{};
  fields.tm_mon = month;
  const int day = text[8] == ' ' ? digits(text, 9, 1) : digits(text, 8, 2);
  if (day < 1 || text[10] != ' ' || !read_clock(text, 11, fields) || text[19] != ' ')
    return std::nullopt;
  const int year = digits(text, 20, 4);
  if (year < 1970) return std::nullopt;
  fields.tm_mday = day;
  fields.tm_year = year - 1900;
  return from_local(fields);
}

// "12345.678901" (seconds since boot, as printk writes them).
std::optional<double> seconds_stamp(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  if (text.empty()) return std::nullopt;
  double value = 0;
  std::size_t at = 0;
  while (at < text.size() && is_digit(text[at])) value = value * 10 + (text[at++] - '0');
  // A machine up for more than 30 000 years is not one whose log this is.
  if (at == 0 || at > 12 || at == text.size() || text[at] != '.') return std::nullopt;
  double scale = 0.1;
  ++at;
  const std::size_t first = at;
  while (at < text.size() && is_digit(text[at])) {
    value += (text[at++] - '0') * scale;
    scale /= 10;
  }
  if (at == first || at != text.size()) return std::nullopt;
  return value;
}

// "Mar  5 10:21:33" at the start; the year chosen against `reference_s`. Sets `consumed`.
std::optional<double> syslog_prefix(std::string_view text, double reference_s,
                                    std::size_t& consumed) {
  if (text.size() < 15 || text[3] != ' ') return std::nullopt;
  const int month = month_index(text.substr(0, 3));
  if (month < 0) return std::nullopt;
  const int day = text[4] == ' ' ? digits(text, 5, 1) : digits(text, 4, 2);
  std::tm fields{};
  if (day < 1 || text[6] != ' ' || !read_clock(text, 7, fields)) return std::nullopt;
  fields.tm_mon = month;
  fields.tm_mday = day;
  const std::time_t reference = static_cast<std::time_t>(reference_s);
  std::tm now{};
  localtime_r(&reference, &now);
  for (int year = now.tm_year + 1; year >= now.tm_year - 1; --year) {
    std::tm candidate = fields;
    candidate.tm_year = year;
    const double when = from_local(candidate);
    if (when <= reference_s + kDay_s) {
      consumed = 15;
      return when;
    }
  }
  return std::nullopt;
}

// After a syslog or journal stamp: "host kernel: ", "host systemd-networkd[812]: ". After an ISO
// stamp only "kernel" or a tag with a pid is taken as one (dmesg --time-format iso has no host, and
// "ixgbe eth0: NIC Link is Down" must keep its interface).
std::string_view skip_host_and_tag(std::string_view text, bool any_tag) {
  const std::size_t host_end = text.find(' ');
  if (host_end == std::string_view::npos || host_end == 0) return text;
  std::string_view rest = text.substr(host_end + 1);
  std::size_t at = 0;
  while (at < rest.size() &&
         (std::isalnum(static_cast<unsigned char>(rest[at])) || rest[at] == '_' ||
          rest[at] == '-' || rest[at] == '.' || rest[at] == '@' || rest[at] == '/')) {
    ++at;
  }
  if (at == 0) return text;
  const bool kernel = rest.substr(0, at) == "kernel";
  bool with_pid = false;
  if (at < rest.size() && rest[at] == '[') {
    const std::size_t close = rest.find(']', at);
    if (close == std::string_view::npos) return text;
    at = close + 1;
    with_pid = true;
  }
  if (!any_tag && !kernel && !with_pid) return text;
  if (at + 1 < rest.size() && rest[at] == ':' && rest[at + 1] == ' ') return rest.substr(at + 2);
  if (at + 1 == rest.size() && rest[at] == ':') return rest.substr(at + 1);
  return text;
}

// A bracketed stamp at the start: "[12345.678901] " or "[Tue Mar  5 10:21:33 2024] ".
bool take_bracket(std::string_view& text, KernelLogLine& line) {
  if (text.empty() || text.front() != '[') return false;
  const std::size_t close = text.find(']');
  if (close == std::string_view::npos) return false;
  const std::string_view inside = text.substr(1, close - 1);
  if (auto seconds = seconds_stamp(inside)) {
    line.monotonic_s = seconds;
  } else if (auto wall = ctime_stamp(inside)) {
    line.wall_s = wall;
  } else {
    return false;
  }
  text.remove_prefix(close + 1);
  if (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  return true;
}

// A /dev/kmsg record: "6,1234,5678901234,-;message" (priority, sequence, microseconds, flags).
bool take_kmsg(std::string_view& text, KernelLogLine& line) {
  const std::size_t semicolon = text.find(';');
  if (semicolon == std::string_view::npos || semicolon > 64) return false;
  std::string_view head = text.substr(0, semicolon);
  std::uint64_t numbers[3] = {};
  for (std::uint64_t& number : numbers) {
    const std::size_t comma = head.find(',');
    if (comma == 0 || comma == std::string_view::npos || comma > 20) return false;
    for (char c : head.substr(0, comma)) {
      if (!is_digit(c)) return false;
      number = number * 10 + static_cast<unsigned>(c - '0');
    }
    head.remove_prefix(comma + 1);
  }
  line.monotonic_s = static_cast<double>(numbers[2]) / 1e6;
  text.remove_prefix(semicolon + 1);
  return true;
}

}  // namespace

std::optional<double> parse_iso_time(std::string_view text) {
  std::size_t consumed = 0;
  auto value = iso_prefix(text, consumed);
  if (!value || consumed != text.size()) return std::nullopt;
  return value;
}

std::string format_utc(double epoch_s) {
  // Outside years 0001..9999 (a stamp far from any real one): said so, not formatted.
  if (!std::isfinite(epoch_s) || epoch_s < -62135596800.0 || epoch_s > 253402300799.0)
    return "out-of-range time";
  return utc_timestamp(static_cast<std::time_t>(std::floor(epoch_s)));
}

KernelLogLine split_kernel_log_line(std::string_view text, double reference_s) {
  KernelLogLine line;
  std::size_t consumed = 0;
  if (take_kmsg(text, line) || take_bracket(text, line)) {
    line.message = text;
    return line;
  }
  if (auto wall = iso_prefix(text, consumed);
      wall && consumed < text.size() && text[consumed] == ' ') {
    line.wall_s = wall;
    text = skip_host_and_tag(text.substr(consumed + 1), false);
  } else if (auto classic = syslog_prefix(text, reference_s, consumed);
             classic && consumed < text.size() && text[consumed] == ' ') {
    line.wall_s = classic;
    text = skip_host_and_tag(text.substr(consumed + 1), true);
  }
  // Syslog keeps printk's own stamp after the tag: "kernel: [12345.678901] NVRM: ...".
  KernelLogLine inner;
  if (take_bracket(text, inner)) {
    if (inner.monotonic_s) line.monotonic_s = inner.monotonic_s;
    if (!line.wall_s && inner.wall_s) line.wall_s = inner.wall_s;
  }
  line.message = text;
  return line;
}

}  // namespace fabcheck
