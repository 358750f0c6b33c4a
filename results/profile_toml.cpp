// Typed reading of a profile's TOML values, naming file and line of whatever is wrong.
#include "results/profile_toml.hpp"

#include <cmath>
#include <sstream>
#include <vector>

#include "bench/sys/config_error.hpp"
#include "bench/sys/text_scan.hpp"
#include "results/units.hpp"

namespace fabcheck {

long toml_line(const toml::node& node) { return static_cast<long>(node.source().begin.line); }
long toml_line(const toml::key& key) { return static_cast<long>(key.source().begin.line); }

std::string describe_toml(const toml::node& node) {
  if (const auto* text = node.as_string()) return "string \"" + text->get() + "\"";
  if (const auto* integer = node.as_integer()) return "integer " + std::to_string(integer->get());
  if (const auto* real = node.as_floating_point()) {
    std::ostringstream out;
    out << real->get();
    return "float " + out.str();
  }
  if (const auto* boolean = node.as_boolean()) {
    return std::string("boolean ") + (boolean->get() ? "true" : "false");
  }
  if (node.is_table()) return "a table";
  if (node.is_array()) return "an array";
  return "a date/time";
}

void ProfileToml::fail(long line, const std::string& message) const {
  throw ConfigError(source_name_, line, message);
}

std::string ProfileToml::read_string(const toml::node& node, std::string_view key) const {
  const auto* text = node.as_string();
  if (text == nullptr) {
    fail(toml_line(node),
         "key \"" + std::string(key) + "\" must be a string, got " + describe_toml(node));
  }
  return text->get();
}

double ProfileToml::read_number(const toml::node& node, std::string_view key) const {
  double value = 0;
  if (const auto* integer = node.as_integer()) {
    value = static_cast<double>(integer->get());
  } else if (const auto* real = node.as_floating_point()) {
    value = real->get();
  } else {
    fail(toml_line(node),
         "key \"" + std::string(key) + "\" must be a number, got " + describe_toml(node));
  }
  if (!std::isfinite(value)) {
    fail(toml_line(node),
         "key \"" + std::string(key) + "\" must be a finite number, got " + describe_toml(node));
  }
  return value;
}

std::pair<std::uint64_t, std::uint64_t> ProfileToml::read_size_range(const toml::node& node) const {
  const std::string text = read_string(node, "sizes");
  const auto colon = text.find(':');
  const std::string min_text = text.substr(0, colon);
  const std::string max_text = colon == std::string::npos ? min_text : text.substr(colon + 1);
  const auto min_size = parse_byte_size(min_text);
  const auto max_size = parse_byte_size(max_text);
  if (!min_size || !max_size) {
    fail(toml_line(node), "malformed sizes \"" + text +
                              "\" (expected \"MIN:MAX\" or one size, e.g. \"1M:256M\" or \"4K\")");
  }
  if (*min_size > *max_size) {
    fail(toml_line(node), "sizes \"" + text + "\": minimum " + format_bytes(*min_size) +
                              " is above maximum " + format_bytes(*max_size));
  }
  return {*min_size, *max_size};
}

void ProfileToml::check_against_catalog(Expectation& expectation, const toml::node& probe_node,
                                        const toml::node& metric_node, const toml::node& unit_node,
                                        const toml::node* stat_node) const {
  const auto probe = catalog_.find(expectation.probe);
  if (probe == catalog_.end()) {
    std::vector<std::string> known;
    for (const auto& entry : catalog_) known.push_back(entry.first);
    fail(toml_line(probe_node),
         "unknown probe \"" + expectation.probe +
             "\" (known: " + (known.empty() ? std::string("none") : text::join(known, ", ")) + ")");
  }
  const auto metric = probe->second.find(expectation.metric);
  if (metric == probe->second.end()) {
    std::vector<std::string> known;
    for (const auto& entry : probe->second) known.push_back(entry.first);
    fail(toml_line(metric_node), "unknown metric \"" + expectation.metric + "\" for probe " +
                                     expectation.probe + " (known: " + text::join(known, ", ") +
                                     ")");
  }
  if (!expectation.stat.empty()) {
    // The samples' statistics are kept with times: a stat of anything else bounds nothing.
    if (metric->second.unit != "us") {
      fail(toml_line(*stat_node), "stat \"" + expectation.stat +
                                      "\" bounds the samples of a time (unit \"us\"); " +
                                      expectation.probe + " " + expectation.metric + " is in \"" +
                                      metric->second.unit + "\"");
    }
    const bool ratio = expectation.stat == "p99/median";
    const std::string unit = ratio ? "ratio" : metric->second.unit;
    if (expectation.unit != unit) {
      fail(toml_line(unit_node), "unit \"" + expectation.unit + "\" does not match " +
                                     expectation.stat + " of " + expectation.probe + " " +
                                     expectation.metric + " (\"" + unit + "\")");
    }
    expectation.better = Better::lower;
    return;
  }
  if (metric->second.unit != expectation.unit) {
    fail(toml_line(unit_node), "unit \"" + expectation.unit + "\" does not match the unit of " +
                                   expectation.probe + " " + expectation.metric + " (\"" +
                                   metric->second.unit + "\")");
  }
  expectation.better = metric->second.better;
}

}  // namespace fabcheck
