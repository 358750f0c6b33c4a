// gpu.d2h: device-to-host copies into pinned memory, one GPU at a time, then all at once
// (the copies: host_copies.hpp).
#include "kernels/gpu_probe.hpp"

#if defined(FABCHECK_HAVE_CUDA)
#include "kernels/host_copies.hpp"
#endif

namespace fabcheck {
namespace {

constexpr const char* kProbe = "gpu.d2h";

#if defined(FABCHECK_HAVE_CUDA)
void run_d2h(RunContext& context, MeasurementSink& sink) {
  run_host_copies(context, sink, kProbe, CopyDirection::d2h);
}
#endif

}  // namespace

std::unique_ptr<Probe> make_gpu_d2h_probe() {
  return make_gpu_probe(
      {.id = kProbe,
       .description =
           "device-to-host copy into pinned memory on the GPU's NUMA node (copy engine), one GPU "
           "of the host at a time (bw; plain cudaMemcpy beside it), then every GPU at once "
           "(all_gpus_bw per GPU, host_bw the host's sum)",
       .metrics = host_copy_metrics({higher_better("bw", "GB/s"),
                                     higher_better("plain_memcpy_bw", "GB/s"), wrong_elements()}),
       .body = FABCHECK_GPU_BODY(run_d2h)});
}

}  // namespace fabcheck
