// gpu.hbm_bw: device memory bandwidth, SM copy and STREAM triad kernels beside cudaMemcpy D2D
// (body: hbm_bw_probe.cuda.cpp).
#include "kernels/gpu_probe.hpp"

namespace fabcheck {

std::unique_ptr<Probe> make_gpu_hbm_bw_probe() {
  return make_gpu_probe(
      {.id = "gpu.hbm_bw",
       .description =
           "device memory bandwidth (bytes read + written): SM copy, STREAM triad, cudaMemcpy D2D",
       .metrics = {higher_better("copy_bw", "GB/s"), higher_better("triad_bw", "GB/s"),
                   higher_better("memcpy_bw", "GB/s"), wrong_elements()},
       .body = FABCHECK_GPU_BODY(run_gpu_hbm_bw)});
}

}  // namespace fabcheck
