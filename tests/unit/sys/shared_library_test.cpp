// open_shared_library: "not found" when no file of the name is anywhere dlopen looks (the library
// path, then the fallback folders), the loader's message when a file is there but cannot load.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "bench/sys/shared_library.hpp"
#include "tests/doubles/temp_dir.hpp"

namespace fabcheck {
namespace {

TEST(SharedLibrary, NotFoundAnywhereIsSaidSo) {
  const SharedLibrary library = open_shared_library("libfabcheck-absent.so.1", {"/nonexistent"});
  EXPECT_EQ(library.handle, nullptr);
  EXPECT_EQ(library.reason, "libfabcheck-absent.so.1 not found");
  EXPECT_EQ(library.path, "");
}

TEST(SharedLibrary, ThePathIsTheFileOpenedWithItsLinksResolved) {
  // A soname found on the library path: the absolute file behind it.
  const SharedLibrary by_soname = open_shared_library("libm.so.6");
  ASSERT_NE(by_soname.handle, nullptr);
  const std::filesystem::path file = by_soname.path;
  EXPECT_TRUE(file.is_absolute()) << by_soname.path;
  EXPECT_TRUE(std::filesystem::is_regular_file(std::filesystem::symlink_status(file)))
      << by_soname.path << " is a link or missing";
  // Opened through a link in a fallback folder: the link's target, not the link.
  testing::TempDir dir;
  std::filesystem::create_symlink(file, dir.path() / "libfabcheck-link.so.1");
  const SharedLibrary by_link = open_shared_library("libfabcheck-link.so.1", {dir.path().string()});
  ASSERT_NE(by_link.handle, nullptr) << by_link.reason;
  EXPECT_EQ(by_link.path, by_soname.path);
}

TEST(SharedLibrary, AFallbackFolderIsSearchedAfterTheLibraryPath) {
  const SharedLibrary library =
      open_shared_library("libm.so.6", {"/nonexistent"});  // found on the library path
  EXPECT_NE(library.handle, nullptr);
  EXPECT_NE(shared_library_symbol(library.handle, "cos"), nullptr);
  EXPECT_EQ(shared_library_symbol(library.handle, "no_such_symbol_here"), nullptr);
}

TEST(SharedLibrary, AFileThatIsNoLibraryGivesTheLoadersMessage) {
  testing::TempDir dir;
  const auto path = dir.path() / "libbroken.so.1";
  std::ofstream(path) << "not an ELF file\n";
  const SharedLibrary library = open_shared_library("libbroken.so.1", {dir.path().string()});
  EXPECT_EQ(library.handle, nullptr);
  EXPECT_EQ(library.reason.rfind("libbroken.so.1 cannot load: ", 0), 0u) << library.reason;
}

TEST(SharedLibrary, ResolveSymbolKeepsTheFirstMissingName) {
  const SharedLibrary library = open_shared_library("libm.so.6");
  double (*cosine)(double) = nullptr;
  double (*absent)(double) = nullptr;
  double (*also_absent)(double) = nullptr;
  std::string missing;
  resolve_symbol(library.handle, "cos", cosine, missing);
  resolve_symbol(library.handle, "fabcheck_absent_one", absent, missing);
  resolve_symbol(library.handle, "fabcheck_absent_two", also_absent, missing);
  ASSERT_NE(cosine, nullptr);
  EXPECT_DOUBLE_EQ(cosine(0.0), 1.0);
  EXPECT_EQ(absent, nullptr);
  EXPECT_EQ(missing, "fabcheck_absent_one");
}

}  // namespace
}  // namespace fabcheck
