// The GPU SDC screens' comparison with the host reference and their judge.
#include "kernels/sdc_comparison.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <thread>

#include "bench/sdc/sdc_vote.hpp"
#include "bench/sys/text_scan.hpp"
#include "results/units.hpp"

namespace fabcheck {
namespace {

std::string address(std::uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%" PRIx64, value);
  return text;
}

}  // namespace

std::vector<sdc::BlockDigest> sdc_reference(std::uint64_t seed, std::uint64_t first_block,
                                            unsigned lanes, const sdc::ChainShape& shape) {
  std::vector<sdc::BlockDigest> reference(lanes);
  const unsigned threads = std::max(1u, std::min(lanes, std::thread::hardware_concurrency()));
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (unsigned lane = t; lane < lanes; lane += threads) {
        sdc::BlockDigest digest =
            sdc::chains_of_block(sdc::block_seed(seed, first_block + lane), shape);
        digest.words[sdc::crc_unit_word] = digest.words[sdc::crc_soft_word];
        digest.words[sdc::l2_word] =
            sdc::l2_digest(sdc::block_seed(seed, first_block + lane), shape.l2_words);
        reference[lane] = digest;
      }
    });
  }
  for (auto& worker : workers) worker.join();
  return reference;
}

void compare_sm_digests(const std::vector<sdc::BlockDigest>& digests,
                        const std::vector<unsigned>& sm_of_block, const L2Round& l2,
                        const std::vector<sdc::BlockDigest>& reference, std::uint64_t first_block,
                        int pass, SmTally& tally) {
  const std::size_t lanes = reference.size();
  for (std::size_t block = 0; block < sm_of_block.size(); ++block) {
    const unsigned sm = sm_of_block[block];
    tally.lanes_by_sm[sm] += lanes;
    for (std::size_t lane = 0; lane < lanes; ++lane) {
      const sdc::BlockDigest& got = digests[block * lanes + lane];
      const int word = sdc::first_differing_word(got, reference[lane]);
      if (word < 0) continue;
      if (tally.wrong_by_sm[sm]++ != 0) continue;
      SmMismatch& first = tally.first_by_sm[sm];
      first = SmMismatch{};
      first.sm = sm;
      first.pass = pass;
      first.block = first_block + lane;
      first.word = word;
      first.got = got.words[word];
      first.expected = reference[lane].words[word];
      if (word != sdc::l2_word || block >= l2.partner_of_block.size()) continue;
      first.writer_block = l2.partner_of_block[block];
      if (first.writer_block < l2.writer_sm.size())
        first.writer_sm = l2.writer_sm[first.writer_block];
      if (block * lanes + lane < l2.reads.size()) first.read = l2.reads[block * lanes + lane];
      if (first.read.first_wrong != sdc::kNoWrongWord) {
        first.read_offset =
            sdc::l2_offset(first.writer_block, static_cast<unsigned>(lane), first.read.first_wrong,
                           static_cast<unsigned>(lanes), l2.words) *
            sizeof(std::uint64_t);
      }
    }
  }
}

std::string describe_sm_mismatch(const SmMismatch& m) {
  std::string text = "SM " + std::to_string(m.sm) + ": block " + std::to_string(m.block) +
                     (m.pass > 0 ? " (pass " + std::to_string(m.pass + 1) + ")" : "") + ": " +
                     sdc::digest_word_name(m.word) + " " + sdc::word_hex(m.got) +
                     " where the host computed " + sdc::word_hex(m.expected) + " (bits " +
                     sdc::word_hex(m.got ^ m.expected) + " differ)";
  if (m.word != sdc::l2_word) return text;
  text += "; read from launch block " + std::to_string(m.writer_block) +
          "'s slice, written on SM " + std::to_string(m.writer_sm) + ": ";
  if (m.read.first_wrong == sdc::kNoWrongWord)
    return text + "every word read was as written (SM " + std::to_string(m.sm) +
           " folded them wrong)";
  return text + std::to_string(m.read.wrong) + " word" + (m.read.wrong == 1 ? "" : "s") +
         " wrong, the first word " + std::to_string(m.read.first_wrong) + " (offset " +
         std::to_string(m.read_offset) + " of the L2 buffer) " + sdc::word_hex(m.read.got) +
         " where " + sdc::word_hex(m.read.expected) + " was written (bits " +
         sdc::word_hex(m.read.got ^ m.read.expected) + " differ)";
}

