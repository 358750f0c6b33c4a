// gpu.launch_latency: an empty kernel's launch cost; light, so not waived on an unfit node
// (body: launch_latency_probe.cuda.cpp).
#include "kernels/gpu_probe.hpp"

namespace fabcheck {

std::unique_ptr<Probe> make_gpu_launch_latency_probe() {
  return make_gpu_probe(
      {.id = "gpu.launch_latency",
       .description =
           "kernel launch cost: an empty kernel's launch (host side), and launch plus completion",
       .metrics = {lower_better("launch_us", "us"), lower_better("launch_sync_us", "us")},
       .heavy = false,
       .body = FABCHECK_GPU_BODY(run_gpu_launch_latency)});
}

}  // namespace fabcheck
