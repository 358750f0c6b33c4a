// One-pass scan of a measurement line, strict as JsonLine + read_measurement_fields, or false.
#include "results/measurement_scan.hpp"

#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <system_error>

namespace fabcheck {
namespace {

constexpr std::size_t kMaxDepth = 32;  // JsonLine::parse's default
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// `text` == `word`, compared in at most two 8-byte loads (a memcpy of a constant size is inlined;
// a memcmp of one is a call).
template <std::size_t N>
bool is(std::string_view text, const char (&word)[N]) {
  constexpr std::size_t kSize = N - 1;
  if (text.size() != kSize) return false;
  if constexpr (kSize <= 8) {
    std::uint64_t a = 0;
    std::uint64_t b = 0;
    std::memcpy(&a, text.data(), kSize);
    std::memcpy(&b, word, kSize);
    return a == b;
  } else if constexpr (kSize <= 16) {
    std::uint64_t a[2];
    std::uint64_t b[2];
    std::memcpy(&a[0], text.data(), 8);
    std::memcpy(&a[1], text.data() + kSize - 8, 8);
    std::memcpy(&b[0], word, 8);
    std::memcpy(&b[1], word + kSize - 8, 8);
    return a[0] == b[0] && a[1] == b[1];
  } else {
    return std::memcmp(text.data(), word, kSize) == 0;
  }
}

// The closing quote of a string whose text begins at `p`, or nullptr when a '\\' or a control
// character (< 0x20) comes first, or the line ends. Eight bytes at a time: in each of the three
// masks the lowest set high bit marks the first byte that matches (a borrow only spreads upwards
// from a match), so the lowest bit of their union is the first special byte, and it is a quote
// when the quote mask has it (no byte below matched, so no borrow made that bit).
const char* closing_quote(const char* p, const char* end) {
  if constexpr (std::endian::native == std::endian::little) {
    constexpr std::uint64_t kOnes = 0x0101010101010101ull;
    constexpr std::uint64_t kHighs = 0x8080808080808080ull;
    constexpr std::uint64_t kQuotes = kOnes * '"';
    constexpr std::uint64_t kBackslashes = kOnes * '\\';
    while (end - p >= 8) {
      std::uint64_t word = 0;
      std::memcpy(&word, p, 8);
      const std::uint64_t quote = word ^ kQuotes;
      const std::uint64_t backslash = word ^ kBackslashes;
      const std::uint64_t quotes = (quote - kOnes) & ~quote & kHighs;
      const std::uint64_t others =
          (((backslash - kOnes) & ~backslash) | ((word - kOnes * 0x20) & ~word)) & kHighs;
      const std::uint64_t hits = quotes | others;
      if (hits != 0) {
        const std::uint64_t first = hits & (~hits + 1);
        return (quotes & first) != 0 ? p + (std::countr_zero(hits) >> 3) : nullptr;
      }
      p += 8;
    }
  }
  for (; p != end; ++p) {
    if (*p == '"') return p;
    if (*p == '\\' || static_cast<unsigned char>(*p) < 0x20) return nullptr;
  }
  return nullptr;
}

// A JSON number literal whose significant digits fit 2^53 and whose decimal exponent is within
// 10^22 is one exact integer times or divided by one exact power of ten: a single IEEE operation,
// correctly rounded, so the same double from_chars gives (Clinger's fast path). Most figures are
// such ("0.0102744", "52.5", "1048576"); false for the others.
bool to_double_exactly(std::string_view text, double& out) {
  static constexpr double kPowers[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  const char* p = text.data();
  const char* const end = p + text.size();
  const bool negative = p != end && *p == '-';
  if (negative) ++p;
  std::uint64_t mantissa = 0;
  int digits = 0, exponent = 0;
  for (; p != end && *p >= '0' && *p <= '9'; ++p, ++digits) mantissa = mantissa * 10 + (*p - '0');
  if (p != end && *p == '.') {
    for (++p; p != end && *p >= '0' && *p <= '9'; ++p, ++digits, --exponent) {
      mantissa = mantissa * 10 + (*p - '0');
    }
  }
  if (digits > 19) return false;  // the mantissa may have wrapped
  if (p != end) {                 // 'e' or 'E' (the grammar was checked)
    ++p;
    const bool minus = *p == '-';
    if (*p == '-' || *p == '+') ++p;
    int e = 0;
    for (; p != end; ++p) {
      if (e > 1000) return false;
      e = e * 10 + (*p - '0');
    }
    exponent += minus ? -e : e;
  }
  if (mantissa > (std::uint64_t{1} << 53) || exponent < -22 || exponent > 22) return false;
  const double value = static_cast<double>(mantissa);
  const double scaled = exponent >= 0 ? value * kPowers[exponent] : value / kPowers[-exponent];
  out = negative ? -scaled : scaled;
  return true;
}

// JsonLine::as_double's conversion where it is exact (out of range: false, left to strtod there).
bool to_double(std::string_view text, double& out) {
  if (to_double_exactly(text, out)) return true;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc() && end == text.data() + text.size();
}

template <typename Integer>
bool to_integer(std::string_view text, Integer& out) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc() && end == text.data() + text.size();
}

class Scanner {
 public:
  explicit Scanner(std::string_view line) : p_(line.data()), end_(line.data() + line.size()) {}

