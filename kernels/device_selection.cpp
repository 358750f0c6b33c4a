// devices_for_rank: the GPUs a rank drives, from its local rank, the ranks on its host and the
// count.
#include "kernels/device_selection.hpp"

namespace fabcheck {

std::vector<int> devices_for_rank(int local_rank, int local_size, int device_count) {
  std::vector<int> devices;
  if (device_count <= 0 || local_size <= 0 || local_rank < 0) return devices;
  if (local_size > device_count) {
    devices.push_back(local_rank % device_count);
    return devices;
  }
  for (int ordinal = local_rank; ordinal < device_count; ordinal += local_size) {
    devices.push_back(ordinal);
  }
  return devices;
}

}  // namespace fabcheck
