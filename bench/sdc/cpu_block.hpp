// A block of the SDC screen as a CPU core computes it: the portable chains, each CPU unit's own
// result beside its reference (CRC32C instruction, vector FMA lanes).
#pragma once

#include <cstdint>

#include "bench/sdc/sdc_chain.hpp"

namespace fabcheck::sdc {

// chains_of_block, the four FMA lanes one at a time (lanes_soft, and twice: wide_lanes_soft), and
// crc_unit, lanes_unit and wide_lanes_unit by the CPU's CRC instruction, vector FMA unit and
// 512-bit FMA unit; where the CPU lacks one, its unit word repeats the reference (nothing to
// compare).
BlockDigest cpu_block(std::uint64_t seed, const ChainShape& shape);

}  // namespace fabcheck::sdc
