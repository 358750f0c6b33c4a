// cuBLAS loaded at run time (dlopen of libcublas.so.<CUDA major> when gpu.gemm first needs it):
// the entry points fabcheck calls, so a node without cuBLAS starts and waives gpu.gemm naming what
// is missing. CUDA builds only (cublas_v2.h at build time).
#pragma once

#include <cublas_v2.h>

#include <memory>
#include <string>

namespace fabcheck {

// Exactly the cuBLAS functions fabcheck calls (cublas_v2.h's names map to the _v2 symbols).
struct CublasFunctions {
  decltype(&::cublasCreate_v2) create = nullptr;
  decltype(&::cublasDestroy_v2) destroy = nullptr;
  decltype(&::cublasSetStream_v2) set_stream = nullptr;
  // cublasGemmEx is overloaded in C++ (an int64_t form): the 32-bit C entry point, spelled out.
  using GemmEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
                                    int, const void*, const void*, cudaDataType, int, const void*,
                                    cudaDataType, int, const void*, void*, cudaDataType, int,
                                    cublasComputeType_t, cublasGemmAlgo_t);
  GemmEx gemm_ex = nullptr;
  decltype(&::cublasGetStatusString) get_status_string = nullptr;
};

// cuBLAS loaded, or why not: "libcublas.so.13 not found (the CUDA 13 toolkit's cuBLAS is not
// installed, or not on the library path)", "libcublas.so.13 lacks cublasGemmEx".
struct CublasLibrary {
  std::shared_ptr<const CublasFunctions> api;  // null when cuBLAS could not load
  std::string reason;
  std::string path;  // the file loaded, links resolved (SharedLibrary::path); "" when not loaded

  bool ok() const { return api != nullptr; }
};

// The soname of the cuBLAS built against: "libcublas.so.13".
std::string cublas_soname();

// Opens `library` (a soname or a path) with dlopen and resolves every entry point. Never throws.
CublasLibrary load_cublas(const std::string& library);

// This process's cuBLAS: loaded once, on first use, from cublas_soname() (or the file named by
// FABCHECK_CUBLAS_LIBRARY, for tests), and kept for the process's lifetime.
const CublasLibrary& process_cublas();

// process_cublas()'s functions; throws std::runtime_error("cuBLAS: <reason>") when it did not load.
const CublasFunctions& cublas_functions();

}  // namespace fabcheck
