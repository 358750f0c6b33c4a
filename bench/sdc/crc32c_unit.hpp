// CRC32C by this CPU's own CRC unit (SSE 4.2's crc32 instruction on x86-64, the CRC32C
// instructions of ARMv8), to compare with the bit-by-bit reference of sdc_chain.hpp on the same
// core.
#pragma once

#include <cstdint>

#include "bench/sdc/sdc_chain.hpp"

namespace fabcheck::sdc {

// Whether this CPU has a CRC32C instruction fabcheck uses ("" when it has none).
const char* crc32c_unit_name();  // "sse4.2 crc32", "armv8 crc32c", ""

// CRC32C of the block's stream (crc32c_of_stream's input) by the CPU's instruction;
// 0 where crc32c_unit_name() is "".
std::uint64_t crc32c_of_stream_by_unit(std::uint64_t seed, std::uint32_t words);

}  // namespace fabcheck::sdc
