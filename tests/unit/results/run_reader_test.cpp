// read_run_dir against what a run writes: every record written by the run's own writer comes back
// from the fleet store as it was, parameters included, where consecutive records repeat, change or
// hide one parameter set inside another's text.
#include "results/run_reader.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "results/record_json.hpp"
#include "tests/doubles/temp_dir.hpp"

namespace fabcheck {
namespace {

using fabcheck::testing::TempDir;  // tests/doubles/temp_dir.hpp

Measurement figure(const std::string& metric, std::map<std::string, std::string> params) {
  Measurement m;
  m.probe = "gpu.h2d";
  m.metric = metric;
  m.unit = "GB/s";
  m.host = "node07";
  m.rank = 3;
  m.subject = "gpu3";
  m.value = 52.5;
  m.size_bytes = 1 << 20;
  m.params = std::move(params);
  m.time_utc = "2026-12-01T02:00:00Z";
  return m;
}

TEST(ReadRunDir, EveryRecordComesBackWithItsOwnParameters) {
  const std::string zero(1, '\0');
  const std::vector<Measurement> written = {
      figure("bw", {{"bus_id", "0000:18:00.0"}, {"memory", "pinned"}}),
      figure("bw", {{"bus_id", "0000:18:00.0"}, {"memory", "pinned"}}),    // the same set again
      figure("bw", {{"bus_id", "0000:18:00.0"}, {"memory", "pageable"}}),  // one value changed
      figure("bw", {{"bus_id", "0000:18:00.0"}}),                          // one key gone
      figure("bw", {}),
      figure("bw", {{"a" + zero, "b"}}),  // the same bytes as the next, cut elsewhere
      figure("bw", {{"a", zero + "b"}}),
      figure("bw", {{"bus_id", "0000:18:00.0"}, {"memory", "pinned"}}),
  };
  TempDir dir;
  {
    std::ofstream out(dir.path() / "measurements.jsonl", std::ios::binary);
    for (const Measurement& m : written) out << to_jsonl_line(to_json(m));
  }
  FleetStore store;
  read_run_dir(dir.path(), store);
  ASSERT_EQ(store.rows.size(), written.size());
  for (std::size_t i = 0; i < written.size(); ++i) {
    const Measurement read = store.materialize(store.rows[i]);
    EXPECT_EQ(read.params, written[i].params) << "record " << i;
    EXPECT_EQ(read.probe, written[i].probe);
    EXPECT_EQ(read.metric, written[i].metric);
    EXPECT_EQ(read.host, written[i].host);
    EXPECT_EQ(read.subject, written[i].subject);
    EXPECT_EQ(read.value, written[i].value);
    EXPECT_EQ(read.size_bytes, written[i].size_bytes);
    EXPECT_EQ(read.time_utc, written[i].time_utc);
  }
  EXPECT_EQ(store.rows[0].params, store.rows[1].params);
  EXPECT_EQ(store.rows[0].params, store.rows[7].params);
  EXPECT_NE(store.rows[0].params, store.rows[2].params);
  EXPECT_NE(store.rows[5].params, store.rows[6].params);
}

}  // namespace
}  // namespace fabcheck
