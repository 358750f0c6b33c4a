// cuBLASLt's entry points resolved from libcublasLt.so.<major> at run time, with a reason when not.
#include "bench/cuda/cublaslt_library.hpp"

#include "bench/sys/shared_library.hpp"

namespace fabcheck {

std::string cublaslt_soname() { return "libcublasLt.so." + std::to_string(CUBLAS_VER_MAJOR); }

CublasLtLibrary load_cublaslt(const std::string& library) {
  CublasLtLibrary loaded;
  const SharedLibrary opened = open_shared_library(library, {FABCHECK_CUDA_LIBRARY_DIR});
  if (opened.handle == nullptr) {
    loaded.reason = opened.reason + " (the CUDA " + std::to_string(CUBLAS_VER_MAJOR) +
                    " toolkit's cuBLASLt is not installed, or not on the library path)";
    return loaded;
  }
  auto api = std::make_shared<CublasLtFunctions>();
  std::string missing;
  void* h = opened.handle;
  resolve_symbol(h, "cublasLtCreate", api->create, missing);
  resolve_symbol(h, "cublasLtDestroy", api->destroy, missing);
  resolve_symbol(h, "cublasLtMatmulDescCreate", api->desc_create, missing);
  resolve_symbol(h, "cublasLtMatmulDescDestroy", api->desc_destroy, missing);
  resolve_symbol(h, "cublasLtMatmulDescSetAttribute", api->desc_set_attribute, missing);
  resolve_symbol(h, "cublasLtMatrixLayoutCreate", api->layout_create, missing);
  resolve_symbol(h, "cublasLtMatrixLayoutDestroy", api->layout_destroy, missing);
  resolve_symbol(h, "cublasLtMatmulPreferenceCreate", api->preference_create, missing);
  resolve_symbol(h, "cublasLtMatmulPreferenceDestroy", api->preference_destroy, missing);
  resolve_symbol(h, "cublasLtMatmulPreferenceSetAttribute", api->preference_set_attribute, missing);
  resolve_symbol(h, "cublasLtMatmulAlgoGetHeuristic", api->algo_get_heuristic, missing);
  resolve_symbol(h, "cublasLtMatmulAlgoConfigGetAttribute", api->algo_config_get_attribute,
                 missing);
  resolve_symbol(h, "cublasLtMatmul", api->matmul, missing);
  resolve_symbol(h, "cublasLtGetStatusString", api->get_status_string, missing);
  if (!missing.empty()) {
    loaded.reason = library_file_name(library) + " lacks " + missing;
    return loaded;
  }
  loaded.api = std::move(api);
  loaded.path = opened.path;
  return loaded;
}

const CublasLtLibrary& process_cublaslt() {
  static const CublasLtLibrary library =
      load_cublaslt(library_to_open("FABCHECK_CUBLASLT_LIBRARY", cublaslt_soname()));
  return library;
}

}  // namespace fabcheck
