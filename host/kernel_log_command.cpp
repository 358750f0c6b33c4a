// `fabcheck kernel-log`: stream each file (plain or gzip) through one scan, print what was found
// and judged; a file with no line a kernel log has is not judged (exit 3).
#include "host/kernel_log_command.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <ctime>

#include "bench/sys/config_error.hpp"
#include "host/kernel_log_file.hpp"
#include "host/kernel_log_line.hpp"
#include "host/kernel_log_scan.hpp"
#include "host/time_phrase.hpp"
#include "results/finding_text.hpp"

namespace fabcheck {
namespace {

// When a file was last written: the newest of its lines cannot be later, so year-less stamps are
// dated against it.
double modified_s(const std::string& file, double fallback) {
  struct stat status {};
  if (::stat(file.c_str(), &status) != 0) return fallback;
  return static_cast<double>(status.st_mtim.tv_sec);
}

void print_events(const KernelLogScan& scan, std::FILE* out) {
  if (scan.tallies().empty() && scan.flaps().empty()) return;
  std::fprintf(out, "  %-13s %-28s %-7s %-24s %6s  %s\n", "event", "device", "code", "severity",
               "count", "first .. last");
  for (const auto& [key, tally] : scan.tallies()) {
    const KernelEvent& e = tally.event;
    const std::string& severity = e.severity;
    std::fprintf(out, "  %-13s %-28s %-7s %-24s %6zu  %s .. %s\n", to_string(e.kind),
                 e.device.c_str(), e.code ? std::to_string(e.code).c_str() : "-",
                 severity.empty() ? "-" : severity.c_str(), tally.count,
                 tally.first_s ? format_utc(*tally.first_s).c_str() : "undated",
                 tally.last_s ? format_utc(*tally.last_s).c_str() : "undated");
  }
  for (const auto& [device, flap] : scan.flaps()) {
    std::fprintf(out, "  %-13s %-28s %-7s %-24s %6zu\n", "link_down", device.c_str(), "-", "-",
                 flap.downs);
  }
}

}  // namespace

double parse_time_bound(const std::string& option, const std::string& value, double now_s) {
  const TimePhrase when = parse_time_phrase(value, now_s);
  if (when.epoch_s) return *when.epoch_s;
  throw ConfigError(option + " \"" + value +
                    "\": " + (when.problem.empty() ? "not a time" : when.problem) + "; expected " +
                    std::string(time_phrase_forms()));
}

int kernel_log_command(const std::vector<std::string>& files, const KernelLogOptions& options,
                       std::FILE* out) {
  if (files.empty()) {
    std::fprintf(stderr, "fabcheck kernel-log: no log files given\n");
    return 2;
  }
  const double now_s = static_cast<double>(std::time(nullptr));
  KernelLogWindow window;
  try {
    if (options.since) window.since_s = parse_time_bound("--since", *options.since, now_s);
    if (options.until) window.until_s = parse_time_bound("--until", *options.until, now_s);
    if (window.since_s && window.until_s && *window.since_s > *window.until_s) {
      throw ConfigError("--since \"" + *options.since + "\" (" + format_utc(*window.since_s) +
                        ") is after --until \"" + *options.until + "\" (" +
                        format_utc(*window.until_s) + ")");
    }
  } catch (const ConfigError& error) {
    std::fprintf(stderr, "fabcheck kernel-log: %s\n", error.what());
    return 2;
  }
  KernelLogScan scan(window);
  std::vector<std::string> unrecognised;  // files with lines but none a kernel log has
  try {
    for (const std::string& file : files) {
      const double reference_s = modified_s(file, now_s);
      const std::size_t lines_before = scan.lines();
      const std::size_t recognised_before = scan.recognised_lines();
      read_kernel_log_file(file, [&](std::string_view line, std::size_t number, bool) {
        scan.add_line(line, file, number, reference_s);
      });
      if (scan.lines() > lines_before && scan.recognised_lines() == recognised_before)
        unrecognised.push_back(file);
    }
  } catch (const ConfigError& error) {
    std::fprintf(stderr, "fabcheck kernel-log: %s\n", error.what());
    return 2;
  }
  KernelLogPolicy policy;
  policy.flap_limit = options.flap_limit;
  std::string source;
  for (const std::string& file : files) source += (source.empty() ? "" : ",") + file;
  const auto measurements = kernel_log_measurements(scan, policy, source);
  const auto findings = judge_kernel_log(measurements);

  std::fprintf(out,
               "Kernel log analysis: %zu file(s), %zu lines (%zu dated, %zu undated), %zu events\n",
               files.size(), scan.lines(), scan.dated_lines(), scan.undated_lines(), scan.events());
  std::fprintf(
      out, "  window       %s .. %s%s\n",
      window.since_s ? format_utc(*window.since_s).c_str() : "start",
      window.until_s ? format_utc(*window.until_s).c_str() : "end",
      scan.outside_window()
          ? (" (" + std::to_string(scan.outside_window()) + " lines outside it left out)").c_str()
          : "");
  if ((window.since_s || window.until_s) && scan.undated_lines() > 0) {
    std::fprintf(out,
                 "  note         %zu lines carry no date (dmesg without -T): judged whatever the "
                 "window\n",
                 scan.undated_lines());
  }
  if (scan.first_s()) {
    std::fprintf(out, "  dated lines  %s .. %s\n", format_utc(*scan.first_s()).c_str(),
                 format_utc(*scan.last_s()).c_str());
  }
  print_events(scan, out);
  std::fprintf(out, "findings (critical Xid: Azure's list; link flaps: more than %zu in 24 h):\n",
               options.flap_limit);
  print_findings(findings, true, out);
  if (scan.lines() == 0) {
    std::fprintf(out, "nothing to read: every file is empty (exit 3)\n");
    return 3;
  }
  if (!unrecognised.empty()) {
    // Not a kernel log, or one in a form not read (compressed other than gzip): judging its bytes
    // as undated lines would pass whatever it holds.
    for (const std::string& file : unrecognised) {
      std::fprintf(out,
                   "%s: no line a kernel log has (no dmesg, journalctl or syslog time stamp, no "
                   "kernel message fabcheck knows): not judged (exit 3)\n",
                   file.c_str());
    }
    // A FAIL another file shows still fails the node; otherwise the answer is incomplete.
    for (const Finding& finding : findings) {
      if (finding.severity == Severity::fail) return print_verdict(findings, out);
    }
    std::fprintf(out, "verdict: INCOMPLETE (%zu file(s) not a kernel log); exit code 3\n",
                 unrecognised.size());
    return 3;
  }
  if (scan.outside_window() == scan.lines()) {
    // Every line dated outside --since/--until, none undated: nothing of that time was read, so
    // nothing says the node was healthy then.
    std::fprintf(out,
                 "nothing in the window: all %zu lines are dated outside it (the log does not "
                 "reach that time: rotated, or another boot's); not judged (exit 3)\n",
                 scan.lines());
    std::fprintf(out, "verdict: INCOMPLETE (no line in the window); exit code 3\n");
    return 3;
  }
  return print_verdict(findings, out);
}

}  // namespace fabcheck
