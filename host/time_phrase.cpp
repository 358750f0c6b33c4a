// Times as people type them: the forms of systemd.time(7) that journalctl --since reads.
#include "host/time_phrase.hpp"

#include <cctype>
#include <cmath>
#include <ctime>

#include "bench/sys/text_scan.hpp"

namespace fabcheck {
namespace {

constexpr double kMonth_s = 2629800;  // systemd's month: 30.44 days
constexpr double kYear_s = 31557600;  // systemd's year: 365.25 days

struct SpanUnit {
  std::string_view name;
  double seconds;
};

// systemd's time span units (src/basic/time-util.c) in its order: the first whose name begins the
// text wins ("min" before "m", "ms" before "m"); "M" is a month, "m" a minute.
constexpr SpanUnit kSpanUnits[] = {
    {"seconds", 1},      {"second", 1},    {"sec", 1},     {"s", 1},
    {"minutes", 60},     {"minute", 60},   {"min", 60},    {"months", kMonth_s},
    {"month", kMonth_s}, {"M", kMonth_s},  {"msec", 1e-3}, {"ms", 1e-3},
    {"m", 60},           {"hours", 3600},  {"hour", 3600}, {"hr", 3600},
    {"h", 3600},         {"days", 86400},  {"day", 86400}, {"d", 86400},
    {"weeks", 604800},   {"week", 604800}, {"w", 604800},  {"years", kYear_s},
    {"year", kYear_s},   {"y", kYear_s},   {"usec", 1e-6}, {"us", 1e-6},
    {"\xce\xbcs", 1e-6},  // "μs"
};

constexpr std::string_view kWeekdays[] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                          "Thursday", "Friday", "Saturday"};
constexpr std::string_view kMonthNames[] = {"January",   "February", "March",    "April",
                                            "May",       "June",     "July",     "August",
                                            "September", "October",  "November", "December"};

bool starts_with_digit(std::string_view text) {
  return !text.empty() && std::isdigit(static_cast<unsigned char>(text.front()));
}

void skip_spaces(std::string_view& text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
}

// `suffix` taken off the end of `text` when it is there and something is before it.
bool consume_suffix(std::string_view& text, std::string_view suffix) {
  if (text.size() <= suffix.size() || text.substr(text.size() - suffix.size()) != suffix)
    return false;
  text.remove_suffix(suffix.size());
  return true;
}

// The run of digits and points at the front ("12", "1.5") as a number, consumed; nullopt (text
// untouched) when it is none.
std::optional<double> consume_decimal(std::string_view& text) {
  if (!starts_with_digit(text)) return std::nullopt;
  const std::size_t end = text.find_first_not_of("0123456789.");
  const std::string_view run = text.substr(0, end);
  const auto value = text::parse_number(run);
  if (value) text.remove_prefix(run.size());
  return value;
}

// An integer of `min_digits` to `max_digits` digits at the front, consumed; nullopt (text
// untouched) otherwise.
std::optional<int> consume_field(std::string_view& text, std::size_t min_digits,
                                 std::size_t max_digits) {
  std::string_view rest = text;
  const auto value = text::consume_int(rest);
  const std::size_t width = text.size() - rest.size();
  if (!value || width < min_digits || width > max_digits) return std::nullopt;
  text = rest;
  return value;
}

// "1h 30min", "-1h30min" without its sign, "90m", "1.5h", "5" (seconds): the seconds all of `text`
// spans; nullopt (with `problem` for a unit systemd does not know) otherwise.
std::optional<double> span_seconds(std::string_view text, std::string& problem) {
  std::optional<double> total;
  skip_spaces(text);
  while (!text.empty()) {
    const auto amount = consume_decimal(text);
    if (!amount) return std::nullopt;
    skip_spaces(text);
    const std::string_view unit_text = text.substr(0, text.find_first_of(" 0123456789"));
    double unit_s = 1;  // a number alone counts seconds
    for (const SpanUnit& unit : kSpanUnits) {
      if (text::consume(text, unit.name)) {
        unit_s = unit.seconds;
        break;
      }
    }
    if (!text.empty() && text.front() != ' ' && !starts_with_digit(text)) {
      problem = "no time unit \"" + std::string(unit_text) +
                "\" (us, ms, s, min, h, d, w, M, y or their names)";
      return std::nullopt;
    }
    skip_spaces(text);
    total = total.value_or(0) + *amount * unit_s;
  }
  if (total && !std::isfinite(*total)) return std::nullopt;
  return total;
}

// Where a calendar time is read: local time (TZ), or a fixed offset east of UTC.
struct Zone {
  bool local = true;
  double offset_s = 0;
};

// The calendar fields of the second `epoch_s` falls in, in `zone`.
std::tm calendar_at(double epoch_s, const Zone& zone) {
  const auto second = static_cast<std::time_t>(std::floor(epoch_s + zone.offset_s));
  std::tm fields{};
  if (zone.local) {
    localtime_r(&second, &fields);
  } else {
    gmtime_r(&second, &fields);
  }
  return fields;
}

// `fields` in `zone` as seconds since the epoch; `fields` normalised (tm_wday set) as a side
// effect.
double epoch_at(std::tm& fields, const Zone& zone) {
  if (zone.local) {
    fields.tm_isdst = -1;
    return static_cast<double>(std::mktime(&fields));
  }
  return static_cast<double>(timegm(&fields)) - zone.offset_s;
}

struct Date {
  int year = 0, month = 0, day = 0;
};

struct Clock {
  int hour = 0, minute = 0, second = 0;
  double fraction = 0;
};

// "2024-03-05" (or "2024-3-5") at the front, consumed; nullopt (text untouched) otherwise.
std::optional<Date> consume_date(std::string_view& text) {
  std::string_view rest = text;
  const auto year = consume_field(rest, 4, 4);
  if (!year || !text::consume(rest, "-")) return std::nullopt;
  const auto month = consume_field(rest, 1, 2);
  if (!month || !text::consume(rest, "-")) return std::nullopt;
  const auto day = consume_field(rest, 1, 2);
  if (!day) return std::nullopt;
  text = rest;
  return Date{*year, *month, *day};
}

// "10:00", "10:00:00", "10:00:00.25" at the front, consumed; nullopt (text untouched) otherwise.
std::optional<Clock> consume_clock(std::string_view& text) {
  std::string_view rest = text;
  Clock clock;
  const auto hour = consume_field(rest, 1, 2);
  if (!hour || !text::consume(rest, ":")) return std::nullopt;
  const auto minute = consume_field(rest, 1, 2);
  if (!minute) return std::nullopt;
  clock.hour = *hour;
  clock.minute = *minute;
  if (text::consume(rest, ":")) {
    const auto second = consume_field(rest, 1, 2);
    if (!second) return std::nullopt;
    clock.second = *second;
    if (text::consume(rest, ".")) {
      const std::string_view digits = rest.substr(0, rest.find_first_not_of("0123456789"));
      const auto fraction = text::parse_number("0." + std::string(digits));
      if (digits.empty() || !fraction) return std::nullopt;
      clock.fraction = *fraction;
      rest.remove_prefix(digits.size());
    }
  }
  text = rest;
  return clock;
}

// "Z", "+01:00", "+0100", "+01" (or "-...") at the front, right after a clock: consumed into
// `zone`; false (text untouched) when there is none.
bool consume_offset(std::string_view& text, Zone& zone) {
  if (text::consume(text, "Z")) {
    zone = Zone{false, 0};
    return true;
  }
  if (text.empty() || (text.front() != '+' && text.front() != '-')) return false;
  std::string_view rest = text.substr(1);
  const std::string_view digits = rest.substr(0, rest.find_first_not_of("0123456789"));
  if (digits.size() != 2 && digits.size() != 4) return false;
  const auto hours = text::parse_small_int(digits.substr(0, 2));
  std::optional<int> minutes = 0;
  rest.remove_prefix(digits.size());
  if (digits.size() == 4) {
    minutes = text::parse_small_int(digits.substr(2));
  } else if (text::consume(rest, ":")) {
    minutes = consume_field(rest, 2, 2);
  }
  if (!hours || !minutes || *hours > 23 || *minutes > 59) return false;
  zone = Zone{false, (text.front() == '-' ? -1.0 : 1.0) * (*hours * 3600.0 + *minutes * 60.0)};
  text = rest;
  return true;
}

// "Tue " or "tuesday " at the front: consumed, the day of the week (0 Sunday); nullopt otherwise.
std::optional<int> consume_weekday(std::string_view& text) {
  const std::size_t space = text.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const std::string_view word = text.substr(0, space);
  for (int day = 0; day < 7; ++day) {
    if (text::equal_ignoring_case(word, kWeekdays[day]) ||
        text::equal_ignoring_case(word, kWeekdays[day].substr(0, 3))) {
      text.remove_prefix(space);
      skip_spaces(text);
      return day;
    }
  }
  return std::nullopt;
}

// Why `date` is no day of the calendar; "" when it is one.
std::string date_problem(const Date& date) {
  if (date.year < 1970) return "years before 1970 are not read";
  if (date.month < 1 || date.month > 12) return "there is no month " + std::to_string(date.month);
  std::tm noon{};
  noon.tm_year = date.year - 1900;
  noon.tm_mon = date.month - 1;
  noon.tm_mday = date.day;
  noon.tm_hour = 12;
  timegm(&noon);  // normalises: 2024-02-30 becomes 2024-03-01
  if (date.day < 1 || noon.tm_mday != date.day) {
    return std::string(kMonthNames[date.month - 1]) + " " + std::to_string(date.year) +
           " has no day " + std::to_string(date.day);
  }
  return "";
}

// Why `clock` is no time of day; "" when it is one (a leap second, :60, is one).
std::string clock_problem(const Clock& clock) {
  if (clock.hour > 23) return "there is no hour " + std::to_string(clock.hour);
  if (clock.minute > 59) return "there is no minute " + std::to_string(clock.minute);
  if (clock.second > 60) return "there is no second " + std::to_string(clock.second);
  return "";
}

// "[weekday] date [clock] [zone]", "[weekday] clock [zone]", "today" / "yesterday" / "tomorrow"
// [" UTC"].
TimePhrase calendar_time(std::string_view text, double now_s) {
  TimePhrase out;
  Zone zone;
  if (consume_suffix(text, " UTC")) zone = Zone{false, 0};
  std::optional<int> days_from_today;
  if (text == "today") days_from_today = 0;
  if (text == "yesterday") days_from_today = -1;
  if (text == "tomorrow") days_from_today = 1;
  std::optional<int> weekday;
  if (!days_from_today) weekday = consume_weekday(text);
  std::optional<Date> date;
  std::optional<Clock> clock;
  if (!days_from_today) {
    date = consume_date(text);
    if (!date) {
      clock = consume_clock(text);
    } else if (!text.empty() && (text.front() == 'T' || text.front() == ' ')) {
      std::string_view rest = text.substr(1);
      if (text.front() == ' ') skip_spaces(rest);
      clock = consume_clock(rest);
      if (clock) text = rest;
    }
    if (clock && zone.local) consume_offset(text, zone);
    if ((!date && !clock) || !text.empty()) return out;
    if (date) out.problem = date_problem(*date);
    if (out.problem.empty() && clock) out.problem = clock_problem(*clock);
    if (!out.problem.empty()) return out;
  }
  const std::tm today = calendar_at(now_s, zone);
  std::tm fields{};
  fields.tm_year = date ? date->year - 1900 : today.tm_year;
  fields.tm_mon = date ? date->month - 1 : today.tm_mon;
  fields.tm_mday = date ? date->day : today.tm_mday + days_from_today.value_or(0);
  if (clock) {
    fields.tm_hour = clock->hour;
    fields.tm_min = clock->minute;
    fields.tm_sec = clock->second;
  }
  const double epoch_s = epoch_at(fields, zone) + (clock ? clock->fraction : 0);
  if (weekday && fields.tm_wday != *weekday) {
    char day[16];
    std::strftime(day, sizeof day, "%Y-%m-%d", &fields);
    out.problem = std::string(day) + " is a " + std::string(kWeekdays[fields.tm_wday]) +
                  ", not a " + std::string(kWeekdays[*weekday]);
    return out;
  }
  out.epoch_s = epoch_s;
  return out;
}

}  // namespace

