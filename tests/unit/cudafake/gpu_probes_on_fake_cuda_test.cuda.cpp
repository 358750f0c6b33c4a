// The gpu.* probes' real code on the recording CUDA double (fake_cuda.hpp), for what only the order
// and place of CUDA calls shows: the gate opened on every way out (defect 11), bidirectional GPU
// copies issued by each source GPU (defect 9), buffers cleared in order with the timed copies
// (defect 13), host copies one GPU of a host at a time (defect 10), no context made on a GPU a
// rank does not drive (defect 8); gpu.sdc's chains and L2 pattern, gpu.hbm_patterns and gpu.gemm's
// FP8 hash (on a fake cuBLASLt) against their host references. Nothing here ran on a GPU.
#include <gtest/gtest.h>

#include <mutex>
#include <stdexcept>
#include <thread>

#include "bench/core/probe.hpp"
#include "bench/cuda/cuda_memory.hpp"
#include "bench/cuda/cuda_stream.hpp"
#include "bench/cuda/scoped_device.hpp"
#include "fake_cublaslt.hpp"
#include "fake_cuda.hpp"
#include "kernels/fp8_gemm.hpp"
#include "kernels/gated_timer.hpp"
#include "kernels/gemm_hashes.hpp"
#include "kernels/register.hpp"
#include "kernels/sdc_comparison.hpp"
#include "tests/doubles/thread_world.hpp"

namespace fabcheck {
namespace {

class CollectingSink final : public MeasurementSink {
 public:
  void emit(Measurement m) override {
    const std::lock_guard lock(mutex_);
    measurements.push_back(std::move(m));
  }
  std::vector<Measurement> of(const std::string& metric) const {
    std::vector<Measurement> found;
    for (const auto& m : measurements) {
      if (m.metric == metric) found.push_back(m);
    }
    return found;
  }
  std::vector<Measurement> measurements;

