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
