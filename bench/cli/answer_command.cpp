// `fabcheck answer RUN_DIR`: a run's answer for a scheduler script, read from its summary.json: one
// line per node to drain or hold (action, host, reason, code, repair; tab-separated), one per FAIL
// across nodes (across, hosts, reason), and the run's exit code.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "bench/cli/commands.hpp"
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

}  // namespace

int answer_command(const std::string& run_dir) {
  namespace fs = std::filesystem;
  const fs::path path = fs::path(run_dir) / "summary.json";
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
  std::string lines;
  for (const char* action : {"drain", "hold", "across_nodes"}) {
    const auto list = summary.find(action);
    if (list == summary.end()) continue;
    if (!list->is_array())
      return unreadable(where, std::string("\"") + action + "\" is not a list");
    const char* host_key = std::string_view(action) == "across_nodes" ? "hosts" : "host";
    const char* text_key = std::string_view(action) == "across_nodes" ? "message" : "reason";
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
      const bool across = std::string_view(action) == "across_nodes";
      lines += std::string(across ? "across" : action) + "\t" + field(*host) + "\t" +
               (across ? scheduler_reason(said) : said);
      // A drain or hold: its code and first repair (results/repair.hpp), empty in a summary
      // written before they were.
      for (const char* key : {"code", "repair"}) {
        if (across) break;
        const auto value = entry.find(key);
        if (value != entry.end() && !value->is_string())
          return unreadable(where, std::string("an entry of \"") + action + "\" has a \"" + key +
                                       "\" that is not a string");
        lines += "\t" + (value == entry.end() ? std::string() : field(*value));
      }
      lines += "\n";
    }
  }
  const auto finished = summary.find("finished_utc");
  if (finished != summary.end() && !finished->is_string() && !finished->is_null())
    return unreadable(where, "\"finished_utc\" is neither a time nor null");
  const auto exit_code = summary.find("exit_code");
  if (exit_code != summary.end() && !exit_code->is_number_integer())
    return unreadable(where, "\"exit_code\" is not an integer");
  std::fputs(lines.c_str(), stdout);
  if (finished == summary.end() || !finished->is_string() || exit_code == summary.end()) return 3;
  const auto code = exit_code->get<std::int64_t>();
  return code == 0 || code == 1 || code == 3 ? static_cast<int>(code) : 3;
}

}  // namespace fabcheck
