// libFuzzer target: arbitrary bytes as one measurements.jsonl line through the one-pass scan
// (results/measurement_scan.hpp) and the strict path (JsonLine + read_measurement_fields): whatever
// the scan accepts, the strict path must accept with the same fields, else it aborts.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "results/json_line.hpp"
#include "results/measurement_scan.hpp"
#include "tests/unit/results/measurement_fields_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  static fabcheck::MeasurementFields fast;  // reused from line to line, as read_run_dir does
  if (!fabcheck::scan_measurement_line(line, fast)) return 0;
  static fabcheck::JsonLine json;
  fabcheck::MeasurementFields strict;
  if (!fabcheck::testing::read_strictly(json, line, strict)) {
    std::fprintf(stderr, "the scan accepted a line the strict path refuses\n");
    std::abort();
  }
  const std::string difference = fabcheck::testing::first_difference(fast, strict);
  if (!difference.empty()) {
    std::fprintf(stderr, "the scan and the strict path differ in %s\n", difference.c_str());
    std::abort();
  }
  return 0;
}
