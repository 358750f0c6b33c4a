// Tests of FleetStore::absorb: ids re-numbered into the receiving store, and rows growing
// geometrically when a fleet is absorbed one run at a time (an exact reserve per run copied every
// row held on each call: 4096 nodes took minutes instead of seconds).
#include "results/fleet_store.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace fabcheck {
namespace {

FleetStore one_run(const std::string& host, std::size_t figures) {
  FleetStore store;
  RunInfo run;
  run.dir = "/runs/" + host;
  run.hosts = {host};
  const std::uint32_t index = store.add_run(run);
  for (std::size_t i = 0; i < figures; ++i) {
    Measurement m;
    m.probe = "coll.allreduce";
    m.metric = "busbw";
    m.unit = "GB/s";
    m.host = host;
    m.subject = "gpu" + std::to_string(i % 8);
    m.size_bytes = std::uint64_t{1} << (i % 20);
    m.value = static_cast<double>(i);
    store.add(m, index);
  }
  return store;
}

TEST(FleetStore, AbsorbRenumbersRunsAndStrings) {
  FleetStore fleet;
  fleet.absorb(one_run("node01", 3));
  fleet.absorb(one_run("node02", 2));
  ASSERT_EQ(fleet.runs.size(), 2u);
  ASSERT_EQ(fleet.rows.size(), 5u);
  const Measurement last = fleet.materialize(fleet.rows.back());
  EXPECT_EQ(last.host, "node02");
  EXPECT_EQ(last.subject, "gpu1");
  EXPECT_EQ(last.probe, "coll.allreduce");
  EXPECT_DOUBLE_EQ(last.value, 1);
  EXPECT_EQ(fleet.rows.back().run, 1u);
  EXPECT_EQ(fleet.materialize(fleet.rows.front()).host, "node01");
}

TEST(FleetStore, AbsorbingRunAfterRunGrowsRowsGeometrically) {
  FleetStore fleet;
  std::set<std::size_t> capacities;
  constexpr int kRuns = 512;
  for (int n = 0; n < kRuns; ++n) {
    fleet.absorb(one_run("node" + std::to_string(n), 16));
    capacities.insert(fleet.rows.capacity());
  }
  EXPECT_EQ(fleet.rows.size(), std::size_t{kRuns} * 16);
  // Doubling from 16 rows to 8192 is 10 growths; an exact reserve per run would be 512.
  EXPECT_LE(capacities.size(), 16u)
      << "rows were reallocated on " << capacities.size() << " of " << kRuns << " absorbs";
}

}  // namespace
}  // namespace fabcheck
