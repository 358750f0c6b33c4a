// cuBLAS opened on demand (bench/cuda/cublas_library.hpp): a missing library and one without
// cuBLAS's entry points are named, and the toolkit's cuBLAS resolves every function gpu.gemm calls.
#include <gtest/gtest.h>

#include <filesystem>

#include "bench/cuda/cublas_library.hpp"

namespace fabcheck {
namespace {

TEST(CublasLibrary, TheSonameIsTheCudaMajorBuiltWith) {
  EXPECT_EQ(cublas_soname(), "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR));
}

TEST(CublasLibrary, AMissingLibraryIsNamed) {
  const CublasLibrary missing = load_cublas("/nonexistent/" + cublas_soname());
  EXPECT_FALSE(missing.ok());
  EXPECT_EQ(missing.reason, cublas_soname() + " not found (the CUDA " +
                                std::to_string(CUBLAS_VER_MAJOR) +
                                " toolkit's cuBLAS is not installed, or not on the library path)");
}

TEST(CublasLibrary, ALibraryWithoutCublasNamesTheFirstMissingEntryPoint) {
  const CublasLibrary wrong = load_cublas("libm.so.6");
  EXPECT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.reason, "libm.so.6 lacks cublasCreate_v2");
}

TEST(CublasLibrary, TheInstalledCublasResolvesEveryFunctionGemmCalls) {
  const CublasLibrary cublas = load_cublas(cublas_soname());
  if (!cublas.ok()) GTEST_SKIP() << cublas.reason;
  EXPECT_NE(cublas.api->gemm_ex, nullptr);
  EXPECT_NE(cublas.api->set_stream, nullptr);
  EXPECT_STREQ(cublas.api->get_status_string(CUBLAS_STATUS_NOT_INITIALIZED),
               "the library was not initialized");
  // Which file: absolute, the file itself (no link), named after the soname.
  const std::filesystem::path file = cublas.path;
  EXPECT_TRUE(file.is_absolute()) << cublas.path;
  EXPECT_TRUE(std::filesystem::is_regular_file(std::filesystem::symlink_status(file)))
      << cublas.path;
  EXPECT_EQ(file.filename().string().rfind(cublas_soname(), 0), 0u) << cublas.path;
}

TEST(CublasLibrary, NoPathWhereNothingLoaded) {
  EXPECT_EQ(load_cublas("/nonexistent/libcublas.so.13").path, "");
  EXPECT_EQ(load_cublas("libm.so.6").path, "");  // opened, but not cuBLAS
}

}  // namespace
}  // namespace fabcheck
