// What a collective's NCCL call (Collective::nccl_call) gets: one member's buffers, shape, rank,
// communicator and stream. CUDA builds only: an entry includes it under FABCHECK_HAVE_CUDA.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "bench/coll/collective.hpp"
#include "bench/cuda/nccl_library.hpp"  // nccl_functions(): NCCL is loaded on demand

namespace fabcheck {

struct NcclCall {
  const float* input = nullptr;  // where the entry's NCCL layout puts this member's input
  float* output = nullptr;       // and its output
  CollectiveShape shape;
  int rank = 0;  // in the communicator
  int nranks = 1;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
};

}  // namespace fabcheck
