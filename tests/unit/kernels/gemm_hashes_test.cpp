// The GEMM output hash judge on hand-made records: a GPU against its own first GEMM, like GPUs by
// majority, two that differ, and records of other versions or without them kept apart.
#include "kernels/gemm_hashes.hpp"

#include <gtest/gtest.h>

namespace fabcheck {
namespace {

Measurement hash_record(const std::string& host, int gpu, const std::string& hash,
                        const std::string& driver = "580.65.06") {
  Measurement m =
      make_measurement("gpu.gemm", kGemmHashChangesMetric, 0, "count", "gpu" + std::to_string(gpu));
  m.host = host;
  m.params = {{"bus_id", "0000:1" + std::to_string(gpu) + ":00.0"},
              {"model", "NVIDIA H200"},
              {"sms", "132"},
              {"dtype", "bf16"},
              {"m_n_k", "8192"},
              {"driver", driver},
              {"cublas_library", "/opt/cuda/lib/libcublas.so.13.1.0.3"},
              {"output_hash", hash},
              {"output_hash_first", hash}};
  return m;
}

TEST(GemmHashes, AGpuWhoseOutputMovedDuringItsRunFails) {
  Measurement moved = hash_record("n1", 3, "00000000000000bb");
  moved.value = 1;
  moved.params["output_hash_first"] = "00000000000000aa";
  const auto findings = judge_gemm_hashes({moved});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::fail);
  EXPECT_EQ(findings[0].message,
            "gpu3 (0000:13:00.0) of n1: the same bf16 GEMM gave other bits at the end of its run "
            "(output hash 00000000000000aa after the first, 00000000000000bb after the last)");
}

TEST(GemmHashes, TheMinorityOfLikeGpusFailsAndAgreeingGpusPass) {
  std::vector<Measurement> records;
  for (int gpu = 0; gpu < 4; ++gpu) records.push_back(hash_record("n1", gpu, gpu == 2 ? "b" : "a"));
  auto findings = judge_gemm_hashes(records);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::fail);
  EXPECT_EQ(findings[0].subject, "gpu2");
  EXPECT_EQ(findings[0].message,
            "gpu2 (0000:12:00.0) of n1: output hash b where 3 of the bf16 GEMM 8192^3 on 4 NVIDIA "
            "H200 GPUs (cuBLAS libcublas.so.13.1.0.3, driver 580.65.06) gave a");
  records[2] = hash_record("n1", 2, "a");
  findings = judge_gemm_hashes(records);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::pass);
  EXPECT_EQ(findings[0].message,
            "the bf16 GEMM 8192^3 on 4 NVIDIA H200 GPUs (cuBLAS libcublas.so.13.1.0.3, driver "
            "580.65.06) gave the same output bits (hash a)");
}

TEST(GemmHashes, TwoThatDifferAreWarnsNotFails) {
  const auto findings = judge_gemm_hashes({hash_record("n1", 0, "a"), hash_record("n2", 0, "b")});
  ASSERT_EQ(findings.size(), 2u);
  for (const Finding& f : findings) EXPECT_EQ(f.severity, Severity::warn) << f.message;
}

TEST(GemmHashes, OtherVersionsAndUnknownOnesAreNeverCompared) {
  std::vector<Measurement> records;
  for (int gpu = 0; gpu < 3; ++gpu) records.push_back(hash_record("n1", gpu, "a"));
  records.push_back(hash_record("n2", 0, "b", "575.57.08"));
  records.push_back(hash_record("n3", 0, "c", ""));
  const auto findings = judge_gemm_hashes(records);
  ASSERT_EQ(findings.size(), 1u);  // the three like GPUs' PASS
  EXPECT_EQ(findings[0].severity, Severity::pass);
}

// gpu.gemm's FP8 record (kernels/fp8_gemm.hpp): the cuBLASLt file and the pinned algorithm.
Measurement fp8_record(const std::string& host, int gpu, const std::string& hash,
                       const std::string& algo =
                           "id 66 tile 20 stages 12 splitk 1 reduction 0 "
                           "swizzle 0 custom 0") {
  Measurement m = hash_record(host, gpu, hash);
  m.params["dtype"] = "fp8";
  m.params["cublas_library"] = "/opt/cuda/lib/libcublasLt.so.13.1.0.3";
  m.params["algo"] = algo;
  return m;
}

TEST(GemmHashes, Fp8HashesAreComparedAmongThemselvesNotWithBf16) {
  std::vector<Measurement> records;
  for (int gpu = 0; gpu < 3; ++gpu) {
    records.push_back(hash_record("n1", gpu, "a"));
    records.push_back(fp8_record("n1", gpu, gpu == 1 ? "g" : "f"));
  }
  const auto findings = judge_gemm_hashes(records);
  ASSERT_EQ(findings.size(), 2u);  // bf16's PASS, fp8's one FAIL
  EXPECT_EQ(findings[0].severity, Severity::pass);
  EXPECT_EQ(findings[0].message.rfind("the bf16 GEMM 8192^3 on 3 NVIDIA H200 GPUs", 0), 0u)
      << findings[0].message;
  EXPECT_EQ(findings[1].severity, Severity::fail);
  EXPECT_EQ(findings[1].subject, "gpu1");
  EXPECT_EQ(findings[1].message,
            "gpu1 (0000:11:00.0) of n1: output hash g where 2 of the fp8 GEMM 8192^3 on 3 NVIDIA "
            "H200 GPUs (cuBLAS libcublasLt.so.13.1.0.3, driver 580.65.06, algorithm id 66 tile 20 "
            "stages 12 splitk 1 reduction 0 swizzle 0 custom 0) gave f");
}

TEST(GemmHashes, Fp8OfAnotherAlgorithmOrCublasLtOrWaivedIsNeverCompared) {
  std::vector<Measurement> records;
  for (int gpu = 0; gpu < 3; ++gpu) records.push_back(fp8_record("n1", gpu, "f"));
  records.push_back(fp8_record("n2", 0, "x",
                               "id 31 tile 18 stages 8 splitk 1 reduction 0 "
                               "swizzle 0 custom 0"));
  Measurement other_library = fp8_record("n3", 0, "y");
  other_library.params["cublas_library"] = "/opt/cuda/lib/libcublasLt.so.13.0.0.19";
  records.push_back(other_library);
  Measurement waived = fp8_record("n4", 0, "");
  waived.status = MeasurementStatus::waived;
  waived.message = "no FP8 GEMM hash: compute capability 8.0 has no FP8 tensor cores";
  records.push_back(waived);
  const auto findings = judge_gemm_hashes(records);
  ASSERT_EQ(findings.size(), 1u);  // the three like GPUs' PASS
  EXPECT_EQ(findings[0].severity, Severity::pass);
  EXPECT_NE(findings[0].message.find("fp8 GEMM"), std::string::npos) << findings[0].message;
}

}  // namespace
}  // namespace fabcheck
