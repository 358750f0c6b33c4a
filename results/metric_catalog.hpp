// MetricCatalog: which metrics each probe emits, their units and which direction is better.
#pragma once

#include <map>
#include <string>

namespace fabcheck {

enum class Better { higher, lower };

struct MetricInfo {
  std::string unit;
  Better better = Better::higher;
};

// probe id -> metric name -> info. Built by the probe registry; profiles are checked against it.
using MetricCatalog = std::map<std::string, std::map<std::string, MetricInfo>>;

// Units of performance figures (bandwidth, latency, rates, throughput): what peers, baselines and
// history compare. Counts and states are judged by their families' own rules instead.
inline bool is_performance_unit(const std::string& unit) {
  return unit == "GB/s" || unit == "Gb/s" || unit == "us" || unit == "IOPS" || unit == "op/s" ||
         unit == "TFLOP/s";
}

// Keys a profile's [node] table may hold (what the node should have: "gpu_pcie" = "5x16",
// "ib_ports" = 8), each with what it means. Built from the registry's judges.
using NodeSettingCatalog = std::map<std::string, std::string>;

}  // namespace fabcheck
