// gpu.bidir: host-to-device and device-to-host at once, one GPU at a time, then all at once
// (body: host_copy_probes.cuda.cpp).
#include "kernels/gpu_probe.hpp"

namespace fabcheck {

std::unique_ptr<Probe> make_gpu_bidir_probe() {
  return make_gpu_probe(
      {.id = "gpu.bidir",
       .description =
           "host-to-device and device-to-host at once (copy engines), sum of both directions, one "
           "GPU of the host at a time (bw), then every GPU at once (all_gpus_bw, host_bw)",
       .metrics = host_copy_metrics({higher_better("bw", "GB/s"), wrong_elements()}),
       .body = FABCHECK_GPU_BODY(run_gpu_bidir)});
}

}  // namespace fabcheck
