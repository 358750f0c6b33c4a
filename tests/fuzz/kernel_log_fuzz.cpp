// libFuzzer target: arbitrary bytes as a kernel log, split into lines as fabcheck kernel-log does,
// through the time prefixes, classification, tallies, measurements and judgement.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "host/kernel_log_scan.hpp"
#include "results/line_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  fabcheck::KernelLogWindow window;
  window.since_s = 1709596800;  // a window, so both sides of it are exercised
  window.boot_s = 1709590000;
  fabcheck::KernelLogScan scan(window);
  fabcheck::LineSplitter splitter(4096);
  const fabcheck::LineHandler add = [&](std::string_view line, std::size_t number, bool) {
    scan.add_line(line, "fuzz.log", number, 1709683200);
  };
  splitter.feed(text, add);
  splitter.finish(add);
  const auto measurements = fabcheck::kernel_log_measurements(scan, {}, "fuzz.log");
  fabcheck::judge_kernel_log(measurements);
  return 0;
}
