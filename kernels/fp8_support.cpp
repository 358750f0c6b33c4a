// Which GPUs have FP8 tensor cores, and the FP8 GEMM's size.
#include "kernels/fp8_support.hpp"

namespace fabcheck {

std::string fp8_waiver(int major, int minor) {
  if (major > 8 || (major == 8 && minor >= 9)) return "";
  return "compute capability " + std::to_string(major) + "." + std::to_string(minor) +
         " has no FP8 tensor cores (FP8 GEMMs need 8.9 or 9.0 and later)";
}

int fp8_gemm_size(int gemm_size) { return gemm_size - gemm_size % 16; }

}  // namespace fabcheck
