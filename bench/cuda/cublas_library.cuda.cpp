// cuBLAS's entry points resolved from libcublas.so.<major> at run time, with a reason when not.
#include "bench/cuda/cublas_library.hpp"

#include <stdexcept>

#include "bench/sys/shared_library.hpp"

namespace fabcheck {

std::string cublas_soname() { return "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR); }

CublasLibrary load_cublas(const std::string& library) {
  CublasLibrary loaded;
  const SharedLibrary opened = open_shared_library(library, {FABCHECK_CUDA_LIBRARY_DIR});
  if (opened.handle == nullptr) {
    loaded.reason = opened.reason + " (the CUDA " + std::to_string(CUBLAS_VER_MAJOR) +
                    " toolkit's cuBLAS is not installed, or not on the library path)";
    return loaded;
  }
  auto api = std::make_shared<CublasFunctions>();
  std::string missing;
  void* h = opened.handle;
  resolve_symbol(h, "cublasCreate_v2", api->create, missing);
  resolve_symbol(h, "cublasDestroy_v2", api->destroy, missing);
  resolve_symbol(h, "cublasSetStream_v2", api->set_stream, missing);
  resolve_symbol(h, "cublasGemmEx", api->gemm_ex, missing);
  resolve_symbol(h, "cublasGetStatusString", api->get_status_string, missing);
  if (!missing.empty()) {
    loaded.reason = library_file_name(library) + " lacks " + missing;
    return loaded;
  }
  loaded.api = std::move(api);
  loaded.path = opened.path;
  return loaded;
}

const CublasLibrary& process_cublas() {
  static const CublasLibrary library =
      load_cublas(library_to_open("FABCHECK_CUBLAS_LIBRARY", cublas_soname()));
  return library;
}

const CublasFunctions& cublas_functions() {
  const CublasLibrary& library = process_cublas();
  if (!library.ok()) throw std::runtime_error("cuBLAS: " + library.reason);
  return *library.api;
}

}  // namespace fabcheck
