// The remediation policy operators run (issue 22): a node is drained for a noisy figure only after
// it failed in N runs in a row, or in N of its last M judged runs, as its outcome log says; a fact
// (a link trained low, an Xid, wrong bits) drains at the first FAIL. The outcome log is one JSON
// line per node per run, appended by `fabcheck answer --outcomes FILE`.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabcheck {

inline constexpr const char* kNodeOutcomeKind = "node-outcome";

// One node's outcome of one run.
struct NodeOutcome {
  std::string utc;  // when the run finished (or started), as its summary says
  std::string run;  // the run folder's name
  std::string host;
  std::string outcome;  // "pass" (pass or warn), "fail" (drained or watched), "hold" (incomplete)
  bool noisy = false;   // a fail whose every FAIL is a noisy figure
  std::string code;     // a fail's or hold's code (results/repair.hpp)
  bool operator==(const NodeOutcome&) const = default;
};

// Drain after `fails` failing runs: in a row (`window` 0), or within the last `window` runs judged.
struct FailStreak {
  unsigned fails = 1;
  unsigned window = 0;
};

// Parses "N" (in a row) or "N/M" (N of the last M), 1 <= N <= M <= 1000; nullopt for anything else.
std::optional<FailStreak> parse_fail_streak(std::string_view text);
// "3 runs in a row", "3 of the last 5 runs".
std::string describe(const FailStreak& streak);

// How many of `host`'s runs count toward the streak, `outcomes` oldest first (the run being
// answered last): its failing runs in a row at the end, or its failing runs among its last
// `window` judged ones. A hold judges nothing (the run did not finish): it neither counts nor
// breaks a streak; a pass breaks one.
unsigned failing_runs(const std::vector<NodeOutcome>& outcomes, const std::string& host,
                      const FailStreak& streak);

// One outcome as the log keeps it: a JSON object on one line, without the newline.
std::string outcome_line(const NodeOutcome& outcome);
// The outcome a log line holds; nullopt with `why` for a line that is not one.
std::optional<NodeOutcome> parse_outcome_line(std::string_view line, std::string* why);

// Appends `mine` (one write, under an exclusive lock) to the outcome log `file` and returns the
// log's outcomes from its last `tail_bytes`, oldest first, `mine` last; an outcome of a run and
// host the log already holds (a run answered again) is not appended twice. The file is created in a
// folder only root or this user can write (DirHandle::open_output_folder), never through a link,
// and must be a regular file of root or this user that no one else can write. Throws ConfigError
// (a folder or file refused, a line that is not an outcome: "FILE:LINE: ...") or
// std::system_error.
std::vector<NodeOutcome> append_outcomes(const std::filesystem::path& file,
                                         const std::vector<NodeOutcome>& mine,
                                         std::size_t tail_bytes = 4u << 20);

}  // namespace fabcheck
