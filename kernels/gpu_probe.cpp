// GpuProbe: a probe made of a GpuProbeSpec (gpu_probe.hpp).
#include "kernels/gpu_probe.hpp"

#include <stdexcept>
#include <utility>

#include "bench/cuda/cuda_availability.hpp"
#include "kernels/gpu_repairs.hpp"
#include "kernels/gpu_requirements.hpp"

namespace fabcheck {
namespace {

ProbeInfo info_of(const GpuProbeSpec& spec) {
  std::vector<Requirement> needs = {cuda_requirement()};
  if (spec.needs_gpu_pair) needs.push_back(gpu_pair_requirement());
  if (spec.needs_cublas) needs.push_back(cublas_requirement());
  return {.id = spec.id,
          .description = spec.description,
          .metrics = spec.metrics,
          .needs = std::move(needs),
          .scope = spec.scope,
          .heavy = spec.heavy,
          .options = spec.options,
          .estimate = spec.estimate,
          .plans = spec.plans,
          .plan_stage = plan_stage::gpu,
          .peers = spec.peers,
          .repairs = gpu_repair_rules()};
}

class GpuProbe final : public Probe {
 public:
  explicit GpuProbe(const GpuProbeSpec& spec) : Probe(info_of(spec)), body_(spec.body) {}

  void run(RunContext& context, MeasurementSink& sink) override {
    // Waived without CUDA, so reaching it is a bug worth a clear error rather than a crash.
    if (body_ == nullptr) throw std::runtime_error(id() + ": built without CUDA");
    body_(context, sink);
  }

 private:
  GpuProbeBody body_;
};

}  // namespace

std::unique_ptr<Probe> make_gpu_probe(GpuProbeSpec spec) {
  return std::make_unique<GpuProbe>(spec);
}

MetricSpec higher_better(const char* name, const char* unit) {
  return {name, {unit, Better::higher}};
}
MetricSpec lower_better(const char* name, const char* unit) {
  return {name, {unit, Better::lower}};
}
MetricSpec wrong_elements() { return lower_better("wrong_elements", "count"); }

std::vector<MetricSpec> host_copy_metrics(std::vector<MetricSpec> one_at_a_time) {
  one_at_a_time.push_back(higher_better("all_gpus_bw", "GB/s"));
  one_at_a_time.push_back(higher_better("host_bw", "GB/s"));
  return one_at_a_time;
}

}  // namespace fabcheck