  bool at_end() const { return p_ == end_; }

  void whitespace() {
    const char* p = p_;  // a local: stores into the fields could alias the member
    if (p != end_ && static_cast<unsigned char>(*p) > ' ') return;  // the usual case: none
    while (p != end_ && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) ++p;
    p_ = p;
  }

  bool eat(char c) {
    if (p_ == end_ || *p_ != c) return false;
    ++p_;
    return true;
  }

  bool peek(char c) const { return p_ != end_ && *p_ == c; }

  // A string with neither an escape nor a control character: its text is a view of the line.
  bool string(std::string_view& out) {
    const char* const end = end_;
    if (p_ == end || *p_ != '"') return false;
    const char* const start = p_ + 1;
    const char* const stop = closing_quote(start, end);
    if (stop == nullptr) return false;
    p_ = stop + 1;
    out = std::string_view(start, static_cast<std::size_t>(stop - start));
    return true;
  }

  // A number literal by JSON's grammar (as JsonLine::parse_number).
  bool number(std::string_view& out) {
    const char* const start = p_;
    const char* const end = end_;
    const char* p = start;
    if (p != end && *p == '-') ++p;
    if (p == end || !is_digit(*p)) return false;
    if (*p == '0') {
      ++p;
    } else {
      while (p != end && is_digit(*p)) ++p;
    }
    if (p != end && *p == '.') {
      ++p;
      if (p == end || !is_digit(*p)) return false;
      while (p != end && is_digit(*p)) ++p;
    }
    if (p != end && (*p == 'e' || *p == 'E')) {
      ++p;
      if (p != end && (*p == '+' || *p == '-')) ++p;
      if (p == end || !is_digit(*p)) return false;
      while (p != end && is_digit(*p)) ++p;
    }
    p_ = p;
    out = std::string_view(start, static_cast<std::size_t>(p - start));
    return true;
  }

  bool literal(std::string_view word) {
    if (static_cast<std::size_t>(end_ - p_) < word.size() ||
        std::memcmp(p_, word.data(), word.size()) != 0) {
      return false;
    }
    p_ += word.size();
    return true;
  }

  // A number, or null for NaN (read_measurement_fields' `number`).
  bool number_or_null(double& out) {
    if (peek('n')) {
      out = kNaN;
      return literal("null");
    }
    std::string_view text;
    return number(text) && to_double(text, out);
  }

  bool unsigned_integer(std::uint64_t& out) {
    std::string_view text;
    return number(text) && text.front() != '-' && to_integer(text, out);
  }

