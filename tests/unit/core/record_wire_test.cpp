// The records that cross ranks, typed: a Measurement, a Finding, an evidence file and a rank's
// results come back exactly as sent (doubles bit for bit: NaN, infinities, -0; params; optional
// stats), maps and arrays too, and a malformed one is refused.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>

#include "bench/core/rank_results.hpp"
#include "bench/core/record_wire.hpp"
#include "bench/core/wire.hpp"

namespace fabcheck {
namespace {

std::uint64_t bits(double value) { return std::bit_cast<std::uint64_t>(value); }

Measurement awkward_measurement() {
  Measurement m;
  m.probe = "coll.all_reduce";
  m.metric = "busbw";
  m.value = std::numeric_limits<double>::quiet_NaN();
  m.unit = "GB/s";
  m.host = "node a";
  m.rank = 3;
  m.subject = "world";
  m.peer = "";
  m.size_bytes = std::uint64_t{1} << 40;
  m.params = {{"backend", "nccl"}, {"", "empty key"}, {"line", std::string("a\nb\0c", 5)}};
  m.stats = SampleStats{17,
                        -0.0,
                        1e-300,
                        std::numeric_limits<double>::infinity(),
                        4.5,
                        5.5,
                        std::numeric_limits<double>::quiet_NaN()};
  m.by_rank = {{0, "node a", -std::numeric_limits<double>::infinity()}, {1, "node b", 2.5}};
  m.status = MeasurementStatus::error;
  m.message = "bad \xff bytes stay as they are";
  m.time_utc = "2026-12-01T00:00:00Z";
  return m;
}

void expect_same(const Measurement& a, const Measurement& b) {
  EXPECT_EQ(bits(a.value), bits(b.value));
  EXPECT_EQ(a.probe, b.probe);
  EXPECT_EQ(a.metric, b.metric);
  EXPECT_EQ(a.unit, b.unit);
  EXPECT_EQ(a.host, b.host);
  EXPECT_EQ(a.rank, b.rank);
  EXPECT_EQ(a.subject, b.subject);
  EXPECT_EQ(a.peer, b.peer);
  EXPECT_EQ(a.size_bytes, b.size_bytes);
  EXPECT_EQ(a.params, b.params);
  ASSERT_EQ(a.stats.has_value(), b.stats.has_value());
  if (a.stats) {
    EXPECT_EQ(a.stats->count, b.stats->count);
    for (auto field : {&SampleStats::min, &SampleStats::median, &SampleStats::max,
                       &SampleStats::p99, &SampleStats::mean, &SampleStats::cv}) {
      EXPECT_EQ(bits((*a.stats).*field), bits((*b.stats).*field));
    }
  }
  ASSERT_EQ(a.by_rank.size(), b.by_rank.size());
  for (std::size_t i = 0; i < a.by_rank.size(); ++i) {
    EXPECT_EQ(a.by_rank[i].rank, b.by_rank[i].rank);
    EXPECT_EQ(a.by_rank[i].host, b.by_rank[i].host);
    EXPECT_EQ(bits(a.by_rank[i].value), bits(b.by_rank[i].value));
  }
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.message, b.message);
  EXPECT_EQ(a.time_utc, b.time_utc);
}

TEST(RecordWire, AMeasurementComesBackBitForBit) {
  const Measurement sent = awkward_measurement();
  expect_same(wire_decode<Measurement>(wire_encode(sent), "test"), sent);
  Measurement plain;  // no size, no stats, no per-rank figures
  plain.value = -0.0;
  const auto back = wire_decode<Measurement>(wire_encode(plain), "test");
  expect_same(back, plain);
  EXPECT_TRUE(std::signbit(back.value));
}

TEST(RecordWire, AFindingAndAnEvidenceFileComeBackWhole) {
  Finding f;
  f.severity = Severity::fail;
  f.probe = "coll.all_reduce";
  f.metric = "busbw";
  f.subject = "world";
  f.host = "node02,node03";
  f.rank = -1;
  f.size_bytes = 1024;
  f.observed = std::numeric_limits<double>::infinity();
  f.expected = 100;
  f.unit = "GB/s";
  f.message = "below";
  f.evidence = "line 1\nline 2";
  f.remedy = "drain node02: reseat";
  f.source = "profile";
  const auto back = wire_decode<Finding>(wire_encode(f), "test");
  EXPECT_EQ(back.severity, f.severity);
  EXPECT_EQ(back.host, f.host);
  EXPECT_EQ(back.size_bytes, f.size_bytes);
  EXPECT_EQ(back.observed, f.observed);
  EXPECT_EQ(back.expected, f.expected);
  EXPECT_FALSE(back.warn_at);
  EXPECT_EQ(back.evidence, f.evidence);
  EXPECT_EQ(back.remedy, f.remedy);
  EXPECT_EQ(back.source, f.source);
  const EvidenceFile file{"dmesg.txt", std::string("a\0b\xff", 4)};
  const auto file_back = wire_decode<EvidenceFile>(wire_encode(file), "test");
  EXPECT_EQ(file_back.name, file.name);
  EXPECT_EQ(file_back.text, file.text);
}

TEST(RecordWire, ARanksResultsInOrderAndAnEnumOutOfRangeIsRefused) {
  RankResults results;
  results.notes = {"# note one\n", ""};
  results.measurements = {awkward_measurement(), Measurement{}};
  const auto back = wire_decode<RankResults>(wire_encode(results), "rank 1");
  EXPECT_EQ(back.notes, results.notes);
  ASSERT_EQ(back.measurements.size(), 2u);
  expect_same(back.measurements[0], results.measurements[0]);
  expect_same(back.measurements[1], results.measurements[1]);

  Finding bad;
  std::string encoded = wire_encode(bad);
  const int out_of_range = 42;
  encoded.replace(0, sizeof(Severity), reinterpret_cast<const char*>(&out_of_range),
                  sizeof(Severity));
  EXPECT_THROW(wire_decode<Finding>(encoded, "rank 1"), WireError);
}

TEST(Wire, MapsAndArraysRoundTripAndAKeyTwiceIsRefused) {
  const std::map<std::string, std::vector<int>> map{{"", {}}, {"b", {1, 2}}, {"a", {3}}};
  EXPECT_EQ((wire_decode<std::map<std::string, std::vector<int>>>(wire_encode(map), "test")), map);
  const std::array<std::uint8_t, 4> bytes{0, 255, 7, 0};
  EXPECT_EQ(wire_encode(bytes), std::string("\0\xff\x07\0", 4)) << "no count: the size is known";
  EXPECT_EQ((wire_decode<std::array<std::uint8_t, 4>>(wire_encode(bytes), "test")), bytes);
  EXPECT_THROW((wire_decode<std::array<std::uint8_t, 4>>(std::string(3, 'x'), "test")), WireError);
  using Pairs = std::vector<std::pair<std::string, int>>;
  const std::string twice = wire_encode(Pairs{{"k", 1}, {"k", 2}});  // a map's layout, key twice
  EXPECT_THROW((wire_decode<std::map<std::string, int>>(twice, "test")), WireError);
}

}  // namespace
}  // namespace fabcheck
