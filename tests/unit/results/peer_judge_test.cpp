// Tests of the peer judge at each level: siblings on a node, nodes of a sweep, node pairs (a slow
// pair, a node slow with every partner, a slow rail, an HCA slow in every pair), with the tier
// note; a tight fleet raises nothing; figures a family judges itself are left alone; shared-path
// storage across runs only (a node at half the fleet's median is one WARN, like for like only,
// never within a run).
#include "results/peer_judge.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "results/profile.hpp"

namespace fabcheck {
namespace {

using ::testing::HasSubstr;

MetricCatalog catalog() {
  return {{"gpu.h2d", {{"bw", {"GB/s", Better::higher}}}},
          {"gpu.launch", {{"launch_us", {"us", Better::lower}}}},
          {"coll.all_reduce", {{"busbw", {"GB/s", Better::higher}}}},
          {"fabric.rdma_bw", {{"write_bw", {"Gb/s", Better::higher}}}},
          {"fabric.ib_ports", {{"port_rate", {"Gb/s", Better::higher}}}},
          {"gpu.gemm", {{"bf16_tflops", {"TFLOP/s", Better::higher}}}},
          {"fabric.pcie_links", {{"gpu_link_width", {"count", Better::higher}}}},
          {"storage.ckpt_write",
           {{"bw_aggregate", {"GB/s", Better::higher}}, {"bw_rank", {"GB/s", Better::higher}}}}};
}

Measurement figure(const std::string& probe, const std::string& metric, const std::string& unit,
                   const std::string& host, const std::string& subject, double value,
                   std::optional<std::uint64_t> size = std::nullopt, const std::string& peer = "") {
  Measurement m;
  m.probe = probe;
  m.metric = metric;
  m.unit = unit;
  m.host = host;
  m.subject = subject;
  m.peer = peer;
  m.value = value;
  m.size_bytes = size;
  m.params = {{"backend", "nccl"}, {"bus_id", "0000:" + subject + ":00.0"}};
  return m;
}

// Deterministic +-1% noise.
double noise(int i) { return 1.0 + 0.01 * std::sin(i * 12.9898); }

std::vector<Finding> judge(const std::vector<Measurement>& measurements,
                           const Profile* profile = nullptr) {
  const MetricCatalog c = catalog();
  PeerJudgeOptions options;
  options.catalog = &c;
  options.profile = profile;
  return judge_peer_measurements(measurements, options);
}

std::vector<Measurement> h2d_sweep(int nodes) {
  std::vector<Measurement> out;
  int i = 0;
  for (int n = 0; n < nodes; ++n) {
    for (int g = 0; g < 8; ++g) {
      for (std::uint64_t size : {32ull << 20, 1ull << 30}) {
        out.push_back(figure("gpu.h2d", "bw", "GB/s", "node" + std::to_string(n),
                             "gpu" + std::to_string(g), 52 * noise(++i), size));
      }
    }
  }
  return out;
}

TEST(PeerJudge, TightFleetRaisesNothing) { EXPECT_TRUE(judge(h2d_sweep(16)).empty()); }

TEST(PeerJudge, SlowGpuAmongItsSiblingsOnceForAllSizes) {
  auto sweep = h2d_sweep(16);
  for (Measurement& m : sweep) {
    if (m.host == "node3" && m.subject == "gpu6") m.value *= 0.5;
  }
  const auto findings = judge(sweep);
  ASSERT_EQ(findings.size(), 1u);
  const Finding& f = findings[0];
  EXPECT_EQ(f.severity, Severity::fail);
  EXPECT_EQ(f.host, "node3");
  EXPECT_EQ(f.subject, "gpu6");
  EXPECT_NEAR(*f.expected, 52, 1);
  EXPECT_THAT(f.message, HasSubstr("node3: gpu6 gpu.h2d bw at"));
  EXPECT_THAT(f.message, HasSubstr("50% below the median"));
  EXPECT_THAT(f.message, HasSubstr("of its 8 sibling subjects on the node"));
  EXPECT_THAT(f.message, HasSubstr("[stands out at 2 sizes; the worst shown]"));
  EXPECT_THAT(f.source, HasSubstr("inferred: median of 8 siblings on the node"));
}

TEST(PeerJudge, WholeNodeBehindTheFleet) {
  auto sweep = h2d_sweep(16);
  for (Measurement& m : sweep) {
    if (m.host == "node9") m.value *= 0.7;  // every GPU: a node-wide cause
  }
  const auto findings = judge(sweep);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].host, "node9");
  EXPECT_EQ(findings[0].subject, "gpu# (all)");
  EXPECT_THAT(findings[0].message, HasSubstr("(median of its 8) is 30% below the fleet median"));
  EXPECT_THAT(findings[0].message, HasSubstr("of 16 nodes"));
}