std::string sm_list(const std::vector<unsigned>& sms) {
  return text::join(sms, ",", [](unsigned sm) { return std::to_string(sm); });
}

std::string describe_pattern_mismatch(int pattern, bool inverted, const sdc::HbmCheck& check,
                                      std::uint64_t base, std::uint64_t bytes, std::uint64_t got,
                                      std::uint64_t expected) {
  const std::uint64_t offset = check.first_index * sizeof(std::uint64_t);
  return std::string(sdc::hbm_pattern_name(pattern)) + (inverted ? " (inverted)" : "") + ": " +
         std::to_string(check.wrong) + " word" + (check.wrong == 1 ? "" : "s") +
         " wrong, the first at " + address(base + offset) + " (offset " + std::to_string(offset) +
         " of a " + format_bytes(bytes) + " buffer at " + address(base) +
         "): " + sdc::word_hex(got) + " where " + sdc::word_hex(expected) + " was written (bits " +
         sdc::word_hex(got ^ expected) + " differ)";
}

std::vector<Finding> judge_gpu_sdc(const std::vector<Measurement>& measurements) {
  std::vector<Finding> out;
  for (const Measurement& m : measurements) {
    const bool sms = m.probe == kGpuSdcProbe && m.metric == kSmMismatchMetric;
    const bool patterns = m.probe == kHbmPatternsProbe && m.metric == kPatternMismatchMetric;
    if ((!sms && !patterns) || m.status != MeasurementStatus::ok) continue;
    const std::string gpu = m.subject + " (" + param_of(m, "bus_id") + ")";
    if (m.value > 0) {
      Finding f = finding_about(m, Severity::fail);
      f.expected = 0;
      if (sms) {
        f.message = gpu + " computed wrong bits on SM " + param_of(m, "sms_wrong") + " of " +
                    param_of(m, "sms") + ": " +
                    std::to_string(static_cast<std::uint64_t>(m.value)) + " of " +
                    param_of(m, "lanes_checked") +
                    " chains differ from the host's exact result; "
                    "first: " +
                    param_of(m, "mismatch");
        f.evidence = "gpu.sdc: every SM computed the same seeded chains (seed " +
                     param_of(m, "seed") + ", " + param_of(m, "steps") + " steps), " +
                     param_of(m, "passes") + " pass(es) of " + param_of(m, "pass_seconds") + " s";
      } else {
        f.message = gpu + " read back wrong words: " + param_of(m, "mismatch");
        f.evidence = "gpu.hbm_patterns: " + param_of(m, "bytes") + " bytes (" +
                     param_of(m, "fraction") + " of free memory), patterns " +
                     param_of(m, "patterns");
      }
      f.remedy =
          "drain the node: this GPU computes or stores wrong bits without an error; "
          "confirm with dcgmi diag -r 4 (or NVIDIA's field diagnostic), then RMA the GPU";
      f.source =
          "exact: every SM computes the host's integer and IEEE 754 FMA results bit for bit "
          "and memory returns what was written";
      out.push_back(std::move(f));
      continue;
    }
    const std::string missed = param_of(m, "sms_not_reached");
    Finding f = finding_about(m, missed.empty() ? Severity::pass : Severity::warn);
    f.expected = 0;
    if (sms) {
      f.message = gpu + ": " + param_of(m, "sms_screened") + " of " + param_of(m, "sms") +
                  " SMs computed " + param_of(m, "lanes_checked") +
                  " chains bit for bit as the host did (integer, FP64 and FP32 FMA, CRC32C bit "
                  "by bit and through shared memory, and an L2 word stream another SM wrote), " +
                  param_of(m, "passes") + " pass(es) of " + param_of(m, "pass_seconds") + " s";
      if (!missed.empty()) {
        f.message += "; SM " + missed + " ran no block and was not screened";
        f.remedy = "rerun gpu.sdc; an SM that never runs a block may be disabled or hung";
      }
    } else {
      f.message = gpu + ": " + param_of(m, "bytes") + " bytes read back as written under " +
                  param_of(m, "patterns");
    }
    f.source = "exact: every SM and every memory word gives back what the host computes";
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace fabcheck