 private:
  std::mutex mutex_;
};

RunOptions small_copies() {
  RunOptions options;
  options.sizes = {4096};
  options.warmup = 1;
  options.iters = 2;
  options.sysfs_root = "/nonexistent-sysfs";  // no CPU pinning in tests
  return options;
}

// The registered gpu.* probe `id`, its body the one its file compiled.
Probe& gpu_probe(const std::string& id) {
  static const Registry registry = [] {
    Registry probes;
    register_kernel_probes(probes);
    return probes;
  }();
  Probe* probe = registry.find(id);
  if (probe == nullptr) throw std::runtime_error(id + " is not registered");
  return *probe;
}

// Runs probe `id` on each rank (threads) of a world on `hosts`, one probe run each.
void run_probe(const std::vector<std::string>& hosts, const RunOptions& options,
               CollectingSink& sink, const std::string& id) {
  Probe& probe = gpu_probe(id);
  const auto errors = testing::run_ranks(hosts, [&](World& world) {
    RunContext context{world, options, "/tmp"};
    probe.run(context, sink);
  });
  for (const auto& error : errors) EXPECT_EQ(error, "");
}

// Defect 11: an exception while the work is queued used to leave the spin gate closed, holding the
// stream (and whatever came after it) until the gate's own ~10 s timeout.
TEST(FakeCuda, TheGateOpensWhenQueueingThrows) {
  fake_cuda::reset();
  ScopedDevice device(0);
  Stream stream;
  GatedTimer timer;
  EXPECT_THROW(timer.time_ms({{0, stream.get()}}, [] { throw std::runtime_error("boom"); }),
               std::runtime_error);
  EXPECT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess);
  EXPECT_EQ(fake_cuda::deadlocks(), std::vector<std::string>{});
  ASSERT_FALSE(fake_cuda::gates().empty());
  for (const volatile int* gate : fake_cuda::gates()) EXPECT_NE(*gate, 0);
}

// A gated sample: nothing runs while the host queues; the interval holds only the work.
TEST(FakeCuda, AGatedSampleTimesTheWorkQueuedBehindTheGate) {
  fake_cuda::reset();
  ScopedDevice device(0);
  Stream stream;
  DeviceMemory a(1 << 20), b(1 << 20);
  GatedTimer timer;
  const float ms = timer.time_ms({{0, stream.get()}}, [&] {
    FABCHECK_CUDA(
        cudaMemcpyAsync(a.get(), b.get(), 1 << 20, cudaMemcpyDeviceToDevice, stream.get()));
    EXPECT_EQ(cudaStreamQuery(stream.get()), cudaErrorNotReady) << "the copy ran before release";
  });
  EXPECT_GT(ms, 0.0f);
  EXPECT_EQ(fake_cuda::deadlocks(), std::vector<std::string>{});
}

// Issue 24 (4): CUDA loads a kernel's module at its first launch (lazy loading); behind a closed
// gate that load waits for the gate's own timeout (~10 s a device). Every probe that times
// kernels behind the gate has them loaded on each device before the gate first closes.
TEST(FakeCuda, NoKernelIsFirstLoadedBehindAClosedGate) {
  for (const char* probe : {"gpu.hbm_bw", "gpu.p2p", "gpu.launch_latency"}) {
    fake_cuda::reset();
    CollectingSink sink;
    run_probe({"node-a"}, small_copies(), sink, probe);
    EXPECT_FALSE(sink.measurements.empty()) << probe;
    EXPECT_EQ(fake_cuda::lazy_loads(), std::vector<std::string>{}) << probe;
    EXPECT_EQ(fake_cuda::deadlocks(), std::vector<std::string>{}) << probe;
  }
}

// Defect 9 and 13: every ordered pair of two GPUs; nvbandwidth issues each direction of a
// bidirectional copy from its source GPU, on a stream of that GPU; the receive buffers are cleared
// in order with the timed copies (a legacy-stream cudaMemset is not ordered with non-blocking
// streams).
TEST(FakeCuda, P2pIssuesEachDirectionFromItsSourceAndClearsInOrder) {
  fake_cuda::reset();
  CollectingSink sink;
  run_probe({"node-a"}, small_copies(), sink, "gpu.p2p");

  int forward_from_source = 0, backward_from_peer = 0, sm_stores_into_a_peer = 0;
  for (const auto& copy : fake_cuda::copies()) {
    if (copy.src_device < 0 || copy.dst_device < 0 || copy.src_device == copy.dst_device) continue;
    if (copy.api == "cudaMemcpyPeerAsync") {
      EXPECT_EQ(copy.issuing_device, copy.src_device)
          << "copy engine copy " << copy.src_device << " -> " << copy.dst_device
          << " issued by device " << copy.issuing_device;
      EXPECT_EQ(copy.stream_device, copy.src_device);
      ++(copy.src_device == 0 ? forward_from_source : backward_from_peer);
    }
    if (copy.api == "sm_copy" && copy.issuing_device == copy.src_device &&
        copy.stream_device == copy.src_device && copy.dst_device != copy.issuing_device) {
      ++sm_stores_into_a_peer;
    }
  }
  EXPECT_GT(forward_from_source, 0);
  EXPECT_GT(backward_from_peer, 0);
  EXPECT_GT(sm_stores_into_a_peer, 0);
  EXPECT_EQ(fake_cuda::races(), std::vector<std::string>{});
  EXPECT_EQ(fake_cuda::deadlocks(), std::vector<std::string>{});
  const auto bidir = sink.of("ce_bidir_bw");
  ASSERT_EQ(bidir.size(), 2u);  // 0 -> 1 and 1 -> 0
  EXPECT_EQ(bidir[0].params.at("issued_by"), "each direction by its source");
  for (const auto& m : sink.of("wrong_elements")) EXPECT_EQ(m.value, 0.0) << m.peer;
}

// Defect 10: two ranks on one host, one GPU each. `bw` is one GPU at a time (the ranks take turns);
// then every GPU at once gives all_gpus_bw per GPU and host_bw for the host.
TEST(FakeCuda, HostCopiesMeasureOneGpuOfAHostAtATimeThenAllAtOnce) {
  fake_cuda::Config config;
  config.event_sync_seconds = 0.004;  // each timed window lasts a few ms, so overlaps would show
  fake_cuda::reset(config);
  CollectingSink sink;
  const RunOptions options = small_copies();
  run_probe({"node-a", "node-a"}, options, sink, "gpu.h2d");

  const auto windows = fake_cuda::windows();
  const std::size_t alone = static_cast<std::size_t>(options.warmup + options.iters);
  for (int device : {0, 1}) {
    std::size_t seen = 0;
    for (const auto& mine : windows) {
      if (mine.device != device || seen++ >= alone) continue;
      for (const auto& other : windows) {
        if (other.device == device) continue;
        EXPECT_TRUE(other.closed <= mine.opened || mine.closed <= other.opened)
            << "GPU " << device << "'s one-at-a-time copy overlapped GPU " << other.device
            << "'s copy";
      }
    }
    EXPECT_GE(seen, alone + options.warmup + options.iters);  // then the all-at-once samples
  }
  const auto bw = sink.of("bw");
  ASSERT_EQ(bw.size(), 2u);
  for (const auto& m : bw) EXPECT_EQ(m.params.at("concurrent_gpus"), "1");
  const auto all = sink.of("all_gpus_bw");
  ASSERT_EQ(all.size(), 2u);
  for (const auto& m : all) EXPECT_EQ(m.params.at("concurrent_gpus"), "2");
  const auto host = sink.of("host_bw");
  ASSERT_EQ(host.size(), 1u);
  EXPECT_EQ(host[0].host, "node-a");
  EXPECT_EQ(host[0].subject, "host");
  EXPECT_DOUBLE_EQ(host[0].value, all[0].value + all[1].value);
  for (const auto& m : sink.of("wrong_elements")) EXPECT_EQ(m.value, 0.0);
  EXPECT_EQ(fake_cuda::races(), std::vector<std::string>{});
}

// One rank on each of two hosts, driving both of its host's GPUs: each GPU alone, one after the
// other, then both at once; a host_bw figure for each host.
TEST(FakeCuda, ARankDrivingSeveralGpusTimesThemAloneThenTogether) {
  fake_cuda::reset();
  CollectingSink sink;
  run_probe({"node-a", "node-b"}, small_copies(), sink, "gpu.d2h");
  EXPECT_EQ(sink.of("bw").size(), 4u);
  EXPECT_EQ(sink.of("plain_memcpy_bw").size(), 4u);
  EXPECT_EQ(sink.of("all_gpus_bw").size(), 4u);
  const auto host = sink.of("host_bw");
  ASSERT_EQ(host.size(), 2u);
  EXPECT_EQ(host[0].host, "node-a");
  EXPECT_EQ(host[1].host, "node-b");
  for (const auto& m : host) EXPECT_EQ(m.params.at("concurrent_gpus"), "2");
  for (const auto& m : sink.of("wrong_elements")) EXPECT_EQ(m.value, 0.0);
}

// Defect 8: ScopedDevice restored device 0 when no device had been chosen, and since CUDA 12
// cudaSetDevice creates that device's context: every rank held memory on GPU 0.
TEST(FakeCuda, ARankMakesNoContextOnAGpuItDoesNotDrive) {
  fake_cuda::reset();
  std::vector<int> contexts;
  std::thread rank([&] {
    {
      ScopedDevice device(1);
      DeviceMemory memory(64);
    }
    contexts = fake_cuda::devices_with_context_on_this_thread();
  });
  rank.join();
  EXPECT_EQ(contexts, std::vector<int>{1});

  std::vector<std::vector<int>> per_rank(2);
  CollectingSink sink;
  RunOptions options = small_copies();
  const auto errors = testing::run_ranks({"node-a", "node-a"}, [&](World& world) {
    RunContext context{world, options, "/tmp"};
    gpu_probe("gpu.hbm_bw").run(context, sink);
    per_rank[static_cast<std::size_t>(world.rank())] =
        fake_cuda::devices_with_context_on_this_thread();
  });
  EXPECT_EQ(errors, (std::vector<std::string>{"", ""}));
  EXPECT_EQ(per_rank[1], std::vector<int>{1});
  for (const auto& m : sink.of("wrong_elements")) EXPECT_EQ(m.value, 0.0);
}

// gpu.sdc on the double: every block's digests (the L2 word too) against the host reference, SM by
// SM (block b runs on SM b % 4 here); a planted flip on one SM's FP32 chain names that SM of that
// GPU, no other.
RunOptions short_sdc() {
  RunOptions options = small_copies();
  options.extra["sdc.duration_s"] = "0.05";
  options.extra["sdc.repeats"] = "2";
  return options;
}

// gpu.sdc's records of one pass (sdc.repeats 1) on the double set up by `config`.
std::vector<Measurement> one_sdc_pass(const fake_cuda::Config& config) {
  fake_cuda::reset(config);
  CollectingSink sink;
  RunOptions options = short_sdc();
  options.extra["sdc.repeats"] = "1";
  run_probe({"node-a"}, options, sink, "gpu.sdc");
  return sink.of(kSmMismatchMetric);
}

TEST(FakeCuda, EverySmOfEveryGpuIsScreenedAgainstTheHostReference) {
  fake_cuda::reset();
  CollectingSink sink;
  run_probe({"node-a"}, short_sdc(), sink, "gpu.sdc");
  const auto screened = sink.of(kSmMismatchMetric);
  ASSERT_EQ(screened.size(), 2u);  // one record a GPU
  for (const auto& m : screened) {
    EXPECT_EQ(m.value, 0.0) << m.subject;
    EXPECT_EQ(m.params.at("sms"), "4");
    EXPECT_EQ(m.params.at("sms_screened"), "4");
    EXPECT_EQ(m.params.at("sms_not_reached"), "");
    EXPECT_EQ(m.params.at("passes"), "2");
    EXPECT_EQ(m.params.at("l2_bytes"), std::to_string(512 << 10));  // half the fake's 1 MiB L2
    // 16 blocks of 128 lanes a round, every round of both passes.
    const auto rounds = std::stoull(m.params.at("rounds"));
    EXPECT_GE(rounds, 1u);
    EXPECT_EQ(std::stoull(m.params.at("lanes_checked")), 2 * rounds * 16 * 128);
  }
  const auto findings = judge_gpu_sdc(screened);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].severity, Severity::pass);
  EXPECT_NE(findings[0].message.find("4 of 4 SMs computed"), std::string::npos);
}

