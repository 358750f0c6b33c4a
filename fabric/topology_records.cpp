// fabric.topology's records from GPU placements.
#include "fabric/topology_records.hpp"

#include "bench/sys/text_scan.hpp"

namespace fabcheck {

std::vector<Measurement> topology_records(const std::vector<GpuPlacement>& placements,
                                          const HwlocLocality& hwloc) {
  std::vector<Measurement> out;
  for (const auto& p : placements) {
    if (p.hca.empty()) continue;  // a node without HCAs has nothing to place
    const std::string path = text::join(p.path, "/");
    auto make = [&](const char* metric, double value) {
      Measurement m = make_measurement(kTopologyProbe, metric, value, "count", p.gpu_bdf);
      m.peer = p.hca + " (" + p.hca_bdf + ")";
      m.params["gpu_numa_node"] = std::to_string(p.gpu_numa);
      m.params["hca_numa_node"] = std::to_string(p.hca_numa);
      m.params["pcie_path"] = path;
      m.params["nearest_hca"] = p.hca;
      auto gpu = hwloc.by_bdf.find(p.gpu_bdf);
      if (gpu != hwloc.by_bdf.end()) {
        m.params["hwloc_gpu_numa_node"] = std::to_string(gpu->second.numa_node);
        m.params["hwloc_gpu_cpus"] = gpu->second.cpus;
      } else {
        m.params["hwloc"] = hwloc.available ? "device not in the hwloc topology" : hwloc.problem;
      }
      return m;
    };
    Measurement hops = make("nearest_hca_hops", p.hops);
    if (p.hops < 0) {
      hops.status = MeasurementStatus::ok;
      hops.value = 99;  // no common root complex: traffic crosses the CPU interconnect
      hops.message =
          p.gpu_bdf + " shares no PCIe root complex with any HCA (nearest " + p.hca + ")";
    }
    out.push_back(std::move(hops));
    bool mismatch = p.gpu_numa >= 0 && p.hca_numa >= 0 && p.gpu_numa != p.hca_numa;
    out.push_back(make("numa_mismatch", mismatch ? 1 : 0));
  }
  if (placements.empty()) {
    Measurement none;
    none.probe = kTopologyProbe;
    none.metric = "nearest_hca_hops";
    none.unit = "count";
    none.subject = "gpu";
    none.status = MeasurementStatus::waived;
    none.message = "no GPU on this node";
    out.push_back(std::move(none));
  }
  return out;
}

}  // namespace fabcheck
