// Where one rank's input and output live in a backend's buffers for one operation, by the entry's
// layout for that backend (collective.hpp's BackendLayout): out of place, two buffers; in place,
// one buffer holding both (nccl-tests' offsets: the all-gather input is the rank's block of the
// output, NCCL's reduce-scatter output is the rank's block of the input).
#pragma once

#include <cstdint>

#include "bench/coll/collective.hpp"

namespace fabcheck {

struct BufferLayout {
  bool in_place = false;
  std::uint64_t send_elements = 0;  // send buffer size (in-place: the one buffer's size)
  std::uint64_t recv_elements = 0;  // receive buffer size (in-place: 0, there is none)
  std::uint64_t input_offset = 0;   // where the input starts, in elements
  std::uint64_t input_count = 0;    // elements of input this rank writes
  std::uint64_t output_offset = 0;  // where the output starts, in elements
  std::uint64_t output_count = 0;   // elements of output this rank checks
};

// `layout` is collective.mpi_layout or collective.nccl_layout.
BufferLayout buffer_layout(const Collective& collective, const BackendLayout& layout,
                           Placement placement, const CollectiveShape& shape, int rank);

}  // namespace fabcheck
