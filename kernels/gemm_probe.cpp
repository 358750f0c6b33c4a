// gpu.gemm: cuBLAS GEMM throughput in bf16 and tf32 on every GPU of this rank at once, sustained
// for --opt gemm_seconds so clocks and temperature settle (bf16 for --opt gpu.burn_s when given,
// the burn); NVML telemetry sampled under that load, and clocks, power, temperature and
// clock-event reasons every --opt gpu.sample_ms through the bf16 run for throttling over time; a
// few output elements checked against a host reference, and the whole output's hash recorded after
// the first and the last GEMM with the cuBLAS and driver that made it (kernels/gemm_hashes.hpp);
// then an FP8 GEMM's hash through cuBLASLt where the GPU has FP8 (kernels/fp8_gemm.hpp).
#include <string>

#include "kernels/gemm_hashes.hpp"
#include "kernels/gpu_options.hpp"
#include "kernels/gpu_probe.hpp"
#include "kernels/telemetry_measurements.hpp"
#include "kernels/throttle_analysis.hpp"

#if defined(FABCHECK_HAVE_CUDA)

#include <cstdio>
#include <memory>
#include <stdexcept>

#include "bench/core/run_processes.hpp"
#include "bench/core/stats.hpp"
#include "bench/cuda/cublas_library.hpp"
#include "bench/cuda/cuda_memory.hpp"
#include "bench/cuda/cuda_stream.hpp"
#include "bench/cuda/scoped_device.hpp"
#include "bench/sdc/sdc_vote.hpp"
#include "bench/sys/nvml_library.hpp"
#include "bench/sys/timer.hpp"
#include "kernels/clock_sampler.hpp"
#include "kernels/cuda_device.hpp"
#include "kernels/device_output_hash.hpp"
#include "kernels/fp8_gemm.hpp"
#include "kernels/gemm_reference.hpp"
#include "kernels/kernels.cuh"
#include "kernels/telemetry_sampling.hpp"
#endif

namespace fabcheck {
namespace {

constexpr const char* kProbe = "gpu.gemm";

std::vector<MetricSpec> gemm_metrics() {
  std::vector<MetricSpec> metrics = {higher_better("bf16_tflops", "TFLOP/s"),
                                     higher_better("tf32_tflops", "TFLOP/s"), wrong_elements(),
                                     lower_better(kGemmHashChangesMetric, "count")};
  for (const std::vector<MetricSpec>& more : {telemetry_metric_specs(), throttle_metric_specs()}) {
    metrics.insert(metrics.end(), more.begin(), more.end());
  }
  return metrics;
}

// The bf16 burn and the sustained tf32 GEMM, plus cuBLAS start-up (assumed 2 s) and the FP8 hash's
// cuBLASLt start-up and few GEMMs (assumed 1 s).
ProbeEstimate estimate_gemm(const RunOptions& options, const JobShape&) {
  const double burn_s = gemm_burn_seconds(options);
  const double tf32_s = gemm_seconds(options);
  return {3 + burn_s + tf32_s, "bf16 " + std::to_string(static_cast<int>(burn_s)) + " s + tf32 " +
                                   std::to_string(static_cast<int>(tf32_s)) + " s + fp8 hash"};
}

#if defined(FABCHECK_HAVE_CUDA)
constexpr int kGemmsPerSample = 10;
constexpr std::uint64_t kSeedA = 0x6765'6d61;
constexpr std::uint64_t kSeedB = 0x6765'6d62;
// Where telemetry is read: this far into the sustained run, with work queued on every GPU.
constexpr double kTelemetryAt = 0.7;

void check_cublas(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string("cuBLAS: ") + call +
                             " failed: " + cublas_functions().get_status_string(status));
  }
}

struct GemmType {
  const char* metric;  // "bf16_tflops"
  const char* name;    // "bf16"
  bool bf16;
};

