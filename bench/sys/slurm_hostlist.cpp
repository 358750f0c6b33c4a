// Slurm host-list expansion: items at top-level commas, brackets of numbers and ranges.
#include "bench/sys/slurm_hostlist.hpp"

#include <stdexcept>

#include "bench/sys/text_scan.hpp"

namespace fabcheck {

namespace {

[[noreturn]] void bad(std::string_view expression, const std::string& why) {
  throw std::invalid_argument("host list \"" + std::string(expression) + "\": " + why);
}

// "01-04,07" -> {"01", "02", "03", "04", "07"}: a range's names are as wide as its first bound.
std::vector<std::string> bracket_names(std::string_view expression, std::string_view inside) {
  std::vector<std::string> names;
  for (const std::string_view part : text::split(inside, ',')) {
    const std::size_t dash = part.find('-');
    const std::string_view low = part.substr(0, dash);
    const std::string_view high = dash == std::string_view::npos ? low : part.substr(dash + 1);
    const auto from = text::parse_unsigned(low);
    const auto to = text::parse_unsigned(high);
    if (!from || !to) bad(expression, "\"" + std::string(part) + "\" is not a number or range");
    if (*to < *from) bad(expression, "range \"" + std::string(part) + "\" runs backwards");
    if (*to - *from > (1u << 20))
      bad(expression, "range \"" + std::string(part) + "\" is too long");
    for (std::uint64_t value = *from; value <= *to; ++value) {
      std::string digits = std::to_string(value);
      if (digits.size() < low.size()) digits.insert(0, low.size() - digits.size(), '0');
      names.push_back(std::move(digits));
    }
  }
  return names;
}

// One item ("r[1-2]-n[01-04]"): every combination of its brackets, left to right.
void expand_item(std::string_view expression, std::string_view item, std::size_t max_names,
                 std::vector<std::string>& out) {
  if (item.empty()) bad(expression, "an empty name (two commas, or one at an end)");
  std::vector<std::string> names{""};
  std::size_t at = 0;
  while (at < item.size()) {
    const std::size_t open = item.find('[', at);
    const std::string_view literal = item.substr(at, open - at);
    if (literal.find(']') != std::string_view::npos) bad(expression, "a ']' with no '['");
    for (auto& name : names) name += literal;
    if (open == std::string_view::npos) break;
    const std::size_t close = item.find(']', open);
    if (close == std::string_view::npos) bad(expression, "a '[' with no ']'");
    const auto parts = bracket_names(expression, item.substr(open + 1, close - open - 1));
    if (names.size() * parts.size() > max_names)
      bad(expression, "stands for more than " + std::to_string(max_names) + " names");
    std::vector<std::string> grown;
    grown.reserve(names.size() * parts.size());
    for (const auto& name : names) {
      for (const auto& part : parts) grown.push_back(name + part);
    }
    names = std::move(grown);
    at = close + 1;
  }
  if (out.size() + names.size() > max_names)
    bad(expression, "stands for more than " + std::to_string(max_names) + " names");
  out.insert(out.end(), names.begin(), names.end());
}

}  // namespace

std::vector<std::string> expand_hostlist(std::string_view expression, std::size_t max_names) {
  std::vector<std::string> names;
  const std::string_view whole = text::trim(expression);
  if (whole.empty()) bad(expression, "empty");
  std::size_t start = 0;
  int depth = 0;
  for (std::size_t i = 0; i <= whole.size(); ++i) {
    const char c = i < whole.size() ? whole[i] : ',';
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (depth < 0) bad(expression, "a ']' with no '['");
    if (c == ',' && depth == 0) {
      expand_item(expression, text::trim(whole.substr(start, i - start)), max_names, names);
      start = i + 1;
    }
  }
  if (depth != 0) bad(expression, "a '[' with no ']'");
  return names;
}

}  // namespace fabcheck
