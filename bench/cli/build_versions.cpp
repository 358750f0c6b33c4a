// fabcheck, compiler, MPI, CUDA and NCCL versions, and the --version text made of them.
#include "bench/cli/build_versions.hpp"

#include "bench/core/world.hpp"

namespace fabcheck {

nlohmann::json build_versions() {
  nlohmann::json versions = {{"fabcheck", FABCHECK_VERSION}, {"compiler", __VERSION__}};
  versions["mpi"] = mpi_library_version();
#if defined(FABCHECK_CUDA_VERSION) && defined(FABCHECK_NCCL_VERSION)
  versions["cuda"] = FABCHECK_CUDA_VERSION;
  versions["nccl"] = FABCHECK_NCCL_VERSION;
#else
  versions["cuda"] = "";
  versions["nccl"] = "";
#endif
  return versions;
}

namespace {

// A version as build_versions() holds it: the text, or `none` where the build has none.
std::string version_or(const nlohmann::json& versions, const char* key, const std::string& none) {
  const auto found = versions.find(key);
  const std::string text =
      found != versions.end() && found->is_string() ? found->get<std::string>() : std::string();
  return text.empty() ? none : text;
}

}  // namespace

std::string version_text(const nlohmann::json& versions) {
  const std::string cuda = version_or(versions, "cuda", "");
  const std::string nccl = version_or(versions, "nccl", "");
  std::string text = "fabcheck " + version_or(versions, "fabcheck", "(unknown)") + "\n";
  text += cuda.empty() ? "cuda none (built without CUDA)\n"
                       : "cuda " + cuda + " (the toolkit built with; its runtime is linked in)\n";
  text += nccl.empty() ? "nccl none (built without CUDA)\n"
                       : "nccl " + nccl +
                             " (the headers built against; libnccl.so.2 is opened when a probe "
                             "needs it)\n";
  text += "mpi " + version_or(versions, "mpi", "none (built without MPI)") + "\n";
  return text + "compiler " + version_or(versions, "compiler", "(unknown)") + "\n";
}

}  // namespace fabcheck
