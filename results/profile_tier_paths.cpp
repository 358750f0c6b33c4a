// The tier-path grammar of a profile: [[path]] with figures, sizes, divide_by and [[path.tier]].
#include "results/profile_tier_paths.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "bench/sys/text_scan.hpp"

namespace fabcheck {
namespace {

// The keys each table may hold, in alphabetical order (as error messages list them).
constexpr const char* kPathKeys =
    "description, divide_by, expect, figures, name, per, sizes, tier, unit";
constexpr const char* kTierKeys = "description, max, min, name, source";

// "probe/metric" strings, each checked against the catalog and the path's unit.
void read_figures(const ProfileToml& reader, const toml::node& node, TierPath& path) {
  const auto* array = node.as_array();
  if (array == nullptr || array->empty()) {
    reader.fail(toml_line(node),
                "\"figures\" must be a non-empty array of \"probe/metric\" strings, got " +
                    describe_toml(node));
  }
  for (const toml::node& element : *array) {
    const std::string text = reader.read_string(element, "figures");
    const auto slash = text.rfind('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == text.size()) {
      reader.fail(toml_line(element), "figure \"" + text + "\" is not \"probe/metric\"");
    }
    Expectation probe_metric;  // borrows the expectation's catalog check
    probe_metric.probe = text.substr(0, slash);
    probe_metric.metric = text.substr(slash + 1);
    probe_metric.unit = path.unit;
    reader.check_against_catalog(probe_metric, element, element, element);
    path.figures.emplace_back(probe_metric.probe, probe_metric.metric);
  }
}

void read_tiers(const ProfileToml& reader, const toml::node& node, TierPath& path) {
  const auto* array = node.as_array();
  if (array == nullptr || !array->is_array_of_tables() || array->empty()) {
    reader.fail(toml_line(node),
                "\"tier\" must be an array of tables ([[path.tier]]), got " + describe_toml(node));
  }
  for (const toml::node& element : *array) {
    const toml::table& table = *element.as_table();
    Tier tier;
    tier.line = toml_line(table);
    std::set<std::string> seen;
    const toml::node* max_node = nullptr;
    for (auto&& [key, value] : table) {
      const std::string name(key.str());
      seen.insert(name);
      if (name == "name") {
        tier.name = reader.read_string(value, name);
      } else if (name == "description") {
        tier.description = reader.read_string(value, name);
      } else if (name == "min") {
        tier.min = reader.read_number(value, name);
      } else if (name == "max") {
        tier.max = reader.read_number(value, name);
        max_node = &value;
      } else if (name == "source") {
        tier.source = reader.read_string(value, name);
        if (tier.source.find_first_not_of(" \t") == std::string::npos) {
          reader.fail(toml_line(value),
                      "key \"source\" must not be empty: say where the range comes from");
        }
      } else {
        reader.fail(toml_line(key),
                    "unknown key \"" + name + "\" in [[path.tier]] (known: " + kTierKeys + ")");
      }
    }
    for (const char* required : {"name", "min", "max", "source"}) {
      if (seen.count(required) == 0) {
        reader.fail(tier.line,
                    "[[path.tier]] is missing required key \"" + std::string(required) + "\"");
      }
    }
    if (tier.max < tier.min) {
      reader.fail(toml_line(*max_node), "tier \"" + tier.name + "\": max is below min");
    }
    for (const Tier& other : path.tiers) {
      if (other.name == tier.name) {
        reader.fail(tier.line,
                    "tier \"" + tier.name + "\" is listed twice in [[path]] \"" + path.name + "\"");
      }
    }
    path.tiers.push_back(std::move(tier));
  }
}

TierPath read_path(const ProfileToml& reader, const toml::table& table) {
  TierPath path;
  path.line = toml_line(table);
  const toml::node* figures_node = nullptr;
  const toml::node* expect_node = nullptr;
  std::set<std::string> seen;
  for (auto&& [key, value] : table) {
    const std::string name(key.str());
    seen.insert(name);
    if (name == "name") {
      path.name = reader.read_string(value, name);
    } else if (name == "description") {
      path.description = reader.read_string(value, name);
    } else if (name == "unit") {
      path.unit = reader.read_string(value, name);
    } else if (name == "expect") {
      path.expect = reader.read_string(value, name);
      expect_node = &value;
    } else if (name == "per") {
      path.per = reader.read_string(value, name);
    } else if (name == "divide_by") {
      path.divide_by = reader.read_number(value, name);
      if (path.divide_by <= 0) {
        reader.fail(toml_line(value), "divide_by must be above 0, got " + describe_toml(value));
      }
    } else if (name == "sizes") {
      const auto [min_size, max_size] = reader.read_size_range(value);
      path.min_size = min_size;
      path.max_size = max_size;
    } else if (name == "figures") {
      figures_node = &value;
    } else if (name == "tier") {
      read_tiers(reader, value, path);
    } else {
      reader.fail(toml_line(key),
                  "unknown key \"" + name + "\" in [[path]] (known: " + kPathKeys + ")");
    }
  }
  for (const char* required : {"name", "figures", "unit", "tier"}) {
    if (seen.count(required) == 0) {
      reader.fail(path.line, "[[path]] is missing required key \"" + std::string(required) + "\"");
    }
  }
  read_figures(reader, *figures_node, path);
  if (expect_node != nullptr &&
      std::none_of(path.tiers.begin(), path.tiers.end(),
                   [&](const Tier& tier) { return tier.name == path.expect; })) {
    std::vector<std::string> names;
    for (const Tier& tier : path.tiers) names.push_back(tier.name);
    reader.fail(toml_line(*expect_node), "expect = \"" + path.expect +
                                             "\" names no tier of [[path]] \"" + path.name +
                                             "\" (its tiers: " + text::join(names, ", ") + ")");
  }
  return path;
}

}  // namespace

void read_tier_paths(const ProfileToml& reader, const toml::node& node, Profile& profile) {
  const auto* array = node.as_array();
  if (array == nullptr || !array->is_array_of_tables()) {
    reader.fail(toml_line(node),
                "\"path\" must be an array of tables ([[path]]), got " + describe_toml(node));
  }
  for (const toml::node& element : *array) {
    TierPath path = read_path(reader, *element.as_table());
    for (const TierPath& other : profile.paths) {
      if (other.name == path.name) {
        reader.fail(path.line, "[[path]] \"" + path.name + "\" is listed twice (first at line " +
                                   std::to_string(other.line) + ")");
      }
      for (const auto& figure : path.figures) {
        if (std::find(other.figures.begin(), other.figures.end(), figure) != other.figures.end()) {
          reader.fail(path.line, "figure " + figure.first + "/" + figure.second +
                                     " is already in [[path]] \"" + other.name + "\"");
        }
      }
    }
    profile.paths.push_back(std::move(path));
  }
}

}  // namespace fabcheck
