// The console: what a person watching a run reads. On stdout the plan, the header, each probe's
// notes and table (the probe's own console_table, else the generic one) and its findings that need
// attention (FAIL, ERROR, WARN), and at the end the findings grouped by severity (subject first;
// identical waivers merged, said only here), the verdict with the nodes to drain, where the results
// are and where the time went. On stderr the progress (probe i of n, size, elapsed,
// estimated remaining): redrawn in place on a terminal, plain lines otherwise; and the rank's
// problems, one line each.
#pragma once

#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/core/reporter.hpp"

namespace fabcheck {

enum class ProgressStyle {
  none,      // no progress
  in_place,  // one line redrawn with \r and clear-to-end (a terminal)
  lines,     // plain lines: each probe's start and end, and at most one per line_interval_s
};

struct ConsoleOptions {
  std::FILE* out = stdout;
  std::FILE* err = stderr;
  bool quiet = false;  // only the verdict line, with its drain (no plan, header, tables, progress)
  ProgressStyle progress = ProgressStyle::none;
  double line_interval_s = 5;               // lines: the most one size line per this long
  double redraw_interval_s = 0.1;           // in_place: the most one redraw per this long
  std::function<double()> clock = nullptr;  // seconds; empty: the monotonic clock
};

// in_place when `err` is a terminal, else lines.
ProgressStyle progress_style_for(std::FILE* err);

std::unique_ptr<Reporter> make_console_reporter(ConsoleOptions options);

// Seconds the run still needs: for each probe not finished (the one in flight, 0-based
// `in_flight`, less the `in_flight_elapsed_s` it has run), its estimate where `estimated_s` gives
// one (> 0), else the mean time of the probes finished so far (`finished_s`). Empty when some
// probe has neither (nothing finished yet and no estimate).
std::optional<double> estimate_remaining_s(const std::vector<double>& estimated_s,
                                           const std::vector<double>& finished_s, int count,
                                           int in_flight, double in_flight_elapsed_s);

// "0:07", "12:40", "1:02:03".
std::string format_duration(double seconds);

}  // namespace fabcheck
