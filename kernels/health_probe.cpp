// gpu.health: every GPU's NVML telemetry at rest, read once a host (by its first rank); memory of
// this run's own ranks is not counted as foreign.
#include "kernels/gpu_probe_runs.hpp"
#include "kernels/run_processes.hpp"
#include "kernels/telemetry_measurements.hpp"
#include "kernels/telemetry_sampling.hpp"

namespace fabcheck {

void run_gpu_health(RunContext& context, MeasurementSink& sink) {
  // Every rank's pids (a World collective), so the other ranks' CUDA contexts are not foreign.
  const std::set<unsigned> own_pids = run_pids_on_this_host(context.world);
  if (context.world.local_rank() != 0) return;  // one reading per host, not one per rank
  std::vector<std::string> unreadable;
  for (const GpuTelemetry& gpu : sample_all_gpus(TelemetryPhase::idle, own_pids, unreadable)) {
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
