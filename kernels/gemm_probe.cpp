// gpu.gemm: cuBLAS bf16 and tf32 GEMM throughput, sustained, with clocks, power, temperature and
// throttling sampled through the bf16 burn (body: gemm_probe.cuda.cpp).
#include <string>

#include "kernels/gpu_options.hpp"
#include "kernels/gpu_probe.hpp"
#include "kernels/telemetry_measurements.hpp"
#include "kernels/throttle_analysis.hpp"

namespace fabcheck {
namespace {

std::vector<MetricSpec> gemm_metrics() {
  std::vector<MetricSpec> metrics = {higher_better("bf16_tflops", "TFLOP/s"),
                                     higher_better("tf32_tflops", "TFLOP/s"), wrong_elements()};
  for (const std::vector<MetricSpec>& more : {telemetry_metric_specs(), throttle_metric_specs()}) {
    metrics.insert(metrics.end(), more.begin(), more.end());
  }
  return metrics;
}

// The bf16 burn and the sustained tf32 GEMM, plus cuBLAS start-up (assumed 2 s).
ProbeEstimate estimate_gemm(const RunOptions& options, const JobShape&) {
  const double burn_s = gemm_burn_seconds(options);
  const double tf32_s = gemm_seconds(options);
  return {2 + burn_s + tf32_s, "bf16 " + std::to_string(static_cast<int>(burn_s)) + " s + tf32 " +
                                   std::to_string(static_cast<int>(tf32_s)) + " s"};
}

}  // namespace

std::unique_ptr<Probe> make_gpu_gemm_probe() {
  return make_gpu_probe(
      {.id = "gpu.gemm",
       .description =
           "cuBLAS GEMM throughput, bf16 and tf32, sustained (--opt gemm_seconds=S) so clocks and "
           "temperature settle; bf16 burns --opt gpu.burn_s=S with clocks, power, temperature and "
           "clock-event reasons sampled every --opt gpu.sample_ms=100: throttled time per reason, "
           "clock at the end against the start",
       .metrics = gemm_metrics(),
       .options = gemm_options(),
       .estimate = estimate_gemm,
       .body = FABCHECK_GPU_BODY(run_gpu_gemm)});
}

}  // namespace fabcheck
