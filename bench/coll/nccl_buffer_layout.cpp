// Device buffer layout of one NCCL operation (see nccl_buffer_layout.hpp).
#include "bench/coll/nccl_buffer_layout.hpp"

#include <algorithm>

namespace fabcheck {

NcclBufferLayout nccl_buffer_layout(Collective collective, Placement placement,
                                    const CollectiveShape& shape, int rank) {
  NcclBufferLayout layout;
  layout.input_count = shape.send_count;
  layout.output_count = shape.recv_count;
  if (placement == Placement::out_of_place) {
    layout.send_elements = shape.send_count;
    layout.recv_elements = shape.recv_count;
    return layout;
  }
  layout.in_place = true;
  layout.send_elements = std::max(shape.send_count, shape.recv_count);
  const auto block = static_cast<std::uint64_t>(rank);
  if (collective == Collective::all_gather) {
    layout.input_offset = block * shape.send_count;
  } else if (collective == Collective::reduce_scatter) {
    layout.output_offset = block * shape.recv_count;
  }
  return layout;
}

}  // namespace fabcheck
