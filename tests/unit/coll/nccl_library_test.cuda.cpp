// NCCL opened on demand (bench/cuda/nccl_library.hpp): a missing library and one without NCCL's
// entry points are named, and the toolkit's libnccl.so.2 resolves every function fabcheck calls.
#include <gtest/gtest.h>

#include <filesystem>

#include "bench/cuda/nccl_library.hpp"

namespace fabcheck {
namespace {

TEST(NcclLibrary, AMissingLibraryIsNamed) {
  const NcclLibrary missing = load_nccl("/nonexistent/libnccl.so.2");
  EXPECT_FALSE(missing.ok());
  EXPECT_EQ(missing.reason,
            "libnccl.so.2 not found (NCCL not installed, or not on the library path)");
  const NcclLibrary by_soname = load_nccl("libnccl-fabcheck-absent.so.2");
  EXPECT_EQ(
      by_soname.reason,
      "libnccl-fabcheck-absent.so.2 not found (NCCL not installed, or not on the library path)");
}

TEST(NcclLibrary, ALibraryWithoutNcclNamesTheFirstMissingEntryPoint) {
  const NcclLibrary wrong = load_nccl("libm.so.6");
  EXPECT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.reason,
            "libm.so.6 lacks ncclGetVersion (NCCL older than 2.18, which fabcheck needs)");
}

TEST(NcclLibrary, TheInstalledNcclResolvesEveryFunctionFabcheckCalls) {
  const NcclLibrary nccl = load_nccl("libnccl.so.2");
  if (!nccl.ok()) GTEST_SKIP() << nccl.reason;
  int code = 0;
  ASSERT_EQ(nccl.api->get_version(&code), ncclSuccess);
  EXPECT_GE(code, 21800);  // ncclCommSplit
  EXPECT_NE(nccl.api->comm_split, nullptr);
  EXPECT_NE(nccl.api->recv, nullptr);
  EXPECT_STREQ(nccl.api->get_error_string(ncclInvalidArgument),
               "invalid argument (run with NCCL_DEBUG=WARN for details)");
  // Which file: absolute, the file itself (no link), a libnccl.so.2*.
  const std::filesystem::path file = nccl.path;
  EXPECT_TRUE(file.is_absolute()) << nccl.path;
  EXPECT_TRUE(std::filesystem::is_regular_file(std::filesystem::symlink_status(file))) << nccl.path;
  EXPECT_EQ(file.filename().string().rfind("libnccl.so.2", 0), 0u) << nccl.path;
}

TEST(NcclLibrary, NoPathWhereNothingLoaded) {
  EXPECT_EQ(load_nccl("/nonexistent/libnccl.so.2").path, "");
  EXPECT_EQ(load_nccl("libm.so.6").path, "");  // opened, but not NCCL
}

}  // namespace
}  // namespace fabcheck
