// fabric.topology: for each GPU, its nearest HCA, the PCIe hops between them and whether they
// share a NUMA node; recorded so reports can show the placement, and judged by profiles.
#include "bench/core/plan_estimate.hpp"
#include "bench/core/probe.hpp"
#include "bench/sys/hwloc_locality.hpp"
#include "fabric/topology.hpp"
#include "fabric/topology_records.hpp"

namespace fabcheck {

namespace {

class TopologyProbe : public Probe {
 public:
  TopologyProbe()
      : Probe({.id = kTopologyProbe,
               .description =
                   "GPU to nearest HCA placement: PCIe hops, NUMA nodes, PCIe path (sysfs)",
               .metrics = {{"nearest_hca_hops", MetricInfo{"count", Better::lower}},
                           {"numa_mismatch", MetricInfo{"count", Better::lower}}},
               .scope = ProbeScope::host,
               .estimate = fixed_estimate(0.2, "reads sysfs"),
               .budget_priority = BudgetPriority::essential,
               .plans = {{"acceptance"}, {"sweep"}},
               .plan_stage = plan_stage::links,
               .repairs = {{"", "topology", repair_action::inspect}}}) {}
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
    for (Measurement& m : topology_records(placements, hwloc)) sink.emit(std::move(m));
  }
};

}  // namespace

std::unique_ptr<Probe> make_topology_probe() { return std::make_unique<TopologyProbe>(); }

}  // namespace fabcheck
