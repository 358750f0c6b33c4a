// `fabcheck answer RUN_DIR`: a run's answer for a scheduler script, read from its summary.json: one
// line per node to drain, hold or watch (action, host, reason, code, repair; tab-separated), one
// per FAIL across nodes (across, hosts, reason), and the run's exit code; with --outcomes, each
// node's outcome appended to the outcome log and --fail-streak applied to noisy figures.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/cli/commands.hpp"
#include "bench/sys/config_error.hpp"
#include "results/fail_streak.hpp"
#include "results/node_verdicts.hpp"

namespace fabcheck {
namespace {

constexpr std::uintmax_t kMostSummaryBytes = 64u << 20;

// One field as a single line without tabs (a reason is built that way; a host could be odd).
std::string field(const nlohmann::json& value) {
  std::string text = value.is_string() ? value.get<std::string>() : std::string();
  for (char& c : text) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

// A summary this build cannot answer from (a field of the wrong type): incomplete, FILE: what.
int unreadable(const std::string& path, const std::string& what) {
  std::fprintf(stderr, "fabcheck answer: %s: %s: incomplete\n", path.c_str(), what.c_str());
  return 3;
}

// One line of the answer.
struct AnswerLine {
  std::string action;  // drain, hold, watch, across
  std::string host;    // a host, or hosts joined by commas for "across"
  std::string text;
  std::string code;
  std::string repair;
  bool noisy = false;
  std::string streak;  // a watch: how far its fail streak is
};

// Each node's outcome of the run, from the summary's nodes and its drains and holds.
std::vector<NodeOutcome> outcomes_of(const nlohmann::json& summary,
                                     const std::vector<AnswerLine>& lines, const std::string& run,
                                     const std::string& utc) {
  std::vector<NodeOutcome> outcomes;
  const auto find = [&](const std::string& host) -> NodeOutcome* {
    for (NodeOutcome& outcome : outcomes)
      if (outcome.host == host) return &outcome;
    return nullptr;
  };
  const auto nodes = summary.find("nodes");
  if (nodes != summary.end() && nodes->is_array()) {
    for (const auto& node : *nodes) {
      if (!node.is_object() || !node.contains("host") || !node["host"].is_string()) continue;
      const std::string host = node["host"].get<std::string>();
      const auto found = node.find("verdict");
      const std::string verdict =
          found != node.end() && found->is_string() ? found->get<std::string>() : std::string();
      // A node that neither passed nor failed judged nothing (incomplete, or unreadable).
      const std::string outcome = verdict == "pass" || verdict == "warn" ? "pass"
                                  : verdict == "fail"                    ? "fail"
                                                                         : "hold";
      if (find(host) == nullptr) outcomes.push_back({utc, run, host, outcome, false, ""});
    }
  }
  for (const AnswerLine& line : lines) {
    if (line.action != "drain" && line.action != "hold") continue;
    NodeOutcome* outcome = find(line.host);
    if (outcome == nullptr)
      outcome = &outcomes.emplace_back(NodeOutcome{utc, run, line.host, "", false, ""});
    outcome->outcome = line.action == "drain" ? "fail" : "hold";
    outcome->noisy = line.action == "drain" && line.noisy;
    outcome->code = line.code;
  }
  return outcomes;
}

// Applies the fail streak: a drain for noisy figures only whose host has not failed often enough
// by the outcome log becomes a watch. Every outcome of the run is appended to the log first; a
// log that cannot be used leaves every drain as it is (fails closed), said on stderr.
void apply_fail_streak(const AnswerArgs& args, const FailStreak& streak,
                       const nlohmann::json& summary, std::vector<AnswerLine>& lines) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(args.run_dir).lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();  // "RUN/"
  const std::string run = dir.filename().string();
  std::string utc;
  for (const char* key : {"finished_utc", "started_utc"}) {
    const auto value = summary.find(key);
    if (utc.empty() && value != summary.end() && value->is_string())
      utc = value->get<std::string>();
  }
  std::vector<NodeOutcome> log;
  try {
    log = append_outcomes(args.outcomes, outcomes_of(summary, lines, run, utc));
  } catch (const std::exception& error) {
    std::fprintf(stderr,
                 "fabcheck answer: %s: the fail streak is not applied (every FAIL drains): %s\n",
                 args.outcomes.c_str(), error.what());
    return;
  }
  if (streak.fails <= 1) return;
  for (AnswerLine& line : lines) {
    if (line.action != "drain" || !line.noisy) continue;
    const unsigned failing = failing_runs(log, line.host, streak);
    if (failing >= streak.fails) continue;
    line.action = "watch";
    line.streak = "noisy figure: " + std::to_string(failing) +
                  (failing == 1 ? " failing run" : " failing runs") + "; a drain needs " +
                  describe(streak);
  }
}

}  // namespace

int answer_command(const AnswerArgs& args) {
  namespace fs = std::filesystem;
  const auto streak = parse_fail_streak(args.fail_streak);
  if (!streak) {
    std::fprintf(stderr,
                 "fabcheck answer: --fail-streak %s: expected N (failing runs in a row) or N/M "
                 "(N of the last M runs), 1 <= N <= M <= 1000\n",
                 args.fail_streak.c_str());
    return 2;
  }
  if (streak->fails > 1 && args.outcomes.empty()) {
    std::fprintf(stderr,
                 "fabcheck answer: --fail-streak %s needs --outcomes FILE (the runs before this "
                 "one)\n",
                 args.fail_streak.c_str());
    return 2;
  }
  const fs::path path = fs::path(args.run_dir) / "summary.json";
  std::error_code error;
  const auto status = fs::symlink_status(path, error);
  if (error || !fs::is_regular_file(status)) {
    std::fprintf(stderr,
                 "fabcheck answer: %s: no summary (the run did not start, or it is not a "
                 "run directory): incomplete\n",
                 path.c_str());
    return 3;
  }
  if (fs::file_size(path, error) > kMostSummaryBytes) {
    std::fprintf(stderr, "fabcheck answer: %s: larger than any summary fabcheck writes\n",
                 path.c_str());
    return 2;
  }
  std::ifstream in(path);
  const nlohmann::json summary = nlohmann::json::parse(in, nullptr, false);
  const auto kind = summary.is_object() ? summary.find("kind") : summary.end();
  if (!summary.is_object() || kind == summary.end() || *kind != "summary") {
    std::fprintf(stderr, "fabcheck answer: %s: not a fabcheck summary: incomplete\n", path.c_str());
    return 3;
  }
  // Every field read is checked for its type first (nlohmann's value() throws on a mismatch):
  // the whole answer is checked before a line of it is printed, so a script never acts on half.
  const std::string where = path.string();
  std::vector<AnswerLine> lines;
  for (const char* action : {"drain", "hold", "across_nodes"}) {
    const auto list = summary.find(action);
    if (list == summary.end()) continue;
    if (!list->is_array())
      return unreadable(where, std::string("\"") + action + "\" is not a list");
    const bool across = std::string_view(action) == "across_nodes";
    const char* host_key = across ? "hosts" : "host";
    const char* text_key = across ? "message" : "reason";
    for (const auto& entry : *list) {
      if (!entry.is_object())
        return unreadable(where, std::string("an entry of \"") + action + "\" is not an object");
      const auto host = entry.find(host_key);
      const auto text = entry.find(text_key);
      if (host == entry.end() || !host->is_string())
        return unreadable(where, std::string("an entry of \"") + action + "\" has no string \"" +
                                     host_key + "\"");
      if (text != entry.end() && !text->is_string())
        return unreadable(where, std::string("an entry of \"") + action + "\" has a \"" + text_key +
                                     "\" that is not a string");
      const std::string said = text == entry.end() ? std::string() : field(*text);
      AnswerLine line{across ? "across" : action,
                      field(*host),
                      across ? scheduler_reason(said) : said,
                      "",
                      "",
                      false, ""};
      // A drain or hold: its code and first repair (results/repair.hpp), empty in a summary
      // written before they were; whether its FAILs are noisy figures (false when absent).
      if (!across) {
        for (auto [key, into] :
             {std::pair{"code", &line.code}, std::pair{"repair", &line.repair}}) {
          const auto value = entry.find(key);
          if (value != entry.end() && !value->is_string())
            return unreadable(where, std::string("an entry of \"") + action + "\" has a \"" + key +
                                         "\" that is not a string");
          if (value != entry.end()) *into = field(*value);
        }
        const auto noisy = entry.find("noisy");
        if (noisy != entry.end() && !noisy->is_boolean())
          return unreadable(where, std::string("an entry of \"") + action +
                                       "\" has a \"noisy\" that is not true or false");
        line.noisy = noisy != entry.end() && noisy->get<bool>();
      }
      lines.push_back(std::move(line));
    }
  }
  const auto finished = summary.find("finished_utc");
  if (finished != summary.end() && !finished->is_string() && !finished->is_null())
    return unreadable(where, "\"finished_utc\" is neither a time nor null");
  const auto exit_code = summary.find("exit_code");
  if (exit_code != summary.end() && !exit_code->is_number_integer())
    return unreadable(where, "\"exit_code\" is not an integer");
  if (!args.outcomes.empty()) apply_fail_streak(args, *streak, summary, lines);

  bool anything_but_watch = false;
  for (const AnswerLine& line : lines) {
    std::string out = line.action + "\t" + line.host + "\t" + line.text;
    if (line.action != "across") out += "\t" + line.code + "\t" + line.repair;
    if (line.action == "watch") out += "\t" + line.streak;
    std::fputs((out + "\n").c_str(), stdout);
    anything_but_watch = anything_but_watch || line.action != "watch";
  }
  if (finished == summary.end() || !finished->is_string() || exit_code == summary.end()) return 3;
  const auto code = exit_code->get<std::int64_t>();
  // A FAIL whose every node is watched (noisy figures, streak not reached): the job may run.
  if (code == 1 && !anything_but_watch) return 0;
  return code == 0 || code == 1 || code == 3 ? static_cast<int>(code) : 3;
}

}  // namespace fabcheck
