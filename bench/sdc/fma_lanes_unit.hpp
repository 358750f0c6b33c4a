// sdc::fp64_lanes by this CPU's vector FMA units (AVX2 + FMA on x86-64: the four lanes in one
// register; AVX-512: the four twice in one 512-bit register; NEON on AArch64: two lanes in each of
// two registers), to compare with the same lanes computed one at a time on the same core.
#pragma once

#include <cstdint>

namespace fabcheck::sdc {

// "avx2 fma" or "neon fma" where this CPU has the unit fabcheck uses; "" where it has none.
const char* fma_lanes_unit_name();

// fp64_lanes(seed, steps) computed by the vector unit; 0 where fma_lanes_unit_name() is "".
std::uint64_t fp64_lanes_by_unit(std::uint64_t seed, std::uint32_t steps);

// "avx512f" where this CPU has a 512-bit FMA unit fabcheck uses; "" where it has none.
const char* wide_fma_lanes_unit_name();

// fold_lanes(fp64_lane_hashes(seed, steps), 2) computed by the 512-bit unit, eight lanes in one
// register; 0 where wide_fma_lanes_unit_name() is "".
std::uint64_t wide_fp64_lanes_by_unit(std::uint64_t seed, std::uint32_t steps);

}  // namespace fabcheck::sdc
