// The console: what a person watching a run reads. On stdout the plan, the header, each probe's
// notes and table (its live table row by row as the root's figures complete them, else its
// console_table, else the generic one, at its end) and its findings that need attention (FAIL,
// ERROR, WARN), and at the end the findings grouped by severity (subject first; identical waivers
// merged, said only here), the verdict with the nodes to drain, where the results are and where
// the time went. The progress (probe i of n, step j of m of the probe, elapsed, estimated
// remaining; the clock ticks while nothing else happens): redrawn in place on stderr when stderr
// is a terminal, else plain lines on stdout among the tables, in their order (under mpirun the
// two streams reach the terminal separately). On stderr the rank's problems, one line each.
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
  in_place,  // one line on stderr redrawn with \r and clear-to-end (a terminal)
  lines,     // plain lines on stdout: each probe's start and end, and one per line_interval_s
};

struct ConsoleOptions {
  std::FILE* out = stdout;
  std::FILE* err = stderr;
  bool quiet = false;  // only the verdict line, with its drain (no plan, header, tables, progress)
  ProgressStyle progress = ProgressStyle::none;
  double line_interval_s = 5;      // lines: at most (and, by the ticks, about) one a this long
  double redraw_interval_s = 0.1;  // in_place: the most one redraw per this long
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
