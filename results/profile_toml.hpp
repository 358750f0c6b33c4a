// Typed reading of one profile's TOML values (strings, numbers, size ranges, probe/metric/unit
// against the catalog), each failure a ConfigError naming the file, the line and the value.
// Internal to results/profile*.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#if __has_include(<toml++/toml.hpp>)
#include <toml++/toml.hpp>
#else
#include <toml++/toml.h>  // Debian's libtomlplusplus-dev ships only this name
#endif

#include "results/metric_catalog.hpp"
#include "results/profile.hpp"

namespace fabcheck {

// The line a value or key is on.
long toml_line(const toml::node& node);
long toml_line(const toml::key& key);

// "string \"1.0\"", "integer 3", "a table": what a wrongly typed value is, for messages.
std::string describe_toml(const toml::node& node);

class ProfileToml {
 public:
  ProfileToml(const std::string& source_name, const MetricCatalog& catalog)
      : source_name_(source_name), catalog_(catalog) {}

  const std::string& source_name() const { return source_name_; }

  [[noreturn]] void fail(long line, const std::string& message) const;

  std::string read_string(const toml::node& node, std::string_view key) const;
  // An integer or a float, finite.
  double read_number(const toml::node& node, std::string_view key) const;
  // A "sizes" value: "MIN:MAX" or one size ("1M:256M", "4K"), MIN at most MAX.
  std::pair<std::uint64_t, std::uint64_t> read_size_range(const toml::node& node) const;

  // The expectation's probe, metric and unit against the catalog (each node for the line of its
  // error); sets `better` from the catalog.
  // Also the unit of a `stat` (the node of its key, null when none was given) and `better`.
  void check_against_catalog(Expectation& expectation, const toml::node& probe_node,
                             const toml::node& metric_node, const toml::node& unit_node,
                             const toml::node* stat_node = nullptr) const;

 private:
  const std::string& source_name_;
  const MetricCatalog& catalog_;
};

}  // namespace fabcheck
