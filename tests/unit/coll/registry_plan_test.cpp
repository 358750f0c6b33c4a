// Probe selection by id and family, declared options and requirements, and the built-in plans.
#include <gtest/gtest.h>

#include <memory>

#include "bench/coll/coll_probes.hpp"
#include "bench/coll/collective_probe.hpp"
#include "bench/coll/register.hpp"
#include "bench/core/plan.hpp"
#include "bench/core/registry.hpp"
#include "bench/core/size_range.hpp"
#include "bench/sys/config_error.hpp"

namespace fabcheck {
namespace {

// The six collectives' probes alone (no node pairs, no NIC loopback).
Registry collectives() {
  Registry registry;
  for (const Collective* collective : all_collectives()) {
    registry.add(make_collective_probe(*collective));
  }
  return registry;
}

// A test double: a probe that declares what a test gives it and does nothing.
class DeclaredProbe final : public Probe {
 public:
  explicit DeclaredProbe(ProbeInfo info, Applicability own = Applicability::yes())
      : Probe(std::move(info)), own_(std::move(own)) {}
  Applicability applies(const World&, const RunOptions&) const override {
    ++asked_;
    return own_;
  }
  void run(RunContext&, MeasurementSink&) override {}
  mutable int asked_ = 0;

 private:
  Applicability own_;
};

const OptionSpec kDepth{.key = "disk.depth",
                        .type = OptionType::integer,
                        .default_value = "4",
                        .meaning = "queue depth",
                        .min = 1,
                        .max = 64};
const OptionSpec kBlock{.key = "disk.block",
                        .type = OptionType::byte_size,
                        .default_value = "4K",
                        .meaning = "block",
                        .min = 512};

Registry disk_family() {
  Registry registry;
  registry.add(std::make_unique<DeclaredProbe>(
      ProbeInfo{.id = "disk.read",
                .options = {kDepth, kBlock},
                .storage_bytes = [](const RunOptions& options, int ranks) {
                  return option_bytes(options, kBlock) * 10 * ranks;
                }}));
  registry.add(std::make_unique<DeclaredProbe>(ProbeInfo{
      .id = "disk.write", .options = {kDepth}, .storage_bytes = [](const RunOptions&, int) {
        return std::uint64_t{100};
      }}));
  registry.add(std::make_unique<DeclaredProbe>(ProbeInfo{.id = "net.ping"}));
  return registry;
}

std::string refusal(const Registry& registry, std::map<std::string, std::string> values,
                    const std::string& origin = "--opt") {
  try {
    registry.validate_options(values, origin);
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "";
}

TEST(RegistryOptions, CollectsEachOptionWithItsProbesAndFamilies) {
  const Registry registry = disk_family();
  ASSERT_EQ(registry.options().size(), 2u);
  const DeclaredOption& depth = registry.options().at("disk.depth");
  EXPECT_EQ(depth.probes, (std::vector<std::string>{"disk.read", "disk.write"}));
  EXPECT_EQ(depth.families, (std::vector<std::string>{"disk"}));
  EXPECT_EQ(depth.spec, kDepth);
}

TEST(RegistryOptions, TwoProbesMayNotDeclareOneKeyDifferently) {
  Registry registry = disk_family();
  OptionSpec other = kDepth;
  other.max = 128;
  EXPECT_THROW(registry.add(std::make_unique<DeclaredProbe>(
                   ProbeInfo{.id = "disk.trim", .options = {other}})),
               std::logic_error);
  EXPECT_EQ(registry.find("disk.trim"), nullptr);
}

TEST(RegistryOptions, UnknownKeysNameTheFamilyThatWouldOwnThem) {
  const Registry registry = disk_family();
  EXPECT_EQ(refusal(registry, {{"disk.depth", "8"}, {"disk.block", "1M"}}), "");
  EXPECT_EQ(refusal(registry, {{"disk.profile", "gate"}}, "plan gate"),
            "plan gate disk.profile=gate: unknown option; the disk probes read disk.block, "
            "disk.depth; `fabcheck list --options` lists every option");
  EXPECT_EQ(refusal(registry, {{"disk.dept", "8"}}),
            "--opt disk.dept=8: unknown option (did you mean disk.depth?); the disk probes read "
            "disk.block, disk.depth; `fabcheck list --options` lists every option");
  EXPECT_EQ(refusal(registry, {{"net.count", "3"}}),
            "--opt net.count=3: unknown option; the net probes read no option; `fabcheck list "
            "--options` lists every option");
  EXPECT_EQ(refusal(registry, {{"foo", "bar"}}),
            "--opt foo=bar: unknown option; no probe family reads it (families: disk, net); "
            "`fabcheck list --options` lists every option");
}

TEST(RegistryOptions, BadValuesNameKeyValueAndRule) {
  const Registry registry = disk_family();
  EXPECT_EQ(refusal(registry, {{"disk.depth", "0"}}),
            "--opt disk.depth=0: out of range; expected a whole number from 1 to 64");
  EXPECT_EQ(refusal(registry, {{"disk.block", "garbage"}}),
            "--opt disk.block=garbage: not a byte size; expected a byte size (4096, 4K, 256M, 1G) "
            "at least 512B");
}

TEST(RegistryOptions, UnreadKeysAreThoseNoSelectedProbeReads) {
  const Registry registry = disk_family();
  const std::map<std::string, std::string> values = {{"disk.block", "8K"}, {"disk.depth", "2"}};
  EXPECT_EQ(Registry::unread_options(values, registry.select("disk.write")),
            (std::vector<std::string>{"disk.block"}));
  EXPECT_TRUE(Registry::unread_options(values, registry.select("disk.*")).empty());
}

TEST(RegistryOptions, PlannedStorageIsTheLargestDeclaredFootprint) {
  const Registry registry = disk_family();
  RunOptions options;
  EXPECT_EQ(planned_storage_bytes(registry.select("disk.*,net.ping"), options, 4), 4096u * 40);
  options.extra["disk.block"] = "512";
  EXPECT_EQ(planned_storage_bytes(registry.select("disk.*"), options, 1), 5120u);
  EXPECT_EQ(planned_storage_bytes(registry.select("disk.write"), options, 4), 100u);
  EXPECT_EQ(planned_storage_bytes(registry.select("net.ping"), options, 4), 0u);
}

TEST(ProbeRequirements, TheFirstUnmetRequirementWaivesBeforeTheProbeIsAsked) {
  auto world = make_single_world();
  const Requirement missing_build{"FPGA", false, nullptr};
  const Requirement no_path{"--path", true, [](const World&, const RunOptions& options) {
                              return options.storage_paths.empty() ? std::string("no --path")
                                                                   : std::string();
                            }};
  DeclaredProbe unbuilt(ProbeInfo{.id = "x.unbuilt", .needs = {missing_build, no_path}});
  EXPECT_EQ(applicability_of(unbuilt, *world, RunOptions{}).reason, "built without FPGA");
  EXPECT_EQ(unbuilt.asked_, 0);

  DeclaredProbe own(ProbeInfo{.id = "x.own", .needs = {no_path}},
                    Applicability::waived("no port up"));
  RunOptions options;
  EXPECT_EQ(applicability_of(own, *world, options).reason, "no --path");
  EXPECT_EQ(own.asked_, 0);
  options.storage_paths = {"/tmp"};
  EXPECT_EQ(applicability_of(own, *world, options).reason, "no port up");
  EXPECT_EQ(own.asked_, 1);

  DeclaredProbe fine(ProbeInfo{.id = "x.fine", .needs = {no_path}});
  EXPECT_TRUE(applicability_of(fine, *world, options).applies);
}

TEST(CollectiveProbes, DeclareTheirSizesPlacementAndBackend) {
  const Registry registry = collectives();
  const ProbeInfo& info = registry.find("coll.all_reduce")->info();
  EXPECT_EQ(info.scope, ProbeScope::world);
  EXPECT_TRUE(info.heavy);
  ASSERT_EQ(info.needs.size(), 1u);
  std::vector<std::string> keys;
  for (const OptionSpec& spec : info.options) keys.push_back(spec.key);
  EXPECT_EQ(keys,
            (std::vector<std::string>{"coll.sizes.mpi", "coll.sizes.nccl", "placement",
                                      "mpi.max_count", "coll.ops_per_sample", "dtype", "op"}));
  EXPECT_NE(refusal(registry, {{"coll.sizes.mpi", "garbage"}}).find("coll.sizes.mpi=garbage"),
            std::string::npos);
  EXPECT_EQ(refusal(registry, {{"placement", "both"}}), "");
  EXPECT_EQ(refusal(registry, {{"dtype", "int8,bfloat16"}, {"op", "all"}}), "");
  EXPECT_NE(refusal(registry, {{"dtype", "int9"}}).find("did you mean int8?"), std::string::npos);
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
    EXPECT_NE(message.find("(did you mean coll.all_reduce?)"), std::string::npos) << message;
    EXPECT_NE(message.find("or a family: coll.*"), std::string::npos) << message;
  }
  try {
    registry.select("col.*");
    FAIL() << "accepted";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("(did you mean coll.*?)"), std::string::npos)
        << error.what();
  }
  try {
    registry.select("storage.fio");  // nothing close
    FAIL() << "accepted";
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()).find("did you mean"), std::string::npos) << error.what();
  }
  EXPECT_THROW(registry.select("gpu.*"), ConfigError);
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
