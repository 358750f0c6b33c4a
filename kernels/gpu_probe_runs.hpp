// The bodies of the gpu.* probes, one per probe (*.cuda.cpp with CUDA; gpu_probe_runs.nocuda.cpp
// without, never reached because the probes are waived there).
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
