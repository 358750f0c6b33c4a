// Reading an earlier run for the plan's estimates.
#include "bench/cli/earlier_run_reader.hpp"

#include <nlohmann/json.hpp>

#include "bench/sys/config_error.hpp"
#include "bench/sys/input_path.hpp"
#include "results/json_text.hpp"
#include "results/run_reader.hpp"
#include "results/run_writer.hpp"

namespace fabcheck {

EarlierRun read_earlier_run(const std::string& dir) {
  EarlierRun earlier;
  earlier.dir = dir;
  const std::string option = "--estimate-from " + dir;
  for (const char* name : {"measurements.jsonl", "summary.json"}) {
    const std::string why = why_not_a_regular_file(earlier.dir / name);
    if (!why.empty()) {
      throw ConfigError(option + ": " + (earlier.dir / name).string() + " " + why +
                        " (a run directory of fabcheck run is expected)");
    }
  }
  const std::filesystem::path summary_path = earlier.dir / "summary.json";
  const nlohmann::json summary = read_summary_json(summary_path);
  const nlohmann::json* probes = nullptr;
  if (const auto timing = summary.find("timing"); timing != summary.end() && timing->is_object()) {
    if (const auto listed = timing->find("probes"); listed != timing->end() && listed->is_array())
      probes = &*listed;
  }
  if (probes == nullptr) {
    throw ConfigError(summary_path.string(), 0, "no timing.probes: not a finished fabcheck run");
  }
  for (const auto& probe : *probes) {
    if (!probe.is_object() || !probe.contains("id") || !probe["id"].is_string() ||
        !probe.contains("seconds") || !probe["seconds"].is_number()) {
      throw ConfigError(
          summary_path.string(), 0,
          "timing.probes holds " + json_text(probe) + ": {\"id\", \"seconds\"} expected");
    }
    earlier.probe_seconds[probe["id"].get<std::string>()] = probe["seconds"].get<double>();
  }
  earlier.measurements = read_measurements(earlier.dir);
  return earlier;
}

}  // namespace fabcheck
