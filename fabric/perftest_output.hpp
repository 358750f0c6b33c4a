// perftest (ib_write_bw, ib_write_lat) results from its JSON report or its text table. Anything
// that is not a complete, finite result row is an error, never a number.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fabcheck {

struct PerftestBwRow {
  std::uint64_t size_bytes = 0;
  std::uint64_t iterations = 0;
  double peak = 0;     // in `unit`
  double average = 0;  // in `unit`
  double msg_rate_mpps = 0;
};

struct PerftestBw {
  std::vector<PerftestBwRow> rows;
  std::string unit;   // "Gb/s" (--report_gbits) or "MiB/s"; JSON reports do not say
  std::string error;  // non-empty: the output could not be read (rows is then empty)
  bool ok() const { return error.empty(); }
};

struct PerftestLatRow {
  std::uint64_t size_bytes = 0;
  std::uint64_t iterations = 0;
  double t_min = 0, t_max = 0, t_typical = 0, t_avg = 0, t_stdev = 0;  // microseconds
  double p99 = 0, p999 = 0;
};

struct PerftestLat {
  std::vector<PerftestLatRow> rows;
  std::string error;
  bool ok() const { return error.empty(); }
};

// The --out_json report: {"results": {"MsgSize": ..., "BW_peak": ..., "BW_average": ...,
// "MsgRate": ...}} (also the unquoted "key: value," form some releases write).
PerftestBw parse_perftest_bw_json(std::string_view text);
PerftestLat parse_perftest_lat_json(std::string_view text);

// The console table after the " #bytes ..." header line.
PerftestBw parse_perftest_bw_text(std::string_view text);
PerftestLat parse_perftest_lat_text(std::string_view text);

// What ib_write_bw --data_validation's receiving side printed (perftest 26.04,
// data_validation_stop_and_report): "VALIDATION: PASSED - 1200 chunks, 78643200 bytes",
// "VALIDATION: FAILED - 3 error(s), first at QP 0, Chunk 17, Offset 4096 (expected 0x5a, got
// 0x5b)", "VALIDATION: WARNING - no data validated", "VALIDATION: ERROR - ...". ib_write_bw
// exits 0 whatever it printed, so this line is the only verdict.
struct PerftestValidation {
  enum class Result { absent, passed, no_data, error, failed };  // worse later
  Result result = Result::absent;
  std::uint64_t errors = 0;           // failed: the mismatches found
  std::uint64_t bytes_validated = 0;  // passed
  std::string line;                   // the VALIDATION: line as printed
};
PerftestValidation parse_perftest_validation(std::string_view output);

// MiB/s -> Gb/s (2^20 bytes * 8 bits / 1e9).
double mib_per_s_to_gbps(double mib_per_s);

}  // namespace fabcheck
