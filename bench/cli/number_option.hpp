// Every numeric flag of the command line through one range check: the text itself read strictly
// (a whole number for an integer flag, a finite one for the others) and refused outside its range
// before CLI11 converts it, so "-1" never wraps into an unsigned value and "nan" never passes.
#pragma once

#include <CLI/CLI.hpp>

#include <limits>
#include <optional>
#include <string>
#include <type_traits>

namespace fabcheck {

// The bounds the run's flags share: iterations an int holds; a day of run time (a probe limit
// beyond it is a typo, and the watchdog needs a finite one).
inline constexpr double kMostIterations = 2147483647;
inline constexpr double kMostRunSeconds = 86400;

struct NumberRange {
  double min = 0;
  double max = 0;
  bool integer = false;        // a whole number (no fraction, no exponent)
  bool min_exclusive = false;  // above min, not at it
};

// The check itself: "" when `text` is a number within `range`, else why not
// ("\"-1\" is not a whole number from 0 to 1000000"). CLI11 prefixes the flag's name.
std::string number_refusal(const std::string& text, const NumberRange& range);

CLI::Validator number_within(const NumberRange& range);

namespace detail {
template <typename T>
struct number_of {
  using type = T;
};
template <typename T>
struct number_of<std::optional<T>> {
  using type = T;
};
}  // namespace detail

// add_option with number_within(): the range is cut to what the variable's type holds.
template <typename T>
CLI::Option* add_number_option(CLI::App& app, const std::string& name, T& variable,
                               const std::string& description, double min, double max,
                               bool min_exclusive = false) {
  using Number = typename detail::number_of<T>::type;
  static_assert(std::is_arithmetic_v<Number>, "add_number_option: not a number");
  NumberRange range{min, max, std::is_integral_v<Number>, min_exclusive};
  if (static_cast<double>(std::numeric_limits<Number>::max()) < range.max)
    range.max = static_cast<double>(std::numeric_limits<Number>::max());
  if (static_cast<double>(std::numeric_limits<Number>::lowest()) > range.min)
    range.min = static_cast<double>(std::numeric_limits<Number>::lowest());
  return app.add_option(name, variable, description)->check(number_within(range));
}

}  // namespace fabcheck