  // Any JSON value at `depth` (the record itself is at 0), checked and passed over.
  bool skip_value(std::size_t depth) {
    if (p_ == end_) return false;
    switch (*p_) {
      case '"': {
        std::string_view text;
        return string(text);
      }
      case '{':
      case '[': {
        if (depth >= kMaxDepth) return false;
        const bool object = *p_ == '{';
        const char close = object ? '}' : ']';
        ++p_;
        whitespace();
        if (eat(close)) return true;
        while (true) {
          if (object) {
            std::string_view key;
            if (!string(key)) return false;
            whitespace();
            if (!eat(':')) return false;
            whitespace();
          }
          if (!skip_value(depth + 1)) return false;
          whitespace();
          if (eat(',')) {
            whitespace();
            continue;
          }
          return eat(close);
        }
      }
      case 't':
        return literal("true");
      case 'f':
        return literal("false");
      case 'n':
        return literal("null");
      default: {
        std::string_view text;
        return number(text);
      }
    }
  }

  // The members of an object (at `{`): `member(key)` reads each value; false stops.
  template <typename Member>
  bool object(Member&& member) {
    if (!eat('{')) return false;
    whitespace();
    if (eat('}')) return true;
    while (true) {
      std::string_view key;
      if (!string(key)) return false;
      whitespace();
      if (!eat(':')) return false;
      whitespace();
      if (!member(key)) return false;
      whitespace();
      if (eat(',')) {
        whitespace();
        continue;
      }
      return eat('}');
    }
  }

