// Finding lines, their details, the findings by severity, and the verdict line, printed.
#include "results/finding_text.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "results/units.hpp"
#include "results/verdict.hpp"

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
  std::vector<const Finding*> shown;
  for (const auto& f : findings)
    if (f.severity != Severity::pass) shown.push_back(&f);
  if (shown.empty()) return "";
  std::stable_sort(shown.begin(), shown.end(), [](const Finding* a, const Finding* b) {
    return severity_order(a->severity) < severity_order(b->severity);
  });
  std::string text = "# findings by severity\n";
  for (std::size_t i = 0; i < shown.size(); ++i) {
    if (i == 0 || shown[i]->severity != shown[i - 1]->severity) {
      const auto n =
          std::count_if(shown.begin() + static_cast<std::ptrdiff_t>(i), shown.end(),
                        [&](const Finding* f) { return f->severity == shown[i]->severity; });
      text += fmt::format("{} ({})\n", severity_label(shown[i]->severity), n);
    }
    text += subject_line(*shown[i]);
  }
  return text + "\n";
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
