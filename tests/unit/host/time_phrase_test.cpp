// Times as people type them (--since, --until): each form journalctl --since reads against epoch
// values worked out by hand, in UTC and in Europe/Berlin, and the refusals with what they say.
#include "host/time_phrase.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>

namespace fabcheck {
namespace {

constexpr double kDay_s = 86400;
constexpr double kHour_s = 3600;
// 2026-11-29T00:00:00Z, a Sunday: 1970..2025 are 56 years with 14 leap days (1972..2024), 20454
// days to 2026-01-01; January..October 2026 are 304 days, and 28 more to the 29th: 20786 days.
constexpr double kNov29_2026 = 20786 * kDay_s;  // 1795910400
// Now: 2026-11-29T23:30:00Z, already 2026-11-30 00:30 in Berlin (CET, +01:00).
constexpr double kNow = kNov29_2026 + 23.5 * kHour_s;

// TZ set to `zone` while alive (tzset, so localtime and mktime read it), what was there put back.
class ScopedTimeZone {
 public:
  explicit ScopedTimeZone(const char* zone) {
    if (const char* old = std::getenv("TZ")) previous_ = old;
    ::setenv("TZ", zone, 1);
    ::tzset();
  }
  ~ScopedTimeZone() {
    if (previous_) {
      ::setenv("TZ", previous_->c_str(), 1);
    } else {
      ::unsetenv("TZ");
    }
    ::tzset();
  }
  ScopedTimeZone(const ScopedTimeZone&) = delete;
  ScopedTimeZone& operator=(const ScopedTimeZone&) = delete;

