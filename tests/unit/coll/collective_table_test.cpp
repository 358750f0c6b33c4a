// The collectives' table (one entry a file, read from bench/coll/probes.def): every entry fills
// every field, names are unique, each entry is the probe coll.<name> with the entry's own facts,
// and the bus factors are nccl-tests' formulas (doc/PERFORMANCE.md there) at n = 1, 2, 8.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "bench/coll/collective_probe.hpp"
#include "bench/coll/mpi_call_plan.hpp"
#include "bench/coll/register.hpp"

namespace fabcheck {
namespace {

TEST(CollectiveTable, HasTheSixCollectivesInProbesDefOrder) {
  std::vector<std::string> names;
  for (const Collective* collective : all_collectives()) names.push_back(collective->name());
  const std::vector<std::string> six{"all_reduce", "all_gather", "reduce_scatter",
                                     "broadcast",  "alltoall",   "sendrecv"};
  ASSERT_GE(names.size(), six.size());
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + 6), six);
}

TEST(CollectiveTable, EveryEntryFillsEveryFieldUnderAUniqueName) {
  std::set<std::string> names;
  for (const Collective* c : all_collectives()) {
    const std::string name = c->name();
    SCOPED_TRACE(name);
    EXPECT_EQ(std::string(c->id), "coll." + name);
    EXPECT_FALSE(name.empty());
    EXPECT_TRUE(names.insert(name).second) << "two entries named " << name;
    EXPECT_NE(std::string(c->description).find(name), std::string::npos) << c->description;
    ASSERT_NE(c->shape, nullptr);
    ASSERT_NE(c->bus_factor, nullptr);
    ASSERT_NE(c->mpi_calls, nullptr);
#if defined(FABCHECK_HAVE_CUDA)
    EXPECT_NE(c->nccl_call, nullptr) << "a CUDA build without the entry's NCCL call";
#else
    EXPECT_EQ(c->nccl_call, nullptr);
#endif
    EXPECT_TRUE(c->mpi_layout.out_of_place || c->mpi_layout.in_place) << "MPI runs it nowhere";
    EXPECT_TRUE(c->nccl_layout.out_of_place || c->nccl_layout.in_place) << "NCCL runs it nowhere";
    EXPECT_GE(c->root, -1);
    const bool rooted = c->mpi_layout.input_only_at_root || c->mpi_layout.output_only_at_root ||
                        c->nccl_layout.input_only_at_root || c->nccl_layout.output_only_at_root;
    if (rooted) {
      EXPECT_GE(c->root, 0) << "a layout at the root of a collective without one";
    }
    EXPECT_FALSE(c->plans.empty());
    // A shape of 8 ranks moves something at 1 MiB and reports the size it moved.
    const CollectiveShape shape = collective_shape(*c, 1 << 20, 8, sizeof(float));
    EXPECT_EQ(shape.size_bytes, shape.count * sizeof(float));
    EXPECT_GT(shape.send_count, 0u);
    EXPECT_GT(shape.recv_count, 0u);
    // Every rank's MPI plan has calls, none larger than asked.
    const auto placement =
        c->mpi_layout.out_of_place ? Placement::out_of_place : Placement::in_place;
    const auto calls = c->mpi_calls({placement, shape, 1, 8, 1000});
    EXPECT_FALSE(calls.empty());
  }
}

TEST(CollectiveTable, EachEntryIsTheProbeOfItsNameWithTheEntrysFacts) {
  Registry registry;
  register_coll_probes(registry);
  for (const Collective* c : all_collectives()) {
    SCOPED_TRACE(c->id);
    const Probe* probe = registry.find(c->id);
    ASSERT_NE(probe, nullptr);
    EXPECT_EQ(collective_of(*probe), c);
    EXPECT_EQ(probe->description(), c->description);
    EXPECT_EQ(probe->info().budget_priority, c->budget_priority);
    EXPECT_EQ(probe->info().plans.size(), c->plans.size());
    EXPECT_TRUE(probe->info().buffer_need);
    EXPECT_TRUE(probe->info().console_table);
    EXPECT_TRUE(probe->info().estimate);
  }
  // The probes that are no collective's entry declare no buffers by that rule.
  for (const char* other : {"coll.nic_loopback", "coll.node_pairs"}) {
    const Probe* probe = registry.find(other);
    ASSERT_NE(probe, nullptr) << other;
    EXPECT_EQ(collective_of(*probe), nullptr) << other;
    EXPECT_FALSE(probe->info().buffer_need) << other;
  }
}

TEST(CollectiveTable, TheGateMeasuresAllReduceAndAllGatherAcceptanceAndQuickEverySix) {
  std::map<std::string, std::set<std::string>> members;
  for (const Collective* c : all_collectives()) {
    for (const PlanPlace& place : c->plans) members[place.plan].insert(c->name());
  }
  EXPECT_EQ(members["gate"], (std::set<std::string>{"all_reduce", "all_gather"}));
  for (const char* plan : {"acceptance", "quick"}) {
    for (const char* name :
         {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "alltoall", "sendrecv"}) {
      EXPECT_TRUE(members[plan].contains(name)) << plan << " lacks " << name;
    }
  }
}

// nccl-tests: all_reduce 2(n-1)/n; all_gather, reduce_scatter, alltoall (n-1)/n; broadcast and
// sendrecv 1; computed by hand at n = 1, 2, 8.
TEST(CollectiveTable, BusFactorsAreNcclTestsFormulas) {
  const std::map<std::string, std::vector<double>> by_hand{
      {"all_reduce", {0.0, 1.0, 1.75}},      {"all_gather", {0.0, 0.5, 0.875}},
      {"reduce_scatter", {0.0, 0.5, 0.875}}, {"alltoall", {0.0, 0.5, 0.875}},
      {"broadcast", {1.0, 1.0, 1.0}},        {"sendrecv", {1.0, 1.0, 1.0}}};
  for (const auto& [name, factors] : by_hand) {
    const Collective& c = find_collective(name);
    EXPECT_DOUBLE_EQ(bus_factor(c, 1), factors[0]) << name;
    EXPECT_DOUBLE_EQ(bus_factor(c, 2), factors[1]) << name;
    EXPECT_DOUBLE_EQ(bus_factor(c, 8), factors[2]) << name;
  }
}

}  // namespace
}  // namespace fabcheck