TEST(PeerJudge, LatencyIsWorseHigher) {
  std::vector<Measurement> sweep;
  for (int g = 0; g < 8; ++g) {
    sweep.push_back(figure("gpu.launch", "launch_us", "us", "n", "gpu" + std::to_string(g),
                           g == 4 ? 9.0 : 2.5 * noise(g)));
  }
  const auto findings = judge(sweep);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].subject, "gpu4");
  EXPECT_THAT(findings[0].message, HasSubstr("above the median"));
}

TEST(PeerJudge, LeavesCountsStatesAndExcludedFiguresAlone) {
  std::vector<Measurement> sweep;
  for (int h = 0; h < 8; ++h) {
    const std::string port = "mlx5_" + std::to_string(h) + "/1";
    sweep.push_back(figure("fabric.ib_ports", "port_rate", "Gb/s", "n", port, h == 2 ? 200 : 400));
    sweep.push_back(figure("fabric.pcie_links", "gpu_link_width", "count", "n",
                           "0000:1" + std::to_string(h) + ":00.0", h == 2 ? 8 : 16));
  }
  // As fabric.ib_ports and fabric.pcie_links declare (ProbeInfo::peers): the fabric judge's
  // siblings rule names them instead.
  const MetricCatalog fabric_catalog = catalog();
  PeerJudgeOptions fabric_excluded;
  fabric_excluded.catalog = &fabric_catalog;
  fabric_excluded.excluded_probes = {"fabric.ib_ports", "fabric.pcie_links"};
  EXPECT_TRUE(judge_peer_measurements(sweep, fabric_excluded).empty());
  EXPECT_FALSE(judge(sweep).empty());  // the exclusion is what leaves the slow port alone
  // A figure a family judges among the node's GPUs itself is compared across nodes only.
  std::vector<Measurement> gemm;
  for (int g = 0; g < 8; ++g) {
    gemm.push_back(figure("gpu.gemm", "bf16_tflops", "TFLOP/s", "n", "gpu" + std::to_string(g),
                          g == 1 ? 500 : 660));
  }
  const MetricCatalog c = catalog();
  PeerJudgeOptions options;
  options.catalog = &c;
  options.judged_within_node_elsewhere = {{"gpu.gemm", "bf16_tflops"}};
  EXPECT_TRUE(judge_peer_measurements(gemm, options).empty());
  EXPECT_EQ(judge(gemm).size(), 1u);
}

// Node pairs: node i measures to i+1 and i+4 over 4 rails (rdma write_bw, Gb/s).
std::vector<Measurement> pair_sweep(int nodes, const std::function<double(int, int, int)>& value) {
  std::vector<Measurement> out;
  int k = 0;
  for (int i = 0; i < nodes; ++i) {
    for (int j : {(i + 1) % nodes, (i + 4) % nodes}) {
      for (int rail = 0; rail < 4; ++rail) {
        const std::string hca = "mlx5_" + std::to_string(rail);
        out.push_back(figure("fabric.rdma_bw", "write_bw", "Gb/s", "n" + std::to_string(i), hca,
                             value(i, j, rail) * noise(++k), 8 << 20,
                             "n" + std::to_string(j) + "/" + hca));
      }
    }
  }
  return out;
}

TEST(PeerJudge, SlowPairIsThePathBetweenThem) {
  const auto findings =
      judge(pair_sweep(12, [](int i, int j, int) { return (i == 2 && j == 6) ? 240.0 : 395.0; }));
  ASSERT_EQ(findings.size(), 1u) << findings[0].message;
  EXPECT_EQ(findings[0].subject, "n2--n6");
  EXPECT_EQ(findings[0].severity, Severity::fail);
  EXPECT_THAT(findings[0].message, HasSubstr("between n2 and n6"));
  EXPECT_THAT(findings[0].message, HasSubstr("the path between them"));
}