 private:
  std::optional<std::string> previous_;
};

bool have_berlin() { return std::filesystem::exists("/usr/share/zoneinfo/Europe/Berlin"); }

// The time `text` says, or NaN with the problem in the failure message.
double at(const std::string& text, double now_s = kNow) {
  const TimePhrase phrase = parse_time_phrase(text, now_s);
  EXPECT_TRUE(phrase.epoch_s) << '"' << text << "\": " << phrase.problem;
  return phrase.epoch_s.value_or(std::nan(""));
}

// Why `text` is refused ("" when the form is simply unknown); a failure when it is read.
std::string refused(const std::string& text) {
  const TimePhrase phrase = parse_time_phrase(text, kNow);
  EXPECT_FALSE(phrase.epoch_s) << '"' << text << "\" read as " << phrase.epoch_s.value_or(0);
  return phrase.problem;
}

TEST(TimePhrase, DatesAndClocksInUtc) {
  const ScopedTimeZone utc("UTC");
  const double clock = 13 * kHour_s + 45 * 60 + 7;  // 13:45:07 = 49507 s
  EXPECT_EQ(at("2026-11-29 00:00"), kNov29_2026);
  EXPECT_EQ(at("2026-11-29 00:00:00"), kNov29_2026);
  EXPECT_EQ(at("2026-11-29"), kNov29_2026);
  EXPECT_EQ(at("2026-11-29 13:45:07"), kNov29_2026 + clock);
  EXPECT_EQ(at("2026-11-29  13:45:07"), kNov29_2026 + clock);  // spaces as strptime reads them
  EXPECT_EQ(at("2026-11-29 13:45"), kNov29_2026 + clock - 7);
  EXPECT_EQ(at("2026-11-29T13:45:07"), kNov29_2026 + clock);
  EXPECT_EQ(at("2026-11-29 13:45:07.25"), kNov29_2026 + clock + 0.25);
  // Fields of one digit, as strptime reads them: 2026-01-09 is day 20454 + 8.
  EXPECT_EQ(at("2026-1-9 9:5"), 20462 * kDay_s + 9 * kHour_s + 5 * 60);
  // systemd.time(7)'s own example: 2012-11-23 is day 15667 (42 years, 10 leap days, 327 days).
  EXPECT_EQ(at("Fri 2012-11-23 11:12:13"), 15667 * kDay_s + 40333);  // 1353669133
  EXPECT_EQ(at("friday 2012-11-23 11:12:13"), 15667 * kDay_s + 40333);
  EXPECT_EQ(at("Sun 2026-11-29"), kNov29_2026);
  EXPECT_EQ(at("SUNDAY 2026-11-29 13:45"), kNov29_2026 + clock - 7);
  // A clock alone is today's date: 2026-11-29 in UTC.
  EXPECT_EQ(at("10:00"), kNov29_2026 + 10 * kHour_s);
  EXPECT_EQ(at("10:00:30"), kNov29_2026 + 10 * kHour_s + 30);
  EXPECT_EQ(at("Sun 10:00"), kNov29_2026 + 10 * kHour_s);
  EXPECT_EQ(at("2024-02-29"), 19782 * kDay_s);      // 54 years, 13 leap days, 31 + 28 days: 19782
  EXPECT_EQ(at("23:59:60"), kNov29_2026 + kDay_s);  // a leap second, as strptime takes it
}

TEST(TimePhrase, ZonesAfterTheClock) {
  const ScopedTimeZone utc("UTC");
  const double clock = 13 * kHour_s + 45 * 60 + 7;
  EXPECT_EQ(at("2026-11-29 13:45:07Z"), kNov29_2026 + clock);
  EXPECT_EQ(at("2026-11-29T13:45:07Z"), kNov29_2026 + clock);
  EXPECT_EQ(at("2026-11-29 13:45:07 UTC"), kNov29_2026 + clock);
  EXPECT_EQ(at("2026-11-29 13:45:07+01:00"), kNov29_2026 + clock - kHour_s);
  EXPECT_EQ(at("2026-11-29 13:45:07+0100"), kNov29_2026 + clock - kHour_s);
  EXPECT_EQ(at("2026-11-29 13:45+01"), kNov29_2026 + clock - 7 - kHour_s);
  EXPECT_EQ(at("2026-11-29 13:45:07-05:30"), kNov29_2026 + clock + 5.5 * kHour_s);
  EXPECT_EQ(at("2026-11-29T13:45:07.5-0530"), kNov29_2026 + clock + 5.5 * kHour_s + 0.5);
  EXPECT_EQ(at("2026-11-29 UTC"), kNov29_2026);
  // Today in the zone given: at 23:30Z it is already 2026-11-30 at +01:00.
  EXPECT_EQ(at("10:00+01:00"), kNov29_2026 + kDay_s + 9 * kHour_s);
}

TEST(TimePhrase, DaysAndNow) {
  const ScopedTimeZone utc("UTC");
  EXPECT_EQ(at("now"), kNow);
  EXPECT_EQ(at("today"), kNov29_2026);
  EXPECT_EQ(at("yesterday"), kNov29_2026 - kDay_s);
  EXPECT_EQ(at("tomorrow"), kNov29_2026 + kDay_s);
  EXPECT_EQ(at("today UTC"), kNov29_2026);
  // Across a month and a year: now 2026-12-31T12:00Z (20786 + 32 days), tomorrow 2027-01-01.
  EXPECT_EQ(at("tomorrow", 20818 * kDay_s + 12 * kHour_s), 20819 * kDay_s);
  EXPECT_EQ(at("yesterday", 20818 * kDay_s + 12 * kHour_s), 20817 * kDay_s);
  EXPECT_EQ(at("@1709632800"), 1709632800);
  EXPECT_EQ(at("@1.5"), 1.5);
}

TEST(TimePhrase, SpansBeforeAndAfterNow) {
  EXPECT_EQ(at("-24h"), kNow - 86400);
  EXPECT_EQ(at("-90m"), kNow - 5400);
  EXPECT_EQ(at("-2d"), kNow - 172800);
  EXPECT_EQ(at("+5min"), kNow + 300);
  EXPECT_EQ(at("-1h30min"), kNow - 5400);
  EXPECT_EQ(at("-1h 30min"), kNow - 5400);
  EXPECT_EQ(at("- 1 h"), kNow - 3600);
  EXPECT_EQ(at("-1.5h"), kNow - 5400);
  EXPECT_EQ(at("2 hours ago"), kNow - 7200);
  EXPECT_EQ(at("30min ago"), kNow - 1800);
  EXPECT_EQ(at("1h 30min ago"), kNow - 5400);
  EXPECT_EQ(at("5min left"), kNow + 300);
  EXPECT_EQ(at("-5"), kNow - 5);       // a number alone counts seconds, as in systemd
  EXPECT_EQ(at("-1min2"), kNow - 62);  // ... also after a unit
  EXPECT_EQ(at("3 ago"), kNow - 3);
  // Every unit systemd names.
  EXPECT_EQ(at("-10s"), kNow - 10);
  EXPECT_EQ(at("-10sec"), kNow - 10);
  EXPECT_EQ(at("-1second"), kNow - 1);
  EXPECT_EQ(at("-10seconds"), kNow - 10);
  EXPECT_EQ(at("-2m"), kNow - 120);
  EXPECT_EQ(at("-2min"), kNow - 120);
  EXPECT_EQ(at("-1minute"), kNow - 60);
  EXPECT_EQ(at("-2minutes"), kNow - 120);
  EXPECT_EQ(at("-2h"), kNow - 7200);
  EXPECT_EQ(at("-2hr"), kNow - 7200);
  EXPECT_EQ(at("-1hour"), kNow - 3600);
  EXPECT_EQ(at("-2hours"), kNow - 7200);
  EXPECT_EQ(at("-1day"), kNow - 86400);
  EXPECT_EQ(at("-3days"), kNow - 259200);
  EXPECT_EQ(at("-1w"), kNow - 604800);
  EXPECT_EQ(at("-1week"), kNow - 604800);
  EXPECT_EQ(at("2 weeks ago"), kNow - 1209600);
  EXPECT_EQ(at("-1M"), kNow - 2629800);  // 30.44 days
  EXPECT_EQ(at("-1month"), kNow - 2629800);
  EXPECT_EQ(at("-2months"), kNow - 5259600);
  EXPECT_EQ(at("-1y"), kNow - 31557600);  // 365.25 days
  EXPECT_EQ(at("-1year"), kNow - 31557600);
  EXPECT_EQ(at("-2years"), kNow - 63115200);
  // Below a second, counted from 0 to keep the digits.
  EXPECT_DOUBLE_EQ(at("+500ms", 0), 0.5);
  EXPECT_DOUBLE_EQ(at("+500msec", 0), 0.5);
  EXPECT_DOUBLE_EQ(at("+250us", 0), 0.00025);
  EXPECT_DOUBLE_EQ(at("+250usec", 0), 0.00025);
  EXPECT_DOUBLE_EQ(at("+250\xce\xbcs", 0), 0.00025);  // "250μs"
}

TEST(TimePhrase, LocalTimeInBerlin) {
  if (!have_berlin()) GTEST_SKIP() << "no tzdata for Europe/Berlin";
  const ScopedTimeZone berlin("Europe/Berlin");
  // Winter, CET (+01:00): local midnight is 23:00Z the day before.
  EXPECT_EQ(at("2026-11-29 00:00"), kNov29_2026 - kHour_s);  // 1795906800
  EXPECT_EQ(at("2026-11-29"), kNov29_2026 - kHour_s);
  EXPECT_EQ(at("Fri 2012-11-23 11:12:13"), 15667 * kDay_s + 40333 - kHour_s);  // 1353665533
  // Summer, CEST (+02:00): 2026-07-01 is day 20454 + 181.
  EXPECT_EQ(at("2026-07-01 12:00"), 20635 * kDay_s + 10 * kHour_s);
  // A zone given is not local time.
  EXPECT_EQ(at("2026-11-29 13:45 UTC"), kNov29_2026 + 13 * kHour_s + 45 * 60);
  EXPECT_EQ(at("2026-11-29T13:45Z"), kNov29_2026 + 13 * kHour_s + 45 * 60);
  EXPECT_EQ(at("2026-11-29 13:45+05:00"), kNov29_2026 + 8 * kHour_s + 45 * 60);
  // At 2026-11-29T23:30Z it is 00:30 on the 30th in Berlin: today, a clock alone and the
  // weekday are the 30th's (a Monday), in UTC still the 29th's.
  EXPECT_EQ(at("today"), kNov29_2026 + kDay_s - kHour_s);
  EXPECT_EQ(at("yesterday"), kNov29_2026 - kHour_s);
  EXPECT_EQ(at("tomorrow"), kNov29_2026 + 2 * kDay_s - kHour_s);  // 2026-12-01, a new month
  EXPECT_EQ(at("10:00"), kNov29_2026 + kDay_s + 9 * kHour_s);
  EXPECT_EQ(at("Mon 10:00"), kNov29_2026 + kDay_s + 9 * kHour_s);
  EXPECT_EQ(at("today UTC"), kNov29_2026);
  EXPECT_EQ(at("yesterday UTC"), kNov29_2026 - kDay_s);
  EXPECT_EQ(at("10:00 UTC"), kNov29_2026 + 10 * kHour_s);
  // Spans do not depend on the zone.
  EXPECT_EQ(at("-24h"), kNow - 86400);
  EXPECT_EQ(at("@1709632800"), 1709632800);
}

TEST(TimePhrase, RefusalsSayWhy) {
  const ScopedTimeZone utc("UTC");
  EXPECT_EQ(refused(""), "empty");
  EXPECT_EQ(refused("2026-13-01"), "there is no month 13");
  EXPECT_EQ(refused("2026-00-01"), "there is no month 0");
  EXPECT_EQ(refused("2026-02-29"), "February 2026 has no day 29");  // not a leap year
  EXPECT_EQ(refused("2026-11-31 10:00"), "November 2026 has no day 31");
  EXPECT_EQ(refused("2026-11-00"), "November 2026 has no day 0");
  EXPECT_EQ(refused("1969-12-31"), "years before 1970 are not read");
  EXPECT_EQ(refused("25:00"), "there is no hour 25");
  EXPECT_EQ(refused("2026-11-29 24:00"), "there is no hour 24");
  EXPECT_EQ(refused("10:60"), "there is no minute 60");
  EXPECT_EQ(refused("10:00:61"), "there is no second 61");
  EXPECT_EQ(refused("Mon 2026-11-29 10:00"), "2026-11-29 is a Sunday, not a Monday");
  EXPECT_EQ(refused("Fri 10:00"), "2026-11-29 is a Sunday, not a Friday");
  EXPECT_EQ(refused("-5x"), "no time unit \"x\" (us, ms, s, min, h, d, w, M, y or their names)");
  EXPECT_EQ(refused("-1mins"),
            "no time unit \"mins\" (us, ms, s, min, h, d, w, M, y or their names)");
  EXPECT_EQ(refused("5 hourz ago"),
            "no time unit \"hourz\" (us, ms, s, min, h, d, w, M, y or their names)");
  // Forms not known at all: no part read, nothing more to say.
  const auto unknown = [](std::initializer_list<const char*> texts) {
    for (const char* text : texts) EXPECT_EQ(refused(text), "") << '"' << text << '"';
  };
  // Words and spacing systemd does not read either.
  unknown({"yesterdayy", "Yesterday", " today", "today ", "today  UTC", "now UTC", "Fri today"});
  unknown({"Fri", "UTC", "last tuesday"});
  // Spans and epochs.
  unknown({"-", "+", "ago", "-5min ago", "-1h UTC", "@", "@x", "@-5", "@5 UTC", "\xce\xbcs"});
  // Dates and clocks cut short or too long.
  unknown({"2026-11-29 10", "2026-11-29T", "10", "10:00.5", "10:00:00.", "10:000"});
  unknown({"20261129", "2026-11-299", "2026-011-29", "026-11-29"});
  unknown({"12-11-23"});  // a two-digit year: systemd reads it, fabcheck does not
  // Zones.
  unknown({"2026-11-29 10:00:00+25:00", "2026-11-29 10:00:00+1", "2026-11-29 10:00:00+01:"});
  unknown({"2026-11-29 10:00:00 +01:00", "2026-11-29Z", "10:00Z UTC"});
}

TEST(TimePhrase, FormsListedForTheRefusal) {
  const std::string forms(time_phrase_forms());
  for (const char* form :
       {"2024-03-05 10:00[:00]", "2024-03-05 (midnight)", "10:00 (today)", "2024-03-05T10:00:00Z",
        "Tue 2024-03-05 10:00", "UTC, Z or +01:00", "local time", "now", "today", "yesterday",
        "tomorrow", "-24h", "+5min", "-1h30min", "\"2 hours ago\"", "@SECONDS"}) {
    EXPECT_NE(forms.find(form), std::string::npos) << form;
  }
}

}  // namespace
}  // namespace fabcheck
