// Times as people type them (journalctl --since, systemd.time(7)) read as seconds since the epoch.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fabcheck {

struct TimePhrase {
  std::optional<double> epoch_s;  // seconds since the epoch; nullopt when the text is no time
  std::string problem;            // why not, where a part was read: "2012-11-23 is a Friday"
};

// The forms journalctl --since reads:
//   "2024-03-05 10:00:00[.5]", "2024-03-05 10:00" (seconds 0), "2024-03-05" (midnight),
//   "10:00[:00]" (today at that time), "T" for the space (ISO 8601), fields of one digit;
//   a leading weekday ("Tue 2024-03-05 10:00", "tuesday ...") that must be the date's;
//   a zone after the clock ("Z", "+01:00", "+0100", "+01") or " UTC" after any of these and the
//   days below, local time without one;
//   "now"; "today", "yesterday", "tomorrow" (midnight);
//   "-24h", "+5min", "-1h30min", "-1h 30min", "2 hours ago", "5min left": systemd's units
//   (us, ms, s, sec, second(s), m, min, minute(s), h, hr, hour(s), d, day(s), w, week(s),
//   M, month(s) of 30.44 days, y, year(s) of 365.25 days), a number alone counts seconds;
//   "@1709632800[.5]" (seconds since the epoch).
// Relative forms, "today" and a clock alone count from `now_s`. Unlike systemd a date that does
// not exist ("2024-02-30") is refused, not moved to the next month.
TimePhrase parse_time_phrase(std::string_view text, double now_s);

// The forms above in a line, for the message that refuses a time.
std::string_view time_phrase_forms();

}  // namespace fabcheck
