// IB counter snapshots kept in the run directory between fabric.ib_ports and fabric.ib_counters.
#include "fabric/ib_counter_snapshot.hpp"

#include <fstream>

#include <nlohmann/json.hpp>

#include "results/json_text.hpp"

namespace fabcheck {

std::filesystem::path counter_snapshot_path(const std::filesystem::path& run_dir,
                                            const std::string& host) {
  return run_dir / "fabric" / ("ib-counters." + host + ".json");
}

void save_counter_snapshot(const std::filesystem::path& file, const StoredCounters& counters) {
  nlohmann::json json;
  json["taken_at_s"] = counters.taken_at_s;
  json["ports"] = counters.ports;
  std::filesystem::create_directories(file.parent_path());
  std::ofstream out(file);
  out << json_text(json, 1) << "\n";
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

std::optional<StoredCounters> load_counter_snapshot(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  try {
    nlohmann::json json = nlohmann::json::parse(in);
    StoredCounters counters;
    counters.taken_at_s = json.at("taken_at_s").get<double>();
    counters.ports = json.at("ports").get<std::map<std::string, CounterSnapshot>>();
    return counters;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

}  // namespace fabcheck
