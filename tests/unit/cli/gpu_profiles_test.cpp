// The profiles for GPU nodes load against the collective and GPU probes' catalog, with a source and
// a remedy for every figure, and their host-to-device floors follow their sources.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "bench/coll/collective_probe.hpp"
#include "bench/coll/register.hpp"
#include "kernels/register.hpp"
#include "results/profile.hpp"

namespace fabcheck {
namespace {

class GpuProfiles : public ::testing::TestWithParam<const char*> {};

// The collectives' probes alone (the coll.* probes of the table's entries).
void register_collectives(Registry& registry) {
  for (const Collective* collective : all_collectives()) {
    registry.add(make_collective_probe(*collective));
  }
}

// The [node] keys the GPU profiles use: the fabric and node-hardware judges' (not linked here;
// unit_cli loads every profile against the whole registry) and the GPU judge's own.
const NodeSettingCatalog kFabricNodeKeys{{"gpu_pcie", ""},
                                         {"hca_pcie", ""},
                                         {"hcas", ""},
                                         {"gpus", ""},
                                         {"ib_rate_gbps", ""},
                                         {"gpu_nvlinks", ""}};

// Likewise the fabric figures their inter-node [[path]]s classify (per HCA RDMA bandwidth, a node
// pair's all-reduce).
MetricCatalog catalog_with_fabric_figures(const Registry& registry) {
  MetricCatalog catalog = registry.catalog();
  catalog["fabric.rdma_bw"]["write_bw"] = MetricInfo{"Gb/s", Better::higher};
  catalog["coll.node_pairs"]["allreduce_busbw"] = MetricInfo{"GB/s", Better::higher};
  return catalog;
}

TEST_P(GpuProfiles, LoadAgainstTheCatalogWithASourceForEveryFigure) {
  Registry registry;
  register_collectives(registry);
  register_kernel_probes(registry);
  const std::string name = GetParam();
  const auto path =
      std::filesystem::path(FABCHECK_SOURCE_DIR) / "results/profiles" / (name + ".toml");
  Profile profile;
  ASSERT_NO_THROW(profile =
                      load_profile(path, catalog_with_fabric_figures(registry), kFabricNodeKeys))
      << path;
  EXPECT_EQ(profile.name, name);
  EXPECT_GE(profile.expectations.size(), 5u);
  for (const Expectation& e : profile.expectations) {
    EXPECT_FALSE(e.source.empty()) << name << ":" << e.line;
    EXPECT_FALSE(e.remedy.empty()) << name << ":" << e.line;
    EXPECT_LT(e.warn, e.pass) << name << ":" << e.line;
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, GpuProfiles,
                         ::testing::Values("h100-sxm-8", "h200-sxm-8", "a100-sxm-8"));

TEST(GpuProfiles, HostToDeviceFloorsFollowTheirSources) {
  Registry registry;
  register_collectives(registry);
  register_kernel_probes(registry);
  auto h2d_warn = [&](const std::string& name) {
    const auto profile = load_profile(
        std::filesystem::path(FABCHECK_SOURCE_DIR) / "results/profiles" / (name + ".toml"),
        catalog_with_fabric_figures(registry), kFabricNodeKeys);
    for (const Expectation& e : profile.expectations) {
      if (e.probe == "gpu.h2d") return e.warn;
    }
    return -1.0;
  };
  EXPECT_EQ(h2d_warn("h100-sxm-8"), 48);  // AzHC: H100 host<->device >= 48 GB/s
  EXPECT_EQ(h2d_warn("h200-sxm-8"), 48);
  EXPECT_EQ(h2d_warn("a100-sxm-8"), 21);  // AzHC: A100 >= 21 GB/s
}

}  // namespace
}  // namespace fabcheck