// One GPU's GEMM: handle, stream, operands, events around each sample.
class GemmRunner {
 public:
  GemmRunner(int ordinal, GpuLabel label, int n, const GemmType& type)
      : ordinal_(ordinal), label_(std::move(label)), n_(n), type_(type) {
    ScopedDevice device(ordinal_);
    const std::size_t elements = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
    const std::size_t element_bytes = type.bf16 ? 2 : 4;
    a_ = DeviceMemory(elements * element_bytes);
    b_ = DeviceMemory(elements * element_bytes);
    c_ = DeviceMemory(elements * element_bytes);
    stream_ = std::make_unique<Stream>();
    start_ = std::make_unique<Event>();
    stop_ = std::make_unique<Event>();
    check_cublas(cublas_functions().create(&handle_), "cublasCreate");
    check_cublas(cublas_functions().set_stream(handle_, stream_->get()), "cublasSetStream");
    FABCHECK_CUDA(
        kernels::launch_fill_gemm_input(a_.get(), elements, kSeedA, type.bf16, stream_->get()));
    FABCHECK_CUDA(
        kernels::launch_fill_gemm_input(b_.get(), elements, kSeedB, type.bf16, stream_->get()));
    FABCHECK_CUDA(cudaMemsetAsync(c_.get(), 0, c_.bytes(), stream_->get()));
    FABCHECK_CUDA(cudaStreamSynchronize(stream_->get()));
  }
  ~GemmRunner() {
    if (handle_ != nullptr) {
      ScopedDevice device(ordinal_);
      (void)cublas_functions().destroy(handle_);
    }
  }
  GemmRunner(const GemmRunner&) = delete;
  GemmRunner& operator=(const GemmRunner&) = delete;

  // Queues one sample: kGemmsPerSample GEMMs between two events.
  void enqueue_sample() {
    ScopedDevice device(ordinal_);
    FABCHECK_CUDA(cudaEventRecord(start_->get(), stream_->get()));
    const float alpha = 1.0f;
    const float beta = 0.0f;
    const cudaDataType_t data = type_.bf16 ? CUDA_R_16BF : CUDA_R_32F;
    const cublasComputeType_t compute =
        type_.bf16 ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_32F_FAST_TF32;
    for (int i = 0; i < kGemmsPerSample; ++i) {
      check_cublas(cublas_functions().gemm_ex(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n_, n_, n_, &alpha,
                                              a_.get(), data, n_, b_.get(), data, n_, &beta,
                                              c_.get(), data, n_, compute, CUBLAS_GEMM_DEFAULT),
                   "cublasGemmEx");
    }
    FABCHECK_CUDA(cudaEventRecord(stop_->get(), stream_->get()));
  }

  // Waits for the queued sample; records its TFLOP/s unless `keep` is false (warm-up).
  void finish_sample(bool keep) {
    ScopedDevice device(ordinal_);
    FABCHECK_CUDA(cudaEventSynchronize(stop_->get()));
    float ms = 0;
    FABCHECK_CUDA(cudaEventElapsedTime(&ms, start_->get(), stop_->get()));
    if (!keep || ms <= 0) return;
    const double flops = 2.0 * n_ * static_cast<double>(n_) * n_ * kGemmsPerSample;
    tflops_.push_back(flops / (static_cast<double>(ms) * 1e-3) / 1e12);
  }

