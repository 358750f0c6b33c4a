// fabric.ib_ports: state, physical state, rate and stuck counters of every RDMA port; keeps a
// counter snapshot for fabric.ib_counters.
#include "bench/core/plan_estimate.hpp"
#include "bench/core/probe.hpp"
#include "bench/sys/timer.hpp"
#include "fabric/ib_counter_snapshot.hpp"
#include "fabric/ib_port.hpp"
#include "fabric/link_measurements.hpp"
#include "fabric/verbs_devices.hpp"

namespace fabcheck {

namespace {

// A node without RDMA devices reports it (WAIVED or FAIL), so it needs nothing.
class IbPortsProbe : public Probe {
 public:
  IbPortsProbe()
      : Probe({.id = kIbPortsProbe,
               .description = "InfiniBand/RoCE ports: state, physical state, rate, link layer, "
                              "counters stuck at their maximum (sysfs and libibverbs)",
               .metrics = ib_port_metrics(),
               .scope = ProbeScope::host,
               .estimate = fixed_estimate(0.2, "reads sysfs and libibverbs"),
               .budget_priority = BudgetPriority::essential,
               .plans = {{"gate"}, {"acceptance"}, {"sweep"}},
               .plan_stage = plan_stage::links,
               // The fabric judge names a port below its rate or its siblings.
               .peers = {.compared = false},
               .repairs = {{"saturated_counters", "ib-counters-saturated", repair_action::inspect},
                           {"port_rate", "ib-port-slow", repair_action::replace_cable},
                           {"", "ib-port-down", repair_action::replace_cable}}}) {}
  void run(RunContext& context, MeasurementSink& sink) override {
    if (!context.runs_host_scoped()) return;
    std::vector<SysfsProblem> problems;
    auto ports = read_ib_ports(context.options.sysfs_root, &problems);
    bool live = context.options.sysfs_root == "/";
    VerbsDevices verbs = live ? list_verbs_devices() : VerbsDevices{};
    for (auto& m : ib_port_records(ports, problems)) {
      if (live && m.status == MeasurementStatus::ok) {
        m.params["libibverbs"] =
            verbs.library_loaded ? std::to_string(verbs.names.size()) + " devices" : verbs.problem;
      }
      sink.emit(std::move(m));
    }
    if (!ports.empty()) {
      StoredCounters stored;
      stored.taken_at_s = now_seconds();
      for (const auto& port : ports) stored.ports[port.subject()] = port.counters;
      save_counter_snapshot(counter_snapshot_path(context.run_dir, context.world.host()), stored);
    }
  }
};

}  // namespace

std::unique_ptr<Probe> make_ib_ports_probe() { return std::make_unique<IbPortsProbe>(); }

}  // namespace fabcheck
