// What the probe declaration derives: the scope's name and the waiver from unmet requirements.
#include "bench/core/probe.hpp"

namespace fabcheck {

const char* to_string(ProbeScope scope) {
  switch (scope) {
    case ProbeScope::rank:
      return "rank";
    case ProbeScope::host:
      return "host";
    case ProbeScope::world:
      return "world";
  }
  return "?";
}

const char* to_string(BudgetPriority priority) {
  switch (priority) {
    case BudgetPriority::essential:
      return "essential";
    case BudgetPriority::high:
      return "high";
    case BudgetPriority::normal:
      return "normal";
    case BudgetPriority::low:
      return "low";
  }
  return "?";
}

Applicability applicability_of(const Probe& probe, const World& world, const RunOptions& options) {
  for (const Requirement& need : probe.info().needs) {
    if (!need.in_build) return Applicability::waived("built without " + need.name);
    if (need.unmet) {
      if (std::string why = need.unmet(world, options); !why.empty())
        return Applicability::waived(std::move(why));
    }
  }
  return probe.applies(world, options);
}

}  // namespace fabcheck
