// `fabcheck --version`: the version, then what the build was made with, "none" where it has none.
#include "bench/cli/build_versions.hpp"

#include <gtest/gtest.h>

namespace fabcheck {
namespace {

TEST(VersionText, NamesEachVersionTheBuildKnows) {
  const nlohmann::json versions = {{"fabcheck", "1.2.3"},
                                   {"compiler", "12.2.0"},
                                   {"mpi", "Open MPI v4.1.4"},
                                   {"cuda", "13.0.88"},
                                   {"nccl", "2.28.3"}};
  EXPECT_EQ(version_text(versions),
            "fabcheck 1.2.3\n"
            "cuda 13.0.88 (the toolkit built with; its runtime is linked in)\n"
            "nccl 2.28.3 (the headers built against; libnccl.so.2 is opened when a probe needs "
            "it)\n"
            "mpi Open MPI v4.1.4\n"
            "compiler 12.2.0\n");
}

TEST(VersionText, SaysNoneForWhatTheBuildLacks) {
  const nlohmann::json versions = {
      {"fabcheck", "1.2.3"}, {"compiler", "12.2.0"}, {"mpi", ""}, {"cuda", ""}, {"nccl", ""}};
  EXPECT_EQ(version_text(versions),
            "fabcheck 1.2.3\n"
            "cuda none (built without CUDA)\n"
            "nccl none (built without CUDA)\n"
            "mpi none (built without MPI)\n"
            "compiler 12.2.0\n");
}

// The binary's own: its first line is the version summary.json records.
TEST(VersionText, StartsWithThisBuildsVersion) {
  const nlohmann::json versions = build_versions();
  const std::string first = "fabcheck " + versions["fabcheck"].get<std::string>() + "\n";
  EXPECT_EQ(version_text(versions).substr(0, first.size()), first);
  EXPECT_NE(versions["fabcheck"].get<std::string>(), "");
}

}  // namespace
}  // namespace fabcheck
