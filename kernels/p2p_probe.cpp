// gpu.p2p: every GPU pair of a host, copy engine and SM copy kernel (body: p2p_probe.cuda.cpp).
#include "kernels/gpu_probe.hpp"

namespace fabcheck {

std::unique_ptr<Probe> make_gpu_p2p_probe() {
  return make_gpu_probe(
      {.id = "gpu.p2p",
       .description =
           "every GPU pair: copy engine and SM copy kernel, read and write, one direction and both "
           "(each direction issued by the GPU whose data it moves)",
       .metrics = {higher_better("ce_bw", "GB/s"), higher_better("ce_bidir_bw", "GB/s"),
                   higher_better("sm_write_bw", "GB/s"), higher_better("sm_read_bw", "GB/s"),
                   higher_better("sm_bidir_bw", "GB/s"), wrong_elements()},
       .needs_gpu_pair = true,
       .scope = ProbeScope::host,
       .body = FABCHECK_GPU_BODY(run_gpu_p2p)});
}

}  // namespace fabcheck
