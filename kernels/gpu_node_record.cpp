// Gathers gpu.* measurements into per-node, per-GPU records for the judgement rules.
#include "kernels/gpu_node_record.hpp"

#include <algorithm>
#include <cstdlib>

#include "kernels/telemetry_measurements.hpp"

namespace fabcheck {
namespace {

GpuRecord& record_for(GpuNodeRecord& node, const Measurement& m) {
  const std::string bus_id = param_of(m, "bus_id");
  const int index = std::atoi(m.subject.c_str() + 3);
  auto found = std::find_if(node.gpus.begin(), node.gpus.end(), [&](const GpuRecord& gpu) {
    return bus_id.empty() || gpu.bus_id.empty() ? gpu.index == index : gpu.bus_id == bus_id;
  });
  if (found == node.gpus.end()) {
    node.gpus.push_back(GpuRecord{index, bus_id, param_of(m, "model"), {}, {}, {}});
    return node.gpus.back();
  }
  if (found->bus_id.empty()) found->bus_id = bus_id;
  if (found->model.empty()) found->model = param_of(m, "model");
  return *found;
}

}  // namespace

std::string GpuRecord::describe() const {
  return subject() + (bus_id.empty() ? std::string() : " (" + bus_id + ")");
}

std::vector<GpuNodeRecord> gpu_nodes_from_measurements(
    const std::vector<Measurement>& measurements,
    const std::vector<std::pair<std::string, std::string>>* performance_figures) {
  std::vector<GpuNodeRecord> nodes;
  for (const Measurement& m : measurements) {
    if (m.status != MeasurementStatus::ok || m.probe.rfind("gpu.", 0) != 0 ||
        m.subject.rfind("gpu", 0) != 0 || !m.peer.empty()) {
      continue;  // pair figures (gpu.p2p) are judged by the profile, not against peers here
    }
    const bool telemetry = is_telemetry_metric(m.metric);
    if (!telemetry && performance_figures != nullptr &&
        std::none_of(performance_figures->begin(), performance_figures->end(),
                     [&](const auto& figure) {
                       return figure.first == m.probe && figure.second == m.metric;
                     })) {
      continue;
    }
    auto node = std::find_if(nodes.begin(), nodes.end(),
                             [&](const GpuNodeRecord& n) { return n.host == m.host; });
    if (node == nodes.end()) {
      nodes.push_back(GpuNodeRecord{m.host, {}});
      node = std::prev(nodes.end());
    }
    GpuRecord& gpu = record_for(*node, m);
    if (telemetry) {
      std::optional<GpuTelemetry>& slot =
          measurement_phase(m) == TelemetryPhase::load ? gpu.load : gpu.idle;
      if (!slot) slot.emplace();
      apply_telemetry_measurement(m, *slot);
      continue;
    }
    const std::string key = m.probe + "/" + m.metric;
    auto [entry, inserted] = gpu.performance.emplace(key, m.value);
    if (!inserted) entry->second = std::max(entry->second, m.value);
  }
  for (GpuNodeRecord& node : nodes) {
    std::sort(node.gpus.begin(), node.gpus.end(),
              [](const GpuRecord& a, const GpuRecord& b) { return a.index < b.index; });
  }
  return nodes;
}

}  // namespace fabcheck
