// Finding lines, their details, the findings by severity, and the verdict line, printed.
#include "results/finding_text.hpp"

#include <fmt/format.h>

#include "results/node_verdicts.hpp"
#include "results/units.hpp"
#include "results/verdict.hpp"
#include "results/waiver_groups.hpp"

namespace fabcheck {
namespace {

// Where the details start: under the message of an indented finding line ("  FAIL   ").
constexpr const char* kDetailIndent = "         ";

// The subject a person looks for first: what was measured, else where, else the probe; then what
// judged it ("[coll.all_reduce busbw 1KiB]").
std::string subject_line(const Finding& f) {
  const std::string& subject = !f.subject.empty() ? f.subject : !f.host.empty() ? f.host : f.probe;
  std::string line = "  " + subject;
  if (!f.host.empty() && f.host != subject) line += " (" + f.host + ")";
  std::string what = f.probe;
  if (!f.metric.empty()) what += " " + f.metric;
  if (f.size_bytes) what += " " + format_bytes(*f.size_bytes);
  return line + "  [" + what + "] " + f.message + "\n";
}

}  // namespace

std::string finding_line(const Finding& f, FindingNaming naming) {
  const std::string text = naming == FindingNaming::probe_and_subject
                               ? f.probe + " " + f.subject + ": " + f.message
                               : f.message;
  return fmt::format("{:<6} {}\n", severity_label(f.severity), text);
}

std::string finding_details(const Finding& f) {
  std::string text;
  if (!f.evidence.empty()) {
    std::string evidence = f.evidence;
    const std::string continued = std::string("\n") + kDetailIndent + "          ";
    for (std::size_t at = 0; (at = evidence.find('\n', at)) != std::string::npos;
         at += continued.size()) {
      evidence.replace(at, 1, continued);
    }
    text += std::string(kDetailIndent) + "evidence: " + evidence + "\n";
  }
  if (!f.remedy.empty() && f.severity != Severity::pass)
    text += std::string(kDetailIndent) + "remedy:   " + f.remedy + "\n";
  return text;
}

std::string findings_by_severity(const std::vector<Finding>& findings) {
  std::string text;
  for (const Severity severity : {Severity::fail, Severity::error, Severity::warn}) {
    std::string lines;
    int count = 0;
    for (const Finding& f : findings) {
      if (f.severity != severity) continue;
      lines += subject_line(f);
      ++count;
    }
    if (count > 0) text += fmt::format("{} ({})\n", severity_label(severity), count) + lines;
  }
  const auto waivers = waiver_groups(findings);
  if (!waivers.empty()) {
    std::size_t count = 0;
    std::string lines;
    for (const WaiverGroup& group : waivers) {
      count += group.waivers.size();
      lines += "  " + waiver_group_line(group) + "\n";
    }
    text += fmt::format("{} ({})\n", severity_label(Severity::waived), count) + lines;
  }
  return text.empty() ? "" : "# findings by severity\n" + text + "\n";
}

std::string drain_clause(const std::vector<Finding>& findings,
                         const std::vector<std::string>& hosts) {
  constexpr std::size_t kReasonBytes = 80;
  std::vector<std::string> drained;
  for (const NodeVerdict& node : node_verdicts(findings, hosts, /*incomplete=*/false)) {
    if (node.verdict != Verdict::fail) continue;
    const Finding& first = findings[node.findings.front()];  // worst first: a FAIL
    std::string reason = printable_line(first.probe + ": " + first.message, kReasonBytes);
    if (const int more = node.counts.at(Severity::fail) - 1; more > 0)
      reason += fmt::format(", +{} more", more);
    drained.push_back(node.host + " (" + reason + ")");
  }
  std::string text;
  for (std::size_t i = 0; i < drained.size() && i < kMostNodesNamed; ++i)
    text += (i ? ", " : "") + drained[i];
  if (drained.size() > kMostNodesNamed)
    text += fmt::format(", +{} more nodes", drained.size() - kMostNodesNamed);
  return text;
}

std::string run_verdict_line(const std::vector<Finding>& findings,
                             const std::vector<std::string>& hosts, bool incomplete) {
  return verdict_line(verdict_of(findings, incomplete), count_by_severity(findings),
                      drain_clause(findings, hosts));
}

void print_findings(const std::vector<Finding>& findings, bool with_pass, std::FILE* out) {
  std::string text;
  for (const auto& f : findings) {
    if (f.severity == Severity::pass && !with_pass) continue;
    text += "  " + finding_line(f, FindingNaming::probe_and_subject) + finding_details(f);
  }
  std::fputs(text.empty() ? "  (none)\n" : text.c_str(), out);
}

int print_verdict(const std::vector<Finding>& findings, std::FILE* out) {
  std::fprintf(out, "%s\n", verdict_line(findings).c_str());
  return exit_code_of(verdict_of(findings));
}

}  // namespace fabcheck
