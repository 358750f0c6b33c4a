// `fabcheck answer RUN_DIR`: a run's answer for a scheduler script, read from its summary.json: one
// line per node to drain or hold, tab-separated, and the run's exit code.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

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
  if (!summary.is_object() || summary.value("kind", "") != "summary") {
    std::fprintf(stderr, "fabcheck answer: %s: not a fabcheck summary: incomplete\n", path.c_str());
    return 3;
  }
  for (const char* action : {"drain", "hold"}) {
    const auto list = summary.find(action);
    if (list == summary.end() || !list->is_array()) continue;
    for (const auto& entry : *list) {
      if (!entry.is_object()) continue;
      std::printf("%s\t%s\t%s\n", action, field(entry.value("host", nlohmann::json())).c_str(),
                  field(entry.value("reason", nlohmann::json())).c_str());
    }
  }
  if (const auto across = summary.find("across_nodes");
      across != summary.end() && across->is_array()) {
    for (const auto& entry : *across) {
      if (!entry.is_object()) continue;
      std::printf("across\t%s\t%s\n", field(entry.value("hosts", nlohmann::json())).c_str(),
                  scheduler_reason(field(entry.value("message", nlohmann::json()))).c_str());
    }
  }
  const bool finished = summary.contains("finished_utc") && summary["finished_utc"].is_string();
  const int code = summary.value("exit_code", 3);
  if (!finished) return 3;
  return code == 0 || code == 1 || code == 3 ? code : 3;
}

}  // namespace fabcheck
