// Profile loading: TOML expectations, each checked against the probes' metric catalog.
#include "results/profile.hpp"

#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#if __has_include(<toml++/toml.hpp>)
#include <toml++/toml.hpp>
#else
#include <toml++/toml.h>  // Debian's libtomlplusplus-dev ships only this name
#endif

#include "bench/sys/config_error.hpp"
#include "bench/sys/input_path.hpp"
#include "results/units.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;

// The keys each table may hold, in alphabetical order (as error messages list them).
constexpr const char* kProfileKeys = "description, name";
constexpr const char* kExpectKeys =
    "backend, hosts, metric, pass, probe, remedy, sizes, source, subject, unit, warn";
constexpr const char* kPathKeys =
    "description, divide_by, expect, figures, name, per, sizes, tier, unit";
constexpr const char* kTierKeys = "description, max, min, name, source";

template <typename Range>
std::string join(const Range& items, const char* separator = ", ") {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

long line_of(const toml::node& node) { return static_cast<long>(node.source().begin.line); }
long line_of(const toml::key& key) { return static_cast<long>(key.source().begin.line); }

// "string \"1.0\"", "integer 3", "table": what a wrongly typed value is, for messages.
std::string describe(const toml::node& node) {
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

// Reads one profile's tables, naming the file and line of whatever is wrong.
class ProfileParser {
 public:
  ProfileParser(const std::string& source_name, const MetricCatalog& catalog,
                const NodeSettingCatalog& node_settings)
      : source_name_(source_name), catalog_(catalog), node_settings_(node_settings) {}

  Profile parse(std::string_view text) {
    toml::table root;
    try {
      root = toml::parse(text, source_name_);
    } catch (const toml::parse_error& error) {
      throw ConfigError(source_name_, static_cast<long>(error.source().begin.line),
                        "TOML syntax error: " + std::string(error.description()));
    }
    Profile profile;
    for (auto&& [key, node] : root) {
      if (key.str() == "profile") {
        read_profile_table(node, profile);
      } else if (key.str() == "expect") {
        read_expectations(node, profile);
      } else if (key.str() == "node") {
        read_node_table(node, profile);
      } else if (key.str() == "path") {
        read_paths(node, profile);
      } else {
        fail(line_of(key), "unknown top-level key \"" + std::string(key.str()) +
                               "\" (known: expect, node, path, profile)");
      }
    }
    if (profile.name.empty()) profile.name = fs::path(source_name_).stem().string();
    return profile;
  }

 private:
  [[noreturn]] void fail(long line, const std::string& message) const {
    throw ConfigError(source_name_, line, message);
  }

  std::string read_string(const toml::node& node, std::string_view key) const {
    const auto* text = node.as_string();
    if (text == nullptr) {
      fail(line_of(node),
           "key \"" + std::string(key) + "\" must be a string, got " + describe(node));
    }
    return text->get();
  }

  double read_number(const toml::node& node, std::string_view key) const {
    double value = 0;
    if (const auto* integer = node.as_integer()) {
      value = static_cast<double>(integer->get());
    } else if (const auto* real = node.as_floating_point()) {
      value = real->get();
    } else {
      fail(line_of(node),
           "key \"" + std::string(key) + "\" must be a number, got " + describe(node));
    }
    if (!std::isfinite(value)) {
      fail(line_of(node),
           "key \"" + std::string(key) + "\" must be a finite number, got " + describe(node));
    }
    return value;
  }

  void read_profile_table(const toml::node& node, Profile& profile) const {
    const auto* table = node.as_table();
    if (table == nullptr || node.is_array_of_tables()) {
      fail(line_of(node), "\"profile\" must be a table ([profile]), got " + describe(node));
    }
    for (auto&& [key, value] : *table) {
      if (key.str() == "name") {
        profile.name = read_string(value, "name");
      } else if (key.str() == "description") {
        profile.description = read_string(value, "description");
      } else {
        fail(line_of(key), "unknown key \"" + std::string(key.str()) +
                               "\" in [profile] (known: " + kProfileKeys + ")");
      }
    }
  }

  void read_node_table(const toml::node& node, Profile& profile) const {
    const auto* table = node.as_table();
    if (table == nullptr)
      fail(line_of(node), "\"node\" must be a table ([node]), got " + describe(node));
    for (auto&& [key, value] : *table) {
      const std::string name(key.str());
      if (node_settings_.find(name) == node_settings_.end()) {
        std::string known;
        for (const auto& [known_key, meaning] : node_settings_)
          known += (known.empty() ? "" : ", ") + known_key;
        fail(line_of(key), "unknown key \"" + name + "\" in [node] (known: " +
                               (known.empty() ? std::string("none in this build") : known) + ")");
      }
      std::string text;
      if (const auto* string = value.as_string()) {
        text = string->get();
      } else if (const auto* boolean = value.as_boolean()) {
        text = boolean->get() ? "true" : "false";
      } else if (const auto* integer = value.as_integer()) {
        text = std::to_string(integer->get());  // exactly as written: 4294967296, not 4.29e+09
      } else if (value.is_floating_point()) {
        char number[64];  // the shortest text that reads back as the same double
        const auto end = std::to_chars(number, number + sizeof number, read_number(value, name));
        text.assign(number, end.ptr);
      } else {
        fail(line_of(value), "key \"" + name +
                                 "\" in [node] must be a string, number or boolean, got " +
                                 describe(value));
      }
      profile.node[name] = text;
      profile.node_lines[name] = line_of(key);
    }
  }

  void read_expectations(const toml::node& node, Profile& profile) const {
    const auto* array = node.as_array();
    if (array == nullptr || !array->is_array_of_tables()) {
      fail(line_of(node),
           "\"expect\" must be an array of tables ([[expect]]), got " + describe(node));
    }
    for (const toml::node& element : *array) {
      profile.expectations.push_back(read_expectation(*element.as_table()));
    }
  }

  Expectation read_expectation(const toml::table& table) const {
    Expectation expectation;
    expectation.line = line_of(table);
    const toml::node* warn_node = nullptr;
    const toml::node* unit_node = nullptr;
    const toml::node* metric_node = nullptr;
    const toml::node* probe_node = nullptr;
    std::set<std::string> seen;
    for (auto&& [key, value] : table) {
      const std::string name(key.str());
      seen.insert(name);
      if (name == "probe") {
        expectation.probe = read_string(value, name);
        probe_node = &value;
      } else if (name == "metric") {
        expectation.metric = read_string(value, name);
        metric_node = &value;
      } else if (name == "unit") {
        expectation.unit = read_string(value, name);
        unit_node = &value;
      } else if (name == "sizes") {
        read_sizes(value, expectation);
      } else if (name == "pass") {
        expectation.pass = read_number(value, name);
      } else if (name == "warn") {
        expectation.warn = read_number(value, name);
        warn_node = &value;
      } else if (name == "source") {
        expectation.source = read_string(value, name);
        if (expectation.source.find_first_not_of(" \t") == std::string::npos) {
          fail(line_of(value), "key \"source\" must not be empty: say where the figure comes from");
        }
      } else if (name == "remedy") {
        expectation.remedy = read_string(value, name);
      } else if (name == "backend") {
        const std::string backend = read_string(value, name);
        if (backend != "mpi" && backend != "nccl") {
          fail(line_of(value), "backend \"" + backend + "\" is not one of mpi, nccl");
        }
        expectation.backend = backend;
      } else if (name == "hosts") {
        const std::string hosts = read_string(value, name);
        if (hosts == "single") {
          expectation.hosts = HostScope::single;
        } else if (hosts == "multi") {
          expectation.hosts = HostScope::multi;
        } else {
          fail(line_of(value), "hosts \"" + hosts + "\" is not one of single, multi");
        }
      } else if (name == "subject") {
        expectation.subject = read_string(value, name);
        if (expectation.subject.empty()) {
          fail(line_of(value),
               "key \"subject\" must not be empty (leave it out to match every "
               "subject)");
        }
      } else {
        fail(line_of(key),
             "unknown key \"" + name + "\" in [[expect]] (known: " + kExpectKeys + ")");
      }
    }
    for (const char* required : {"probe", "metric", "unit", "pass", "warn", "source"}) {
      if (seen.count(required) == 0) {
        fail(expectation.line,
             "[[expect]] is missing required key \"" + std::string(required) + "\"");
      }
    }
    check_against_catalog(expectation, *probe_node, *metric_node, *unit_node);
    check_threshold_order(expectation, *warn_node);
    return expectation;
  }

  void read_sizes(const toml::node& node, Expectation& expectation) const {
    const auto [min_size, max_size] = read_size_range(node);
    expectation.min_size = min_size;
    expectation.max_size = max_size;
  }

  std::pair<std::uint64_t, std::uint64_t> read_size_range(const toml::node& node) const {
    const std::string text = read_string(node, "sizes");
    const auto colon = text.find(':');
    const std::string min_text = text.substr(0, colon);
    const std::string max_text = colon == std::string::npos ? min_text : text.substr(colon + 1);
    const auto min_size = parse_byte_size(min_text);
    const auto max_size = parse_byte_size(max_text);
    if (!min_size || !max_size) {
      fail(line_of(node), "malformed sizes \"" + text +
                              "\" (expected \"MIN:MAX\" or one size, e.g. \"1M:256M\" or \"4K\")");
    }
    if (*min_size > *max_size) {
      fail(line_of(node), "sizes \"" + text + "\": minimum " + format_bytes(*min_size) +
                              " is above maximum " + format_bytes(*max_size));
    }
    return {*min_size, *max_size};
  }

  void read_paths(const toml::node& node, Profile& profile) const {
    const auto* array = node.as_array();
    if (array == nullptr || !array->is_array_of_tables()) {
      fail(line_of(node), "\"path\" must be an array of tables ([[path]]), got " + describe(node));
    }
    for (const toml::node& element : *array) {
      TierPath path = read_path(*element.as_table());
      for (const TierPath& other : profile.paths) {
        if (other.name == path.name) {
          fail(path.line, "[[path]] \"" + path.name + "\" is listed twice (first at line " +
                              std::to_string(other.line) + ")");
        }
        for (const auto& figure : path.figures) {
          if (std::find(other.figures.begin(), other.figures.end(), figure) !=
              other.figures.end()) {
            fail(path.line, "figure " + figure.first + "/" + figure.second +
                                " is already in [[path]] \"" + other.name + "\"");
          }
        }
      }
      profile.paths.push_back(std::move(path));
    }
  }

  TierPath read_path(const toml::table& table) const {
    TierPath path;
    path.line = line_of(table);
    const toml::node* figures_node = nullptr;
    const toml::node* expect_node = nullptr;
    std::set<std::string> seen;
    for (auto&& [key, value] : table) {
      const std::string name(key.str());
      seen.insert(name);
      if (name == "name") {
        path.name = read_string(value, name);
      } else if (name == "description") {
        path.description = read_string(value, name);
      } else if (name == "unit") {
        path.unit = read_string(value, name);
      } else if (name == "expect") {
        path.expect = read_string(value, name);
        expect_node = &value;
      } else if (name == "per") {
        path.per = read_string(value, name);
      } else if (name == "divide_by") {
        path.divide_by = read_number(value, name);
        if (path.divide_by <= 0) {
          fail(line_of(value), "divide_by must be above 0, got " + describe(value));
        }
      } else if (name == "sizes") {
        const auto [min_size, max_size] = read_size_range(value);
        path.min_size = min_size;
        path.max_size = max_size;
      } else if (name == "figures") {
        figures_node = &value;
      } else if (name == "tier") {
        read_tiers(value, path);
      } else {
        fail(line_of(key), "unknown key \"" + name + "\" in [[path]] (known: " + kPathKeys + ")");
      }
    }
    for (const char* required : {"name", "figures", "unit", "tier"}) {
      if (seen.count(required) == 0) {
        fail(path.line, "[[path]] is missing required key \"" + std::string(required) + "\"");
      }
    }
    read_figures(*figures_node, path);
    if (expect_node != nullptr &&
        std::none_of(path.tiers.begin(), path.tiers.end(),
                     [&](const Tier& tier) { return tier.name == path.expect; })) {
      std::vector<std::string> names;
      for (const Tier& tier : path.tiers) names.push_back(tier.name);
      fail(line_of(*expect_node), "expect = \"" + path.expect + "\" names no tier of [[path]] \"" +
                                      path.name + "\" (its tiers: " + join(names) + ")");
    }
    return path;
  }

  // "probe/metric" strings, each checked against the catalog and the path's unit.
  void read_figures(const toml::node& node, TierPath& path) const {
    const auto* array = node.as_array();
    if (array == nullptr || array->empty()) {
      fail(line_of(node),
           "\"figures\" must be a non-empty array of \"probe/metric\" strings, got " +
               describe(node));
    }
    for (const toml::node& element : *array) {
      const std::string text = read_string(element, "figures");
      const auto slash = text.rfind('/');
      if (slash == std::string::npos || slash == 0 || slash + 1 == text.size()) {
        fail(line_of(element), "figure \"" + text + "\" is not \"probe/metric\"");
      }
      Expectation probe_metric;  // borrows the expectation's catalog check
      probe_metric.probe = text.substr(0, slash);
      probe_metric.metric = text.substr(slash + 1);
      probe_metric.unit = path.unit;
      check_against_catalog(probe_metric, element, element, element);
      path.figures.emplace_back(probe_metric.probe, probe_metric.metric);
    }
  }

  void read_tiers(const toml::node& node, TierPath& path) const {
    const auto* array = node.as_array();
    if (array == nullptr || !array->is_array_of_tables() || array->empty()) {
      fail(line_of(node),
           "\"tier\" must be an array of tables ([[path.tier]]), got " + describe(node));
    }
    for (const toml::node& element : *array) {
      const toml::table& table = *element.as_table();
      Tier tier;
      tier.line = line_of(table);
      std::set<std::string> seen;
      const toml::node* max_node = nullptr;
      for (auto&& [key, value] : table) {
        const std::string name(key.str());
        seen.insert(name);
        if (name == "name") {
          tier.name = read_string(value, name);
        } else if (name == "description") {
          tier.description = read_string(value, name);
        } else if (name == "min") {
          tier.min = read_number(value, name);
        } else if (name == "max") {
          tier.max = read_number(value, name);
          max_node = &value;
        } else if (name == "source") {
          tier.source = read_string(value, name);
          if (tier.source.find_first_not_of(" \t") == std::string::npos) {
            fail(line_of(value),
                 "key \"source\" must not be empty: say where the range comes from");
          }
        } else {
          fail(line_of(key),
               "unknown key \"" + name + "\" in [[path.tier]] (known: " + kTierKeys + ")");
        }
      }
      for (const char* required : {"name", "min", "max", "source"}) {
        if (seen.count(required) == 0) {
          fail(tier.line,
               "[[path.tier]] is missing required key \"" + std::string(required) + "\"");
        }
      }
      if (tier.max < tier.min) {
        fail(line_of(*max_node), "tier \"" + tier.name + "\": max is below min");
      }
      for (const Tier& other : path.tiers) {
        if (other.name == tier.name) {
          fail(tier.line,
               "tier \"" + tier.name + "\" is listed twice in [[path]] \"" + path.name + "\"");
        }
      }
      path.tiers.push_back(std::move(tier));
    }
  }

  void check_against_catalog(Expectation& expectation, const toml::node& probe_node,
                             const toml::node& metric_node, const toml::node& unit_node) const {
    const auto probe = catalog_.find(expectation.probe);
    if (probe == catalog_.end()) {
      std::vector<std::string> known;
      for (const auto& entry : catalog_) known.push_back(entry.first);
      fail(line_of(probe_node), "unknown probe \"" + expectation.probe + "\" (known: " +
                                    (known.empty() ? std::string("none") : join(known)) + ")");
    }
    const auto metric = probe->second.find(expectation.metric);
    if (metric == probe->second.end()) {
      std::vector<std::string> known;
      for (const auto& entry : probe->second) known.push_back(entry.first);
      fail(line_of(metric_node), "unknown metric \"" + expectation.metric + "\" for probe " +
                                     expectation.probe + " (known: " + join(known) + ")");
    }
    if (metric->second.unit != expectation.unit) {
      fail(line_of(unit_node), "unit \"" + expectation.unit + "\" does not match the unit of " +
                                   expectation.probe + " " + expectation.metric + " (\"" +
                                   metric->second.unit + "\")");
    }
    expectation.better = metric->second.better;
  }

  void check_threshold_order(const Expectation& expectation, const toml::node& warn_node) const {
    std::ostringstream pass_text;
    std::ostringstream warn_text;
    pass_text << expectation.pass;
    warn_text << expectation.warn;
    const std::string what = expectation.probe + " " + expectation.metric;
    if (expectation.better == Better::higher && expectation.warn > expectation.pass) {
      fail(line_of(warn_node), "warn = " + warn_text.str() + " is above pass = " + pass_text.str() +
                                   " for " + what +
                                   " (higher is better: warn must be at most pass)");
    }
    if (expectation.better == Better::lower && expectation.warn < expectation.pass) {
      fail(line_of(warn_node), "warn = " + warn_text.str() + " is below pass = " + pass_text.str() +
                                   " for " + what +
                                   " (lower is better: warn must be at least pass)");
    }
  }

  const std::string& source_name_;
  const MetricCatalog& catalog_;
  const NodeSettingCatalog& node_settings_;
};

}  // namespace

const char* to_string(HostScope scope) { return scope == HostScope::single ? "single" : "multi"; }

Profile parse_profile(std::string_view text, const std::string& source_name,
                      const MetricCatalog& catalog, const NodeSettingCatalog& node_settings) {
  return ProfileParser(source_name, catalog, node_settings).parse(text);
}

Profile load_profile(const fs::path& path, const MetricCatalog& catalog,
                     const NodeSettingCatalog& node_settings) {
  const int fd = open_regular_file(path, "a profile (a TOML file)");
  std::string text;
  char buffer[65536];
  for (ssize_t got; (got = ::read(fd, buffer, sizeof(buffer))) != 0;) {
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 || text.size() > (16u << 20)) {
      ::close(fd);
      throw ConfigError(
          path.string(), 0,
          got < 0 ? "cannot read profile file" : "is larger than 16 MiB: not a profile");
    }
    text.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(fd);
  Profile profile = parse_profile(text, path.string(), catalog, node_settings);
  profile.path = path.string();
  return profile;
}

fs::path resolve_profile(const std::string& name_or_file,
                         const std::vector<fs::path>& profile_dirs) {
  const bool is_path =
      name_or_file.find('/') != std::string::npos ||
      (name_or_file.size() >= 5 && name_or_file.compare(name_or_file.size() - 5, 5, ".toml") == 0);
  std::error_code error;
  if (is_path) {
    if (const std::string why = why_not_a_regular_file(name_or_file); !why.empty()) {
      throw ConfigError(
          "profile file \"" + name_or_file + "\" " + why +
          (why.rfind("does not exist", 0) == 0 ? "" : ", not a profile (a TOML file)"));
    }
    return name_or_file;
  }
  for (const fs::path& dir : profile_dirs) {
    const fs::path candidate = dir / (name_or_file + ".toml");
    if (fs::is_regular_file(candidate, error)) return candidate;
  }
  std::set<std::string> available;
  std::vector<std::string> searched;
  for (const fs::path& dir : profile_dirs) {
    searched.push_back(dir.string());
    for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
      if (it->path().extension() == ".toml") available.insert(it->path().stem().string());
    }
    error.clear();
  }
  throw ConfigError("unknown profile \"" + name_or_file + "\" (available: " +
                    (available.empty() ? std::string("none") : join(available)) + "; searched: " +
                    (searched.empty() ? std::string("no directories") : join(searched)) + ")");
}

}  // namespace fabcheck
