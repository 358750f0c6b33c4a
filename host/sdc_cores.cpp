// The per-core SDC screen: pinned threads computing the same blocks, the vote across CPUs, the
// recompute of ties, and the judge naming the core.
#include "host/sdc_cores.hpp"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <latch>
#include <map>
#include <set>
#include <thread>
#include <utility>

#include "bench/sdc/cpu_block.hpp"
#include "bench/sdc/sdc_vote.hpp"
#include "bench/sys/cpu_list.hpp"
#include "bench/sys/sysfs_file.hpp"
#include "bench/sys/text_scan.hpp"

namespace fabcheck {
namespace {

// Ties recomputed on each CPU of the tie; a core wrong on every block is named without them.
constexpr std::size_t kMaxRecomputedTies = 16;
// Mismatches kept per CPU (all are counted).
constexpr std::size_t kKeptMismatches = 8;

// Pins the calling thread to `cpu`; "" or why not.
std::string pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  const int error = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  if (error != 0) {
    return "cannot be pinned to (pthread_setaffinity_np: " + std::string(std::strerror(error)) +
           "; outside this process's cpuset?)";
  }
  return {};
}

// Runs `work` on a thread pinned to `cpu`; false when it could not be pinned.
template <typename Work>
bool run_on_cpu(int cpu, Work&& work) {
  bool pinned = false;
  std::thread thread([&] {
    pinned = pin_to(cpu).empty();
    if (pinned) work();
  });
  thread.join();
  return pinned;
}

// The words every CPU must agree on: a core's CRC and vector FMA units are compared with that
// core's own reference (check_itself), so one wrong unit never makes another CPU a dissenter.
sdc::BlockDigest portable(sdc::BlockDigest digest) {
  digest.words[sdc::crc_unit_word] = 0;
  digest.words[sdc::lanes_unit_word] = 0;
  digest.words[sdc::wide_lanes_unit_word] = 0;
  return digest;
}

// Each unit word and the reference it must equal on the same core.
constexpr std::pair<int, int> kUnitWords[] = {
    {sdc::crc_unit_word, sdc::crc_soft_word},
    {sdc::lanes_unit_word, sdc::lanes_soft_word},
    {sdc::wide_lanes_unit_word, sdc::wide_lanes_soft_word}};

struct Tally {
  std::vector<bool> wrong;  // by pass * blocks + block
  std::uint64_t wrong_count = 0;
};

class Vote {
 public:
  Vote(const CoreScreenPlan& plan, std::vector<CoreResult>& results,
       std::vector<std::vector<sdc::BlockDigest>>& digests, const BlockKernel& kernel)
      : plan_(plan),
        results_(results),
        digests_(digests),
        kernel_(kernel),
        tallies_(results.size()) {
    for (auto& tally : tallies_) tally.wrong.assign(digests.empty() ? 0 : digests[0].size(), false);
  }

  void run() {
    std::vector<std::size_t> screened;
    for (std::size_t w = 0; w < results_.size(); ++w) {
      if (results_[w].problem.empty()) screened.push_back(w);
    }
    for (std::size_t w : screened) check_itself(w);
    if (screened.size() < 2) return;
    std::size_t ties = 0;
    std::vector<sdc::BlockDigest> column(screened.size());
    for (int pass = 0; pass < plan_.passes; ++pass) {
      for (std::uint64_t block = 0; block < plan_.blocks; ++block) {
        const std::size_t at = index(pass, block);
        for (std::size_t i = 0; i < screened.size(); ++i) {
          column[i] = portable(digests_[screened[i]][at]);
        }
        const sdc::BlockVote vote = sdc::vote_block(column);
        if (vote.dissenters.empty()) continue;
        if (vote.majority) {
          name_minority(screened, column, vote, pass, block);
        } else {
          settle_tie(screened, column, pass, block, ties++ < kMaxRecomputedTies);
        }
      }
    }
  }

 private:
  std::size_t index(int pass, std::uint64_t block) const {
    return static_cast<std::size_t>(pass) * plan_.blocks + block;
  }

  void add(std::size_t w, CoreMismatch mismatch) {
    const std::size_t at = index(mismatch.pass, mismatch.block);
    Tally& tally = tallies_[w];
    if (!tally.wrong[at]) {
      tally.wrong[at] = true;
      ++tally.wrong_count;
    }
    if (results_[w].mismatches.size() < kKeptMismatches) {
      results_[w].mismatches.push_back(std::move(mismatch));
    }
  }

