// The copies between pinned host memory and the GPUs that gpu.h2d, gpu.d2h and gpu.bidir share:
// one GPU of a host at a time, then every GPU at once (host_copies.cuda.cpp, CUDA builds only).
#pragma once

#include "bench/core/probe.hpp"

namespace fabcheck {

enum class CopyDirection { h2d, d2h, both };

// The whole run of a host-copy probe on this rank: `probe` names its measurements (bw,
// plain_memcpy_bw one way, all_gpus_bw, host_bw, wrong_elements).
void run_host_copies(RunContext& context, MeasurementSink& sink, const char* probe,
                     CopyDirection direction);

}  // namespace fabcheck
