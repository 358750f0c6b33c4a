// gpu.bidir: host-to-device and device-to-host at once, one GPU at a time, then all at once
// (the copies: host_copies.hpp).
#include "kernels/gpu_probe.hpp"

#if defined(FABCHECK_HAVE_CUDA)
#include "kernels/host_copies.hpp"
#endif

namespace fabcheck {
namespace {

constexpr const char* kProbe = "gpu.bidir";

#if defined(FABCHECK_HAVE_CUDA)
void run_bidir(RunContext& context, MeasurementSink& sink) {
  run_host_copies(context, sink, kProbe, CopyDirection::both);
}
#endif

}  // namespace

std::unique_ptr<Probe> make_gpu_bidir_probe() {
  return make_gpu_probe(
      {.id = kProbe,
       .description =
           "host-to-device and device-to-host at once (copy engines), sum of both directions, one "
           "GPU of the host at a time (bw), then every GPU at once (all_gpus_bw, host_bw)",
       .metrics = host_copy_metrics({higher_better("bw", "GB/s"), wrong_elements()}),
       .body = FABCHECK_GPU_BODY(run_bidir)});
}

}  // namespace fabcheck
