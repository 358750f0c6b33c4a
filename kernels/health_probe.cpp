// gpu.health: every GPU's NVML telemetry at rest, read once a host (by its first rank); memory of
// this run's own ranks is not counted as foreign.
#include "bench/core/plan_estimate.hpp"
#include "bench/core/run_processes.hpp"
#include "kernels/gpu_repairs.hpp"
#include "kernels/gpu_requirements.hpp"
#include "kernels/telemetry_measurements.hpp"
#include "kernels/telemetry_sampling.hpp"

namespace fabcheck {
namespace {

// The telemetry, and the replay counters' growth the error-counter monitor files under gpu.health.
std::vector<MetricSpec> health_metrics() {
  std::vector<MetricSpec> metrics = telemetry_metric_specs();
  metrics.push_back({"error_counter_delta", {"count", Better::lower}});
  return metrics;
}

class GpuHealthProbe final : public Probe {
 public:
  GpuHealthProbe()
      : Probe({.id = "gpu.health",
               .description = "GPU health through NVML at rest: temperature, clocks, throttle "
                              "reasons, power, ECC, retired pages / row remap, PCIe link, NVLink "
                              "states, memory held by other processes; NVLink and PCIe replay "
                              "counter growth around each heavy probe",
               .metrics = health_metrics(),
               .needs = {nvml_requirement()},
               .scope = ProbeScope::host,
               .estimate = fixed_estimate(1, "NVML queries"),
               .budget_priority = BudgetPriority::essential,
               .plans = {{"acceptance"}, {"sweep"}},
               .plan_stage = plan_stage::gpu,
               .repairs = gpu_repair_rules()}) {}

  void run(RunContext& context, MeasurementSink& sink) override {
    // Every rank's pids (a World collective), so the other ranks' CUDA contexts are not foreign.
    const std::set<unsigned> own_pids = run_pids_on_this_host(context.world);
    if (context.world.local_rank() != 0) return;  // one reading per host, not one per rank
    std::vector<std::string> unreadable;
    for (const GpuTelemetry& gpu : sample_all_gpus(TelemetryPhase::idle, own_pids, unreadable)) {
      for (Measurement& m : telemetry_to_measurements(gpu, id())) sink.emit(std::move(m));
    }
    for (const std::string& problem : unreadable) {
      Measurement failed;
      failed.probe = id();
      failed.metric = "error";
      failed.status = MeasurementStatus::error;
      failed.message = problem;
      sink.emit(std::move(failed));
    }
  }
};

}  // namespace

std::unique_ptr<Probe> make_gpu_health_probe() { return std::make_unique<GpuHealthProbe>(); }

}  // namespace fabcheck