  // Output elements that differ from the host reference (of the few checked).
  int wrong_elements() const {
    ScopedDevice device(ordinal_);
    const int n = n_;
    const std::pair<int, int> positions[] = {
        {0, 0}, {n - 1, n - 1}, {n / 2, n / 3}, {17 % n, n - 5}};
    int wrong = 0;
    for (const auto& [row, column] : positions) {
      const std::size_t offset = static_cast<std::size_t>(row) +
                                 static_cast<std::size_t>(column) * static_cast<std::size_t>(n);
      double observed = 0;
      if (type_.bf16) {
        std::uint16_t bits = 0;
        FABCHECK_CUDA(cudaMemcpy(&bits, c_.get<std::uint16_t>() + offset, sizeof bits,
                                 cudaMemcpyDeviceToHost));
        observed = bf16_bits_to_float(bits);
      } else {
        float value = 0;
        FABCHECK_CUDA(
            cudaMemcpy(&value, c_.get<float>() + offset, sizeof value, cudaMemcpyDeviceToHost));
        observed = value;
      }
      const GemmElementCheck check = gemm_element_check(kSeedA, kSeedB, n, row, column, type_.bf16);
      if (!(std::abs(observed - check.expected) <= check.tolerance)) ++wrong;
    }
    return wrong;
  }

  // The hash of the whole output (sdc::output_hash over its 32-bit words): C = A x B with beta 0,
  // so every GEMM of the run leaves the same bits, and the same GEMM on another GPU of the model,
  // driver and cuBLAS must too (cuBLAS: bit-wise reproducible on one architecture, SM count and
  // version with its default, atomics-free mode).
  std::uint64_t output_hash() const {
    ScopedDevice device(ordinal_);
    return device_output_hash(c_.get(), c_.bytes(), stream_->get());
  }

  const GpuLabel& label() const { return label_; }
  const std::vector<double>& tflops() const { return tflops_; }
  int sms() const {
    int count = 0;
    FABCHECK_CUDA(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, ordinal_));
    return count;
  }

 private:
  int ordinal_;
  GpuLabel label_;
  int n_;
  GemmType type_;
  DeviceMemory a_, b_, c_;
  std::unique_ptr<Stream> stream_;
  std::unique_ptr<Event> start_, stop_;
  cublasHandle_t handle_ = nullptr;
  std::vector<double> tflops_;
};

void run_type(const std::vector<int>& ordinals, const GemmType& type, const RunOptions& options,
              World& world, bool sample_telemetry, const std::set<unsigned>& own_pids,
              MeasurementSink& sink) {
  const int n = gemm_size(options);
  // The telemetry run is the burn: the hottest type, held longest.
  const double seconds = sample_telemetry ? gemm_burn_seconds(options) : gemm_seconds(options);
  std::vector<std::unique_ptr<GemmRunner>> runners;
  for (int ordinal : ordinals) {
    runners.push_back(std::make_unique<GemmRunner>(ordinal, cuda_device_label(ordinal), n, type));
  }
  std::unique_ptr<ClockSampler> sampler;
  if (sample_telemetry && process_nvml().ok()) {
    std::vector<unsigned> indices;
    for (const auto& runner : runners)
      indices.push_back(static_cast<unsigned>(runner->label().index));
    sampler =
        std::make_unique<ClockSampler>(process_nvml().api, indices, clock_sample_period_s(options));
  }
  Stopwatch watch;
  bool warm = false;
  bool sampled = !sample_telemetry;
  std::vector<std::optional<GpuTelemetry>> under_load(runners.size());
  std::vector<std::uint64_t> cold_hash(runners.size());
  while (!warm || watch.elapsed_s() < seconds) {
    world.mark_progress();
    for (auto& runner : runners) runner->enqueue_sample();
    if (!sampled && watch.elapsed_s() >= kTelemetryAt * seconds) {
      for (std::size_t i = 0; i < runners.size(); ++i) {
        under_load[i] = sample_gpu(runners[i]->label().bus_id, TelemetryPhase::load, own_pids);
      }
      sampled = true;
    }
    for (auto& runner : runners) runner->finish_sample(warm);
    if (!warm) {
      for (std::size_t i = 0; i < runners.size(); ++i) cold_hash[i] = runners[i]->output_hash();
    }
    warm = true;
  }
  const std::vector<ClockSeries> series = sampler ? sampler->stop() : std::vector<ClockSeries>();
  for (std::size_t i = 0; i < runners.size(); ++i) {
    const GemmRunner& runner = *runners[i];
    auto label_params = [&](Measurement& m) {
      m.params["dtype"] = type.name;
      m.params["m_n_k"] = std::to_string(n);
      m.params["seconds"] = std::to_string(seconds);
    };
    if (!runner.tflops().empty()) {
      const SampleStats stats = compute_stats(runner.tflops());
      Measurement m = gpu_measurement(runner.label(), kProbe, type.metric, stats.median, "TFLOP/s");
      m.stats = stats;
      label_params(m);
      m.params["cublas_library"] = process_cublas().path;  // which copy gave this figure
      sink.emit(std::move(m));
    }
    Measurement checked =
        gpu_measurement(runner.label(), kProbe, "wrong_elements", runner.wrong_elements(), "count");
    label_params(checked);
    sink.emit(std::move(checked));
    const std::uint64_t hot_hash = runner.output_hash();
    Measurement hashed = gpu_measurement(runner.label(), kProbe, kGemmHashChangesMetric,
                                         hot_hash == cold_hash[i] ? 0 : 1, "count");
    label_params(hashed);
    hashed.params["output_hash"] = sdc::word_hex(hot_hash);
    hashed.params["output_hash_first"] = sdc::word_hex(cold_hash[i]);
    hashed.params["seeds"] = sdc::word_hex(kSeedA) + "," + sdc::word_hex(kSeedB);
    hashed.params["cublas_library"] = process_cublas().path;
    hashed.params["driver"] = process_nvml().driver_version;
    hashed.params["sms"] = std::to_string(runner.sms());
    sink.emit(std::move(hashed));
    if (under_load[i]) {
      for (Measurement& m : telemetry_to_measurements(*under_load[i], kProbe)) {
        label_params(m);
        sink.emit(std::move(m));
      }
    }
    if (i < series.size()) {
      for (Measurement& m :
           throttle_measurements(summarize_throttling(series[i]), runner.label(), kProbe)) {
        const std::string sampled_seconds = m.params["seconds"];  // what the samples span
        label_params(m);
        m.params["seconds"] = sampled_seconds;
        sink.emit(std::move(m));
      }
    }
  }
}

