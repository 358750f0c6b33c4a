// gpu.health: every GPU's NVML telemetry at rest, read once a host (by its first rank).
#include "kernels/gpu_probe_runs.hpp"
#include "kernels/telemetry_measurements.hpp"
#include "kernels/telemetry_sampling.hpp"

namespace fabcheck {

void run_gpu_health(RunContext& context, MeasurementSink& sink) {
  if (context.world.local_rank() != 0) return;  // one reading per host, not one per rank
  std::vector<std::string> unreadable;
  for (const GpuTelemetry& gpu : sample_all_gpus(TelemetryPhase::idle, unreadable)) {
    for (Measurement& m : telemetry_to_measurements(gpu, "gpu.health")) sink.emit(std::move(m));
  }
  for (const std::string& problem : unreadable) {
    Measurement failed;
    failed.probe = "gpu.health";
    failed.metric = "error";
    failed.status = MeasurementStatus::error;
    failed.message = problem;
    sink.emit(std::move(failed));
  }
}

}  // namespace fabcheck
