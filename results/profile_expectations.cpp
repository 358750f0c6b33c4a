// A profile's [[expect]] tables, read strictly.
#include "results/profile_expectations.hpp"

#include <set>
#include <sstream>
#include <string>

namespace fabcheck {
namespace {

// The keys an [[expect]] table may hold, in alphabetical order (as error messages list them).
constexpr const char* kExpectKeys =
    "backend, hosts, metric, pass, probe, remedy, sizes, source, stat, subject, unit, warn";

void read_sizes(const ProfileToml& reader, const toml::node& node, Expectation& expectation) {
  const auto [min_size, max_size] = reader.read_size_range(node);
  expectation.min_size = min_size;
  expectation.max_size = max_size;
}

void check_threshold_order(const ProfileToml& reader, const Expectation& expectation,
                           const toml::node& warn_node) {
  std::ostringstream pass_text;
  std::ostringstream warn_text;
  pass_text << expectation.pass;
  warn_text << expectation.warn;
  const std::string what = expectation.probe + " " + expectation.metric;
  if (expectation.better == Better::higher && expectation.warn > expectation.pass) {
    reader.fail(toml_line(warn_node), "warn = " + warn_text.str() +
                                          " is above pass = " + pass_text.str() + " for " + what +
                                          " (higher is better: warn must be at most pass)");
  }
  if (expectation.better == Better::lower && expectation.warn < expectation.pass) {
    reader.fail(toml_line(warn_node), "warn = " + warn_text.str() +
                                          " is below pass = " + pass_text.str() + " for " + what +
                                          " (lower is better: warn must be at least pass)");
  }
}

Expectation read_expectation(const ProfileToml& reader, const toml::table& table) {
  Expectation expectation;
  expectation.line = toml_line(table);
  const toml::node* warn_node = nullptr;
  const toml::node* unit_node = nullptr;
  const toml::node* metric_node = nullptr;
  const toml::node* probe_node = nullptr;
  const toml::node* stat_node = nullptr;
  std::set<std::string> seen;
  for (auto&& [key, value] : table) {
    const std::string name(key.str());
    seen.insert(name);
    if (name == "probe") {
      expectation.probe = reader.read_string(value, name);
      probe_node = &value;
    } else if (name == "metric") {
      expectation.metric = reader.read_string(value, name);
      metric_node = &value;
    } else if (name == "unit") {
      expectation.unit = reader.read_string(value, name);
      unit_node = &value;
    } else if (name == "sizes") {
      read_sizes(reader, value, expectation);
    } else if (name == "pass") {
      expectation.pass = reader.read_number(value, name);
    } else if (name == "warn") {
      expectation.warn = reader.read_number(value, name);
      warn_node = &value;
    } else if (name == "source") {
      expectation.source = reader.read_string(value, name);
      if (expectation.source.find_first_not_of(" \t") == std::string::npos) {
        reader.fail(toml_line(value),
                    "key \"source\" must not be empty: say where the figure comes from");
      }
    } else if (name == "stat") {
      expectation.stat = reader.read_string(value, name);
      stat_node = &value;
      if (expectation.stat != "p99" && expectation.stat != "max" &&
          expectation.stat != "p99/median") {
        reader.fail(toml_line(value), "stat \"" + expectation.stat +
                                          "\" is not one of p99, max, p99/median (leave it out "
                                          "to bound the figure itself)");
      }
    } else if (name == "remedy") {
      expectation.remedy = reader.read_string(value, name);
    } else if (name == "backend") {
      const std::string backend = reader.read_string(value, name);
      if (backend != "mpi" && backend != "nccl") {
        reader.fail(toml_line(value), "backend \"" + backend + "\" is not one of mpi, nccl");
      }
      expectation.backend = backend;
    } else if (name == "hosts") {
      const std::string hosts = reader.read_string(value, name);
      if (hosts == "single") {
        expectation.hosts = HostScope::single;
      } else if (hosts == "multi") {
        expectation.hosts = HostScope::multi;
      } else {
        reader.fail(toml_line(value), "hosts \"" + hosts + "\" is not one of single, multi");
      }
    } else if (name == "subject") {
      expectation.subject = reader.read_string(value, name);
      if (expectation.subject.empty()) {
        reader.fail(toml_line(value),
                    "key \"subject\" must not be empty (leave it out to match every "
                    "subject)");
      }
    } else {
      reader.fail(toml_line(key),
                  "unknown key \"" + name + "\" in [[expect]] (known: " + kExpectKeys + ")");
    }
  }
  for (const char* required : {"probe", "metric", "unit", "pass", "warn", "source"}) {
    if (seen.count(required) == 0) {
      reader.fail(expectation.line,
                  "[[expect]] is missing required key \"" + std::string(required) + "\"");
    }
  }
  reader.check_against_catalog(expectation, *probe_node, *metric_node, *unit_node, stat_node);
  check_threshold_order(reader, expectation, *warn_node);
  return expectation;
}

}  // namespace

void read_expectations(const ProfileToml& reader, const toml::node& node, Profile& profile) {
  const auto* array = node.as_array();
  if (array == nullptr || !array->is_array_of_tables()) {
    reader.fail(toml_line(node),
                "\"expect\" must be an array of tables ([[expect]]), got " + describe_toml(node));
  }
  for (const toml::node& element : *array) {
    profile.expectations.push_back(read_expectation(reader, *element.as_table()));
  }
}

}  // namespace fabcheck
