// fabric.ib_counters: growth of the RDMA ports' error counters since fabric.ib_ports read them
// (or over --opt ib_counters.interval_s=S when it did not run); and the same counters, with RoCE's
// congestion counters, read around each heavy probe (the monitor the runner calls).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "bench/core/counter_monitor.hpp"
#include "bench/core/plan_estimate.hpp"
#include "bench/core/probe.hpp"
#include "bench/sys/timer.hpp"
#include "fabric/ib_counter_snapshot.hpp"
#include "fabric/ib_port.hpp"
#include "fabric/link_measurements.hpp"

namespace fabcheck {

namespace {

const OptionSpec kInterval{.key = "ib_counters.interval_s",
                           .type = OptionType::number,
                           .default_value = "5",
                           .meaning =
                               "seconds between two counter readings when fabric.ib_ports "
                               "left no snapshot",
                           .min = 0,
                           .max = 3600};

class IbCountersProbe : public Probe {
 public:
  IbCountersProbe()
      : Probe({.id = kIbCountersProbe,
               .description = "growth of RDMA port error counters (symbol errors, link downed, "
                              "receive errors, discards, out_of_buffer, ...) since "
                              "fabric.ib_ports, i.e. across the heavy probes",
               .metrics = ib_counter_metrics(),
               .scope = ProbeScope::host,
               .options = {kInterval},
               // The counters' interval: none when fabric.ib_ports took the snapshot earlier.
               .estimate =
                   [](const RunOptions& options, const JobShape& job) {
                     const bool snapshot = std::find(job.plan.begin(), job.plan.end(),
                                                     kIbPortsProbe) != job.plan.end();
                     const double interval_s = option_number(options, kInterval);
                     return ProbeEstimate{0.2 + (snapshot ? 0 : interval_s),
                                          snapshot
                                              ? std::string("since fabric.ib_ports' snapshot")
                                              : fmt::format("an interval of {:g} s", interval_s)};
                   },
               .budget_priority = BudgetPriority::essential,
               // After the collectives (the gate, before its storage) and before the node pairs
               // (the sweep); acceptance reads the growth over everything, its RDMA tests and
               // storage too.
               .plans = {{"gate"}, {"acceptance", plan_stage::last}, {"sweep"}},
               .plan_stage = plan_stage::counters,
               .repairs = {
                   {"error_counter_delta", "ib-link-errors", repair_action::replace_cable},
                   {"", "ib-congestion", repair_action::inspect, FailKind::noisy_figure}}}) {}
  void run(RunContext& context, MeasurementSink& sink) override {
    if (!context.runs_host_scoped()) return;
    const std::string& root = context.options.sysfs_root;
    auto stored =
        load_counter_snapshot(counter_snapshot_path(context.run_dir, context.world.host()));
    if (!stored) {
      auto ports = read_ib_ports(root);
      if (ports.empty()) {
        Measurement none;
        none.probe = kIbCountersProbe;
        none.metric = "error_counter_delta";
        none.unit = "count";
        none.subject = "rdma";
        none.status = MeasurementStatus::waived;
        none.message = "no RDMA device (nothing in /sys/class/infiniband)";
        sink.emit(std::move(none));
        return;
      }
      stored.emplace();
      stored->taken_at_s = now_seconds();
      for (const auto& port : ports) stored->ports[port.subject()] = port.counters;
      std::this_thread::sleep_for(
          std::chrono::duration<double>(option_number(context.options, kInterval)));
    }
    std::vector<SysfsProblem> problems;
    auto after = read_ib_counters(root, &problems);
    for (auto& m :
         ib_counter_measurements(stored->ports, after, now_seconds() - stored->taken_at_s)) {
      sink.emit(std::move(m));
    }
    // A counter that cannot be read or holds no number is named: its growth cannot be judged.
    for (auto& m : sysfs_problem_measurements(kIbCountersProbe, "error_counter_delta", problems))
      sink.emit(std::move(m));
  }
};

}  // namespace

std::unique_ptr<Probe> make_ib_counters_probe() { return std::make_unique<IbCountersProbe>(); }

CounterMonitor make_ib_counter_monitor() {
  return {"RDMA ports",
          [](const RunOptions& options) { return read_ib_counters(options.sysfs_root); },
          ib_counter_growth};
}

}  // namespace fabcheck
