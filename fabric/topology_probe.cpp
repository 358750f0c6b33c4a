// fabric.topology: for each GPU, its nearest HCA, the PCIe hops between them and whether they
// share a NUMA node; recorded so reports can show the placement, and judged by profiles.
#include "bench/core/plan_estimate.hpp"
#include "bench/core/probe.hpp"
#include "fabric/hwloc_locality.hpp"
#include "fabric/topology.hpp"

namespace fabcheck {

namespace {

constexpr const char* kProbe = "fabric.topology";

class TopologyProbe : public Probe {
 public:
  TopologyProbe()
      : Probe({.id = kProbe,
               .description =
                   "GPU to nearest HCA placement: PCIe hops, NUMA nodes, PCIe path (sysfs)",
               .metrics = {{"nearest_hca_hops", MetricInfo{"count", Better::lower}},
                           {"numa_mismatch", MetricInfo{"count", Better::lower}}},
               .scope = ProbeScope::host,
               .estimate = fixed_estimate(0.2, "reads sysfs"),
               .budget_priority = BudgetPriority::essential}) {}
  void run(RunContext& context, MeasurementSink& sink) override {
    if (!context.runs_host_scoped()) return;
    auto placements = gpu_placements(context.options.sysfs_root);
    // hwloc describes the live machine only; a recorded tree (--sysfs-root) is judged by sysfs.
    HwlocLocality hwloc;
    if (context.options.sysfs_root == "/") {
      std::vector<std::string> bdfs;
      for (const auto& p : placements) bdfs.insert(bdfs.end(), {p.gpu_bdf, p.hca_bdf});
      hwloc = hwloc_pci_locality(bdfs);
    } else {
      hwloc.problem = "recorded sysfs tree";
    }
    for (const auto& p : placements) {
      if (p.hca.empty()) continue;  // a node without HCAs has nothing to place
      std::string path;
      for (const auto& part : p.path) path += (path.empty() ? "" : "/") + part;
      auto make = [&](const char* metric, double value) {
        Measurement m;
        m.probe = kProbe;
        m.metric = metric;
        m.value = value;
        m.unit = "count";
        m.subject = p.gpu_bdf;
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
      sink.emit(std::move(hops));
      bool mismatch = p.gpu_numa >= 0 && p.hca_numa >= 0 && p.gpu_numa != p.hca_numa;
      sink.emit(make("numa_mismatch", mismatch ? 1 : 0));
    }
    if (placements.empty()) {
      Measurement none;
      none.probe = kProbe;
      none.metric = "nearest_hca_hops";
      none.unit = "count";
      none.subject = "gpu";
      none.status = MeasurementStatus::waived;
      none.message = "no GPU on this node";
      sink.emit(std::move(none));
    }
  }
};

}  // namespace

std::unique_ptr<Probe> make_topology_probe() { return std::make_unique<TopologyProbe>(); }

}  // namespace fabcheck
