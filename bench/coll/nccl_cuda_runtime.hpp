// The real NcclRuntime: CUDA runtime (cudart, never libcuda directly) and NCCL. Built only with
// CUDA; include only from *.cuda.cpp files.
#pragma once

#include <memory>

#include "bench/coll/nccl_runtime.hpp"

namespace fabcheck {

std::unique_ptr<NcclRuntime> make_cuda_nccl_runtime();

// Whether a runtime of this process has started creating a communicator.
bool cuda_nccl_communicator_started();

}  // namespace fabcheck
