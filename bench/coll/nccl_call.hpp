// What a collective's NCCL call (Collective::nccl_call) gets: one member's buffers, shape, element
// type and reduction, rank, communicator and stream. CUDA builds only: an entry includes it under
// FABCHECK_HAVE_CUDA.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>

#include "bench/coll/collective.hpp"
#include "bench/cuda/nccl_library.hpp"  // nccl_functions(): NCCL is loaded on demand

namespace fabcheck {

// NCCL's names of verification.hpp's types and operations (ncclInt8 ... ncclBfloat16; ncclSum ...
// ncclAvg).
inline ncclDataType_t nccl_data_type(verify::DataType type) {
  switch (type) {
    case verify::DataType::int8:
      return ncclInt8;
    case verify::DataType::uint8:
      return ncclUint8;
    case verify::DataType::int32:
      return ncclInt32;
    case verify::DataType::uint32:
      return ncclUint32;
    case verify::DataType::int64:
      return ncclInt64;
    case verify::DataType::uint64:
      return ncclUint64;
    case verify::DataType::float16:
      return ncclFloat16;
    case verify::DataType::float32:
      return ncclFloat32;
    case verify::DataType::float64:
      return ncclFloat64;
    case verify::DataType::bfloat16:
      return ncclBfloat16;
  }
  return ncclFloat32;
}

inline ncclRedOp_t nccl_red_op(verify::ReduceOp op) {
  switch (op) {
    case verify::ReduceOp::sum:
      return ncclSum;
    case verify::ReduceOp::prod:
      return ncclProd;
    case verify::ReduceOp::min:
      return ncclMin;
    case verify::ReduceOp::max:
      return ncclMax;
    case verify::ReduceOp::avg:
      return ncclAvg;
  }
  return ncclSum;
}

struct NcclCall {
  const void* input = nullptr;  // where the entry's NCCL layout puts this member's input
  void* output = nullptr;       // and its output
  CollectiveShape shape;
  ncclDataType_t datatype = ncclFloat32;
  ncclRedOp_t op = ncclSum;       // a reducing collective's
  std::size_t element_bytes = 4;  // of datatype, for offsets into the buffers
  int rank = 0;                   // in the communicator
  int nranks = 1;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
};

}  // namespace fabcheck
