// Every built-in plan against the whole registry: each option it sets is declared, within its rule
// and read by one of the plan's own probes; every declared option's default follows its own rule;
// every probe declares what `fabcheck list` and the profiles need.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <set>

#include "bench/cli/probe_families.hpp"
#include "bench/core/plan.hpp"
#include "bench/sys/config_error.hpp"

namespace fabcheck {
namespace {

Registry whole_registry() {
  Registry registry;
  register_all_probes(registry);
  return registry;
}

TEST(ShippedPlans, EveryOptionIsDeclaredValidAndReadByAProbeOfThePlan) {
  const Registry registry = whole_registry();
  ASSERT_GE(builtin_plans().size(), 3u);
  for (const Plan& plan : builtin_plans()) {
    SCOPED_TRACE(plan.name);
    EXPECT_NO_THROW(registry.validate_options(plan.options.extra, "plan " + plan.name));
    const auto probes = registry.plan_probes(plan.name);
    EXPECT_TRUE(Registry::unread_options(plan.options.extra, probes).empty())
        << "a key none of the plan's probes reads: "
        << Registry::unread_options(plan.options.extra, probes).front();
    EXPECT_NO_THROW(check_probe_options(probes, plan.options));
    EXPECT_FALSE(probes.empty()) << "no probe declares the plan";
  }
}

std::vector<std::string> ids_of(const std::vector<Probe*>& probes) {
  std::vector<std::string> ids;
  for (const Probe* probe : probes) ids.push_back(probe->id());
  return ids;
}

bool has(const std::vector<std::string>& ids, const std::string& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

TEST(Plan, EveryPlanStartsWithThePreflightAndTheGateHasTheCheapHostChecks) {
  const Registry registry = whole_registry();
  for (const Plan& plan : builtin_plans()) {
    const auto ids = ids_of(registry.plan_probes(plan.name));
    ASSERT_FALSE(ids.empty()) << plan.name;
    EXPECT_EQ(ids.front(), "node.preflight") << plan.name;
  }
  const auto gate = ids_of(registry.plan_probes("gate"));
  for (const char* id : {"node.kernel_log", "host.cpu", "host.numa"})
    EXPECT_TRUE(has(gate, id)) << id;
  EXPECT_FALSE(has(gate, "host.mem_bw"));  // not cheap
  const auto acceptance = ids_of(registry.plan_probes("acceptance"));
  for (const char* id : {"node.kernel_log", "host.cpu", "host.numa", "host.mem_bw"})
    EXPECT_TRUE(has(acceptance, id)) << id;
  for (const Probe* probe : registry.select("storage.*")) EXPECT_TRUE(has(acceptance, probe->id()));
  EXPECT_EQ(find_plan("acceptance").options.extra.at("gpu.burn_s"), "300");
}

// The order the plans run in, from the probes' own declarations (stage, then registration order):
// the node first, coll.nic_loopback before every other NCCL probe, the counters' growth after the
// collectives (over everything in acceptance).
TEST(Plan, ProbesRunInStageOrder) {
  const Registry registry = whole_registry();
  using Ids = std::vector<std::string>;
  EXPECT_EQ(ids_of(registry.plan_probes("gate")),
            (Ids{"node.preflight", "node.kernel_log", "host.cpu", "host.numa", "fabric.pcie_links",
                 "fabric.ib_ports", "coll.all_reduce", "coll.all_gather", "fabric.nccl_transport",
                 "fabric.ib_counters", "storage.seq_write", "storage.seq_read"}));
  EXPECT_EQ(ids_of(registry.plan_probes("acceptance")), (Ids{"node.preflight",
                                                             "node.kernel_log",
                                                             "host.cpu",
                                                             "host.numa",
                                                             "host.mem_bw",
                                                             "host.sdc",
                                                             "fabric.pcie_links",
                                                             "fabric.ib_ports",
                                                             "fabric.topology",
                                                             "gpu.health",
                                                             "gpu.hbm_bw",
                                                             "gpu.h2d",
                                                             "gpu.d2h",
                                                             "gpu.bidir",
                                                             "gpu.p2p",
                                                             "gpu.launch_latency",
                                                             "gpu.gemm",
                                                             "gpu.sdc",
                                                             "gpu.hbm_patterns",
                                                             "coll.all_reduce",
                                                             "coll.all_gather",
                                                             "coll.reduce_scatter",
                                                             "coll.broadcast",
                                                             "coll.alltoall",
                                                             "coll.sendrecv",
                                                             "fabric.nccl_transport",
                                                             "coll.node_pairs",
                                                             "fabric.rdma_bw",
                                                             "fabric.rdma_lat",
                                                             "storage.seq_write",
                                                             "storage.seq_read",
                                                             "storage.rand_read",
                                                             "storage.fsync_lat",
                                                             "storage.ckpt_write",
                                                             "storage.ckpt_read",
                                                             "storage.metadata",
                                                             "storage.contention",
                                                             "storage.loader",
                                                             "coll.nic_loopback",
                                                             "fabric.ib_counters"}));
  EXPECT_EQ(
      ids_of(registry.plan_probes("sweep")),
      (Ids{"node.preflight", "node.kernel_log", "host.cpu", "host.sdc", "fabric.pcie_links",
           "fabric.ib_ports", "fabric.topology", "gpu.health", "gpu.sdc", "fabric.ib_counters",
           "coll.node_pairs", "storage.seq_write", "storage.seq_read"}));
  EXPECT_EQ(ids_of(registry.plan_probes("quick")),
            (Ids{"node.preflight", "coll.all_reduce", "coll.all_gather", "coll.reduce_scatter",
                 "coll.broadcast", "coll.alltoall", "coll.sendrecv", "coll.node_pairs",
                 "coll.nic_loopback"}));
}

// NCCL reads what coll.nic_loopback forces once a process: no other collective of a plan may come
// after it (its communicators would take the loopback's transports).
TEST(Plan, NoCollectiveOfAPlanComesAfterTheNicLoopback) {
  const Registry registry = whole_registry();
  int plans_with_it = 0;
  for (const char* plan : {"gate", "acceptance", "sweep", "quick"}) {
    const auto ids = ids_of(registry.plan_probes(plan));
    const auto loopback = std::find(ids.begin(), ids.end(), "coll.nic_loopback");
    if (loopback == ids.end()) continue;
    ++plans_with_it;
    for (auto it = loopback + 1; it != ids.end(); ++it) {
      EXPECT_NE(it->rfind("coll.", 0), 0u)
          << plan << ": " << *it << " runs after coll.nic_loopback";
    }
  }
  EXPECT_GE(plans_with_it, 2);
}

TEST(Plan, AProbeCannotDeclareAPlanThatDoesNotExist) {
  struct Stray final : Probe {
    Stray() : Probe({.id = "test.stray", .plans = {{"gat"}}}) {}
    void run(RunContext&, MeasurementSink&) override {}
  };
  Registry registry;
  EXPECT_THROW(registry.add(std::make_unique<Stray>()), std::logic_error);
}

TEST(ShippedPlans, AKeyNobodyReadsIsRefusedNamingPlanAndKey) {
  const Registry registry = whole_registry();
  Plan broken = find_plan("gate");
  broken.options.extra["storage.profile"] = "gate";
  try {
    registry.validate_options(broken.options.extra, "plan " + broken.name);
    FAIL() << "accepted";
  } catch (const ConfigError& error) {
    const std::string message = error.what();
    EXPECT_EQ(message.rfind("plan gate storage.profile=gate: unknown option", 0), 0u) << message;
    EXPECT_NE(message.find("the storage probes read"), std::string::npos) << message;
  }
}

TEST(DeclaredOptions, EveryDefaultFollowsItsOwnRule) {
  const Registry registry = whole_registry();
  EXPECT_GE(registry.options().size(), 15u);
  for (const auto& [key, declared] : registry.options()) {
    SCOPED_TRACE(key);
    EXPECT_FALSE(declared.spec.meaning.empty());
    // No default: the probe chooses when the key is absent (the meaning says how).
    if (declared.spec.default_value.empty()) continue;
    EXPECT_NO_THROW(validate_option_value(declared.spec, declared.spec.default_value, "default"));
  }
}

TEST(DeclaredOptions, EveryKeyIsInTheCliOptionsTable) {
  std::ifstream file(std::string(FABCHECK_SOURCE_DIR) + "/docs/cli.md");
  ASSERT_TRUE(file) << "docs/cli.md";
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const auto start = text.find("## Family options");
  ASSERT_NE(start, std::string::npos);
  const std::string table = text.substr(start, text.find("\n## ", start + 1) - start);
  const Registry registry = whole_registry();
  for (const auto& [key, declared] : registry.options()) {
    EXPECT_TRUE(table.find("| `" + key + "`") != std::string::npos ||
                table.find(", `" + key + "`") != std::string::npos)
        << key;
  }
}

TEST(DeclaredProbes, EachHasADescriptionMetricsAndAFamily) {
  const Registry registry = whole_registry();
  std::set<std::string> families;
  for (const Probe* probe : registry.all()) {
    SCOPED_TRACE(probe->id());
    EXPECT_FALSE(probe->description().empty());
    EXPECT_FALSE(probe->metrics().empty());
    EXPECT_NE(probe->id().find('.'), std::string::npos);
    families.insert(family_of(probe->id()));
    for (const Requirement& need : probe->info().needs) EXPECT_FALSE(need.name.empty());
  }
  EXPECT_EQ(families, (std::set<std::string>{"coll", "fabric", "gpu", "host", "node", "storage"}));
}

TEST(DeclaredProbes, StorageProbesNeedAPathAndDeclareTheirFootprint) {
  const Registry registry = whole_registry();
  RunOptions options;
  options.extra = {{"storage.file_size", "256M"}, {"storage.ckpt_size", "100M"}};
  EXPECT_EQ(planned_storage_bytes(registry.select("storage.seq_read"), options, 4), 256ull << 20);
  EXPECT_EQ(
      planned_storage_bytes(registry.select("storage.seq_read,storage.ckpt_write"), options, 4),
      400ull << 20);
  EXPECT_EQ(planned_storage_bytes(registry.select("storage.contention"), options, 1), 356ull << 20);
  EXPECT_EQ(planned_storage_bytes(registry.select("coll.all_reduce"), options, 8), 0u);
  EXPECT_EQ(planned_storage_bytes(registry.select("storage.loader"), options, 4), 512ull << 20);
  // --every-rank: each rank writes its own local-pattern file.
  RunOptions every_rank = options;
  every_rank.host_probes_on_every_rank = true;
  EXPECT_EQ(planned_storage_bytes(registry.select("storage.seq_read"), every_rank, 4),
            1024ull << 20);
  for (const Probe* probe : registry.select("storage.*")) {
    SCOPED_TRACE(probe->id());
    EXPECT_TRUE(probe->info().storage_bytes);
    EXPECT_TRUE(probe->info().heavy);
    ASSERT_FALSE(probe->info().needs.empty());
    EXPECT_EQ(probe->info().needs.front().name, "--storage-path");
  }
}

}  // namespace
}  // namespace fabcheck
