// The bodies of the CUDA gpu.* probes, defined in *.cuda.cpp (CUDA builds only) and named by each
// probe's own file through FABCHECK_GPU_BODY (gpu_probe.hpp); a build without CUDA has none.
#pragma once

#include "bench/core/probe.hpp"

namespace fabcheck {

void run_gpu_hbm_bw(RunContext& context, MeasurementSink& sink);
void run_gpu_h2d(RunContext& context, MeasurementSink& sink);
void run_gpu_d2h(RunContext& context, MeasurementSink& sink);
void run_gpu_bidir(RunContext& context, MeasurementSink& sink);
void run_gpu_p2p(RunContext& context, MeasurementSink& sink);
void run_gpu_launch_latency(RunContext& context, MeasurementSink& sink);
void run_gpu_gemm(RunContext& context, MeasurementSink& sink);

}  // namespace fabcheck
