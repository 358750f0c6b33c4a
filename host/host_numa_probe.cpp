// host.numa: every rank's CPU binding and memory policy against its GPU's (and that GPU's nearest
// NIC's) NUMA node, from hwloc (the live machine, or --opt host.numa.topology=FILE.xml).
#include <cstdlib>

#include "bench/core/plan_estimate.hpp"
#include "bench/core/probe.hpp"
#include "host/numa_binding.hpp"

namespace fabcheck {
namespace {

const OptionSpec kTopology{.key = "host.numa.topology",
                           .type = OptionType::text,
                           .meaning =
                               "an hwloc XML export (lstopo --of xml) to judge instead of this "
                               "machine (absent: the live machine)"};

class HostNumaProbe final : public Probe {
 public:
  HostNumaProbe()
      : Probe({.id = kHostNumaProbe,
               .description = "each rank's CPU binding and memory policy against the NUMA node of "
                              "its GPU and that GPU's nearest RDMA NIC (hwloc; --opt "
                              "host.numa.topology=FILE.xml reads an export), with the srun / "
                              "mpirun binding that fixes a wrong one",
               .metrics = {{"bound_cpus", {"count", Better::lower}},
                           {"cpus_off_gpu_numa", {"fraction", Better::lower}},
                           {"memory_off_gpu_numa", {"fraction", Better::lower}}},
               .scope = ProbeScope::rank,
               .options = {kTopology},
               .estimate = fixed_estimate(0.5, "loads the hwloc topology"),
               .budget_priority = BudgetPriority::essential,
               .plans = {{"gate"}, {"acceptance"}},
               .plan_stage = plan_stage::node,
               .repairs = {{"", "numa-binding", repair_action::inspect}}}) {}
  void run(RunContext& context, MeasurementSink& sink) override {
    const std::string xml =
        option_given(context.options, kTopology) ? option_text(context.options, kTopology) : "";
    const HwlocMachine machine = read_hwloc_machine(xml);
    if (!machine.available) {
      Measurement none;
      none.probe = kHostNumaProbe;
      none.metric = "cpus_off_gpu_numa";
      none.unit = "fraction";
      none.subject = "rank";
      none.status = MeasurementStatus::waived;
      none.message = "no topology: " + machine.problem;
      sink.emit(std::move(none));
      return;
    }
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    const RankPlacement placement =
        this_rank_placement(context.world.local_rank(), context.world.local_size());
    for (Measurement& m : numa_measurements(machine, placement, visible != nullptr ? visible : ""))
      sink.emit(std::move(m));
  }
};

}  // namespace

std::unique_ptr<Probe> make_host_numa_probe() { return std::make_unique<HostNumaProbe>(); }

}  // namespace fabcheck
