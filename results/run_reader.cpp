// Run directories found and read into a FleetStore, streaming their JSONL files.
#include "results/run_reader.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <set>

#include <nlohmann/json.hpp>

#include "bench/sys/config_error.hpp"
#include "results/json_line.hpp"
#include "results/jsonl_reader.hpp"
#include "results/measurement_scan.hpp"
#include "results/record_lines.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxSummaryBytes = 16 << 20;

bool is_run_dir(const fs::path& dir) {
  std::error_code error;
  return fs::exists(dir / "measurements.jsonl", error) || fs::exists(dir / "summary.json", error);
}

void collect_runs(const fs::path& dir, int depth, std::vector<fs::path>& out) {
  if (is_run_dir(dir)) {
    out.push_back(dir);
    return;
  }
  if (depth <= 0) return;
  std::vector<fs::path> children;
  std::error_code error;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    std::error_code type_error;
    if (it->is_directory(type_error)) children.push_back(it->path());
  }
  std::sort(children.begin(), children.end());
  for (const fs::path& child : children) collect_runs(child, depth - 1, out);
}

// A field's last few values and their ids: consecutive records repeat their host, probe, unit and
// time, and cycle through a few metrics (busbw, algbw, time_us) and subjects (gpu0..gpu7), so most
// lookups end in a few length comparisons and one memcmp instead of a hash.
class InternCache {
 public:
  std::uint32_t intern(StringPool& pool, std::string_view text) {
    for (const Slot& slot : slots_) {
      if (slot.text.size() == text.size() && slot.valid && slot.text == text) return slot.id;
    }
    Slot& slot = slots_[next_];
    next_ = (next_ + 1) % kSlots;
    slot.id = pool.intern(text);
    slot.text = pool.text(slot.id);  // a view of the pool's copy: valid while the pool is
    slot.valid = true;
    return slot.id;
  }

 private:
  static constexpr std::size_t kSlots = 8;
  struct Slot {
    std::string_view text;
    std::uint32_t id = 0;
    bool valid = false;
  };
  std::array<Slot, kSlots> slots_{};
  std::size_t next_ = 0;
};

// Turns measurement lines into rows of one store.
class RowBuilder {
 public:
  RowBuilder(FleetStore& store, std::uint32_t run) : store_(store), run_(run) {}

  void add(const MeasurementFields& f) {
    StringPool& pool = store_.strings;
    FigureRow row;
    row.run = run_;
    row.probe = probe_.intern(pool, f.probe);
    row.metric = metric_.intern(pool, f.metric);
    row.unit = unit_.intern(pool, f.unit);
    row.host = host_.intern(pool, f.host);
    row.subject = subject_.intern(pool, f.subject);
    row.peer = peer_.intern(pool, f.peer);
    row.message = message_.intern(pool, f.message);
    row.time = time_.intern(pool, f.time_utc);
    row.params = params_id(f);
    if (f.stats) {
      row.stats = static_cast<std::uint32_t>(store_.stats.size());
      store_.stats.push_back(*f.stats);
    }
    row.rank = f.rank;
    row.status = f.status;
    row.size = f.size_bytes.value_or(kNoSize);
    row.value = f.value;
    store_.rows.push_back(row);
  }

 private:
  // The record's parameter set; consecutive records mostly repeat theirs (a size sweep, a GPU's
  // figures), so the set's text is compared with the last one's before anything is hashed.
  std::uint32_t params_id(const MeasurementFields& f) {
    params_text_.clear();
    auto append = [this](std::string_view text) {  // length first: any byte may be in a value
      const auto size = static_cast<std::uint32_t>(text.size());
      params_text_.append(reinterpret_cast<const char*>(&size), sizeof size).append(text);
    };
    for (const auto& [key, value] : f.params) {
      append(key);
      append(value);
    }
    if (params_valid_ && params_text_ == last_params_text_) return last_params_;
    pairs_.clear();
    for (const auto& [key, value] : f.params) {
      pairs_.emplace_back(store_.strings.intern(key), store_.strings.intern(value));
    }
    last_params_ = store_.intern_params(pairs_);
    last_params_text_.swap(params_text_);
    params_valid_ = true;
    return last_params_;
  }

  FleetStore& store_;
  std::uint32_t run_;
  InternCache probe_, metric_, unit_, host_, subject_, peer_, message_, time_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs_;
  std::string params_text_, last_params_text_;
  std::uint32_t last_params_ = 0;
  bool params_valid_ = false;
};

Finding run_error(const std::string& message, const std::string& remedy) {
  Finding f;
  f.severity = Severity::error;
  f.probe = "run";
  f.subject = "run";
  f.message = message;
  f.remedy = remedy;
  return f;
}

