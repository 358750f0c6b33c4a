// gpu.h2d: host-to-device copies from pinned memory, one GPU at a time, then all at once
// (the copies: host_copies.hpp).
#include "kernels/gpu_probe.hpp"

#if defined(FABCHECK_HAVE_CUDA)
#include "kernels/host_copies.hpp"
#endif

namespace fabcheck {
namespace {

constexpr const char* kProbe = "gpu.h2d";

#if defined(FABCHECK_HAVE_CUDA)
void run_h2d(RunContext& context, MeasurementSink& sink) {
  run_host_copies(context, sink, kProbe, CopyDirection::h2d);
}
#endif

}  // namespace

std::unique_ptr<Probe> make_gpu_h2d_probe() {
  return make_gpu_probe(
      {.id = kProbe,
       .description =
           "host-to-device copy from pinned memory on the GPU's NUMA node (copy engine), one GPU "
           "of the host at a time (bw; plain cudaMemcpy beside it), then every GPU at once "
           "(all_gpus_bw per GPU, host_bw the host's sum)",
       .metrics = host_copy_metrics({higher_better("bw", "GB/s"),
                                     higher_better("plain_memcpy_bw", "GB/s"), wrong_elements()}),
       .body = FABCHECK_GPU_BODY(run_h2d)});
}

}  // namespace fabcheck
