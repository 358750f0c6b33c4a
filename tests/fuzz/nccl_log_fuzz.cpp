// libFuzzer target: arbitrary bytes as an NCCL debug log, through parsing and judging.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fabric/nccl_log.hpp"
#include "fabric/nccl_transport_records.hpp"
#include "fabric/nccl_transport_rules.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  fabcheck::NcclLog log;
  fabcheck::parse_nccl_log_text(text, "fuzz.log", log);
  for (const char* network : {"IB", "any"}) {
    fabcheck::judge_nccl_transports(log, {network, true, true}, "nccl-log", "fuzz");
  }
  fabcheck::nccl_transport_measurements(log, "fabric.nccl_transport", "fuzz");
  return 0;
}