TimePhrase parse_time_phrase(std::string_view text, double now_s) {
  TimePhrase out;
  if (text.empty()) {
    out.problem = "empty";
    return out;
  }
  if (text == "now") {
    out.epoch_s = now_s;
    return out;
  }
  if (text::consume(text, "@")) {
    std::string_view rest = text;
    const auto epoch_s = consume_decimal(rest);
    if (epoch_s && rest.empty()) out.epoch_s = epoch_s;
    return out;
  }
  double direction = 0;  // a span: -1 before now, +1 after
  if (text::consume(text, "-")) {
    direction = -1;
  } else if (text::consume(text, "+")) {
    direction = 1;
  } else if (consume_suffix(text, " ago")) {
    direction = -1;
  } else if (consume_suffix(text, " left")) {
    direction = 1;
  }
  if (direction != 0) {
    if (const auto span_s = span_seconds(text, out.problem))
      out.epoch_s = now_s + direction * *span_s;
    return out;
  }
  return calendar_time(text, now_s);
}

std::string_view time_phrase_forms() {
  return "2024-03-05 10:00[:00], 2024-03-05 (midnight), 10:00 (today), ISO 8601 "
         "(2024-03-05T10:00:00Z), a leading weekday (Tue 2024-03-05 10:00), a trailing UTC, Z or "
         "+01:00 (local time without one), now, today, yesterday, tomorrow, a span before or after "
         "now (-24h, -90m, -2d, +5min, -1h30min, \"2 hours ago\") or @SECONDS since the epoch";
}

}  // namespace fabcheck
