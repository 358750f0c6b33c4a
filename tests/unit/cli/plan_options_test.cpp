// Every built-in plan's options are ones the families accept (a plan that names an unknown
// storage.* key fails every run given a --storage-path), and every plan has probes.
#include <gtest/gtest.h>

#include "bench/cli/probe_families.hpp"
#include "bench/core/plan.hpp"
#include "storage/storage_options.hpp"

namespace fabcheck {
namespace {

TEST(PlanOptions, StorageOptionsOfEveryPlanParse) {
  for (const Plan& plan : builtin_plans()) {
    EXPECT_NO_THROW(storage_options_from(plan.options)) << plan.name;
  }
}

TEST(PlanOptions, EveryPlanHasTheProbesThatDeclareIt) {
  Registry registry;
  register_all_probes(registry);
  for (const Plan& plan : builtin_plans()) {
    EXPECT_FALSE(registry.plan_probes(plan.name).empty()) << plan.name;
  }
}

}  // namespace
}  // namespace fabcheck
