// Where one rank's input and output live in the NCCL backend's device buffers, out-of-place (two
// buffers) and in-place (one buffer, nccl-tests' offsets: the all-gather input is the rank's block
// of the output, the reduce-scatter output is the rank's block of the input).
#pragma once

#include <cstdint>

#include "bench/coll/backend.hpp"

namespace fabcheck {

struct NcclBufferLayout {
  bool in_place = false;
  std::uint64_t send_elements = 0;  // send buffer size (in-place: the one buffer's size)
  std::uint64_t recv_elements = 0;  // receive buffer size (in-place: 0, there is none)
  std::uint64_t input_offset = 0;   // where the input starts, in elements
  std::uint64_t input_count = 0;
  std::uint64_t output_offset = 0;  // where the output starts, in elements
  std::uint64_t output_count = 0;
};

NcclBufferLayout nccl_buffer_layout(Collective collective, Placement placement,
                                    const CollectiveShape& shape, int rank);

}  // namespace fabcheck