std::string string_or_empty(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

void read_summary(const fs::path& file, RunInfo& run) {
  const nlohmann::json summary = read_summary_json(file);
  run.summary_found = true;
  run.verdict = string_or_empty(summary, "verdict");
  run.incomplete_reason = string_or_empty(summary, "incomplete_reason");
  run.started_utc = string_or_empty(summary, "started_utc");
  if (const auto profile = summary.find("profile");
      profile != summary.end() && profile->is_object()) {
    run.profile_name = string_or_empty(*profile, "name");
    run.profile_path = string_or_empty(*profile, "path");
  }
  if (const auto hosts = summary.find("hosts"); hosts != summary.end() && hosts->is_array()) {
    for (const auto& host : *hosts) {
      if (host.is_string()) run.hosts.push_back(host.get<std::string>());
    }
  }
  const bool finished = summary.contains("finished_utc") && summary["finished_utc"].is_string();
  if (run.incomplete_reason.empty() && (run.verdict == "incomplete" || !finished)) {
    run.incomplete_reason =
        finished ? "the run's verdict is incomplete" : "the run never finished (no finished_utc)";
  }
}

}  // namespace

nlohmann::json read_summary_json(const fs::path& file) {
  const std::string text = read_small_regular_file(file, kMaxSummaryBytes);
  nlohmann::json summary;
  try {
    summary = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& error) {
    throw ConfigError(file.string(), 0, std::string("invalid JSON: ") + error.what());
  }
  if (!summary.is_object() || summary.value("kind", "") != "summary") {
    throw ConfigError(file.string(), 0, "not a fabcheck summary (no \"kind\": \"summary\")");
  }
  return summary;
}

std::vector<fs::path> find_run_dirs(const std::vector<std::string>& dirs, int max_depth) {
  std::vector<fs::path> runs;
  for (const std::string& dir : dirs) {
    struct stat info {};
    if (::stat(dir.c_str(), &info) != 0) {
      throw ConfigError(dir, 0, "no such directory");
    }
    if (!S_ISDIR(info.st_mode)) {
      throw ConfigError(dir, 0, "not a directory (give run directories, or directories of them)");
    }
    const std::size_t before = runs.size();
    collect_runs(dir, max_depth, runs);
    if (runs.size() == before) {
      throw ConfigError(dir, 0,
                        "no run directory here (none with measurements.jsonl or summary.json, "
                        "down to " +
                            std::to_string(max_depth) + " levels)");
    }
  }
  return runs;
}

void read_run_dir(const fs::path& dir, FleetStore& store) {
  RunInfo info;
  info.dir = dir.string();
  std::error_code error;
  const fs::path summary = dir / "summary.json";
  if (fs::exists(summary, error)) {
    read_summary(summary, info);
  } else {
    info.incomplete_reason =
        "no summary.json (the run was killed before it began, or is not a run)";
  }
  const std::uint32_t run = store.add_run(std::move(info));
  const std::size_t first_row = store.rows.size();

  const fs::path measurements = dir / "measurements.jsonl";
  const std::string measurements_name = measurements.string();
  if (fs::exists(measurements, error) || fs::is_symlink(measurements, error)) {
    JsonLine json;
    MeasurementFields fields;
    RowBuilder rows(store, run);
    for_each_jsonl_line(
        measurements, [&](std::string_view line, std::size_t number, bool terminated) {
          if (!terminated) {  // a writer killed mid-line: the record is lost, the run incomplete
            store.runs[run].truncated = true;
            return;
          }
          // The one-pass scan reads plain records; anything else (an escape, an error to name)
          // takes the strict path, which gives the same fields or the precise error.
          if (!scan_measurement_line(line, fields)) {
            const RecordPlace place{&measurements_name, number};
            if (!json.parse(line)) {
              throw ConfigError(place.describe() + ": invalid JSON: " + json.error());
            }
            read_measurement_fields(json, place, fields);
          }
          rows.add(fields);
        });
  } else {
    store.runs[run].carried.push_back(
        run_error("no measurements.jsonl in " + dir.string(),
                  "the run ended before any probe reported; rerun it"));
  }

  const fs::path findings = dir / "findings.jsonl";
  const std::string findings_name = findings.string();
  if (fs::exists(findings, error) || fs::is_symlink(findings, error)) {
    JsonLine json;
    for_each_jsonl_line(findings, [&](std::string_view line, std::size_t number, bool terminated) {
      if (!terminated) return;
      const RecordPlace place{&findings_name, number};
      if (!json.parse(line)) {
        throw ConfigError(place.describe() + ": invalid JSON: " + json.error());
      }
      Finding finding = read_finding_line(json, place);
      if (finding.severity == Severity::error)
        store.runs[run].carried.push_back(std::move(finding));
    });
  }

  RunInfo& stored = store.runs[run];
  stored.measurements = store.rows.size() - first_row;
  if (stored.hosts.empty()) {
    std::set<std::uint32_t> seen;
    for (std::size_t i = first_row; i < store.rows.size(); ++i) {
      const std::uint32_t host = store.rows[i].host;
      if (host != 0 && seen.insert(host).second) stored.hosts.push_back(store.strings.text(host));
    }
  }
  if (stored.truncated && stored.incomplete_reason.empty()) {
    stored.incomplete_reason = "measurements.jsonl ends in an unfinished record";
  }
  if (!stored.incomplete_reason.empty()) {
    stored.carried.push_back(run_error(
        "run " + stored.dir + " is incomplete: " + stored.incomplete_reason,
        "a run that did not finish cannot pass: find why (the errors above, the node, the "
        "scheduler's log) and run it again"));
  }
}

}  // namespace fabcheck
