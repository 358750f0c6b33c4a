// The FP8 GEMM through cuBLASLt on one GPU, and its hash records (or waivers) for gpu.gemm.
#include "kernels/fp8_gemm.hpp"

#include <stdexcept>

#include "bench/cuda/cuda_memory.hpp"
#include "bench/cuda/cuda_stream.hpp"
#include "bench/cuda/scoped_device.hpp"
#include "bench/sdc/sdc_vote.hpp"
#include "bench/sys/nvml_library.hpp"
#include "kernels/cuda_device.hpp"
#include "kernels/device_output_hash.hpp"
#include "kernels/fp8_support.hpp"
#include "kernels/gemm_hashes.hpp"
#include "kernels/gpu_label.hpp"
#include "kernels/kernels.cuh"

namespace fabcheck {
namespace {

constexpr const char* kProbe = "gpu.gemm";

// One GPU's FP8 GEMM: D (bf16, n x n) = A^T B with A, B E4M3 (n x n, column-major), scales 1.
class Fp8Gemm {
 public:
  Fp8Gemm(int ordinal, int n, const CublasLtFunctions& lt) : ordinal_(ordinal), lt_(lt) {
    ScopedDevice device(ordinal_);
    const std::size_t elements = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
    a_ = DeviceMemory(elements);
    b_ = DeviceMemory(elements);
    d_ = DeviceMemory(elements * 2);
    scales_ = DeviceMemory(2 * sizeof(float));
    workspace_ = DeviceMemory(kFp8WorkspaceBytes);
    stream_ = std::make_unique<Stream>();
    FABCHECK_CUDA(kernels::launch_fill_fp8_input(a_.get(), elements, kFp8SeedA, stream_->get()));
    FABCHECK_CUDA(kernels::launch_fill_fp8_input(b_.get(), elements, kFp8SeedB, stream_->get()));
    const float ones[2] = {1.0f, 1.0f};
    FABCHECK_CUDA(
        cudaMemcpyAsync(scales_.get(), ones, sizeof ones, cudaMemcpyHostToDevice, stream_->get()));
    FABCHECK_CUDA(cudaMemsetAsync(d_.get(), 0, d_.bytes(), stream_->get()));
    FABCHECK_CUDA(cudaStreamSynchronize(stream_->get()));
    check(lt_.create(&handle_), "cublasLtCreate");
    check(lt_.desc_create(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
    const cublasOperation_t transposed = CUBLAS_OP_T;
    const cublasOperation_t plain = CUBLAS_OP_N;
    set_desc(CUBLASLT_MATMUL_DESC_TRANSA, &transposed, sizeof transposed);
    set_desc(CUBLASLT_MATMUL_DESC_TRANSB, &plain, sizeof plain);
    const float* a_scale = scales_.get<float>();
    const float* b_scale = scales_.get<float>() + 1;
    set_desc(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &a_scale, sizeof a_scale);
    set_desc(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &b_scale, sizeof b_scale);
    check(lt_.layout_create(&a_layout_, CUDA_R_8F_E4M3, n, n, n), "cublasLtMatrixLayoutCreate");
    check(lt_.layout_create(&b_layout_, CUDA_R_8F_E4M3, n, n, n), "cublasLtMatrixLayoutCreate");
    check(lt_.layout_create(&d_layout_, CUDA_R_16BF, n, n, n), "cublasLtMatrixLayoutCreate");
    check(lt_.preference_create(&preference_), "cublasLtMatmulPreferenceCreate");
    const std::uint64_t workspace = kFp8WorkspaceBytes;
    check(lt_.preference_set_attribute(preference_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                       &workspace, sizeof workspace),
          "cublasLtMatmulPreferenceSetAttribute");
    // One algorithm for the whole run: the heuristic's first.
    int returned = 0;
    check(lt_.algo_get_heuristic(handle_, desc_, a_layout_, b_layout_, d_layout_, d_layout_,
                                 preference_, 1, &heuristic_, &returned),
          "cublasLtMatmulAlgoGetHeuristic");
    if (returned < 1) throw std::runtime_error("cuBLASLt: no FP8 algorithm for this GEMM");
  }
  ~Fp8Gemm() {
    ScopedDevice device(ordinal_);
    if (preference_ != nullptr) (void)lt_.preference_destroy(preference_);
    for (cublasLtMatrixLayout_t layout : {a_layout_, b_layout_, d_layout_}) {
      if (layout != nullptr) (void)lt_.layout_destroy(layout);
    }
    if (desc_ != nullptr) (void)lt_.desc_destroy(desc_);
    if (handle_ != nullptr) (void)lt_.destroy(handle_);
  }
  Fp8Gemm(const Fp8Gemm&) = delete;
  Fp8Gemm& operator=(const Fp8Gemm&) = delete;

  void run() {
    ScopedDevice device(ordinal_);
    const float alpha = 1.0f;
    const float beta = 0.0f;
    check(lt_.matmul(handle_, desc_, &alpha, a_.get(), a_layout_, b_.get(), b_layout_, &beta,
                     d_.get(), d_layout_, d_.get(), d_layout_, &heuristic_.algo, workspace_.get(),
                     kFp8WorkspaceBytes, stream_->get()),
          "cublasLtMatmul");
  }

  std::uint64_t output_hash() const {
    ScopedDevice device(ordinal_);
    return device_output_hash(d_.get(), d_.bytes(), stream_->get());
  }

  // The pinned algorithm's identity: "id 66 tile 20 stages 12 splitk 1 reduction 0 swizzle 0
  // custom 0 inner 0 cluster 0" (cublasLtMatmulAlgoConfigGetAttribute; the last two are 16 bits
  // wide, the others 32).
  std::string algo() const {
    struct Attribute {
      cublasLtMatmulAlgoConfigAttributes_t attribute;
      const char* name;
      bool narrow;
    };
    const Attribute attributes[] = {{CUBLASLT_ALGO_CONFIG_ID, "id", false},
                                    {CUBLASLT_ALGO_CONFIG_TILE_ID, "tile", false},
                                    {CUBLASLT_ALGO_CONFIG_STAGES_ID, "stages", false},
                                    {CUBLASLT_ALGO_CONFIG_SPLITK_NUM, "splitk", false},
                                    {CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, "reduction", false},
                                    {CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, "swizzle", false},
                                    {CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, "custom", false},
                                    {CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, "inner", true},
                                    {CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, "cluster", true}};
    std::string text;
    for (const Attribute& a : attributes) {
      std::int32_t wide = 0;
      std::uint16_t narrow = 0;
      std::size_t written = 0;
      check(lt_.algo_config_get_attribute(&heuristic_.algo, a.attribute,
                                          a.narrow ? static_cast<void*>(&narrow) : &wide,
                                          a.narrow ? sizeof narrow : sizeof wide, &written),
            "cublasLtMatmulAlgoConfigGetAttribute");
      text += (text.empty() ? "" : " ") + std::string(a.name) + " " +
              std::to_string(a.narrow ? narrow : wide);
    }
    return text;
  }

 private:
  void check(cublasStatus_t status, const char* call) const {
    if (status != CUBLAS_STATUS_SUCCESS) {
      throw std::runtime_error(std::string("cuBLASLt: ") + call +
                               " failed: " + lt_.get_status_string(status));
    }
  }
  void set_desc(cublasLtMatmulDescAttributes_t attribute, const void* value, std::size_t bytes) {
    check(lt_.desc_set_attribute(desc_, attribute, value, bytes), "cublasLtMatmulDescSetAttribute");
  }

  int ordinal_;
  const CublasLtFunctions& lt_;
  DeviceMemory a_, b_, d_, scales_, workspace_;
  std::unique_ptr<Stream> stream_;
  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t a_layout_ = nullptr, b_layout_ = nullptr, d_layout_ = nullptr;
  cublasLtMatmulPreference_t preference_ = nullptr;
  cublasLtMatmulHeuristicResult_t heuristic_{};
};

}  // namespace

void emit_fp8_hashes(const std::vector<int>& ordinals, int gemm_size,
                     const CublasLtLibrary& cublaslt, MeasurementSink& sink) {
  const int n = fp8_gemm_size(gemm_size);
  for (int ordinal : ordinals) {
    const GpuLabel label = cuda_device_label(ordinal);
    cudaDeviceProp properties{};
    FABCHECK_CUDA(cudaGetDeviceProperties(&properties, ordinal));
    std::string waiver = fp8_waiver(properties.major, properties.minor);
    if (waiver.empty() && !cublaslt.ok()) waiver = "cuBLASLt: " + cublaslt.reason;
    Measurement m = gpu_measurement(label, kProbe, kGemmHashChangesMetric, 0, "count");
    m.params["dtype"] = kFp8Dtype;
    m.params["m_n_k"] = std::to_string(n);
    if (!waiver.empty()) {
      m.status = MeasurementStatus::waived;
      m.message = "no FP8 GEMM hash: " + waiver;
      sink.emit(std::move(m));
      continue;
    }
    // cuBLASLt refusing this GEMM (no algorithm, an unsupported layout) is this record's error;
    // the bf16 and tf32 figures before it stand.
    try {
      Fp8Gemm gemm(ordinal, n, *cublaslt.api);
      gemm.run();
      const std::uint64_t first = gemm.output_hash();
      for (int i = 0; i < kFp8Gemms; ++i) gemm.run();
      const std::uint64_t last = gemm.output_hash();
      m.value = last == first ? 0 : 1;
      m.params["output_hash"] = sdc::word_hex(last);
      m.params["output_hash_first"] = sdc::word_hex(first);
      m.params["seeds"] = sdc::word_hex(kFp8SeedA) + "," + sdc::word_hex(kFp8SeedB);
      m.params["inputs"] = "e4m3, A transposed, scales 1";
      m.params["output"] = "bf16";
      m.params["algo"] = gemm.algo();
      m.params["workspace_bytes"] = std::to_string(kFp8WorkspaceBytes);
      m.params["cublas_library"] = cublaslt.path;
      m.params["driver"] = process_nvml().driver_version;
      m.params["sms"] = std::to_string(properties.multiProcessorCount);
    } catch (const std::runtime_error& error) {
      m.status = MeasurementStatus::error;
      m.message = std::string("FP8 GEMM hash: ") + error.what();
    }
    sink.emit(std::move(m));
  }
}

}  // namespace fabcheck
