// A CPU core's block: the chains plus its CRC instruction's and vector unit's results.
#include "bench/sdc/cpu_block.hpp"

#include "bench/sdc/crc32c_unit.hpp"
#include "bench/sdc/fma_lanes_unit.hpp"

namespace fabcheck::sdc {

BlockDigest cpu_block(std::uint64_t seed, const ChainShape& shape) {
  BlockDigest digest = chains_of_block(seed, shape);
  std::uint64_t lane_hashes[kFmaLanes];
  fp64_lane_hashes(seed, shape.steps, lane_hashes);
  digest.words[lanes_soft_word] = fold_lanes(lane_hashes);
  digest.words[wide_lanes_soft_word] = fold_lanes(lane_hashes, 2);
  static const bool crc_unit = *crc32c_unit_name() != '\0';
  static const bool lanes_unit = *fma_lanes_unit_name() != '\0';
  static const bool wide_lanes_unit = *wide_fma_lanes_unit_name() != '\0';
  digest.words[crc_unit_word] =
      crc_unit ? crc32c_of_stream_by_unit(seed, shape.crc_words) : digest.words[crc_soft_word];
  digest.words[lanes_unit_word] =
      lanes_unit ? fp64_lanes_by_unit(seed, shape.steps) : digest.words[lanes_soft_word];
  digest.words[wide_lanes_unit_word] = wide_lanes_unit ? wide_fp64_lanes_by_unit(seed, shape.steps)
                                                       : digest.words[wide_lanes_soft_word];
  return digest;
}

}  // namespace fabcheck::sdc