TEST(PeerJudge, NodeSlowWithEveryPartnerIsTheNode) {
  const auto findings =
      judge(pair_sweep(12, [](int i, int j, int) { return (i == 5 || j == 5) ? 200.0 : 395.0; }));
  ASSERT_EQ(findings.size(), 1u) << findings[0].message;
  EXPECT_EQ(findings[0].host, "n5");
  EXPECT_EQ(findings[0].subject, "node");
  EXPECT_THAT(findings[0].message, HasSubstr("4 of its 4 node pairs are below"));
  EXPECT_THAT(findings[0].message, HasSubstr("the node, not its partners"));
}

TEST(PeerJudge, SlowRailBetweenTwoNodes) {
  const auto findings = judge(pair_sweep(
      12, [](int i, int j, int rail) { return (i == 7 && j == 8 && rail == 3) ? 200.0 : 395.0; }));
  ASSERT_EQ(findings.size(), 1u) << findings[0].message;
  EXPECT_EQ(findings[0].host, "n7");
  EXPECT_EQ(findings[0].subject, "n7/mlx5_3--n8/mlx5_3");  // a link: neither node's fault
  EXPECT_THAT(findings[0].message, HasSubstr("n7: mlx5_3 -> n8/mlx5_3"));
  EXPECT_THAT(findings[0].message, HasSubstr("a rail, not the nodes"));
}

TEST(PeerJudge, HcaSlowAtOneEndIsThatHostsHcaNotItsPartners) {
  // n5's mlx5_3 at half rate: slow in its 4 pairs, whichever end measured (n5 -> n6, n5 -> n9,
  // n4 -> n5, n1 -> n5). One finding, on n5's HCA; none on the partners that measured it.
  const auto findings = judge(pair_sweep(
      12, [](int i, int j, int rail) { return (i == 5 || j == 5) && rail == 3 ? 200.0 : 395.0; }));
  ASSERT_EQ(findings.size(), 1u) << findings[0].host << " " << findings[0].message;
  const Finding& f = findings[0];
  EXPECT_EQ(f.host, "n5");
  EXPECT_EQ(f.subject, "mlx5_3");
  EXPECT_EQ(f.severity, Severity::fail);
  EXPECT_NEAR(*f.observed, 200, 5);
  EXPECT_THAT(f.message, HasSubstr("n5: mlx5_3 fabric.rdma_bw write_bw at 8MiB"));
  EXPECT_THAT(f.message, HasSubstr("slow in 4 of its 4 node pairs"));
  EXPECT_THAT(f.message, HasSubstr("this end's HCA, not its partners"));
  EXPECT_THAT(f.source, HasSubstr("rails of the pair"));
}

TEST(PeerJudge, FindingsNameTheTierTheFigureMatches) {
  Profile profile;
  TierPath path;
  path.name = "inter_node_nic";
  path.figures = {{"fabric.rdma_bw", "write_bw"}};
  path.unit = "Gb/s";
  path.tiers = {{"ib-ndr", "", 360, 400, "s", 0},
                {"ib-hdr", "", 180, 200, "s", 0},
                {"ib-edr", "", 90, 100, "s", 0}};
  profile.paths.push_back(path);  // no expected tier: the peers' median says it
  const auto findings =
      judge(pair_sweep(12, [](int i, int j, int) { return (i == 2 && j == 6) ? 96.0 : 395.0; }),
            &profile);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_THAT(findings[0].message, HasSubstr("(matches ib-edr, expected ib-ndr)"));
}

TEST(PeerJudge, OneNodeOrOnePairHasNoPeers) {
  EXPECT_TRUE(judge({figure("coll.all_reduce", "busbw", "GB/s", "a", "world", 100)}).empty());
  // Two nodes: the worse is named, as a WARN.
  const auto two = judge({figure("coll.all_reduce", "busbw", "GB/s", "a", "world", 480),
                          figure("coll.all_reduce", "busbw", "GB/s", "b", "world", 240)});
  ASSERT_EQ(two.size(), 1u);
  EXPECT_EQ(two[0].host, "b");
  EXPECT_EQ(two[0].severity, Severity::warn);
}

std::string messages(const std::vector<Finding>& findings) {
  std::string text;
  for (const Finding& f : findings) text += f.message + "\n";
  return text;
}

// Shared-path storage as storage.ckpt_write declares it (ProbeInfo::peers): the probe left out of
// every other comparison, its aggregate compared across runs only.
PeerJudgeOptions shared_path_options(const MetricCatalog& c) {
  PeerJudgeOptions options;
  options.catalog = &c;
  options.excluded_probes = {"storage.ckpt_write"};
  options.across_runs_only = {{"storage.ckpt_write", "bw_aggregate"}};
  return options;
}

