// coll.node_bisect's records as its probe writes them (bench/coll/node_bisect_probe.cpp), from a
// bisection run against a synthetic fabric: every group's allreduce_busbw and allreduce_time_us at
// one size, with step, group, role, members, the tested node, and the run's nodes on the world's.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "bench/coll/node_bisect.hpp"
#include "bench/sys/text_scan.hpp"

namespace fabcheck::synthetic {

// `figure(group)`: the group's bus bandwidth (GB/s; NaN writes an error record).
inline std::vector<Measurement> bisect_records(
    const std::vector<std::string>& nodes, const std::function<double(const BisectGroup&)>& figure,
    double min_gap = 0.5, std::uint64_t size = 4 << 20) {
  std::vector<Measurement> out;
  Bisection bisection(static_cast<int>(nodes.size()), min_gap);
  while (!bisection.done()) {
    std::vector<double> figures;
    for (std::size_t g = 0; g < bisection.next().size(); ++g) {
      const BisectGroup& group = bisection.next()[g];
      const double value = figure(group);
      figures.push_back(value);
      Measurement m;
      m.probe = kNodeBisectProbe;
      m.metric = kBisectMetric;
      m.unit = "GB/s";
      m.host = nodes[static_cast<std::size_t>(group.members.front())];
      m.subject = bisect_group_name(nodes, group.members);
      m.size_bytes = size;
      m.params[kBisectStepParam] = std::to_string(bisection.steps());
      m.params[kBisectGroupParam] = std::to_string(g);
      m.params[kBisectRoleParam] = bisect_role_name(group.role);
      m.params[kBisectMembersParam] = m.subject;
      if (group.tested >= 0)
        m.params[kBisectTestedParam] = nodes[static_cast<std::size_t>(group.tested)];
      if (group.role == BisectRole::world) m.params[kBisectNodesParam] = text::join(nodes, ",");
      if (value != value) {
        m.status = MeasurementStatus::error;
        m.message = "all-reduce failed";
      } else {
        m.value = value;
      }
      out.push_back(m);
      m.metric = "allreduce_time_us";
      m.unit = "us";
      m.value = value == value && value > 0 ? static_cast<double>(size) / 1e3 / value : 0;
      out.push_back(m);
    }
    bisection.record(figures);
  }
  return out;
}

}  // namespace fabcheck::synthetic
