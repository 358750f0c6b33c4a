// Which visible GPUs a rank drives: one per rank under MPI (local rank modulo the count), all of
// them in a single process.
#pragma once

#include <vector>

namespace fabcheck {

// The CUDA ordinals rank `local_rank` of `local_size` on a host drives when `device_count` are
// visible: ordinals o with o % local_size == local_rank (every GPU when alone on the host, one
// when there are as many ranks as GPUs); with more ranks than GPUs, ranks share by modulo.
std::vector<int> devices_for_rank(int local_rank, int local_size, int device_count);

}  // namespace fabcheck