TEST(FakeCuda, AnSmComputingWrongBitsIsNamedWithItsGpuAndTheFirstWord) {
  fake_cuda::Config config;
  config.wrong_sm = 2;
  const auto screened = one_sdc_pass(config);
  ASSERT_EQ(screened.size(), 2u);
  for (const auto& m : screened) {
    EXPECT_EQ(m.params.at("sms_wrong"), "2");
    // Every lane of SM 2's 4 blocks of each round.
    EXPECT_EQ(m.value, static_cast<double>(std::stoull(m.params.at("rounds")) * 4 * 128));
    EXPECT_EQ(m.params.at("mismatch").rfind("SM 2: block 0: FP32 FMA chain 0x", 0), 0u)
        << m.params.at("mismatch");
    EXPECT_NE(m.params.at("mismatch").find("(bits 0x0000000000000080 differ)"), std::string::npos);
  }
  const auto findings = judge_gpu_sdc(screened);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].severity, Severity::fail);
  EXPECT_EQ(findings[0].message.rfind("gpu0 (0000:10:00.0) computed wrong bits on SM 2 of 4: ", 0),
            0u)
      << findings[0].message;
}

// The L2 pattern: 16 blocks of 128 lanes, 32 words a lane (half of a 1 MiB L2); block b reads
// the slice of block (b + 9) % 16, the first from halfway round written on another SM. A word of
// block 9's slice (SM 1) read back flipped names the reader, block 0 on SM 0, and the writer.
TEST(FakeCuda, AnL2WordReadBackWrongNamesTheReadingAndTheWritingSm) {
  fake_cuda::Config config;
  config.wrong_l2_word = 9 * 32 * 128;  // word 0 of lane 0 of slice 9
  const auto screened = one_sdc_pass(config);
  ASSERT_EQ(screened.size(), 2u);
  for (const auto& m : screened) {
    EXPECT_EQ(m.params.at("l2_bytes"), std::to_string(512 << 10));
    EXPECT_EQ(m.params.at("sms_wrong"), "0");
    EXPECT_EQ(m.value, static_cast<double>(std::stoull(m.params.at("rounds"))));  // a lane a round
    const std::string& first = m.params.at("mismatch");
    EXPECT_EQ(first.rfind("SM 0: block 0: L2 word stream (written by another SM) 0x", 0), 0u)
        << first;
    EXPECT_NE(first.find("read from launch block 9's slice, written on SM 1: 1 word wrong, the "
                         "first word 0 (offset 294912 of the L2 buffer)"),
              std::string::npos)
        << first;
    EXPECT_NE(first.find("was written (bits 0x0000000000000020 differ)"), std::string::npos)
        << first;
  }
  const auto findings = judge_gpu_sdc(screened);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].severity, Severity::fail);
  EXPECT_EQ(findings[0].message.rfind("gpu0 (0000:10:00.0) computed wrong bits on SM 0 of 4: ", 0),
            0u)
      << findings[0].message;
}

