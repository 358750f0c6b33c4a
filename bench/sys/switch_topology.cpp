// topology.conf (topology/tree) read into a switch tree, checked for the mistakes a site makes.
#include "bench/sys/switch_topology.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "bench/sys/config_error.hpp"
#include "bench/sys/input_path.hpp"
#include "bench/sys/slurm_hostlist.hpp"
#include "bench/sys/text_scan.hpp"

namespace fabcheck {

namespace {

std::vector<std::string> names_of(std::string_view value, const std::string& source, int line,
                                  const std::string& key) {
  try {
    return expand_hostlist(value);
  } catch (const std::invalid_argument& error) {
    throw ConfigError(source, line, key + "=" + std::string(value) + ": " + error.what());
  }
}

}  // namespace

const SwitchEntry* SwitchTopology::find(const std::string& name) const {
  const auto it = std::find_if(switches_.begin(), switches_.end(),
                               [&](const SwitchEntry& s) { return s.name == name; });
  return it == switches_.end() ? nullptr : &*it;
}

std::string SwitchTopology::leaf_of(const std::string& host) const {
  for (const auto& entry : switches_) {
    if (std::find(entry.nodes.begin(), entry.nodes.end(), host) != entry.nodes.end())
      return entry.name;
  }
  return "";
}

// `name`, its parent, its parent's parent, ... up to a top switch.
std::vector<std::string> SwitchTopology::up_from(const std::string& name) const {
  std::vector<std::string> chain;
  for (const SwitchEntry* at = find(name); at != nullptr; at = find(at->parent)) {
    chain.push_back(at->name);
    if (at->parent.empty() || chain.size() > switches_.size()) break;
  }
  return chain;
}

std::vector<std::string> SwitchTopology::path(const std::string& a, const std::string& b) const {
  const auto up_a = up_from(a);
  const auto up_b = up_from(b);
  for (std::size_t i = 0; i < up_a.size(); ++i) {
    const auto common = std::find(up_b.begin(), up_b.end(), up_a[i]);
    if (common == up_b.end()) continue;
    std::vector<std::string> route(up_a.begin(), up_a.begin() + static_cast<long>(i) + 1);
    for (auto down = std::make_reverse_iterator(common); down != up_b.rend(); ++down)
      route.push_back(*down);
    return route;
  }
  return {};
}

SwitchTopology parse_slurm_topology(std::string_view text, const std::string& source) {
  std::vector<SwitchEntry> switches;
  std::map<std::string, int> node_line;  // node -> line of the switch holding it
  std::map<std::string, std::string> node_switch;
  int number = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++number;
    line = line.substr(0, line.find('#'));
    const auto words = text::split_whitespace(line);
    if (words.empty()) continue;
    SwitchEntry entry;
    entry.line = number;
    bool named = false;
    for (const auto word : words) {
      const std::size_t equals = word.find('=');
      if (equals == std::string_view::npos || equals == 0 || equals + 1 == word.size()) {
        throw ConfigError(source, number,
                          "\"" + std::string(word) +
                              "\": expected KEY=VALUE (SwitchName=, "
                              "Nodes=, Switches=, LinkSpeed=)");
      }
      const std::string key = text::lower(word.substr(0, equals));
      const std::string_view value = word.substr(equals + 1);
      if (key == "switchname") {
        if (value.find_first_of("[],") != std::string_view::npos)
          throw ConfigError(
              source, number,
              "SwitchName=" + std::string(value) + ": one switch a line, not a host list");
        entry.name = std::string(value);
        named = true;
      } else if (key == "nodes") {
        entry.nodes = names_of(value, source, number, "Nodes");
      } else if (key == "switches") {
        entry.switches = names_of(value, source, number, "Switches");
      } else if (key != "linkspeed") {
        throw ConfigError(source, number,
                          "unknown keyword \"" + std::string(word.substr(0, equals)) +
                              "\" (topology/tree knows SwitchName, Nodes, Switches, LinkSpeed)");
      }
    }
    if (!named) throw ConfigError(source, number, "a line without SwitchName=");
    if (entry.nodes.empty() && entry.switches.empty())
      throw ConfigError(source, number, "switch " + entry.name + " has no Nodes= or Switches=");
    for (const auto& other : switches) {
      if (other.name == entry.name) {
        throw ConfigError(source, number,
                          "switch " + entry.name + " is defined twice (first at line " +
                              std::to_string(other.line) + ")");
      }
    }
    for (const auto& node : entry.nodes) {
      const auto [it, added] = node_switch.try_emplace(node, entry.name);
      if (!added) {
        throw ConfigError(source, number,
                          "node " + node + " is under switch " + it->second + " (line " +
                              std::to_string(node_line[node]) + ") and " + entry.name);
      }
      node_line[node] = number;
    }
    switches.push_back(std::move(entry));
  }
  if (switches.empty()) throw ConfigError(source, 0, "no SwitchName= line: not a topology.conf");
  // Each child switch is defined, and below one parent.
  for (auto& parent : switches) {
    for (const auto& child : parent.switches) {
      const auto it = std::find_if(switches.begin(), switches.end(),
                                   [&](const SwitchEntry& s) { return s.name == child; });
      if (it == switches.end()) {
        throw ConfigError(source, parent.line,
                          "switch " + parent.name + " lists switch " + child +
                              ", which no SwitchName= line defines");
      }
      if (!it->parent.empty()) {
        throw ConfigError(source, parent.line,
                          "switch " + child + " is below both " + it->parent + " and " +
                              parent.name + " (topology/tree is a tree)");
      }
      if (it->name == parent.name)
        throw ConfigError(source, parent.line, "switch " + child + " lists itself");
      it->parent = parent.name;
    }
  }
  SwitchTopology topology(std::move(switches));
  for (const auto& entry : topology.switches()) {
    std::set<std::string> seen;
    for (const SwitchEntry* at = &entry; at != nullptr && !at->parent.empty();) {
      if (!seen.insert(at->name).second) {
        throw ConfigError(source, entry.line,
                          "switch " + entry.name + " is in a loop of Switches= lines");
      }
      const std::string parent = at->parent;
      at = nullptr;
      for (const auto& other : topology.switches()) {
        if (other.name == parent) at = &other;
      }
    }
  }
  return topology;
}

SwitchTopology read_slurm_topology(const std::string& path) {
  return parse_slurm_topology(read_regular_file(path, "a topology.conf", 16u << 20), path);
}

}  // namespace fabcheck
