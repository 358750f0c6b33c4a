// The repair of a FAIL from its probe's declared rules.
#include "results/repair.hpp"

#include <string_view>

namespace fabcheck {

bool repair_metric_matches(const std::string& pattern_text, const std::string& metric_text) {
  const std::string_view pattern = pattern_text;
  const std::string_view text = metric_text;
  if (pattern.empty()) return true;
  const bool head = pattern.front() == '*';
  const bool tail = pattern.size() > 1 && pattern.back() == '*';
  const std::string_view core =
      pattern.substr(head ? 1 : 0, pattern.size() - (head ? 1 : 0) - (tail ? 1 : 0));
  if (head && tail) return text.find(core) != std::string_view::npos;
  if (head) return text.size() >= core.size() && text.substr(text.size() - core.size()) == core;
  if (tail) return text.substr(0, core.size()) == core;
  return text == pattern;
}

Repair repair_of(const Finding& finding, const RepairTable& table) {
  const auto rules = table.find(finding.probe);
  if (rules != table.end()) {
    for (const RepairRule& rule : rules->second) {
      if (repair_metric_matches(rule.metric, finding.metric))
        return {rule.code, rule.action, rule.kind};
    }
  }
  return {"unclassified", repair_action::inspect};
}

Repair repair_of_incomplete() { return {"incomplete", repair_action::rerun}; }

}  // namespace fabcheck