  CoreMismatch mismatch_of(CoreFault fault, int pass, std::uint64_t block,
                           const sdc::BlockDigest& got, const sdc::BlockDigest& expected) const {
    CoreMismatch m;
    m.fault = fault;
    m.pass = pass;
    m.block = block;
    m.block_seed = sdc::block_seed(plan_.seed, block);
    m.word = std::max(0, sdc::first_differing_word(got, expected));
    m.got = got.words[m.word];
    m.expected = expected.words[m.word];
    return m;
  }

  // Its CRC and vector units against their references; each later pass against its first.
  void check_itself(std::size_t w) {
    for (int pass = 0; pass < plan_.passes; ++pass) {
      for (std::uint64_t block = 0; block < plan_.blocks; ++block) {
        const sdc::BlockDigest& d = digests_[w][index(pass, block)];
        for (const auto& [unit, reference] : kUnitWords) {
          if (d.words[unit] == d.words[reference]) continue;
          CoreMismatch m = mismatch_of(CoreFault::own_units, pass, block, d, d);
          m.word = unit;
          m.got = d.words[unit];
          m.expected = d.words[reference];
          add(w, m);
        }
        const sdc::BlockDigest& first = digests_[w][index(0, block)];
        if (pass > 0 && !sdc::same_digest(d, first)) {
          add(w, mismatch_of(CoreFault::own_repeat, pass, block, d, first));
        }
      }
    }
  }

  void name_minority(const std::vector<std::size_t>& screened,
                     const std::vector<sdc::BlockDigest>& column, const sdc::BlockVote& vote,
                     int pass, std::uint64_t block) {
    for (int i : vote.dissenters) {
      CoreMismatch m = mismatch_of(CoreFault::minority, pass, block, column[i], *vote.majority);
      m.agreeing = vote.agreeing;
      add(screened[i], m);
    }
  }

  // No digest has a majority: each CPU computes the block again; one whose second result differs
  // from its first is wrong by its own account, and the second results are voted on.
  void settle_tie(const std::vector<std::size_t>& screened,
                  const std::vector<sdc::BlockDigest>& column, int pass, std::uint64_t block,
                  bool recompute) {
    std::vector<sdc::BlockDigest> again = column;
    if (recompute) {
      const std::uint64_t seed = sdc::block_seed(plan_.seed, block);
      for (std::size_t i = 0; i < screened.size(); ++i) {
        run_on_cpu(results_[screened[i]].cpu,
                   [&] { again[i] = portable(kernel_(seed, plan_.shape)); });
        if (!sdc::same_digest(again[i], column[i])) {
          add(screened[i], mismatch_of(CoreFault::own_repeat, pass, block, column[i], again[i]));
        }
      }
    }
    const sdc::BlockVote vote = sdc::vote_block(again);
    if (vote.majority) {
      name_minority(screened, again, vote, pass, block);
      return;
    }
    for (int i : vote.dissenters) {
      const int other = vote.dissenters[i == vote.dissenters.front() ? 1 : 0];
      CoreMismatch m = mismatch_of(CoreFault::no_majority, pass, block, again[i], again[other]);
      for (int j : vote.dissenters) {
        if (j != i) m.others.push_back(results_[screened[j]].cpu);
      }
      add(screened[i], m);
    }
  }

  const CoreScreenPlan& plan_;
  std::vector<CoreResult>& results_;
  std::vector<std::vector<sdc::BlockDigest>>& digests_;
  const BlockKernel& kernel_;
  std::vector<Tally> tallies_;

 public:
  std::uint64_t wrong_blocks(std::size_t w) const { return tallies_[w].wrong_count; }
};

int read_topology(const std::filesystem::path& sysfs_root, int cpu, const char* attribute) {
  const auto text = read_sysfs_text(sysfs_root / "sys/devices/system/cpu" /
                                    ("cpu" + std::to_string(cpu)) / "topology" / attribute);
  const auto value = text ? text::parse_small_int(*text) : std::nullopt;
  return value.value_or(-1);
}

}  // namespace

const char* to_string(CoreFault fault) {
  switch (fault) {
    case CoreFault::minority:
      return "minority";
    case CoreFault::own_units:
      return "own_units";
    case CoreFault::own_repeat:
      return "own_repeat";
    case CoreFault::no_majority:
      return "no_majority";
  }
  return "?";
}

std::vector<CpuPlace> cpu_places(const std::vector<int>& cpus,
                                 const std::filesystem::path& sysfs_root) {
  std::vector<CpuPlace> places;
  for (int cpu : cpus) {
    places.push_back({cpu, read_topology(sysfs_root, cpu, "physical_package_id"),
                      read_topology(sysfs_root, cpu, "core_id")});
  }
  return places;
}

