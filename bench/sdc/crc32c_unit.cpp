// CRC32C by the CPU's crc32 instruction (x86-64 SSE 4.2, ARMv8 CRC), chosen at run time.
#include "bench/sdc/crc32c_unit.hpp"

#if defined(__x86_64__)
#include <nmmintrin.h>
#elif defined(__aarch64__)
#include <arm_acle.h>
#include <sys/auxv.h>
#endif

namespace fabcheck::sdc {
namespace {

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) std::uint32_t crc_by_instruction(std::uint64_t seed,
                                                                   std::uint32_t words) {
  std::uint64_t crc = 0xFFFFFFFFu;
  for (std::uint32_t i = 0; i < words; ++i) crc = _mm_crc32_u64(crc, crc_stream_word(seed, i));
  return ~static_cast<std::uint32_t>(crc);
}
bool has_instruction() { return __builtin_cpu_supports("sse4.2"); }
const char* instruction_name() { return "sse4.2 crc32"; }
#elif defined(__aarch64__)
__attribute__((target("+crc"))) std::uint32_t crc_by_instruction(std::uint64_t seed,
                                                                 std::uint32_t words) {
  std::uint32_t crc = 0xFFFFFFFFu;
  for (std::uint32_t i = 0; i < words; ++i) crc = __crc32cd(crc, crc_stream_word(seed, i));
  return ~crc;
}
bool has_instruction() { return (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0; }
const char* instruction_name() { return "armv8 crc32c"; }
#else
std::uint32_t crc_by_instruction(std::uint64_t, std::uint32_t) { return 0; }
bool has_instruction() { return false; }
const char* instruction_name() { return ""; }
#endif

}  // namespace

const char* crc32c_unit_name() { return has_instruction() ? instruction_name() : ""; }

std::uint64_t crc32c_of_stream_by_unit(std::uint64_t seed, std::uint32_t words) {
  static const bool available = has_instruction();
  return available ? crc_by_instruction(seed, words) : 0;
}

}  // namespace fabcheck::sdc