struct CkptRun {
  std::string host;
  double aggregate = 2.4;  // GB/s
  std::string path = "/mnt/lustre";
  std::uint64_t size = 1ull << 30;
  int ranks = 4;
};

// One run of storage.ckpt_write as it records itself: each rank's share (rank-stamped, uneven: who
// started first) and the aggregate over the run's ranks (rank -1, host = the run's hosts joined).
void add_ckpt_run(FleetStore& store, const std::vector<CkptRun>& hosts) {
  RunInfo info;
  for (const CkptRun& h : hosts) info.dir += h.host + "-";
  const std::uint32_t run = store.add_run(info);
  std::string joined;
  int rank = 0, ranks = 0;
  for (const CkptRun& h : hosts) {
    for (int r = 0; r < h.ranks; ++r, ++rank) {
      Measurement m = figure("storage.ckpt_write", "bw_rank", "GB/s", h.host, h.path,
                             h.aggregate / h.ranks * (r == 0 ? 0.3 : 1.1), h.size);
      m.rank = rank;
      m.params = {{"engine", "io_uring"}, {"block_size", "1048576"}, {"direct", "0"}};
      store.add(m, run);
    }
    joined += (joined.empty() ? "" : ",") + h.host;
    ranks += h.ranks;
  }
  const CkptRun& h = hosts.front();
  double total = 0;
  for (const CkptRun& each : hosts) total += each.aggregate;
  Measurement m =
      figure("storage.ckpt_write", "bw_aggregate", "GB/s", joined, h.path, total, h.size);
  m.params = {{"engine", "io_uring"},
              {"block_size", "1048576"},
              {"direct", "0"},
              {"scope", "all ranks"},
              {"ranks", std::to_string(ranks)}};
  store.add(m, run);
}

std::string node(int n) { return "node" + std::to_string(n); }

// A sweep: each node's checkpoint write in a run of its own, at 2.4 GB/s +-1%.
FleetStore ckpt_sweep(int nodes, const std::function<void(int, CkptRun&)>& change = {}) {
  FleetStore store;
  for (int n = 0; n < nodes; ++n) {
    CkptRun run{node(n), 2.4 * noise(n)};
    if (change) change(n, run);
    add_ckpt_run(store, {run});
  }
  return store;
}

TEST(PeerJudgeSharedPath, NodeAtHalfTheFleetMedianIsOneWarnNamingContention) {
  const MetricCatalog c = catalog();
  const auto findings = judge_peers(ckpt_sweep(12,
                                               [](int n, CkptRun& run) {
                                                 if (n == 7) run.aggregate = 1.2;
                                               }),
                                    shared_path_options(c));
  ASSERT_EQ(findings.size(), 1u) << messages(findings);
  const Finding& f = findings[0];
  EXPECT_EQ(f.severity, Severity::warn);  // never a FAIL: the filesystem may have been busy
  EXPECT_EQ(f.host, "node7");
  EXPECT_EQ(f.subject, "/mnt/lustre");
  EXPECT_EQ(f.metric, "bw_aggregate");
  EXPECT_DOUBLE_EQ(*f.observed, 1.2);
  EXPECT_NEAR(*f.expected, 2.405, 0.001);
  EXPECT_THAT(f.message, HasSubstr("node7: storage.ckpt_write bw_aggregate at 1GiB on /mnt/lustre "
                                   "(4 ranks of the node): 1.2 GB/s is 50% below the fleet "
                                   "median 2.405 GB/s"));
  EXPECT_THAT(f.message, HasSubstr("of 12 nodes each measured alone on this path"));
  EXPECT_THAT(f.message, HasSubstr("a node-side fault (its filesystem client, mount options, NIC) "
                                   "or contention on the shared filesystem"));
  EXPECT_THAT(f.message, HasSubstr("expectation inferred from the fleet's peers"));
  EXPECT_THAT(f.evidence, HasSubstr("node7 1.2"));
  EXPECT_THAT(f.source, HasSubstr("inferred: median of 12 nodes each measured alone"));
  EXPECT_THAT(f.source, HasSubstr("named beyond 25%"));
}

