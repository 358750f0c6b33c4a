// The CUDA probe bodies in a build without CUDA: the probes are waived ("built without CUDA"), so
// reaching one is a bug worth a clear error rather than a crash.
#include <stdexcept>

#include "kernels/gpu_probe_runs.hpp"

namespace fabcheck {
namespace {

[[noreturn]] void built_without_cuda(const char* probe) {
  throw std::runtime_error(std::string(probe) + ": built without CUDA");
}

}  // namespace

void run_gpu_hbm_bw(RunContext&, MeasurementSink&) { built_without_cuda("gpu.hbm_bw"); }
void run_gpu_h2d(RunContext&, MeasurementSink&) { built_without_cuda("gpu.h2d"); }
void run_gpu_d2h(RunContext&, MeasurementSink&) { built_without_cuda("gpu.d2h"); }
void run_gpu_bidir(RunContext&, MeasurementSink&) { built_without_cuda("gpu.bidir"); }
void run_gpu_p2p(RunContext&, MeasurementSink&) { built_without_cuda("gpu.p2p"); }
void run_gpu_launch_latency(RunContext&, MeasurementSink&) {
  built_without_cuda("gpu.launch_latency");
}
void run_gpu_gemm(RunContext&, MeasurementSink&) { built_without_cuda("gpu.gemm"); }

}  // namespace fabcheck
