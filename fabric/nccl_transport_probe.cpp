// fabric.nccl_transport: which transports NCCL really used in this run's NCCL probes, from the
// debug logs they left in <run_dir>/nccl-logs.
#include <algorithm>

#include "bench/core/nccl_log_files.hpp"
#include "bench/core/plan_estimate.hpp"
#include "bench/core/probe.hpp"
#include "fabric/nccl_log.hpp"
#include "fabric/nccl_transport_records.hpp"

namespace fabcheck {

namespace {

constexpr const char* kProbe = "fabric.nccl_transport";
// Its NCCL log sends one node's traffic through the NICs on purpose.
constexpr const char* kLoopbackProbe = "coll.nic_loopback";

std::vector<MetricSpec> transport_metrics() {
  std::vector<MetricSpec> specs;
  for (const char* lower :
       {"socket_channels", "inter_node_socket_channels", "ib_channels_without_gdr",
        "intra_node_non_p2p_channels", "unrecognised_lines", "shm_channels"}) {
    specs.push_back({lower, MetricInfo{"count", Better::lower}});
  }
  for (const char* higher : {"ib_channels", "gdr_channels", "p2p_channels"}) {
    specs.push_back({higher, MetricInfo{"count", Better::higher}});
  }
  return specs;
}

// Needs nothing declared: whether an NCCL probe ran is only known when this one runs.
class NcclTransportProbe : public Probe {
 public:
  NcclTransportProbe()
      : Probe(
            {.id = kProbe,
             .description = "transports NCCL chose in this run (NET/IB with or without GDRDMA, "
                            "NET/Socket, P2P, SHM), read from the NCCL debug logs of the NCCL "
                            "probes",
             .metrics = transport_metrics(),
             .scope = ProbeScope::host,
             .estimate = fixed_estimate(0.2, "reads this run's NCCL logs"),
             .budget_priority = BudgetPriority::essential,
             .plans = {{"gate"}, {"acceptance"}},
             .plan_stage = plan_stage::transport,
             .repairs = {{"ib_channels_without_gdr", "gpudirect-rdma-off", repair_action::inspect},
                         {"", "nccl-transport", repair_action::inspect}}}) {}
  void run(RunContext& context, MeasurementSink& sink) override {
    if (!context.runs_host_scoped()) return;
    auto dir = nccl_log_dir(context.run_dir);
    auto groups = nccl_logs_by_probe(dir, context.world.host());
    if (groups.empty() && context.world.is_root()) {
      groups = nccl_logs_by_probe(dir, "");  // logs named after a host the World does not know
    }
    if (groups.empty()) {
      if (!context.world.is_root()) return;
      Measurement none;
      none.probe = kProbe;
      none.metric = "socket_channels";
      none.unit = "count";
      none.subject = "run";
      none.status = MeasurementStatus::waived;
      none.message = "no NCCL probe ran in this run (no logs in " + dir.string() + ")";
      sink.emit(std::move(none));
      return;
    }
    for (const auto& [probe, files] : groups) {
      NcclLog log = read_nccl_logs(files);
      for (auto& m : nccl_transport_measurements(log, kProbe, probe)) {
        if (probe == kLoopbackProbe && m.metric == "intra_node_non_p2p_channels") continue;
        m.params["files"] = std::to_string(files.size());
        sink.emit(std::move(m));
      }
    }
  }
};

}  // namespace

std::unique_ptr<Probe> make_nccl_transport_probe() {
  return std::make_unique<NcclTransportProbe>();
}

}  // namespace fabcheck
