// RDMA devices as rdma-core's libibverbs sees them, loaded at run time so that a node without
// libibverbs still starts (the list is then empty with the reason).
#pragma once

#include <string>
#include <vector>

namespace fabcheck {

struct VerbsDevices {
  bool library_loaded = false;
  std::string problem;             // why the list could not be read ("libibverbs.so.1 not found")
  std::vector<std::string> names;  // "mlx5_0", ...
};

VerbsDevices list_verbs_devices();

}  // namespace fabcheck