TEST(FakeCuda, HbmPatternsNameTheWrongWordsAddress) {
  fake_cuda::Config config;
  config.free_memory = std::size_t{16} << 20;
  config.wrong_word = 1000;  // on each GPU's buffer
  fake_cuda::reset(config);
  CollectingSink sink;
  RunOptions options = small_copies();
  options.extra["sdc.memory_fraction"] = "0.5";
  run_probe({"node-a"}, options, sink, "gpu.hbm_patterns");
  const auto checked = sink.of(kPatternMismatchMetric);
  ASSERT_EQ(checked.size(), 2u);
  for (const auto& m : checked) {
    EXPECT_EQ(m.params.at("bytes"), std::to_string(8 << 20));  // half of 16 MiB
    EXPECT_EQ(m.value, 6.0);  // the stuck bit under each pattern and its inverse
    const std::string& first = m.params.at("mismatch");
    EXPECT_EQ(first.rfind("walking ones: 1 word wrong, the first at 0x", 0), 0u) << first;
    EXPECT_NE(first.find("(offset 8000 of a 8MiB buffer at 0x"), std::string::npos) << first;
    EXPECT_NE(first.find("(bits 0x0000000000000008 differ)"), std::string::npos) << first;
  }
  const auto findings = judge_gpu_sdc(checked);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].severity, Severity::fail);
  EXPECT_EQ(findings[0].message.rfind("gpu0 (0000:10:00.0) read back wrong words: walking ones", 0),
            0u)
      << findings[0].message;

  config.wrong_word = -1;
  fake_cuda::reset(config);
  CollectingSink clean;
  run_probe({"node-a"}, options, clean, "gpu.hbm_patterns");
  ASSERT_EQ(clean.of(kPatternMismatchMetric).size(), 2u);
  for (const auto& m : clean.of(kPatternMismatchMetric)) EXPECT_EQ(m.value, 0.0);
}