std::vector<int> online_cpus(const std::filesystem::path& sysfs_root) {
  const auto text = read_sysfs_text(sysfs_root / "sys/devices/system/cpu/online");
  if (text) {
    if (auto cpus = parse_cpu_list(*text); cpus && !cpus->empty()) return *cpus;
  }
  std::vector<int> all;
  const long count = sysconf(_SC_NPROCESSORS_ONLN);
  for (int cpu = 0; cpu < count; ++cpu) all.push_back(cpu);
  return all;
}

std::vector<CoreResult> screen_cores(const CoreScreenPlan& plan) {
  const BlockKernel kernel = plan.kernel ? plan.kernel : BlockKernel(sdc::cpu_block);
  const std::size_t workers = plan.cpus.size();
  const std::size_t per_worker = static_cast<std::size_t>(plan.passes) * plan.blocks;
  std::vector<CoreResult> results(workers);
  std::vector<std::vector<sdc::BlockDigest>> digests(workers,
                                                     std::vector<sdc::BlockDigest>(per_worker));
  {
    std::latch start(static_cast<std::ptrdiff_t>(workers));
    std::vector<std::thread> threads;
    for (std::size_t w = 0; w < workers; ++w) {
      threads.emplace_back([&, w] {
        CoreResult& result = results[w];
        result.cpu = plan.cpus[w];
        result.problem = pin_to(result.cpu);
        start.arrive_and_wait();
        if (!result.problem.empty()) return;
        const auto begin = std::chrono::steady_clock::now();
        for (int pass = 0; pass < plan.passes; ++pass) {
          for (std::uint64_t block = 0; block < plan.blocks; ++block) {
            digests[w][static_cast<std::size_t>(pass) * plan.blocks + block] =
                kernel(sdc::block_seed(plan.seed, block), plan.shape);
            if (w == 0 && block % 64 == 63 && plan.progress) plan.progress();
          }
        }
        result.seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
        result.blocks = per_worker;
        if (const int now = sched_getcpu(); now != result.cpu) {
          result.problem = "ran on cpu " + std::to_string(now) + " though pinned (taken offline?)";
        }
      });
    }
    for (auto& thread : threads) thread.join();
  }
  Vote vote(plan, results, digests, kernel);
  vote.run();
  for (std::size_t w = 0; w < workers; ++w) results[w].wrong_blocks = vote.wrong_blocks(w);
  return results;
}

