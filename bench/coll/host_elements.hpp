// Collective elements in host memory, as bytes of the sweep's type: written with
// verify::input_bits, poisoned, and counted against verify::expected_bits. The MPI backend's fill
// and check, and what the tests use to prove a wrong element of any type is counted.
#pragma once

#include <cstddef>
#include <cstdint>

#include "bench/coll/verification.hpp"

namespace fabcheck {

// Element i < count of `data` = verify::input_bits(element, nranks, rank, i, seed).
void fill_input_elements(std::byte* data, std::uint64_t count, const verify::Element& element,
                         int nranks, int rank, std::uint32_t seed);
// Element i < count of `data` = verify::poison_bits(type).
void poison_elements(std::byte* data, std::uint64_t count, verify::DataType type);
// Elements i < count of `output` whose bits differ from verify::expected_bits under `rule`.
std::uint64_t count_wrong_elements(const std::byte* output, std::uint64_t count,
                                   const verify::OutputRule& rule, const verify::Element& element,
                                   int rank, int nranks, std::uint64_t send_count,
                                   std::uint64_t recv_count, std::uint32_t seed);

// Element `index` of `data` as its bits, and the other way (the low bytes of the bits: hosts are
// little-endian).
std::uint64_t element_at(const std::byte* data, std::uint64_t index, verify::DataType type);
void set_element(std::byte* data, std::uint64_t index, verify::DataType type, std::uint64_t bits);

}  // namespace fabcheck
