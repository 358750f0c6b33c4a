// What this binary was built from and with, for summary.json and `fabcheck --version`.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace fabcheck {

// fabcheck, compiler, MPI, CUDA and NCCL versions for summary.json.
nlohmann::json build_versions();

// `fabcheck --version` from build_versions(): "fabcheck 0.1.0", then one line each for the CUDA
// toolkit, the NCCL headers, the MPI library and the compiler, each saying what it is ("none" where
// the build has none):
//   fabcheck 0.1.0
//   cuda 13.0.88 (the toolkit built with; its runtime is linked in)
//   nccl 2.28.3 (the headers built against; libnccl.so.2 is opened when a probe needs it)
//   mpi Open MPI v4.1.4, ...
//   compiler 12.2.0
std::string version_text(const nlohmann::json& versions);

}  // namespace fabcheck