std::uint64_t fit_blocks_to_seconds(double seconds, sdc::ChainShape& shape,
                                    const BlockKernel& kernel) {
  const BlockKernel run = kernel ? kernel : BlockKernel(sdc::cpu_block);
  double best = 1e9;
  for (int i = 0; i < 3; ++i) {
    const auto begin = std::chrono::steady_clock::now();
    (void)run(sdc::block_seed(0, static_cast<std::uint64_t>(i)), shape);
    best = std::min(
        best, std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
  }
  double blocks = std::max(2.0, seconds / std::max(best, 1e-7));
  // A block twice as long in every part (chains and CRC stream) takes twice as long.
  while (blocks > static_cast<double>(kMaxSdcBlocks) && shape.steps < (1u << 30)) {
    shape.steps *= 2;
    shape.crc_words *= 2;
    blocks /= 2;
  }
  return static_cast<std::uint64_t>(std::min(blocks, static_cast<double>(kMaxSdcBlocks)));
}

std::string describe_mismatch(const CoreMismatch& m) {
  std::string text = "block " + std::to_string(m.block) + " (seed " + sdc::word_hex(m.block_seed) +
                     (m.pass > 0 ? ", pass " + std::to_string(m.pass + 1) : "") +
                     "): " + sdc::digest_word_name(m.word) + " " + sdc::word_hex(m.got);
  switch (m.fault) {
    case CoreFault::minority:
      text += " where " + std::to_string(m.agreeing) + " other CPU" + (m.agreeing == 1 ? "" : "s") +
              " computed " + sdc::word_hex(m.expected);
      break;
    case CoreFault::own_units:
      text += std::string(" where the same CPU ") +
              (m.word == sdc::crc_unit_word ? "bit by bit" : "one lane at a time") + " gave " +
              sdc::word_hex(m.expected);
      break;
    case CoreFault::own_repeat:
      text += " where the same CPU computing it again gave " + sdc::word_hex(m.expected);
      break;
    case CoreFault::no_majority: {
      std::string others;
      for (int cpu : m.others) others += (others.empty() ? "cpu " : ", cpu ") + std::to_string(cpu);
      text += " where " + others + " computed " + sdc::word_hex(m.expected) +
              " (each stable when computed again; no majority: a third CPU is needed to tell "
              "which is wrong)";
      break;
    }
  }
  return text + " (bits " + sdc::word_hex(m.got ^ m.expected) + " differ)";
}

std::vector<Finding> judge_sdc_cores(const std::vector<Measurement>& measurements) {
  struct HostTally {
    const Measurement* first = nullptr;
    std::size_t cpus = 0;
    std::set<std::string> packages;
    bool any_wrong = false;
    double min_s = 1e300, max_s = 0;
    std::string blocks, crc_unit, vector_unit;
  };
  std::map<std::string, HostTally> by_host;
  std::map<std::pair<std::string, std::string>, double> seconds;  // host, subject
  for (const Measurement& m : measurements) {
    if (m.probe == kHostSdcProbe && m.metric == kSdcSecondsMetric &&
        m.status == MeasurementStatus::ok)
      seconds[{m.host, m.subject}] = m.value;
  }
  std::vector<Finding> out;
  for (const Measurement& m : measurements) {
    if (m.probe != kHostSdcProbe || m.metric != kSdcMismatchMetric ||
        m.status != MeasurementStatus::ok)
      continue;
    HostTally& tally = by_host[m.host];
    if (tally.first == nullptr) tally.first = &m;
    ++tally.cpus;
    tally.packages.insert(param_of(m, "package"));
    tally.blocks = param_of(m, "blocks");
    tally.crc_unit = param_of(m, "crc_unit");
    tally.vector_unit = param_of(m, "vector_unit");
    if (const auto s = seconds.find({m.host, m.subject}); s != seconds.end()) {
      tally.min_s = std::min(tally.min_s, s->second);
      tally.max_s = std::max(tally.max_s, s->second);
    }
    if (m.value <= 0) continue;
    tally.any_wrong = true;
    Finding f = finding_about(m, Severity::fail);
    f.expected = 0;
    char counts[96];
    std::snprintf(counts, sizeof counts, "%.0f of %s blocks", m.value,
                  param_of(m, "blocks").c_str());
    f.message = m.subject + " (core " + param_of(m, "core") + ", package " +
                param_of(m, "package") + ") computed wrong bits: " + counts +
                " differ; first: " + param_of(m, "mismatch");
    f.evidence = "host.sdc: " + param_of(m, "cpus") +
                 " CPUs computed the same seeded blocks (seed " + param_of(m, "seed") + ", " +
                 param_of(m, "steps") + " steps a chain), each pinned";
    f.remedy =
        "drain the node: a core that computes wrong bits corrupts whatever runs on it; confirm "
        "with fabcheck run --probes host.sdc --opt sdc.duration_s=600, take the core offline "
        "(echo 0 > /sys/devices/system/cpu/" +
        m.subject + "/online) until the CPU is replaced, and report it to the vendor";
    f.source =
        "exact: every CPU computes the same integer, IEEE 754 FMA and CRC32C results bit "
        "for bit";
    out.push_back(std::move(f));
  }
  for (const auto& [host, tally] : by_host) {
    if (tally.any_wrong) continue;
    const bool alone = tally.cpus < 2;
    Finding f = finding_about(*tally.first, alone ? Severity::warn : Severity::pass);
    f.subject = "cpus";
    f.observed = 0;
    f.expected = 0;
    char timing[96] = "";
    if (tally.max_s > 0) {
      std::snprintf(timing, sizeof timing, ", %.1f-%.1f s a CPU", tally.min_s, tally.max_s);
    }
    const std::string units =
        "integer multiply/xor/rotate, FP64 and FP32 FMA chains, CRC32C bit by bit" +
        (tally.crc_unit.empty() ? std::string() : " and by " + tally.crc_unit) +
        ", 4 FP64 FMA lanes one at a time" +
        (tally.vector_unit.empty() ? std::string() : " and by " + tally.vector_unit);
    if (alone) {
      f.message =
          "one CPU screened: nothing to compare it with but its own CRC unit and repeats (" +
          units + ")";
      f.remedy = "run host.sdc where more than one CPU is online";
    } else {
      f.message = std::to_string(tally.cpus) + " CPUs (" + std::to_string(tally.packages.size()) +
                  " package" + (tally.packages.size() == 1 ? "" : "s") + ") computed the same " +
                  tally.blocks + " blocks bit for bit (" + units + ")" + timing;
    }
    f.source = "exact: every CPU computes the same results bit for bit";
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace fabcheck
