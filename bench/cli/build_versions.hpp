// What this binary was built from and with, for summary.json.
#pragma once

#include <nlohmann/json.hpp>

namespace fabcheck {

// fabcheck, compiler, MPI, CUDA and NCCL versions for summary.json.
nlohmann::json build_versions();

}  // namespace fabcheck
