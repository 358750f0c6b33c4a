// The CPU part of the SDC screen: every CPU of the host computes the same seeded blocks at once,
// each thread pinned to its CPU, and each block's digest is compared across CPUs and within each
// CPU (its CRC unit against its bit-by-bit CRC, each pass against its own first), so a core that
// computes wrong bits is named by CPU, core and package.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "bench/sdc/sdc_chain.hpp"
#include "results/finding.hpp"
#include "results/measurement.hpp"

namespace fabcheck {

inline constexpr const char* kHostSdcProbe = "host.sdc";
inline constexpr const char* kSdcMismatchMetric = "sdc_mismatches";  // blocks a CPU got wrong
inline constexpr const char* kSdcSecondsMetric = "sdc_seconds";      // its time computing them

// A logical CPU and where it sits (sysfs topology; -1 where the kernel does not say).
struct CpuPlace {
  int cpu = 0;
  int package = -1;
  int core = -1;
};
std::vector<CpuPlace> cpu_places(const std::vector<int>& cpus,
                                 const std::filesystem::path& sysfs_root = "/");

// The CPUs the kernel has online (/sys/devices/system/cpu/online; every CPU sysconf counts where
// that file is missing).
std::vector<int> online_cpus(const std::filesystem::path& sysfs_root = "/");

// How a core computes one block: sdc::cpu_block, or a test double around it.
using BlockKernel = std::function<sdc::BlockDigest(std::uint64_t seed, const sdc::ChainShape&)>;

struct CoreScreenPlan {
  std::vector<int> cpus;  // each gets one thread pinned to it
  std::uint64_t seed = 1;
  std::uint64_t blocks = 1;
  int passes = 1;
  sdc::ChainShape shape{};
  BlockKernel kernel;  // empty: sdc::cpu_block
  // Called now and then while the blocks are computed (from a worker thread): the hang detector's
  // sign of life.
  std::function<void()> progress;
};

// Why a CPU is named.
enum class CoreFault {
  minority,     // it differs from the digest most CPUs computed
  own_units,    // its CRC instruction and its bit-by-bit CRC disagree
  own_repeat,   // computing the same block again gave another result
  no_majority,  // CPUs disagree and no digest has a majority (two CPUs: which one is wrong is
                // unknown without a third)
};
const char* to_string(CoreFault fault);

struct CoreMismatch {
  CoreFault fault = CoreFault::minority;
  std::uint64_t block = 0;
  std::uint64_t block_seed = 0;
  int pass = 0;
  int word = 0;  // sdc::DigestWord
  std::uint64_t got = 0;
  std::uint64_t expected = 0;  // the majority's, its own other unit's or its own repeat's
  std::size_t agreeing = 0;    // CPUs that computed `expected` (minority)
  std::vector<int> others;     // the other CPUs disagreeing with it (no_majority)
};

struct CoreResult {
  int cpu = 0;
  double seconds = 0;  // wall time of its passes
  std::uint64_t blocks = 0;
  std::string problem;             // why it was not screened (could not be pinned), "" when it was
  std::uint64_t wrong_blocks = 0;  // blocks (of every pass) with a mismatch
  std::vector<CoreMismatch> mismatches;  // the first few
};

// Runs the plan: one pinned thread per CPU, all started together; then votes every block. A CPU
// that cannot be pinned is reported with its problem, never compared. At most a few tied blocks
// are recomputed (a thread pinned to each CPU of the tie); past them a tie is no_majority as is.
std::vector<CoreResult> screen_cores(const CoreScreenPlan& plan);

// Blocks for `seconds` of computing per pass, one block timed on the calling thread; past
// kMaxSdcBlocks the blocks grow longer instead (steps and CRC words doubled), so a long screen on a
// many-core host holds a few MiB of digests a CPU, not gigabytes.
inline constexpr std::uint64_t kMaxSdcBlocks = 4096;
std::uint64_t fit_blocks_to_seconds(double seconds, sdc::ChainShape& shape,
                                    const BlockKernel& kernel);

// The one-line account of a CPU's first mismatch: "block 17 (seed 0x...): FP64 FMA chain
// 0x... where 3 other CPUs computed 0x... (bits 0x... differ)".
std::string describe_mismatch(const CoreMismatch& mismatch);

// FAIL for every CPU with a mismatch (by CPU, core, package, with its first mismatch); ERROR is the
// evaluator's for a CPU that could not be screened; one PASS a host where every CPU agreed.
std::vector<Finding> judge_sdc_cores(const std::vector<Measurement>& measurements);

}  // namespace fabcheck
