// Host-memory elements of any type: fill, poison, count wrong (see host_elements.hpp).
#include "bench/coll/host_elements.hpp"

#include <bit>
#include <cstring>

namespace fabcheck {

static_assert(std::endian::native == std::endian::little,
              "an element is the low bytes of its bits");

std::uint64_t element_at(const std::byte* data, std::uint64_t index, verify::DataType type) {
  const unsigned size = verify::element_bytes(type);
  std::uint64_t bits = 0;
  std::memcpy(&bits, data + index * size, size);
  return bits;
}

void set_element(std::byte* data, std::uint64_t index, verify::DataType type, std::uint64_t bits) {
  const unsigned size = verify::element_bytes(type);
  std::memcpy(data + index * size, &bits, size);
}

void fill_input_elements(std::byte* data, std::uint64_t count, const verify::Element& element,
                         int nranks, int rank, std::uint32_t seed) {
  for (std::uint64_t i = 0; i < count; ++i) {
    set_element(data, i, element.type, verify::input_bits(element, nranks, rank, i, seed));
  }
}

void poison_elements(std::byte* data, std::uint64_t count, verify::DataType type) {
  const std::uint64_t poison = verify::poison_bits(type);
  for (std::uint64_t i = 0; i < count; ++i) set_element(data, i, type, poison);
}

std::uint64_t count_wrong_elements(const std::byte* output, std::uint64_t count,
                                   const verify::OutputRule& rule, const verify::Element& element,
                                   int rank, int nranks, std::uint64_t send_count,
                                   std::uint64_t recv_count, std::uint32_t seed) {
  std::uint64_t wrong = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t expected =
        verify::expected_bits(rule, element, rank, nranks, send_count, recv_count, i, seed);
    if (element_at(output, i, element.type) != expected) ++wrong;
  }
  return wrong;
}

}  // namespace fabcheck
