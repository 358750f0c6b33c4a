// Findings and the verdict line, printed.
#include "results/finding_text.hpp"

#include <string>

#include "results/verdict.hpp"

namespace fabcheck {

int print_verdict(const std::vector<Finding>& findings, std::FILE* out) {
  Verdict verdict = verdict_of(findings);
  int code = exit_code_of(verdict);
  std::string label = to_string(verdict);
  for (auto& c : label) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  std::fprintf(out, "verdict: %s (exit %d)\n", label.c_str(), code);
  return code;
}

void print_findings(const std::vector<Finding>& findings, bool with_pass, std::FILE* out) {
  std::size_t shown = 0;
  for (const auto& f : findings) {
    if (f.severity == Severity::pass && !with_pass) continue;
    ++shown;
    std::fprintf(out, "  %-6s %s %s: %s\n", severity_label(f.severity), f.probe.c_str(),
                 f.subject.c_str(), f.message.c_str());
    if (!f.evidence.empty()) {
      std::string evidence = f.evidence;
      std::size_t at = 0;
      while ((at = evidence.find('\n', at)) != std::string::npos) {
        evidence.replace(at, 1, "\n                   ");
        at += 20;
      }
      std::fprintf(out, "         evidence: %s\n", evidence.c_str());
    }
    if (!f.remedy.empty() && f.severity != Severity::pass) {
      std::fprintf(out, "         remedy:   %s\n", f.remedy.c_str());
    }
  }
  if (shown == 0) std::fprintf(out, "  (none)\n");
}

}  // namespace fabcheck
