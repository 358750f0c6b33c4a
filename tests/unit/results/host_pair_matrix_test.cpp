// Host-pair matrices: which measurements form them, and their layout.
#include "results/host_pair_matrix.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace fabcheck {
namespace {

Measurement pair_figure(const std::string& a, const std::string& b, double value,
                        const std::string& pass = "first", std::uint64_t size = 4 << 20) {
  Measurement m;
  m.probe = "coll.node_pairs";
  m.metric = "exchange_busbw";
  m.unit = "GB/s";
  m.host = std::min(a, b);
  m.peer = std::max(a, b);
  m.subject = m.host + "--" + m.peer;
  m.rank = -1;
  m.value = value;
  m.size_bytes = size;
  m.params["pass"] = pass;
  return m;
}

TEST(HostPairMatrix, OnlyFiguresBetweenTwoHostsCount) {
  EXPECT_TRUE(is_host_pair_figure(pair_figure("n1", "n0", 1)));
  Measurement per_rank = pair_figure("n0", "n1", 1);
  per_rank.rank = 0;  // an RDMA run from one rank to a peer HCA
  EXPECT_FALSE(is_host_pair_figure(per_rank));
  Measurement unsorted = pair_figure("n0", "n1", 1);
  unsorted.subject = "n1--n0";
  EXPECT_FALSE(is_host_pair_figure(unsorted));
  Measurement failed = pair_figure("n0", "n1", 1);
  failed.status = MeasurementStatus::error;
  EXPECT_FALSE(is_host_pair_figure(failed));
}

TEST(HostPairMatrix, GroupsByProbeMetricSizeAndPass) {
  const auto matrices = host_pair_matrices(
      {pair_figure("n2", "n0", 1.5), pair_figure("n0", "n1", 2.5), pair_figure("n1", "n2", 3.5),
       pair_figure("n0", "n2", 0.5, "confirm"), pair_figure("n0", "n1", 9, "first", 65536)});
  ASSERT_EQ(matrices.size(), 3u);
  const HostPairMatrix& first = matrices[0];
  EXPECT_EQ(first.name(), "coll.node_pairs:exchange_busbw:4194304:first");
  EXPECT_EQ(first.hosts, (std::vector<std::string>{"n0", "n1", "n2"}));
  ASSERT_EQ(first.values.size(), 9u);
  EXPECT_TRUE(std::isnan(first.values[0]));
  EXPECT_EQ(first.values[1], 2.5);  // n0-n1
  EXPECT_EQ(first.values[3], 2.5);  // n1-n0
  EXPECT_EQ(first.values[2], 1.5);  // n0-n2
  EXPECT_EQ(first.values[5], 3.5);  // n1-n2
  EXPECT_EQ(matrices[1].pass, "confirm");
  EXPECT_EQ(matrices[1].hosts, (std::vector<std::string>{"n0", "n2"}));
  EXPECT_EQ(matrices[2].size_bytes, 65536u);
}

}  // namespace
}  // namespace fabcheck
