// Buffer layout of one operation on one rank (see buffer_layout.hpp).
#include "bench/coll/buffer_layout.hpp"

#include <algorithm>

namespace fabcheck {

BufferLayout buffer_layout(const Collective& collective, const BackendLayout& layout,
                           Placement placement, const CollectiveShape& shape, int rank) {
  const bool root = rank == collective.root;
  BufferLayout buffers;
  buffers.input_count = layout.input_only_at_root && !root ? 0 : shape.send_count;
  buffers.output_count = layout.output_only_at_root && !root ? 0 : shape.recv_count;
  if (placement == Placement::out_of_place) {
    buffers.send_elements = shape.send_count;
    buffers.recv_elements = shape.recv_count;
    return buffers;
  }
  buffers.in_place = true;
  buffers.send_elements = std::max(shape.send_count, shape.recv_count);
  const auto block = static_cast<std::uint64_t>(rank);
  if (layout.in_place_input == InPlaceAt::rank_block)
    buffers.input_offset = block * shape.send_count;
  if (layout.in_place_output == InPlaceAt::rank_block) {
    buffers.output_offset = block * shape.recv_count;
  }
  return buffers;
}

}  // namespace fabcheck