TEST(PeerJudgeSharedPath, AFleetNearItsMedianRaisesNothing) {
  const MetricCatalog c = catalog();
  EXPECT_TRUE(judge_peers(ckpt_sweep(12), shared_path_options(c)).empty());
  // 15% below a tight fleet: far for a GPU, ordinary for a filesystem others use between runs.
  EXPECT_TRUE(judge_peers(ckpt_sweep(12,
                                     [](int n, CkptRun& run) {
                                       if (n == 3) run.aggregate *= 0.85;
                                     }),
                          shared_path_options(c))
                  .empty());
  // Two nodes cannot tell a slow node from a filesystem busy while one of them ran.
  EXPECT_TRUE(judge_peers(ckpt_sweep(2,
                                     [](int n, CkptRun& run) {
                                       if (n == 1) run.aggregate = 1.2;
                                     }),
                          shared_path_options(c))
                  .empty());
}

TEST(PeerJudgeSharedPath, OnlyThoseOfTheSamePathSizeAndRanksPerNodeArePeers) {
  const MetricCatalog c = catalog();
  const PeerJudgeOptions options = shared_path_options(c);
  // Half the fleet at half the rate of the other half, on one path alike: the slow half named.
  EXPECT_EQ(judge_peers(ckpt_sweep(12,
                                   [](int n, CkptRun& run) {
                                     if (n % 2 == 1 && n < 9) run.aggregate /= 2;
                                   }),
                        options)
                .size(),
            4u);
  // The same figures on different paths, sizes or ranks per node: nobody's peers.
  const std::vector<std::function<void(CkptRun&)>> unlike = {
      [](CkptRun& run) { run.path = "/mnt/gpfs"; }, [](CkptRun& run) { run.size = 64ull << 20; },
      [](CkptRun& run) { run.ranks = 8; }};
  for (const auto& differ : unlike) {
    const auto findings = judge_peers(ckpt_sweep(12,
                                                 [&](int n, CkptRun& run) {
                                                   if (n % 2 == 1 && n < 9) {
                                                     run.aggregate /= 2;
                                                     differ(run);
                                                   }
                                                 }),
                                      options);
    EXPECT_TRUE(findings.empty()) << messages(findings);
  }
}

TEST(PeerJudgeSharedPath, NeverWithinARun) {
  const MetricCatalog c = catalog();
  const PeerJudgeOptions options = shared_path_options(c);
  // One run of 12 hosts on the path: each host's ranks and the aggregate are shares of one
  // filesystem, however uneven.
  std::vector<CkptRun> hosts;
  for (int n = 0; n < 12; ++n) hosts.push_back({node(n), n == 7 ? 0.1 : 0.2});
  FleetStore one_run;
  add_ckpt_run(one_run, hosts);
  EXPECT_TRUE(judge_peers(one_run, options).empty());
  // Without the declaration node7's share would be named: the exclusion is what keeps it out.
  PeerJudgeOptions compared;
  compared.catalog = &c;
  const auto shares = judge_peers(one_run, compared);
  ASSERT_EQ(shares.size(), 1u) << messages(shares);
  EXPECT_EQ(shares[0].host, "node7");
  // Runs of two hosts each: the same.
  FleetStore pairs;
  for (int n = 0; n < 12; n += 2) {
    add_ckpt_run(pairs, {{node(n), n == 6 ? 0.6 : 1.2}, {node(n + 1), 1.2}});
  }
  EXPECT_TRUE(judge_peers(pairs, options).empty());
  // The runner's whole-run judge over one node's run: its ranks' uneven shares are not compared.
  FleetStore alone;
  add_ckpt_run(alone, {{node(0), 2.4, "/mnt/lustre", 1ull << 30, 8}});
  std::vector<Measurement> measurements;
  for (const FigureRow& row : alone.rows) measurements.push_back(alone.materialize(row));
  EXPECT_TRUE(judge_peer_measurements(measurements, options).empty());
}

TEST(PeerJudgeSharedPath, ANodeMeasuredTwiceIsTheMedianOfItsRuns) {
  const MetricCatalog c = catalog();
  FleetStore store = ckpt_sweep(12, [](int n, CkptRun& run) {
    if (n == 5) run.aggregate = 1.0;
  });
  add_ckpt_run(store, {{node(5), 1.2}});
  add_ckpt_run(store, {{node(5), 2.4}});  // three runs: 1.0, 1.2, 2.4
  const auto findings = judge_peers(store, shared_path_options(c));
  ASSERT_EQ(findings.size(), 1u) << messages(findings);
  EXPECT_DOUBLE_EQ(*findings[0].observed, 1.2);
  EXPECT_THAT(findings[0].evidence, HasSubstr("this node 1.2 over 3 runs"));
}

}  // namespace
}  // namespace fabcheck
