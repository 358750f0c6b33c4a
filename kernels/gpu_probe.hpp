// What every CUDA gpu.* probe shares: a probe is one file (kernels/x_probe.cpp) holding its
// GpuProbeSpec (id, description, metrics, options, scope, estimate) and its body, the body compiled
// only with CUDA (#if defined(FABCHECK_HAVE_CUDA)); one line in kernels/probes.def registers it.
// Device code stays behind the host-callable launches of kernels.cuh. CUDA is always needed
// (cuda_requirement(), so a build or node without it WAIVES the probe with the reason); a second
// GPU where the spec says so.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench/core/probe.hpp"
#include "bench/cuda/cuda_availability.hpp"

// The body in a build with CUDA; none in one without, where the probe is waived ("built without
// CUDA") and its body, inside #if defined(FABCHECK_HAVE_CUDA) in the probe's file, is not compiled.
#if defined(FABCHECK_HAVE_CUDA)
#define FABCHECK_GPU_BODY(body) (&(body))
#else
#define FABCHECK_GPU_BODY(body) (::fabcheck::GpuProbeBody{nullptr})
#endif

namespace fabcheck {

using GpuProbeBody = void (*)(RunContext&, MeasurementSink&);

struct GpuProbeSpec {
  std::string id;
  std::string description;
  std::vector<MetricSpec> metrics;
  bool needs_gpu_pair = false;  // gpu_pair_requirement() beside cuda_requirement()
  bool needs_cublas = false;    // cublas_requirement() too (cuBLAS is loaded on demand)
  ProbeScope scope = ProbeScope::rank;
  bool heavy = true;
  std::vector<OptionSpec> options{};
  std::function<ProbeEstimate(const RunOptions&, const JobShape&)> estimate{};  // none: default
  GpuProbeBody body = nullptr;                   // FABCHECK_GPU_BODY(run_x)
  std::vector<PlanPlace> plans{{"acceptance"}};  // the built-in plans it is part of
  PeerComparison peers{};                        // ProbeInfo::peers
};

std::unique_ptr<Probe> make_gpu_probe(GpuProbeSpec spec);

// Metric declarations the gpu.* probes share.
MetricSpec higher_better(const char* name, const char* unit);
MetricSpec lower_better(const char* name, const char* unit);
MetricSpec wrong_elements();  // the elements a probe read back wrong
// One GPU of the host at a time (bw, ...) then every GPU at once: all_gpus_bw per GPU, host_bw the
// host's sum (gpu.h2d, gpu.d2h, gpu.bidir).
std::vector<MetricSpec> host_copy_metrics(std::vector<MetricSpec> one_at_a_time);

}  // namespace fabcheck
