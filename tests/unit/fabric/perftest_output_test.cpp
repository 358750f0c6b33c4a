// perftest output parsing against recorded ib_write_bw / ib_write_lat outputs.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "fabric/perftest_output.hpp"

namespace fabcheck {
namespace {

std::string recorded(const std::string& name) {
  std::ifstream in(std::string(FABCHECK_FIXTURES_DIR) + "/fabric/perftest/" + name);
  std::ostringstream text;
  text << in.rdbuf();
  if (text.str().empty()) throw std::runtime_error("missing fixture " + name);
  return text.str();
}

TEST(PerftestBw, TextInGbits) {
  PerftestBw bw = parse_perftest_bw_text(recorded("ib_write_bw_gbits.txt"));
  ASSERT_TRUE(bw.ok()) << bw.error;
  EXPECT_EQ(bw.unit, "Gb/s");
  ASSERT_EQ(bw.rows.size(), 2u);
  EXPECT_EQ(bw.rows[0].size_bytes, 65536u);
  EXPECT_EQ(bw.rows[0].iterations, 5000u);
  EXPECT_DOUBLE_EQ(bw.rows[0].peak, 392.14);
  EXPECT_DOUBLE_EQ(bw.rows[0].average, 391.87);
  EXPECT_DOUBLE_EQ(bw.rows[0].msg_rate_mpps, 0.747424);
  EXPECT_EQ(bw.rows[1].size_bytes, 8388608u);
  EXPECT_DOUBLE_EQ(bw.rows[1].average, 392.95);
}

TEST(PerftestBw, TextInMiB) {
  PerftestBw bw = parse_perftest_bw_text(recorded("ib_write_bw_mib.txt"));
  ASSERT_TRUE(bw.ok()) << bw.error;
  EXPECT_EQ(bw.unit, "MiB/s");
  ASSERT_EQ(bw.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(bw.rows[0].average, 23301.45);
  // 23301.45 MiB/s * 1048576 * 8 / 1e9 = 195.466... Gb/s
  EXPECT_NEAR(mib_per_s_to_gbps(bw.rows[0].average), 195.4668, 1e-3);
}

TEST(PerftestBw, JsonQuotedAndUnquoted) {
  PerftestBw bw = parse_perftest_bw_json(recorded("ib_write_bw.json"));
  ASSERT_TRUE(bw.ok()) << bw.error;
  ASSERT_EQ(bw.rows.size(), 1u);
  EXPECT_EQ(bw.rows[0].size_bytes, 8388608u);
  EXPECT_DOUBLE_EQ(bw.rows[0].peak, 393.02);
  EXPECT_DOUBLE_EQ(bw.rows[0].average, 392.95);
  PerftestBw loose = parse_perftest_bw_json(recorded("ib_write_bw_unquoted.json"));
  ASSERT_TRUE(loose.ok()) << loose.error;
  EXPECT_DOUBLE_EQ(loose.rows[0].average, 185.12);
  EXPECT_EQ(loose.rows[0].size_bytes, 65536u);
}

TEST(PerftestLat, TextAndJson) {
  PerftestLat text = parse_perftest_lat_text(recorded("ib_write_lat.txt"));
  ASSERT_TRUE(text.ok()) << text.error;
  ASSERT_EQ(text.rows.size(), 1u);
  const auto& row = text.rows[0];
  EXPECT_EQ(row.size_bytes, 2u);
  EXPECT_EQ(row.iterations, 1000u);
  EXPECT_DOUBLE_EQ(row.t_min, 0.88);
  EXPECT_DOUBLE_EQ(row.t_max, 4.34);
  EXPECT_DOUBLE_EQ(row.t_typical, 0.93);
  EXPECT_DOUBLE_EQ(row.t_avg, 0.94);
  EXPECT_DOUBLE_EQ(row.t_stdev, 0.05);
  EXPECT_DOUBLE_EQ(row.p99, 1.02);
  EXPECT_DOUBLE_EQ(row.p999, 4.34);
  PerftestLat json = parse_perftest_lat_json(recorded("ib_write_lat.json"));
  ASSERT_TRUE(json.ok()) << json.error;
  EXPECT_DOUBLE_EQ(json.rows[0].p99, 1.02);
  EXPECT_DOUBLE_EQ(json.rows[0].p999, 4.34);
  EXPECT_DOUBLE_EQ(json.rows[0].t_typical, 0.93);
}

TEST(PerftestMalformed, GivesAnErrorNotANumber) {
  auto failed = parse_perftest_bw_text(recorded("ib_write_bw_failed.txt"));
  EXPECT_FALSE(failed.ok());
  EXPECT_TRUE(failed.rows.empty());
  auto garbled = parse_perftest_bw_text(recorded("ib_write_bw_garbled.txt"));
  EXPECT_FALSE(garbled.ok());
  EXPECT_TRUE(garbled.rows.empty());
  auto truncated = parse_perftest_bw_json(recorded("ib_write_bw_truncated.json"));
  EXPECT_FALSE(truncated.ok());
  EXPECT_FALSE(parse_perftest_bw_json("").ok());
  EXPECT_FALSE(parse_perftest_bw_json("{\"results\": {\"MsgSize\": 8, \"BW_average\": inf}}").ok());
  EXPECT_FALSE(parse_perftest_lat_text(" #bytes #iterations t_min\n").ok());
  EXPECT_FALSE(parse_perftest_lat_text(" #bytes #iterations\n 2 1000 0.88 4.34\n").ok());
  EXPECT_FALSE(parse_perftest_lat_json("{\"results\": {\"MsgSize\": 2}}").ok());
}

// ib_write_bw --data_validation's receiver lines, synthetic: written from the fprintf/printf
// formats of perftest 26.04's data_validation_stop_and_report (src/perftest_resources.c), not
// recorded from a run.
TEST(PerftestValidation, PassedFailedAndNoVerdictAreToldApart) {
  const std::string table =
      " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
      " 8388608    5000             392.41             392.38               0.005846\n";
  PerftestValidation v =
      parse_perftest_validation(table + "VALIDATION: PASSED - 1200 chunks, 78643200 bytes\n");
  EXPECT_EQ(v.result, PerftestValidation::Result::passed);
  EXPECT_EQ(v.bytes_validated, 78643200u);
  EXPECT_EQ(v.errors, 0u);
  v = parse_perftest_validation(table +
                                "VALIDATION: FAILED - 3 error(s), first at QP 0, Chunk 17, Offset "
                                "4096 (expected 0x5a, got 0x5b)\n");
  EXPECT_EQ(v.result, PerftestValidation::Result::failed);
  EXPECT_EQ(v.errors, 3u);
  EXPECT_EQ(v.line,
            "VALIDATION: FAILED - 3 error(s), first at QP 0, Chunk 17, Offset 4096 (expected "
            "0x5a, got 0x5b)");
  // A role in parentheses (duplex), and a FAILED never hidden by a later PASSED.
  v = parse_perftest_validation(
      "VALIDATION: FAILED (server) - 1 error(s), first at QP 1, Chunk 0, Offset 0 (expected 0x01, "
      "got 0x00)\nVALIDATION: PASSED (client) - 4 chunks, 4096 bytes\n");
  EXPECT_EQ(v.result, PerftestValidation::Result::failed);
  EXPECT_EQ(v.errors, 1u);
  EXPECT_EQ(parse_perftest_validation("VALIDATION: WARNING - no data validated\n").result,
            PerftestValidation::Result::no_data);
  EXPECT_EQ(parse_perftest_validation("VALIDATION: ERROR - validation_stop() failed\n").result,
            PerftestValidation::Result::error);
  EXPECT_EQ(parse_perftest_validation(table).result, PerftestValidation::Result::absent);
}

}  // namespace
}  // namespace fabcheck
