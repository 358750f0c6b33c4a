// host.mem_bw: the triad runs pinned and gives a plausible bandwidth; a NUMA node well below its
// host's other nodes WARNs, nodes alike give nothing.
#include <gtest/gtest.h>

#include "host/memory_bandwidth.hpp"

namespace fabcheck {
namespace {

TEST(MemoryBandwidth, TriadOnThisMachine) {
  const auto nodes = numa_nodes_and_cpus();
  ASSERT_FALSE(nodes.empty());
  TriadRun run;
  run.cpus = {nodes.begin()->second.front()};
  run.bytes_per_array = 16 << 20;
  run.repeats = 2;
  const double gbps = stream_triad_gbps(run);
  EXPECT_GT(gbps, 0.2);                    // any machine that builds fabcheck
  EXPECT_LT(gbps, 2000);                   // no machine at all
  run.memory_node = nodes.begin()->first;  // bound explicitly to where it runs
  EXPECT_GT(stream_triad_gbps(run), 0.2);
}

// The default array is the same from run to run on one node (its figures are compared by size
// with a baseline's and a history's) while the memory available moves: before, two runs of one
// node measured at 704,195,712 and 730,372,224 bytes, figures no baseline or history could match.
TEST(MemoryBandwidth, DefaultArrayIsAPowerOfTwoStableAcrossRuns) {
  const std::size_t mib = std::size_t{1} << 20;
  EXPECT_EQ(default_stream_array_bytes(21.9e9), 512 * mib);
  EXPECT_EQ(default_stream_array_bytes(23.4e9), 512 * mib);
  EXPECT_EQ(default_stream_array_bytes(1e9), 64 * mib);     // a small VM: the floor
  EXPECT_EQ(default_stream_array_bytes(0), 64 * mib);       // MemAvailable unreadable
  EXPECT_EQ(default_stream_array_bytes(1e12), 1024 * mib);  // a large server: the cap
  EXPECT_EQ(default_stream_array_bytes(5e9), 128 * mib);    // 156 MB -> 128 MiB
}

TEST(MemoryBandwidth, ASlowNodeAmongItsPeersWarns) {
  auto node = [](const char* host, const char* subject, double gbps) {
    Measurement m;
    m.probe = kHostMemBwProbe;
    m.metric = "triad_bw";
    m.host = host;
    m.subject = subject;
    m.value = gbps;
    m.unit = "GB/s";
    return m;
  };
  const auto findings = judge_memory_bandwidth({node("a", "numa0", 190), node("a", "numa1", 120),
                                                node("a", "numa2", 185), node("a", "numa3", 188),
                                                node("b", "numa0", 120)});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::warn);
  EXPECT_EQ(findings[0].subject, "numa1");
  EXPECT_EQ(findings[0].host, "a");
  EXPECT_NE(findings[0].message.find("below the median 186.5 GB/s"), std::string::npos)
      << findings[0].message;
  EXPECT_TRUE(judge_memory_bandwidth({node("a", "numa0", 190), node("a", "numa1", 160)}).empty());
}

}  // namespace
}  // namespace fabcheck