void run_gemm(RunContext& context, MeasurementSink& sink) {
  const std::set<unsigned> own_pids = run_pids_on_this_host(context.world);  // every rank
  const std::vector<int> ordinals = devices_of_this_rank(context.world);
  if (ordinals.empty()) return;
  // Telemetry under load once, during the bf16 run (the hottest).
  run_type(ordinals, {"bf16_tflops", "bf16", true}, context.options, context.world, true, own_pids,
           sink);
  run_type(ordinals, {"tf32_tflops", "tf32", false}, context.options, context.world, false,
           own_pids, sink);
  context.world.mark_progress();
  emit_fp8_hashes(ordinals, gemm_size(context.options), process_cublaslt(), sink);
}
#endif

}  // namespace

std::unique_ptr<Probe> make_gpu_gemm_probe() {
  return make_gpu_probe(
      {.id = kProbe,
       .description =
           "cuBLAS GEMM throughput, bf16 and tf32, sustained (--opt gemm_seconds=S) so clocks and "
           "temperature settle; bf16 burns --opt gpu.burn_s=S with clocks, power, temperature and "
           "clock-event reasons sampled every --opt gpu.sample_ms=100: throttled time per reason, "
           "clock at the end against the start; the output hashes of bf16, tf32 and (cuBLASLt, "
           "compute capability 8.9+) FP8 GEMMs",
       .metrics = gemm_metrics(),
       .needs_cublas = true,
       .options = gemm_options(),
       .estimate = estimate_gemm,
       .body = FABCHECK_GPU_BODY(run_gemm),
       // The GPU judge names the slow GPU of a node (gpu_judgement.hpp).
       .peers = {.within_node_by_family_judge = {"bf16_tflops", "tf32_tflops", "sm_clock_mhz"}}});
}

}  // namespace fabcheck