// gpu.gemm's FP8 hash on the fake cuBLASLt: the heuristic's one algorithm for 21 GEMMs on each
// GPU, the same bits after the first and the last, recorded with the algorithm and the cuBLASLt.
TEST(FakeCuda, TheFp8HashIsPinnedToOneAlgorithmAndTheSameBitsEveryGemm) {
  fake_cuda::reset();
  fake_cuda::reset_cublaslt();
  CollectingSink sink;
  emit_fp8_hashes({0, 1}, 100, fake_cuda::fake_cublaslt(), sink);
  const auto hashed = sink.of(kGemmHashChangesMetric);
  ASSERT_EQ(hashed.size(), 2u);
  for (const auto& m : hashed) {
    EXPECT_EQ(m.status, MeasurementStatus::ok) << m.message;
    EXPECT_EQ(m.value, 0.0);
    EXPECT_EQ(m.params.at("dtype"), "fp8");
    EXPECT_EQ(m.params.at("m_n_k"), "96");  // 100 rounded down to a multiple of 16
    EXPECT_EQ(m.params.at("output_hash"), m.params.at("output_hash_first"));
    EXPECT_EQ(m.params.at("output_hash"), hashed[0].params.at("output_hash"));  // both GPUs
    EXPECT_NE(m.params.at("output_hash"), "0x0000000000000000");
    EXPECT_EQ(m.params.at("algo"),
              "id 66 tile 20 stages 12 splitk 1 reduction 0 swizzle 0 custom 0 inner 3 cluster 2");
    EXPECT_EQ(m.params.at("cublas_library"), "/fake/libcublasLt.so.13.0.0");
    EXPECT_EQ(m.params.at("sms"), "4");
  }
  const fake_cuda::LtCalls calls = fake_cuda::cublaslt_calls();
  EXPECT_EQ(calls.heuristics, 2);                 // one algorithm a GPU
  EXPECT_EQ(calls.matmuls, 2 * (1 + kFp8Gemms));  // the first GEMM, then kFp8Gemms
  EXPECT_EQ(calls.workspace, kFp8WorkspaceBytes);
  EXPECT_EQ(calls.a_scale, 1.0f);
  EXPECT_EQ(calls.b_scale, 1.0f);
  EXPECT_EQ(calls.a_type, CUDA_R_8F_E4M3);
  EXPECT_EQ(calls.d_type, CUDA_R_16BF);
  EXPECT_TRUE(fake_cuda::races().empty()) << fake_cuda::races().front();
}

