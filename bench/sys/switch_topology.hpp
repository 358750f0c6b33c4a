// The fabric's switch tree as Slurm's topology.conf (topology/tree) describes it: which leaf switch
// each node hangs off, and the switches between two leaves.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fabcheck {

struct SwitchEntry {
  std::string name;
  std::vector<std::string> nodes;     // Nodes=, expanded
  std::vector<std::string> switches;  // Switches=, expanded: the switches below this one
  std::string parent;                 // the switch above, "" for a top switch
  int line = 0;                       // where the file defines it
};

class SwitchTopology {
 public:
  SwitchTopology() = default;
  explicit SwitchTopology(std::vector<SwitchEntry> switches) : switches_(std::move(switches)) {}
  bool empty() const { return switches_.empty(); }
  const std::vector<SwitchEntry>& switches() const { return switches_; }
  // The switch whose Nodes= holds `host`; "" when none does.
  std::string leaf_of(const std::string& host) const;
  // The switches from leaf `a` up to the lowest switch above both and down to leaf `b` ("l1", "s0",
  // "l2"); empty when the two are not in one tree.
  std::vector<std::string> path(const std::string& a, const std::string& b) const;

 private:
  const SwitchEntry* find(const std::string& name) const;
  std::vector<std::string> up_from(const std::string& name) const;
  std::vector<SwitchEntry> switches_;
};

// topology.conf's text: "SwitchName=NAME Nodes=HOSTLIST" and "SwitchName=NAME Switches=HOSTLIST"
// lines (names case-insensitive, LinkSpeed= accepted and ignored, '#' starts a comment). Throws
// ConfigError naming `source`, the line and the value for an unknown keyword, a bad host list, a
// switch defined twice, a node under two switches, a child switch never defined or under two
// parents, a loop, or a file with no switch.
SwitchTopology parse_slurm_topology(std::string_view text, const std::string& source);
// The same, read from `path` (ConfigError when it cannot be read).
SwitchTopology read_slurm_topology(const std::string& path);

}  // namespace fabcheck
