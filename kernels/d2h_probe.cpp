// gpu.d2h: device-to-host copies into pinned memory, one GPU at a time, then all at once
// (body: host_copy_probes.cuda.cpp).
#include "kernels/gpu_probe.hpp"

namespace fabcheck {

std::unique_ptr<Probe> make_gpu_d2h_probe() {
  return make_gpu_probe(
      {.id = "gpu.d2h",
       .description =
           "device-to-host copy into pinned memory on the GPU's NUMA node (copy engine), one GPU "
           "of the host at a time (bw; plain cudaMemcpy beside it), then every GPU at once "
           "(all_gpus_bw per GPU, host_bw the host's sum)",
       .metrics = host_copy_metrics({higher_better("bw", "GB/s"),
                                     higher_better("plain_memcpy_bw", "GB/s"), wrong_elements()}),
       .body = FABCHECK_GPU_BODY(run_gpu_d2h)});
}

}  // namespace fabcheck
