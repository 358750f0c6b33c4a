// Prints a CPU core's SDC block digests (bench/sdc/cpu_block) for fixed seeds, with the names of
// the CRC and vector FMA units that computed them: built for x86-64 and for AArch64 (run under
// qemu), the two outputs' digests must be the same bits (tests/cross/sdc_units_across_isas.sh).
#include <cinttypes>
#include <cstdio>

#include "bench/sdc/cpu_block.hpp"
#include "bench/sdc/crc32c_unit.hpp"
#include "bench/sdc/fma_lanes_unit.hpp"

int main() {
  using namespace fabcheck::sdc;
  std::printf("crc unit: %s\n", crc32c_unit_name());
  std::printf("lanes unit: %s\n", fma_lanes_unit_name());
  std::printf("wide lanes unit: %s\n", wide_fma_lanes_unit_name());
  int disagreements = 0;
  const ChainShape shape{.steps = 4096, .crc_words = 1024};
  for (std::uint64_t block = 0; block < 4; ++block) {
    const BlockDigest digest = cpu_block(block_seed(1, block), shape);
    std::printf("block %" PRIu64 ":", block);
    for (const std::uint64_t word : digest.words) std::printf(" %016" PRIx64, word);
    std::printf("\n");
    // Each unit against its soft twin on this core (a unit that is absent gives the soft word).
    if (digest.words[crc_unit_word] != digest.words[crc_soft_word] ||
        digest.words[lanes_unit_word] != digest.words[lanes_soft_word] ||
        digest.words[wide_lanes_unit_word] != digest.words[wide_lanes_soft_word]) {
      std::printf("block %" PRIu64 ": a unit disagrees with its soft twin\n", block);
      ++disagreements;
    }
  }
  return disagreements == 0 ? 0 : 1;
}
