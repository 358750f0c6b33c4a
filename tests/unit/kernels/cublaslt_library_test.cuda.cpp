// cuBLASLt opened on demand (bench/cuda/cublaslt_library.hpp): a missing library and one without
// cuBLASLt's entry points are named, and the toolkit's cuBLASLt resolves every function the FP8
// hash calls.
#include <gtest/gtest.h>

#include <filesystem>

#include "bench/cuda/cublaslt_library.hpp"

namespace fabcheck {
namespace {

TEST(CublasLtLibrary, TheSonameIsTheCudaMajorBuiltWith) {
  EXPECT_EQ(cublaslt_soname(), "libcublasLt.so." + std::to_string(CUBLAS_VER_MAJOR));
}

TEST(CublasLtLibrary, AMissingLibraryIsNamed) {
  const CublasLtLibrary missing = load_cublaslt("/nonexistent/" + cublaslt_soname());
  EXPECT_FALSE(missing.ok());
  EXPECT_EQ(missing.path, "");
  EXPECT_EQ(missing.reason,
            cublaslt_soname() + " not found (the CUDA " + std::to_string(CUBLAS_VER_MAJOR) +
                " toolkit's cuBLASLt is not installed, or not on the library path)");
}

TEST(CublasLtLibrary, ALibraryWithoutCublasLtNamesTheFirstMissingEntryPoint) {
  const CublasLtLibrary wrong = load_cublaslt("libm.so.6");
  EXPECT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.reason, "libm.so.6 lacks cublasLtCreate");
}

TEST(CublasLtLibrary, TheInstalledCublasLtResolvesEveryFunctionTheFp8HashCalls) {
  const CublasLtLibrary lt = load_cublaslt(cublaslt_soname());
  if (!lt.ok()) GTEST_SKIP() << lt.reason;
  EXPECT_NE(lt.api->matmul, nullptr);
  EXPECT_NE(lt.api->algo_get_heuristic, nullptr);
  EXPECT_NE(lt.api->algo_config_get_attribute, nullptr);
  EXPECT_STREQ(lt.api->get_status_string(CUBLAS_STATUS_NOT_INITIALIZED),
               "the library was not initialized");
  const std::filesystem::path file = lt.path;
  EXPECT_TRUE(file.is_absolute()) << lt.path;
  EXPECT_EQ(file.filename().string().rfind(cublaslt_soname(), 0), 0u) << lt.path;
}

}  // namespace
}  // namespace fabcheck