TEST(FakeCuda, AnFp8GemmThatChangesItsBitsFails) {
  fake_cuda::reset();
  fake_cuda::reset_cublaslt(2 + kFp8Gemms);  // GPU 1's first GEMM: its first hash is the odd one
  CollectingSink sink;
  emit_fp8_hashes({0, 1}, 64, fake_cuda::fake_cublaslt(), sink);
  const auto hashed = sink.of(kGemmHashChangesMetric);
  ASSERT_EQ(hashed.size(), 2u);
  EXPECT_EQ(hashed[0].value, 0.0);
  EXPECT_EQ(hashed[1].value, 1.0);
  EXPECT_NE(hashed[1].params.at("output_hash_first"), hashed[1].params.at("output_hash"));
  EXPECT_EQ(hashed[1].params.at("output_hash"), hashed[0].params.at("output_hash"));
  const auto findings = judge_gemm_hashes(hashed);
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings[0].severity, Severity::fail);
  EXPECT_NE(findings[0].message.find("the same fp8 GEMM gave other bits"), std::string::npos)
      << findings[0].message;
}

TEST(FakeCuda, ACublasLtWithoutAnFp8AlgorithmIsAnErrorOfTheFp8RecordAlone) {
  fake_cuda::reset();
  fake_cuda::reset_cublaslt(0, true);
  CollectingSink sink;
  emit_fp8_hashes({0}, 64, fake_cuda::fake_cublaslt(), sink);
  ASSERT_EQ(sink.of(kGemmHashChangesMetric).size(), 1u);
  const Measurement m = sink.of(kGemmHashChangesMetric)[0];
  EXPECT_EQ(m.status, MeasurementStatus::error);
  EXPECT_EQ(m.message, "FP8 GEMM hash: cuBLASLt: no FP8 algorithm for this GEMM");
  EXPECT_EQ(fake_cuda::cublaslt_calls().matmuls, 0);
}

TEST(FakeCuda, TheFp8HashIsWaivedOnAGpuWithoutFp8AndWithoutCublasLt) {
  fake_cuda::Config ampere;
  ampere.compute_major = 8;
  ampere.compute_minor = 0;
  fake_cuda::reset(ampere);
  fake_cuda::reset_cublaslt();
  CollectingSink sink;
  emit_fp8_hashes({0, 1}, 64, fake_cuda::fake_cublaslt(), sink);
  ASSERT_EQ(sink.of(kGemmHashChangesMetric).size(), 2u);
  for (const auto& m : sink.of(kGemmHashChangesMetric)) {
    EXPECT_EQ(m.status, MeasurementStatus::waived);
    EXPECT_EQ(m.message,
              "no FP8 GEMM hash: compute capability 8.0 has no FP8 tensor cores (FP8 GEMMs need "
              "8.9 or 9.0 and later)");
    EXPECT_EQ(m.params.at("dtype"), "fp8");
  }
  EXPECT_EQ(fake_cuda::cublaslt_calls().matmuls, 0);
  EXPECT_TRUE(judge_gemm_hashes(sink.of(kGemmHashChangesMetric)).empty());  // never a PASS

  fake_cuda::reset();  // an H100-like GPU, but no cuBLASLt on the node
  CollectingSink missing;
  emit_fp8_hashes({0}, 64, load_cublaslt("/nonexistent/" + cublaslt_soname()), missing);
  ASSERT_EQ(missing.of(kGemmHashChangesMetric).size(), 1u);
  const Measurement m = missing.of(kGemmHashChangesMetric)[0];
  EXPECT_EQ(m.status, MeasurementStatus::waived);
  EXPECT_EQ(m.message, "no FP8 GEMM hash: cuBLASLt: " + cublaslt_soname() +
                           " not found (the CUDA " + std::to_string(CUBLAS_VER_MAJOR) +
                           " toolkit's cuBLASLt is not installed, or not on the library path)");
}

}  // namespace
}  // namespace fabcheck
