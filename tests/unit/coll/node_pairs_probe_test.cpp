// coll.node_pairs registers with the collective family, with its metrics' units and directions.
#include <gtest/gtest.h>

#include "bench/coll/register.hpp"

namespace fabcheck {
namespace {

TEST(NodePairsProbe, RegisteredWithItsMetrics) {
  Registry registry;
  register_coll_probes(registry);
  ASSERT_NE(registry.find("coll.node_pairs"), nullptr);
  MetricCatalog catalog = registry.catalog();
  EXPECT_EQ(catalog.at("coll.node_pairs").at("exchange_busbw").unit, "GB/s");
  EXPECT_EQ(catalog.at("coll.node_pairs").at("allreduce_time_us").better, Better::lower);
}

}  // namespace
}  // namespace fabcheck
