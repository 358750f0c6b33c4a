// The cuBLASLt test double (fake_cublaslt.hpp): descriptors as host objects, the FP8 GEMM computed
// on the host, after what the fake CUDA queued on the matmul's stream.
#include "fake_cublaslt.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <mutex>

namespace fabcheck::fake_cuda {
namespace {

struct Layout {
  cudaDataType type;
  std::uint64_t rows, cols;
  std::int64_t ld;
};
struct Desc {
  cublasOperation_t transa = CUBLAS_OP_N, transb = CUBLAS_OP_N;
  const float* a_scale = nullptr;
  const float* b_scale = nullptr;
};

struct LtState {
  std::mutex mutex;
  LtCalls calls;
  int flip_at = 0;
  bool no_algorithm = false;
};
LtState& lt_state() {
  static LtState s;
  return s;
}

// An FP8 E4M3 byte's value: sign, 4 exponent bits (bias 7), 3 mantissa bits; S.1111.111 is NaN.
float e4m3_value(std::uint8_t x) {
  const int exponent = (x >> 3) & 0xF;
  const int mantissa = x & 7;
  if (exponent == 0xF && mantissa == 7) return NAN;
  const float magnitude =
      exponent == 0 ? std::ldexp(static_cast<float>(mantissa) / 8.0f, -6)
                    : std::ldexp(1.0f + static_cast<float>(mantissa) / 8.0f, exponent - 7);
  return (x & 0x80) != 0 ? -magnitude : magnitude;
}

// The bf16 nearest `value` (ties to even), as bits.
std::uint16_t bf16_bits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if (std::isnan(value)) return 0x7FC0;
  bits += 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>(bits >> 16);
}

Desc* desc_of(cublasLtMatmulDesc_t desc) { return reinterpret_cast<Desc*>(desc); }
Layout* layout_of(cublasLtMatrixLayout_t layout) { return reinterpret_cast<Layout*>(layout); }

cublasStatus_t create(cublasLtHandle_t* handle) {
  *handle = reinterpret_cast<cublasLtHandle_t>(new int(0));
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t destroy(cublasLtHandle_t handle) {
  delete reinterpret_cast<int*>(handle);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t desc_create(cublasLtMatmulDesc_t* desc, cublasComputeType_t compute,
                           cudaDataType_t scale) {
  if (compute != CUBLAS_COMPUTE_32F || scale != CUDA_R_32F) return CUBLAS_STATUS_NOT_SUPPORTED;
  *desc = reinterpret_cast<cublasLtMatmulDesc_t>(new Desc);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t desc_destroy(cublasLtMatmulDesc_t desc) {
  delete desc_of(desc);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t desc_set_attribute(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr,
                                  const void* buf, size_t size) {
  Desc* d = desc_of(desc);
  switch (attr) {
    case CUBLASLT_MATMUL_DESC_TRANSA:
      if (size != sizeof d->transa) return CUBLAS_STATUS_INVALID_VALUE;
      std::memcpy(&d->transa, buf, size);
      return CUBLAS_STATUS_SUCCESS;
    case CUBLASLT_MATMUL_DESC_TRANSB:
      if (size != sizeof d->transb) return CUBLAS_STATUS_INVALID_VALUE;
      std::memcpy(&d->transb, buf, size);
      return CUBLAS_STATUS_SUCCESS;
    case CUBLASLT_MATMUL_DESC_A_SCALE_POINTER:
      if (size != sizeof d->a_scale) return CUBLAS_STATUS_INVALID_VALUE;
      std::memcpy(&d->a_scale, buf, size);
      return CUBLAS_STATUS_SUCCESS;
    case CUBLASLT_MATMUL_DESC_B_SCALE_POINTER:
      if (size != sizeof d->b_scale) return CUBLAS_STATUS_INVALID_VALUE;
      std::memcpy(&d->b_scale, buf, size);
      return CUBLAS_STATUS_SUCCESS;
    default:
      return CUBLAS_STATUS_NOT_SUPPORTED;  // nothing else is asked of the fake
  }
}
cublasStatus_t layout_create(cublasLtMatrixLayout_t* layout, cudaDataType type, std::uint64_t rows,
                             std::uint64_t cols, std::int64_t ld) {
  *layout = reinterpret_cast<cublasLtMatrixLayout_t>(new Layout{type, rows, cols, ld});
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t layout_destroy(cublasLtMatrixLayout_t layout) {
  delete layout_of(layout);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t preference_create(cublasLtMatmulPreference_t* preference) {
  *preference = reinterpret_cast<cublasLtMatmulPreference_t>(new std::uint64_t(0));
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t preference_destroy(cublasLtMatmulPreference_t preference) {
  delete reinterpret_cast<std::uint64_t*>(preference);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t preference_set_attribute(cublasLtMatmulPreference_t preference,
                                        cublasLtMatmulPreferenceAttributes_t attr, const void* buf,
                                        size_t size) {
  if (attr != CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES || size != sizeof(std::uint64_t))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  std::memcpy(reinterpret_cast<std::uint64_t*>(preference), buf, size);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t algo_get_heuristic(cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t,
                                  cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
                                  cublasLtMatrixLayout_t, cublasLtMatmulPreference_t preference,
                                  int requested, cublasLtMatmulHeuristicResult_t* results,
                                  int* returned) {
  const std::lock_guard lock(lt_state().mutex);
  ++lt_state().calls.heuristics;
  lt_state().calls.workspace = *reinterpret_cast<std::uint64_t*>(preference);
  *returned = 0;
  if (requested < 1) return CUBLAS_STATUS_INVALID_VALUE;
  if (lt_state().no_algorithm) return CUBLAS_STATUS_SUCCESS;  // as cuBLASLt: none returned
  results[0] = cublasLtMatmulHeuristicResult_t{};
  // id, tile, stages, split-k, reduction, swizzle, custom; the inner shape (3) and the cluster
  // shape (2) share the last of the algorithm's 8 words.
  const std::uint64_t config[8] = {66, 20, 12, 1, 0, 0, 0, 3 | 2 << 16};
  std::memcpy(results[0].algo.data, config, sizeof config);
  results[0].state = CUBLAS_STATUS_SUCCESS;
  results[0].wavesCount = 1.0f;
  *returned = 1;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t algo_config_get_attribute(const cublasLtMatmulAlgo_t* algo,
                                         cublasLtMatmulAlgoConfigAttributes_t attr, void* buf,
                                         size_t size, size_t* written) {
  // The 32-bit attributes in words 0..6 of the algorithm, in this order.
  const cublasLtMatmulAlgoConfigAttributes_t wide[] = {CUBLASLT_ALGO_CONFIG_ID,
                                                       CUBLASLT_ALGO_CONFIG_TILE_ID,
                                                       CUBLASLT_ALGO_CONFIG_STAGES_ID,
                                                       CUBLASLT_ALGO_CONFIG_SPLITK_NUM,
                                                       CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME,
                                                       CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING,
                                                       CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION};
  for (int slot = 0; slot < 7; ++slot) {
    if (attr != wide[slot]) continue;
    if (size != sizeof(std::int32_t)) return CUBLAS_STATUS_INVALID_VALUE;  // as the real one
    const auto value = static_cast<std::int32_t>(algo->data[slot]);
    std::memcpy(buf, &value, sizeof value);
    *written = sizeof value;
    return CUBLAS_STATUS_SUCCESS;
  }
  if (attr != CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID && attr != CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  if (size != sizeof(std::uint16_t)) return CUBLAS_STATUS_INVALID_VALUE;  // 16 bits wide
  const auto value = static_cast<std::uint16_t>(
      algo->data[7] >> (attr == CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID ? 0 : 16));
  std::memcpy(buf, &value, sizeof value);
  *written = sizeof value;
  return CUBLAS_STATUS_SUCCESS;
}
// D = alpha * a_scale * b_scale * op(A) op(B) + beta * C, as cuBLASLt's FP8 GEMM defines it, with
// A transposed (the only FP8 layout cuBLASLt takes) and B not.
cublasStatus_t matmul(cublasLtHandle_t, cublasLtMatmulDesc_t desc, const void* alpha, const void* a,
                      cublasLtMatrixLayout_t a_layout, const void* b,
                      cublasLtMatrixLayout_t b_layout, const void* beta, const void*,
                      cublasLtMatrixLayout_t, void* d, cublasLtMatrixLayout_t d_layout,
                      const cublasLtMatmulAlgo_t* algo, void*, size_t, cudaStream_t stream) {
  const Desc& op = *desc_of(desc);
  const Layout& la = *layout_of(a_layout);
  const Layout& lb = *layout_of(b_layout);
  const Layout& ld = *layout_of(d_layout);
  if (algo == nullptr || op.transa != CUBLAS_OP_T || op.transb != CUBLAS_OP_N ||
      la.type != CUDA_R_8F_E4M3 || lb.type != CUDA_R_8F_E4M3 || ld.type != CUDA_R_16BF ||
      *static_cast<const float*>(beta) != 0.0f)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  if (cudaStreamSynchronize(stream) != cudaSuccess) return CUBLAS_STATUS_EXECUTION_FAILED;
  const float scale = *static_cast<const float*>(alpha) * *op.a_scale * *op.b_scale;
  const auto* as = static_cast<const std::uint8_t*>(a);
  const auto* bs = static_cast<const std::uint8_t*>(b);
  auto* ds = static_cast<std::uint16_t*>(d);
  const std::uint64_t k = la.rows;  // A is k x m, transposed
  for (std::uint64_t j = 0; j < ld.cols; ++j) {
    for (std::uint64_t i = 0; i < ld.rows; ++i) {
      float sum = 0;
      for (std::uint64_t kk = 0; kk < k; ++kk) {
        sum += e4m3_value(as[kk + i * static_cast<std::uint64_t>(la.ld)]) *
               e4m3_value(bs[kk + j * static_cast<std::uint64_t>(lb.ld)]);
      }
      ds[i + j * static_cast<std::uint64_t>(ld.ld)] = bf16_bits(scale * sum);
    }
  }
  const std::lock_guard lock(lt_state().mutex);
  LtCalls& calls = lt_state().calls;
  ++calls.matmuls;
  calls.a_scale = *op.a_scale;
  calls.b_scale = *op.b_scale;
  calls.a_type = la.type;
  calls.d_type = ld.type;
  if (calls.matmuls == lt_state().flip_at) ds[0] ^= 1u;
  return CUBLAS_STATUS_SUCCESS;
}
const char* status_string(cublasStatus_t status) {
  return status == CUBLAS_STATUS_SUCCESS ? "success" : "fake cuBLASLt error";
}

}  // namespace

CublasLtLibrary fake_cublaslt() {
  auto api = std::make_shared<CublasLtFunctions>();
  api->create = create;
  api->destroy = destroy;
  api->desc_create = desc_create;
  api->desc_destroy = desc_destroy;
  api->desc_set_attribute = desc_set_attribute;
  api->layout_create = layout_create;
  api->layout_destroy = layout_destroy;
  api->preference_create = preference_create;
  api->preference_destroy = preference_destroy;
  api->preference_set_attribute = preference_set_attribute;
  api->algo_get_heuristic = algo_get_heuristic;
  api->algo_config_get_attribute = algo_config_get_attribute;
  api->matmul = matmul;
  api->get_status_string = status_string;
  CublasLtLibrary library;
  library.api = std::move(api);
  library.path = "/fake/libcublasLt.so.13.0.0";
  return library;
}

void reset_cublaslt(int flip_at, bool no_algorithm) {
  const std::lock_guard lock(lt_state().mutex);
  lt_state().calls = {};
  lt_state().flip_at = flip_at;
  lt_state().no_algorithm = no_algorithm;
}

LtCalls cublaslt_calls() {
  const std::lock_guard lock(lt_state().mutex);
  return lt_state().calls;
}

}  // namespace fabcheck::fake_cuda
