// Probe selection by id and family, and the built-in plans.
#include <gtest/gtest.h>

#include "bench/coll/coll_probes.hpp"
#include "bench/core/plan.hpp"
#include "bench/core/registry.hpp"
#include "bench/core/size_range.hpp"
#include "results/config_error.hpp"

namespace fabcheck {
namespace {

Registry collectives() {
  Registry registry;
  register_collective_probes(registry);
  return registry;
}

TEST(Registry, SelectsByIdAndFamilyInOrderWithoutRepeats) {
  const auto registry = collectives();
  const auto selected = registry.select("coll.broadcast,coll.*");
  ASSERT_EQ(selected.size(), 6u);
  EXPECT_EQ(selected[0]->id(), "coll.broadcast");
  EXPECT_EQ(selected[1]->id(), "coll.all_reduce");
}

TEST(Registry, UnknownProbeNamesItAndTheKnownOnes) {
  const auto registry = collectives();
  try {
    registry.select("coll.all_reduse");
    FAIL() << "accepted";
  } catch (const ConfigError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("unknown probe \"coll.all_reduse\""), std::string::npos) << message;
    EXPECT_NE(message.find("coll.all_reduce"), std::string::npos) << message;
  }
  EXPECT_THROW(registry.select("gpu.*"), ConfigError);
  EXPECT_EQ(registry.select("gpu.*,coll.sendrecv", true).size(), 1u);
}

TEST(Registry, CatalogHasEveryCollectiveMetric) {
  const auto catalog = collectives().catalog();
  ASSERT_EQ(catalog.size(), 6u);
  const auto& metrics = catalog.at("coll.all_gather");
  EXPECT_EQ(metrics.at("busbw").unit, "GB/s");
  EXPECT_EQ(metrics.at("busbw").better, Better::higher);
  EXPECT_EQ(metrics.at("time_us").better, Better::lower);
  EXPECT_EQ(metrics.at("wrong_elements").unit, "count");
}

TEST(Plans, GateIsShortAndAcceptanceSweepsBothPlacements) {
  const Plan& gate = find_plan("gate");
  EXPECT_LE(gate.options.probe_timeout_s, 60);
  EXPECT_LE(parse_size_sweep(gate.options.extra.at("coll.sizes.mpi")).size(), 4u);
  EXPECT_LE(parse_size_sweep(gate.options.extra.at("coll.sizes.nccl")).size(), 4u);
  const Plan& acceptance = find_plan("acceptance");
  EXPECT_EQ(parse_size_sweep(acceptance.options.extra.at("coll.sizes.mpi")).size(), 26u);
  EXPECT_EQ(parse_size_sweep(acceptance.options.extra.at("coll.sizes.nccl")).size(), 31u);
  EXPECT_EQ(placements_from(acceptance.options).size(), 2u);
  EXPECT_THROW(find_plan("nightly"), ConfigError);
}

}  // namespace
}  // namespace fabcheck

namespace fabcheck {
namespace {

TEST(Plan, EveryPlanStartsWithThePreflightAndTheGateHasTheCheapHostChecks) {
  for (const Plan& plan : builtin_plans()) {
    EXPECT_EQ(plan.probes.rfind("node.preflight,", 0), 0u) << plan.name << ": " << plan.probes;
  }
  const std::string gate = find_plan("gate").probes;
  for (const char* id : {"node.kernel_log", "host.cpu", "host.numa"})
    EXPECT_NE(gate.find(id), std::string::npos) << id;
  EXPECT_EQ(gate.find("host.mem_bw"), std::string::npos);  // not cheap
  const Plan& acceptance = find_plan("acceptance");
  for (const char* id : {"node.kernel_log", "host.cpu", "host.numa", "host.mem_bw", "storage.*"})
    EXPECT_NE(acceptance.probes.find(id), std::string::npos) << id;
  EXPECT_EQ(acceptance.options.extra.at("gpu.burn_s"), "300");
}

}  // namespace
}  // namespace fabcheck
