// OptionSpec: one family option a probe reads from RunOptions::extra (--opt KEY=VALUE, a plan's
// options): its key, type, default, meaning and allowed values. The registry validates every given
// value against it before anything runs; probes read their values through it, so the declaration,
// the default and the rule cannot drift apart.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace fabcheck {

struct RunOptions;

enum class OptionType {
  byte_size,     // "4096", "4K", "256M", "1G"
  size_sweep,    // "MIN:MAX:FACTOR" (8:256M:2), a SIZE, or a comma-separated list
  integer,       // a whole number
  number,        // a finite decimal number (seconds, fractions)
  flag,          // 1/0, true/false, yes/no, on/off
  choice,        // one of `choices`
  integer_list,  // comma-separated whole numbers ("1,4,16")
  choice_list,   // comma-separated `choices` ("float,int8"), or "all" of them
  text,          // any text that is not empty (a path)
};

struct OptionSpec {
  std::string key{};  // "storage.file_size"
  OptionType type = OptionType::number;
  // As a user would write it; "" when the probe chooses itself (the meaning says how) and reads
  // the option only when option_given().
  std::string default_value{};
  std::string meaning{};  // one line: what it changes
  // Allowed values. Numbers, integers (each of a list) and byte sizes lie in [min, max] (min
  // excluded when min_exclusive, max when max_exclusive); byte sizes are multiples of multiple_of;
  // choices list every accepted word.
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_exclusive = false;
  bool max_exclusive = false;
  std::uint64_t multiple_of = 1;
  std::vector<std::string> choices{};
  // How far --budget may trim it (bench/core/plan_estimate.hpp); empty: --budget leaves it alone.
  // A number or integer (a duration, a repetition count) is scaled down to no less than this; a
  // size sweep loses its largest sizes while one at least this large (a byte size) is kept.
  std::string budget_floor{};

  bool operator==(const OptionSpec&) const = default;
};

// "a byte size (4096, 4K, 256M, 1G) of at least 4KiB, a multiple of 4KiB": the rule a value must
// follow, for `fabcheck list --options` and error messages.
std::string option_rule(const OptionSpec& spec);
// "byte size", "size sweep", "integer", "number", "flag", "choice", "integer list", "text".
const char* option_type_name(OptionType type);

// The first of `candidates` fewest edits from `key`, "" when none is within max(3, a quarter of
// the key) edits (a typo, not another name): "did you mean" for options, values and probes alike.
std::string closest_name(const std::string& key, const std::vector<std::string>& candidates);

// Throws ConfigError "<origin> KEY=VALUE: <what is wrong>; expected <rule>" when `value` breaks
// the spec's rule. `origin` says where the value came from ("--opt", "plan gate").
void validate_option_value(const OptionSpec& spec, const std::string& value,
                           const std::string& origin = "--opt");

// The value of `spec` in `options.extra`, else its default, parsed and checked (ConfigError as
// above). The reader must match the spec's type (std::logic_error otherwise: a bug, not input).
std::uint64_t option_bytes(const RunOptions& options, const OptionSpec& spec);
std::vector<std::uint64_t> option_sizes(const RunOptions& options, const OptionSpec& spec);
std::int64_t option_integer(const RunOptions& options, const OptionSpec& spec);
double option_number(const RunOptions& options, const OptionSpec& spec);
bool option_flag(const RunOptions& options, const OptionSpec& spec);
std::string option_choice(const RunOptions& options, const OptionSpec& spec);
std::vector<std::int64_t> option_integers(const RunOptions& options, const OptionSpec& spec);
std::string option_text(const RunOptions& options, const OptionSpec& spec);
// The choices a choice list names, in the order given, each once ("all": every choice in the
// spec's order).
std::vector<std::string> option_choices(const RunOptions& options, const OptionSpec& spec);
// Whether `options.extra` sets the key (a reader that treats "not given" apart from the default).
bool option_given(const RunOptions& options, const OptionSpec& spec);

}  // namespace fabcheck
