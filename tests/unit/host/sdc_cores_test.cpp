// The per-core SDC screen on this machine's real CPUs: clean cores agree; a test double that flips
// one bit on one CPU (always, once, or in its CRC unit only) gets that CPU named, with the block,
// the word and the bits; and the judge's FAIL and PASS.
#include "host/sdc_cores.hpp"

#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <vector>

#include "bench/sdc/cpu_block.hpp"
#include "bench/sdc/crc32c_unit.hpp"
#include "bench/sdc/fma_lanes_unit.hpp"
#include "bench/sdc/sdc_vote.hpp"
#include "tests/doubles/temp_dir.hpp"

namespace fabcheck {
namespace {

constexpr sdc::ChainShape kSmall{.steps = 256, .crc_words = 16};

std::string hex(std::uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(value));
  return text;
}

CoreScreenPlan plan_on(std::vector<int> cpus, BlockKernel kernel = {}) {
  CoreScreenPlan plan;
  plan.cpus = std::move(cpus);
  plan.seed = 1;
  plan.blocks = 64;
  plan.passes = 2;
  plan.shape = kSmall;
  plan.kernel = std::move(kernel);
  return plan;
}

// The first two CPUs this test may run on; skipped (never passed) with fewer.
std::vector<int> two_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE && cpus.size() < 2; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

// The real block, with bit `bit` of word `word` flipped when computed on `cpu` for `block_seed`:
// every time, or only the first time (`once`).
BlockKernel flipping(int cpu, std::uint64_t seed, int word, int bit, bool once,
                     std::shared_ptr<std::atomic<int>> flips) {
  return [=](std::uint64_t s, const sdc::ChainShape& shape) {
    sdc::BlockDigest d = sdc::cpu_block(s, shape);
    if (s == seed && sched_getcpu() == cpu && (!once || flips->load() == 0)) {
      d.words[word] ^= 1ULL << bit;
      flips->fetch_add(1);
    }
    return d;
  };
}

TEST(SdcCores, CleanCoresAgreeOnEveryBlock) {
  const auto cpus = two_cpus();
  if (cpus.size() < 2) GTEST_SKIP() << "needs two CPUs";
  const auto results = screen_cores(plan_on(cpus));
  ASSERT_EQ(results.size(), 2u);
  for (const CoreResult& core : results) {
    EXPECT_EQ(core.problem, "");
    EXPECT_EQ(core.blocks, 128u);
    EXPECT_EQ(core.wrong_blocks, 0u);
    EXPECT_TRUE(core.mismatches.empty());
    EXPECT_GT(core.seconds, 0);
  }
}

TEST(SdcCores, ACoreWrongOnceIsNamedAloneByItsOwnRepeat) {
  const auto cpus = two_cpus();
  if (cpus.size() < 2) GTEST_SKIP() << "needs two CPUs";
  const std::uint64_t seed = sdc::block_seed(1, 17);
  auto flips = std::make_shared<std::atomic<int>>(0);
  auto plan = plan_on(cpus, flipping(cpus[1], seed, sdc::fp64_chain_word, 40, true, flips));
  plan.passes = 1;
  const auto results = screen_cores(plan);
  EXPECT_EQ(flips->load(), 1);
  EXPECT_EQ(results[0].wrong_blocks, 0u);
  ASSERT_EQ(results[1].wrong_blocks, 1u);
  const CoreMismatch& m = results[1].mismatches.front();
  EXPECT_EQ(m.fault, CoreFault::own_repeat);
  EXPECT_EQ(m.block, 17u);
  EXPECT_EQ(m.block_seed, seed);
  EXPECT_EQ(m.word, sdc::fp64_chain_word);
  EXPECT_EQ(m.got ^ m.expected, 1ULL << 40);
  EXPECT_EQ(m.expected, sdc::fp64_chain(seed, kSmall.steps));
  EXPECT_EQ(describe_mismatch(m), "block 17 (seed " + hex(seed) + "): FP64 FMA chain " +
                                      hex(m.got) + " where the same CPU computing it again gave " +
                                      hex(m.expected) + " (bits 0x0000010000000000 differ)");
}

TEST(SdcCores, ACoreWrongEveryTimeAgainstOneOtherIsANamedTie) {
  const auto cpus = two_cpus();
  if (cpus.size() < 2) GTEST_SKIP() << "needs two CPUs";
  const std::uint64_t seed = sdc::block_seed(1, 5);
  auto flips = std::make_shared<std::atomic<int>>(0);
  const auto results =
      screen_cores(plan_on(cpus, flipping(cpus[1], seed, sdc::int_chain_word, 0, false, flips)));
  // Two passes and one recompute a pass: each CPU is named for both passes, neither alone.
  EXPECT_EQ(flips->load(), 4);
  for (std::size_t w = 0; w < 2; ++w) {
    ASSERT_EQ(results[w].wrong_blocks, 2u) << w;
    const CoreMismatch& m = results[w].mismatches.front();
    EXPECT_EQ(m.fault, CoreFault::no_majority);
    EXPECT_EQ(m.block, 5u);
    EXPECT_EQ(m.others, std::vector<int>{cpus[1 - w]});
    EXPECT_EQ(m.got ^ m.expected, 1u);
  }
  EXPECT_NE(describe_mismatch(results[0].mismatches.front())
                .find("no majority: a third CPU is needed to tell which is wrong"),
            std::string::npos);
}

// Of two CPUs screened once, `faulty`'s unit word `word` of one block (seed `seed`) flipped at
// `bit` on every computation: the other CPU has no wrong block, that one exactly one, named as its
// own unit's fault with the bit that differs. Empty (the test failed) when it has not one.
std::optional<CoreMismatch> own_unit_flipped(const std::vector<int>& cpus, std::size_t faulty,
                                             std::uint64_t seed, int word, int bit) {
  auto flips = std::make_shared<std::atomic<int>>(0);
  auto plan = plan_on(cpus, flipping(cpus[faulty], seed, word, bit, false, flips));
  plan.passes = 1;
  const auto results = screen_cores(plan);
  EXPECT_EQ(results[1 - faulty].wrong_blocks, 0u);
  EXPECT_EQ(results[faulty].wrong_blocks, 1u);
  if (results[faulty].wrong_blocks != 1) return std::nullopt;
  const CoreMismatch& own = results[faulty].mismatches.front();
  EXPECT_EQ(own.fault, CoreFault::own_units);
  EXPECT_EQ(own.word, word);
  EXPECT_EQ(own.got ^ own.expected, 1ULL << bit);
  return own;
}

TEST(SdcCores, ACrcUnitThatDisagreesWithItsCoreIsNamedAlone) {
  const auto cpus = two_cpus();
  if (cpus.size() < 2) GTEST_SKIP() << "needs two CPUs";
  if (*sdc::crc32c_unit_name() == '\0') GTEST_SKIP() << "no CRC32C instruction";
  ASSERT_TRUE(own_unit_flipped(cpus, 0, sdc::block_seed(1, 9), sdc::crc_unit_word, 3));
}

TEST(SdcCores, AVectorUnitThatDisagreesWithItsLanesIsNamedAlone) {
  const auto cpus = two_cpus();
  if (cpus.size() < 2) GTEST_SKIP() << "needs two CPUs";
  if (*sdc::fma_lanes_unit_name() == '\0') GTEST_SKIP() << "no AVX2 FMA unit";
  const auto own = own_unit_flipped(cpus, 1, sdc::block_seed(1, 4), sdc::lanes_unit_word, 62);
  ASSERT_TRUE(own);
  EXPECT_NE(describe_mismatch(*own).find("FP64 FMA, 4 lanes (vector unit) 0x"), std::string::npos);
  EXPECT_NE(describe_mismatch(*own).find("where the same CPU one lane at a time gave"),
            std::string::npos);
}

TEST(SdcCores, AWideVectorUnitThatDisagreesWithItsLanesIsNamedAlone) {
  const auto cpus = two_cpus();
  if (cpus.size() < 2) GTEST_SKIP() << "needs two CPUs";
  if (*sdc::wide_fma_lanes_unit_name() == '\0') GTEST_SKIP() << "no AVX-512 FMA unit";
  const auto own = own_unit_flipped(cpus, 0, sdc::block_seed(1, 5), sdc::wide_lanes_unit_word, 17);
  ASSERT_TRUE(own);
  EXPECT_NE(describe_mismatch(*own).find("FP64 FMA, 8 lanes (512-bit vector unit) 0x"),
            std::string::npos)
      << describe_mismatch(*own);
}

TEST(SdcCores, ACpuThatCannotBePinnedIsNotScreened) {
  const auto results = screen_cores(plan_on({CPU_SETSIZE - 1}));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_NE(results[0].problem.find("cannot be pinned"), std::string::npos);
  EXPECT_EQ(results[0].blocks, 0u);
}

TEST(SdcCores, PlacesComeFromSysfsTopology) {
  testing::TempDir root;
  const auto cpu1 = root.path() / "sys/devices/system/cpu/cpu1/topology";
  std::filesystem::create_directories(cpu1);
  std::ofstream(cpu1 / "physical_package_id") << "1\n";
  std::ofstream(cpu1 / "core_id") << "12\n";
  std::ofstream(root.path() / "sys/devices/system/cpu/online") << "0-1,4\n";
  EXPECT_EQ(online_cpus(root.path()), (std::vector<int>{0, 1, 4}));
  const auto places = cpu_places({0, 1}, root.path());
  EXPECT_EQ(places[0].package, -1);
  EXPECT_EQ(places[1].package, 1);
  EXPECT_EQ(places[1].core, 12);
}

TEST(SdcCores, ALongScreenLengthensItsBlocksInsteadOfHoldingMoreOfThem) {
  int calls = 0;
  const BlockKernel counted = [&](std::uint64_t seed, const sdc::ChainShape& shape) {
    ++calls;
    return sdc::cpu_block(seed, shape);
  };
  sdc::ChainShape shape = kSmall;
  const std::uint64_t few = fit_blocks_to_seconds(1e-9, shape, counted);
  EXPECT_EQ(few, 2u);  // never fewer than two blocks
  EXPECT_EQ(shape.steps, kSmall.steps);
  EXPECT_EQ(calls, 3);  // the best of three timings
  const std::uint64_t many = fit_blocks_to_seconds(3600, shape, counted);
  EXPECT_LE(many, kMaxSdcBlocks);  // halved as the steps doubled: the same seconds
  EXPECT_GT(many, kMaxSdcBlocks / 2);
  EXPECT_GT(shape.steps, kSmall.steps);
  EXPECT_EQ(shape.steps & (shape.steps - 1), 0u);  // doubled from a power of two
  EXPECT_EQ(shape.crc_words * kSmall.steps, shape.steps * kSmall.crc_words);  // and the CRC too
}

Measurement core_record(const std::string& cpu, double wrong, const std::string& mismatch = "") {
  Measurement m = make_measurement(kHostSdcProbe, kSdcMismatchMetric, wrong, "count", cpu);
  m.host = "node07";
  m.params = {{"package", "1"},
              {"core", "3"},
              {"blocks", "4096"},
              {"cpus", "8"},
              {"seed", "1"},
              {"steps", "16384"},
              {"crc_unit", "sse4.2 crc32"},
              {"vector_unit", "avx2 fma"}};
  if (!mismatch.empty()) m.params["mismatch"] = mismatch;
  return m;
}

TEST(SdcCoresJudge, AWrongCpuIsAFailNamingCoreAndPackage) {
  const auto findings = judge_sdc_cores(
      {core_record("cpu0", 0), core_record("cpu11", 2, "block 3 (seed 0x1): FP64 FMA chain ...")});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::fail);
  EXPECT_EQ(findings[0].host, "node07");
  EXPECT_EQ(findings[0].subject, "cpu11");
  EXPECT_EQ(findings[0].message,
            "cpu11 (core 3, package 1) computed wrong bits: 2 of 4096 blocks differ; first: "
            "block 3 (seed 0x1): FP64 FMA chain ...");
  EXPECT_NE(findings[0].remedy.find("/sys/devices/system/cpu/cpu11/online"), std::string::npos);
}

TEST(SdcCoresJudge, AgreeingCpusPassOnceAHostAndOneCpuAloneWarns) {
  Measurement seconds = make_measurement(kHostSdcProbe, kSdcSecondsMetric, 5.04, "s", "cpu0");
  seconds.host = "node07";
  auto findings = judge_sdc_cores({core_record("cpu0", 0), core_record("cpu1", 0), seconds});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::pass);
  EXPECT_EQ(findings[0].message,
            "2 CPUs (1 package) computed the same 4096 blocks bit for bit (integer "
            "multiply/xor/rotate, FP64 and FP32 FMA chains, CRC32C bit by bit and by sse4.2 "
            "crc32, 4 FP64 FMA lanes one at a time and by avx2 fma), 5.0-5.0 s a CPU");
  findings = judge_sdc_cores({core_record("cpu0", 0)});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::warn);
}

}  // namespace
}  // namespace fabcheck
