// The gpu.* probes: all registered in every build, their metrics declared, and WAIVED with the
// reason where there is no GPU (the profiles for GPU nodes: tests/unit/cli/gpu_profiles_test.cpp).
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include "bench/cuda/cuda_availability.hpp"
#include "bench/sys/config_error.hpp"
#include "bench/sys/nvml_library.hpp"
#include "kernels/gpu_judgement.hpp"
#include "kernels/register.hpp"
#include "results/profile.hpp"

namespace fabcheck {
namespace {

const std::vector<std::string> kGpuProbes = {
    "gpu.health", "gpu.hbm_bw",         "gpu.h2d",  "gpu.d2h", "gpu.bidir",
    "gpu.p2p",    "gpu.launch_latency", "gpu.gemm", "gpu.sdc", "gpu.hbm_patterns"};

TEST(GpuProbes, EveryProbeIsRegistered) {
  Registry registry;
  register_kernel_probes(registry);
  std::vector<std::string> ids;
  for (Probe* probe : registry.all()) ids.push_back(probe->id());
  EXPECT_EQ(ids, kGpuProbes);
  EXPECT_EQ(registry.select("gpu.*").size(), kGpuProbes.size());
}

TEST(GpuProbes, MetricsCarryFabchecksUnits) {
  Registry registry;
  register_kernel_probes(registry);
  const MetricCatalog catalog = registry.catalog();
  EXPECT_EQ(catalog.at("gpu.hbm_bw").at("copy_bw").unit, "GB/s");
  EXPECT_EQ(catalog.at("gpu.h2d").at("bw").unit, "GB/s");
  EXPECT_EQ(catalog.at("gpu.p2p").at("sm_read_bw").unit, "GB/s");
  EXPECT_EQ(catalog.at("gpu.gemm").at("bf16_tflops").unit, "TFLOP/s");
  EXPECT_EQ(catalog.at("gpu.gemm").at("temperature_c").unit, "C");
  EXPECT_EQ(catalog.at("gpu.launch_latency").at("launch_us").unit, "us");
  EXPECT_EQ(catalog.at("gpu.launch_latency").at("launch_us").better, Better::lower);
  EXPECT_EQ(catalog.at("gpu.health").at("power_w").unit, "W");
  EXPECT_EQ(catalog.at("gpu.health").at("sm_clock_mhz").unit, "MHz");
  // The SDC screens count their wrong results under their own names, which their judge words.
  EXPECT_EQ(catalog.at("gpu.sdc").at("sdc_mismatches").better, Better::lower);
  EXPECT_EQ(catalog.at("gpu.hbm_patterns").at("pattern_mismatches").better, Better::lower);
  for (const std::string& id : kGpuProbes) {
    if (id == "gpu.health" || id == "gpu.launch_latency" || id == "gpu.sdc" ||
        id == "gpu.hbm_patterns")
      continue;
    EXPECT_EQ(catalog.at(id).at("wrong_elements").better, Better::lower) << id;
  }
}

TEST(GpuProbes, WaivedWithTheReasonWhereThereIsNoGpu) {
  Registry registry;
  register_kernel_probes(registry);
  auto world = make_single_world();
  const RunOptions options;
  if (cuda_availability().available && process_nvml().ok()) {
    // A GPU machine (the device check): never "no CUDA device"; a probe that does not apply
    // (gpu.p2p on one GPU) says why.
    for (Probe* probe : registry.all()) {
      const Applicability applicability = applicability_of(*probe, *world, options);
      if (applicability.applies) continue;
      EXPECT_NE(applicability.reason, "") << probe->id();
      EXPECT_EQ(applicability.reason.find("no CUDA device"), std::string::npos)
          << probe->id() << ": " << applicability.reason;
    }
    return;
  }
  for (Probe* probe : registry.all()) {
    const Applicability applicability = applicability_of(*probe, *world, options);
    EXPECT_FALSE(applicability.applies) << probe->id();
    if (probe->id() == "gpu.health") {
      EXPECT_EQ(applicability.reason,
                "no CUDA device (NVML: libnvidia-ml.so.1 not found (driver not present))");
      continue;
    }
#if defined(FABCHECK_HAVE_CUDA)
    EXPECT_EQ(applicability.reason.rfind("no CUDA device (", 0), 0u)
        << probe->id() << ": " << applicability.reason;
#else
    EXPECT_EQ(applicability.reason, "built without CUDA") << probe->id();
#endif
  }
}

// What each probe's own file declares beyond its metrics: requirements, scope, heavy, options and
// the cost model.
TEST(GpuProbes, DeclareTheirNeedsScopeWeightOptionsAndEstimate) {
  Registry registry;
  register_kernel_probes(registry);
  for (Probe* probe : registry.all()) {
    const ProbeInfo& info = probe->info();
    const std::string& id = info.id;
    // CUDA; a second GPU for gpu.p2p; cuBLAS (opened on demand) for gpu.gemm.
    EXPECT_EQ(info.needs.size(), id == "gpu.p2p" || id == "gpu.gemm" ? 2u : 1u) << id;
    if (id == "gpu.gemm") {
      EXPECT_EQ(info.needs.back().name, "cuBLAS");
    }
    EXPECT_EQ(info.scope,
              id == "gpu.p2p" || id == "gpu.health" ? ProbeScope::host : ProbeScope::rank)
        << id;
    EXPECT_EQ(info.heavy, id != "gpu.health" && id != "gpu.launch_latency") << id;
    const bool sdc = id == "gpu.sdc" || id == "gpu.hbm_patterns";  // the sdc.* options
    EXPECT_EQ(info.options.empty(), id != "gpu.gemm" && !sdc) << id;
    EXPECT_EQ(static_cast<bool>(info.estimate), id == "gpu.gemm" || id == "gpu.health" || sdc)
        << id;
  }
  RunOptions options;
  options.extra = {{"gpu.burn_s", "300"}, {"gemm_seconds", "4"}};
  const ProbeEstimate gemm = registry.find("gpu.gemm")->info().estimate(options, JobShape{});
  EXPECT_DOUBLE_EQ(gemm.seconds, 307);  // cuBLAS start-up 2 s + bf16 burn + tf32 + FP8 hash 1 s
  EXPECT_EQ(gemm.knobs, "bf16 300 s + tf32 4 s + fp8 hash");
  options.extra = {{"sdc.duration_s", "60"}, {"sdc.repeats", "2"}};
  const ProbeEstimate sdc = registry.find("gpu.sdc")->info().estimate(options, JobShape{});
  EXPECT_DOUBLE_EQ(sdc.seconds, 121);  // start-up 1 s + two passes of 60 s, the L2 pattern in them
  EXPECT_EQ(sdc.knobs, "2 pass(es) of 60 s on every SM (chains and L2 pattern)");
}

// The figures whose slow GPU the GPU judge names among a node's GPUs are exactly those the gpu.*
// probes declare it compares (ProbeInfo::peers), which the generic peer judge then leaves to it;
// every gpu.* figure is compared with its peers otherwise, but the SDC screens' counts of wrong
// results, which their own judge FAILs above zero.
TEST(GpuProbes, DeclareTheFiguresTheGpuJudgeComparesWithinANode) {
  Registry registry;
  register_kernel_probes(registry);
  const MetricCatalog catalog = registry.catalog();
  std::set<std::pair<std::string, std::string>> declared;
  for (Probe* probe : registry.all()) {
    const bool sdc = probe->id() == "gpu.sdc" || probe->id() == "gpu.hbm_patterns";
    EXPECT_EQ(probe->info().peers.compared, !sdc) << probe->id();
    for (const std::string& metric : probe->info().peers.within_node_by_family_judge) {
      EXPECT_TRUE(catalog.at(probe->id()).count(metric)) << probe->id() << " has no " << metric;
      declared.insert({probe->id(), metric});
    }
  }
  const auto judged = gpu_figures_judged_among_peers();
  EXPECT_EQ(declared,
            (std::set<std::pair<std::string, std::string>>(judged.begin(), judged.end())));
  EXPECT_EQ(declared.size(), 5u);
}

#if !defined(FABCHECK_HAVE_CUDA)
// Without CUDA the probes have no body (FABCHECK_GPU_BODY); they are waived, so reaching one is a
// runner bug, told as a clear error rather than a crash.
TEST(GpuProbes, WithoutCudaRunningOneIsAClearError) {
  struct NoSink final : MeasurementSink {
    void emit(Measurement) override {}
  } sink;
  Registry registry;
  register_kernel_probes(registry);
  auto world = make_single_world();
  const RunOptions options;
  RunContext context{*world, options, "/nonexistent"};
  for (Probe* probe : registry.all()) {
    if (probe->id() == "gpu.health") continue;  // NVML only, no CUDA body
    try {
      probe->run(context, sink);
      ADD_FAILURE() << probe->id() << " ran";
    } catch (const std::runtime_error& error) {
      EXPECT_EQ(std::string(error.what()), probe->id() + ": built without CUDA");
    }
  }
}
#endif

}  // namespace
}  // namespace fabcheck