 private:
  const char* p_;
  const char* end_;
};

// The fields read_measurement_fields reads, one bit each (0: a member it ignores).
constexpr std::uint32_t kSchemaVersionField = 1u << 0;
constexpr std::uint32_t kKindField = 1u << 1;
constexpr std::uint32_t kProbeField = 1u << 2;
constexpr std::uint32_t kMetricField = 1u << 3;
constexpr std::uint32_t kValueField = 1u << 4;
constexpr std::uint32_t kUnitField = 1u << 5;
constexpr std::uint32_t kHostField = 1u << 6;
constexpr std::uint32_t kRankField = 1u << 7;
constexpr std::uint32_t kSubjectField = 1u << 8;
constexpr std::uint32_t kPeerField = 1u << 9;
constexpr std::uint32_t kSizeBytesField = 1u << 10;
constexpr std::uint32_t kParamsField = 1u << 11;
constexpr std::uint32_t kStatsField = 1u << 12;
constexpr std::uint32_t kStatusField = 1u << 13;
constexpr std::uint32_t kMessageField = 1u << 14;
constexpr std::uint32_t kTimeUtcField = 1u << 15;
constexpr std::uint32_t kAllFields = (1u << 16) - 1;

std::uint32_t field_of(std::string_view key) {
  if (key.empty()) return 0;
  switch (key.front()) {
    case 'h':
      return is(key, "host") ? kHostField : 0;
    case 'k':
      return is(key, "kind") ? kKindField : 0;
    case 'm':
      return is(key, "metric") ? kMetricField : is(key, "message") ? kMessageField : 0;
    case 'p':
      return is(key, "probe")    ? kProbeField
             : is(key, "peer")   ? kPeerField
             : is(key, "params") ? kParamsField
                                 : 0;
    case 'r':
      return is(key, "rank") ? kRankField : 0;
    case 's':
      return is(key, "subject")          ? kSubjectField
             : is(key, "status")         ? kStatusField
             : is(key, "stats")          ? kStatsField
             : is(key, "size_bytes")     ? kSizeBytesField
             : is(key, "schema_version") ? kSchemaVersionField
                                         : 0;
    case 't':
      return is(key, "time_utc") ? kTimeUtcField : 0;
    case 'u':
      return is(key, "unit") ? kUnitField : 0;
    case 'v':
      return is(key, "value") ? kValueField : 0;
    default:
      return 0;
  }
}

// Which member of stats `key` is: 0 count, 1 min, 2 median, 3 max, 4 p99, 5 mean, 6 cv; -1 another.
int stat_of(std::string_view key) {
  switch (key.size()) {
    case 2:
      return is(key, "cv") ? 6 : -1;
    case 3:
      return is(key, "min") ? 1 : is(key, "max") ? 3 : is(key, "p99") ? 4 : -1;
    case 4:
      return is(key, "mean") ? 5 : -1;
    case 5:
      return is(key, "count") ? 0 : -1;
    case 6:
      return is(key, "median") ? 2 : -1;
    default:
      return -1;
  }
}

bool read_stats(Scanner& scan, SampleStats& stats) {
  std::uint32_t seen = 0;
  const bool read = scan.object([&](std::string_view key) {
    const int which = stat_of(key);
    if (which < 0) return scan.skip_value(2);  // a member the strict reader ignores
    const std::uint32_t bit = 1u << which;
    if ((seen & bit) != 0) return false;  // repeated: which one counts is left to the strict reader
    seen |= bit;
    switch (which) {
      case 0: {
        std::uint64_t count = 0;
        if (!scan.unsigned_integer(count)) return false;
        stats.count = static_cast<std::size_t>(count);
        return true;
      }
      case 1:
        return scan.number_or_null(stats.min);
      case 2:
        return scan.number_or_null(stats.median);
      case 3:
        return scan.number_or_null(stats.max);
      case 4:
        return scan.number_or_null(stats.p99);
      case 5:
        return scan.number_or_null(stats.mean);
      default:
        return scan.number_or_null(stats.cv);
    }
  });
  return read && seen == (1u << 7) - 1;
}

bool read_member(Scanner& scan, std::uint32_t field, MeasurementFields& out) {
  switch (field) {
    case kSchemaVersionField: {
      std::string_view text;
      std::int64_t version = 0;
      return scan.number(text) && to_integer(text, version) && version == kSchemaVersion;
    }
    case kKindField: {
      std::string_view kind;
      return scan.string(kind) && is(kind, "measurement");
    }
    case kProbeField:
      return scan.string(out.probe);
    case kMetricField:
      return scan.string(out.metric);
    case kValueField:
      return scan.number_or_null(out.value);
    case kUnitField:
      return scan.string(out.unit);
    case kHostField:
      return scan.string(out.host);
    case kRankField: {
      std::string_view text;
      std::int64_t rank = 0;
      if (!scan.number(text) || !to_integer(text, rank) || rank < std::numeric_limits<int>::min() ||
          rank > std::numeric_limits<int>::max()) {
        return false;
      }
      out.rank = static_cast<int>(rank);
      return true;
    }
    case kSubjectField:
      return scan.string(out.subject);
    case kPeerField:
      return scan.string(out.peer);
    case kSizeBytesField: {
      if (scan.peek('n')) {
        out.size_bytes.reset();
        return scan.literal("null");
      }
      std::uint64_t size = 0;
      if (!scan.unsigned_integer(size)) return false;
      out.size_bytes = size;
      return true;
    }
    case kParamsField:
      return scan.object([&](std::string_view key) {
        std::string_view value;
        if (!scan.string(value)) return false;
        out.params.emplace_back(key, value);
        return true;
      });
    case kStatsField: {
      if (scan.peek('n')) {
        out.stats.reset();
        return scan.literal("null");
      }
      SampleStats stats;
      if (!read_stats(scan, stats)) return false;
      out.stats = stats;
      return true;
    }
    case kStatusField: {
      if (!scan.string(out.status_text)) return false;
      if (is(out.status_text, "ok")) {
        out.status = MeasurementStatus::ok;
      } else if (is(out.status_text, "error")) {
        out.status = MeasurementStatus::error;
      } else if (is(out.status_text, "waived")) {
        out.status = MeasurementStatus::waived;
      } else {
        return false;
      }
      return true;
    }
    case kMessageField:
      return scan.string(out.message);
    case kTimeUtcField:
      return scan.string(out.time_utc);
    default:
      return scan.skip_value(1);  // a member the strict reader ignores ("by_rank")
  }
}

}  // namespace

bool scan_measurement_line(std::string_view line, MeasurementFields& out) {
  Scanner scan(line);
  out.params.clear();
  out.stats.reset();
  std::uint32_t seen = 0;
  scan.whitespace();
  if (!scan.peek('{')) return false;
  const bool read = scan.object([&](std::string_view key) {
    const std::uint32_t field = field_of(key);
    if ((seen & field) != 0) return false;  // a repeated field: left to the strict reader
    seen |= field;
    return read_member(scan, field, out);
  });
  if (!read || seen != kAllFields) return false;
  scan.whitespace();
  return scan.at_end();
}

}  // namespace fabcheck
