// cuBLASLt loaded at run time (dlopen of libcublasLt.so.<CUDA major> when gpu.gemm's FP8 hash first
// needs it), as cuBLAS is (cublas_library.hpp): the entry points fabcheck calls, so a node without
// cuBLASLt starts and waives the FP8 hash naming what is missing. CUDA builds only (cublasLt.h).
#pragma once

#include <cublasLt.h>

#include <memory>
#include <string>

namespace fabcheck {

// Exactly the cuBLASLt functions fabcheck calls.
struct CublasLtFunctions {
  decltype(&::cublasLtCreate) create = nullptr;
  decltype(&::cublasLtDestroy) destroy = nullptr;
  decltype(&::cublasLtMatmulDescCreate) desc_create = nullptr;
  decltype(&::cublasLtMatmulDescDestroy) desc_destroy = nullptr;
  decltype(&::cublasLtMatmulDescSetAttribute) desc_set_attribute = nullptr;
  decltype(&::cublasLtMatrixLayoutCreate) layout_create = nullptr;
  decltype(&::cublasLtMatrixLayoutDestroy) layout_destroy = nullptr;
  decltype(&::cublasLtMatmulPreferenceCreate) preference_create = nullptr;
  decltype(&::cublasLtMatmulPreferenceDestroy) preference_destroy = nullptr;
  decltype(&::cublasLtMatmulPreferenceSetAttribute) preference_set_attribute = nullptr;
  decltype(&::cublasLtMatmulAlgoGetHeuristic) algo_get_heuristic = nullptr;
  decltype(&::cublasLtMatmulAlgoConfigGetAttribute) algo_config_get_attribute = nullptr;
  decltype(&::cublasLtMatmul) matmul = nullptr;
  decltype(&::cublasLtGetStatusString) get_status_string = nullptr;
};

// cuBLASLt loaded, or why not: "libcublasLt.so.13 not found (the CUDA 13 toolkit's cuBLASLt is
// not installed, or not on the library path)", "libcublasLt.so.13 lacks cublasLtMatmul".
struct CublasLtLibrary {
  std::shared_ptr<const CublasLtFunctions> api;  // null when cuBLASLt could not load
  std::string reason;
  std::string path;  // the file loaded, links resolved (SharedLibrary::path); "" when not loaded

  bool ok() const { return api != nullptr; }
};

// The soname of the cuBLASLt built against: "libcublasLt.so.13".
std::string cublaslt_soname();

// Opens `library` (a soname or a path) with dlopen and resolves every entry point. Never throws.
CublasLtLibrary load_cublaslt(const std::string& library);

// This process's cuBLASLt: loaded once, on first use, from cublaslt_soname() (or the file named by
// FABCHECK_CUBLASLT_LIBRARY, for tests), and kept for the process's lifetime.
const CublasLtLibrary& process_cublaslt();

}  // namespace fabcheck
