// Profile loading: the TOML file's top-level tables ([profile], [node]; [[expect]] and [[path]]
// in profile_expectations.cpp and profile_tier_paths.cpp), finding a profile by name, reading it.
#include "results/profile.hpp"

#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <charconv>
#include <set>

#include "bench/sys/config_error.hpp"
#include "bench/sys/input_path.hpp"
#include "bench/sys/text_scan.hpp"
#include "results/profile_expectations.hpp"
#include "results/profile_tier_paths.hpp"
#include "results/profile_toml.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;

// The keys [profile] may hold, in alphabetical order (as error messages list them).
constexpr const char* kProfileKeys = "description, name";

// Reads one profile's tables, naming the file and line of whatever is wrong.
class ProfileParser {
 public:
  ProfileParser(const std::string& source_name, const MetricCatalog& catalog,
                const NodeSettingCatalog& node_settings)
      : toml_(source_name, catalog), node_settings_(node_settings) {}

  Profile parse(std::string_view text) {
    toml::table root;
    try {
      root = toml::parse(text, toml_.source_name());
    } catch (const toml::parse_error& error) {
      throw ConfigError(toml_.source_name(), static_cast<long>(error.source().begin.line),
                        "TOML syntax error: " + std::string(error.description()));
    }
    Profile profile;
    for (auto&& [key, node] : root) {
      if (key.str() == "profile") {
        read_profile_table(node, profile);
      } else if (key.str() == "expect") {
        read_expectations(toml_, node, profile);
      } else if (key.str() == "node") {
        read_node_table(node, profile);
      } else if (key.str() == "path") {
        read_tier_paths(toml_, node, profile);
      } else if (key.str() == "sdc") {
        read_sdc_table(node, profile);
      } else {
        toml_.fail(toml_line(key), "unknown top-level key \"" + std::string(key.str()) +
                                       "\" (known: expect, node, path, profile, sdc)");
      }
    }
    if (profile.name.empty()) profile.name = fs::path(toml_.source_name()).stem().string();
    return profile;
  }

 private:
  void read_profile_table(const toml::node& node, Profile& profile) const {
    const auto* table = node.as_table();
    if (table == nullptr || node.is_array_of_tables()) {
      toml_.fail(toml_line(node),
                 "\"profile\" must be a table ([profile]), got " + describe_toml(node));
    }
    for (auto&& [key, value] : *table) {
      if (key.str() == "name") {
        profile.name = toml_.read_string(value, "name");
      } else if (key.str() == "description") {
        profile.description = toml_.read_string(value, "description");
      } else {
        toml_.fail(toml_line(key), "unknown key \"" + std::string(key.str()) +
                                       "\" in [profile] (known: " + kProfileKeys + ")");
      }
    }
  }

  void read_node_table(const toml::node& node, Profile& profile) const {
    const auto* table = node.as_table();
    if (table == nullptr)
      toml_.fail(toml_line(node), "\"node\" must be a table ([node]), got " + describe_toml(node));
    for (auto&& [key, value] : *table) {
      const std::string name(key.str());
      if (node_settings_.find(name) == node_settings_.end()) {
        const std::string known =
            text::join(node_settings_, ", ", [](const auto& setting) { return setting.first; });
        toml_.fail(toml_line(key), "unknown key \"" + name + "\" in [node] (known: " +
                                       (known.empty() ? std::string("none in this build") : known) +
                                       ")");
      }
      profile.node[name] = value_text(value, name, "node");
      profile.node_lines[name] = toml_line(key);
    }
  }

  void read_sdc_table(const toml::node& node, Profile& profile) const {
    const auto* table = node.as_table();
    if (table == nullptr)
      toml_.fail(toml_line(node), "\"sdc\" must be a table ([sdc]), got " + describe_toml(node));
    for (auto&& [key, value] : *table) {
      const std::string name(key.str());
      if (std::find(std::begin(kSdcProfileKeys), std::end(kSdcProfileKeys), name) ==
          std::end(kSdcProfileKeys)) {
        toml_.fail(toml_line(key), "unknown key \"" + name + "\" in [sdc] (known: " +
                                       text::join(kSdcProfileKeys, ", ") + ")");
      }
      profile.sdc[name] = value_text(value, name, "sdc");
      profile.sdc_lines[name] = toml_line(key);
    }
  }

  // A table value as text: strings as written, numbers and booleans as TOML writes them.
  std::string value_text(const toml::node& value, const std::string& name,
                         const char* table) const {
    std::string text;
    if (const auto* string = value.as_string()) {
      text = string->get();
    } else if (const auto* boolean = value.as_boolean()) {
      text = boolean->get() ? "true" : "false";
    } else if (const auto* integer = value.as_integer()) {
      text = std::to_string(integer->get());  // exactly as written: 4294967296, not 4.29e+09
    } else if (value.is_floating_point()) {
      char number[64];  // the shortest text that reads back as the same double
      const auto end =
          std::to_chars(number, number + sizeof number, toml_.read_number(value, name));
      text.assign(number, end.ptr);
    } else {
      toml_.fail(toml_line(value), "key \"" + name + "\" in [" + table +
                                       "] must be a string, number or boolean, got " +
                                       describe_toml(value));
    }
    return text;
  }

  ProfileToml toml_;
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
  const std::string text = read_regular_file(path, "a profile (a TOML file)", 16u << 20);
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
  throw ConfigError(
      "unknown profile \"" + name_or_file + "\" (available: " +
      (available.empty() ? std::string("none") : text::join(available, ", ")) + "; searched: " +
      (searched.empty() ? std::string("no directories") : text::join(searched, ", ")) + ")");
}

void refuse_node_setting(const Profile& profile, const std::string& key,
                         const std::string& expected) {
  const auto value = profile.node.find(key);
  const auto line = profile.node_lines.find(key);
  throw ConfigError(profile.path.empty() ? profile.name : profile.path,
                    line == profile.node_lines.end() ? 0 : line->second,
                    "[node] " + key + " = \"" + (value == profile.node.end() ? "" : value->second) +
                        "\": expected " + expected);
}

double node_number_above(const Profile& profile, const std::string& key, double floor,
                         double fallback, const std::string& meaning) {
  const auto it = profile.node.find(key);
  if (it == profile.node.end()) return fallback;
  const std::optional<double> value = text::parse_number(it->second);
  if (!value || !(*value > floor)) {
    std::string floor_text = std::to_string(floor);
    floor_text.erase(floor_text.find_last_not_of('0') + 1);
    if (floor_text.back() == '.') floor_text.pop_back();
    refuse_node_setting(profile, key, "a number above " + floor_text + " (" + meaning + ")");
  }
  return *value;
}

}  // namespace fabcheck
