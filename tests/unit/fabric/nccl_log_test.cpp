// NCCL debug log parsing and transport judgement against the recorded logs in fixtures/fabric/nccl.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "bench/sys/config_error.hpp"
#include "fabric/commands.hpp"
#include "fabric/nccl_log.hpp"
#include "fabric/nccl_transport_records.hpp"
#include "fabric/nccl_transport_rules.hpp"

namespace fabcheck {
namespace {

std::string fixture(const std::string& name) {
  return std::string(FABCHECK_FIXTURES_DIR) + "/fabric/nccl/" + name;
}

std::vector<Finding> problems_of(const std::vector<Finding>& findings) {
  std::vector<Finding> out;
  std::copy_if(findings.begin(), findings.end(), std::back_inserter(out), [](const Finding& f) {
    return f.severity == Severity::fail || f.severity == Severity::warn;
  });
  return out;
}

std::vector<Finding> of_severity(const std::vector<Finding>& findings, Severity severity) {
  std::vector<Finding> out;
  std::copy_if(findings.begin(), findings.end(), std::back_inserter(out),
               [severity](const Finding& f) { return f.severity == severity; });
  return out;
}

TEST(NcclLogLine, HeaderWithTimestampAndLauncherPrefixes) {
  auto plain = parse_nccl_log_line("node-a:1201:1215 [0] NCCL INFO Using network IB");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->host, "node-a");
  EXPECT_EQ(plain->pid, 1201);
  EXPECT_EQ(plain->level, "INFO");
  EXPECT_EQ(plain->message, "Using network IB");

  auto stamped =
      parse_nccl_log_line("[2026-11-30 06:01:03] gpu-7:42:43 [3] NCCL INFO Init COMPLETE");
  ASSERT_TRUE(stamped);
  EXPECT_EQ(stamped->host, "gpu-7");
  EXPECT_EQ(stamped->pid, 42);

  auto ompi = parse_nccl_log_line("[1,3]<stdout>:node-c:5504:5523 [3] NCCL INFO Channel x");
  ASSERT_TRUE(ompi);
  EXPECT_EQ(ompi->host, "node-c");
  EXPECT_EQ(ompi->pid, 5504);

  auto slurm = parse_nccl_log_line("12: node-e:7701:7730 [0] init.cc:1234 NCCL WARN Cuda failure");
  ASSERT_TRUE(slurm);
  EXPECT_EQ(slurm->host, "node-e");
  EXPECT_EQ(slurm->level, "WARN");
  EXPECT_EQ(slurm->message, "Cuda failure");

  EXPECT_FALSE(parse_nccl_log_line("Epoch 1: loss 2.31"));
  EXPECT_FALSE(parse_nccl_log_line(""));
}

TEST(NcclChannel, EveryFormatVariant) {
  auto ib = parse_nccl_channel("00/0 : 3[1] -> 0[0] [receive] via NET/IB/0/GDRDMA");
  ASSERT_TRUE(ib);
  EXPECT_EQ(ib->transport, NcclTransport::net_ib);
  EXPECT_TRUE(ib->gdr);
  EXPECT_EQ(ib->from_rank, 3);
  EXPECT_EQ(ib->to_rank, 0);
  EXPECT_EQ(ib->direction, "receive");
  EXPECT_EQ(ib->logging_rank(), 0);
  EXPECT_EQ(ib->net_device, 0);

  auto shared = parse_nccl_channel("01/0 : 1[1] -> 2[0] [send] via NET/IB/1/GDRDMA/Shared");
  ASSERT_TRUE(shared);
  EXPECT_TRUE(shared->gdr);
  EXPECT_EQ(shared->net_device, 1);

  auto plain_ib = parse_nccl_channel("00/0 : 0[0] -> 1[0] [send] via NET/IB/0");
  ASSERT_TRUE(plain_ib);
  EXPECT_FALSE(plain_ib->gdr);

  auto pxn = parse_nccl_channel("01/1 : 0[5d000] -> 1[5d000] [send] via NET/IB/0(1)/GDRDMA");
  ASSERT_TRUE(pxn);
  EXPECT_EQ(pxn->proxy_rank, 1);
  EXPECT_EQ(pxn->from_device, "5d000");

  auto old = parse_nccl_channel("00 : 1[5d000] -> 0[5d000] [send] via NET/IB/0/GDRDMA");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->channel, 0);

  auto pci = parse_nccl_channel("02/0 : 0[0] -> 1[0] [send] via NET/IB/2/GDRDMA(PCI)");
  ASSERT_TRUE(pci);
  EXPECT_TRUE(pci->gdr);

  auto socket = parse_nccl_channel("00/0 : 0[0] -> 1[0] [send] via NET/Socket/0");
  ASSERT_TRUE(socket);
  EXPECT_EQ(socket->transport, NcclTransport::net_socket);

  auto plugin = parse_nccl_channel("00/0 : 0[0] -> 1[0] [send] via NET/AWS Libfabric/0/GDRDMA");
  ASSERT_TRUE(plugin);
  EXPECT_EQ(plugin->transport, NcclTransport::net_other);
  EXPECT_EQ(plugin->net_name, "AWS Libfabric");

  for (const char* p2p :
       {"00/0 : 0[0] -> 1[1] via P2P/CUMEM/read", "00/0 : 0[0] -> 1[1] via P2P/CUMEM/CE",
        "00/0 : 0[0] -> 1[1] via P2P/MNNVL/read/CE", "00/0 : 0[0] -> 1[1] via P2P/IPC",
        "00/0 : 0[0] -> 1[1] via P2P/IPC/read", "00/0 : 0[0] -> 1[1] via P2P/direct pointer",
        "00/0 : 0[0] -> 1[1] via P2P/indirect/2[2]"}) {
    auto c = parse_nccl_channel(p2p);
    ASSERT_TRUE(c) << p2p;
    EXPECT_EQ(c->transport, NcclTransport::p2p) << p2p;
  }
  auto cumem = parse_nccl_channel("00/0 : 0[0] -> 1[1] via P2P/CUMEM/read");
  EXPECT_EQ(cumem->p2p_kind, "CUMEM");
  EXPECT_EQ(cumem->direction, "");

  auto shm = parse_nccl_channel("00 : 2[2] -> 3[3] via SHM/direct/direct");
  ASSERT_TRUE(shm);
  EXPECT_EQ(shm->transport, NcclTransport::shm);
  EXPECT_TRUE(parse_nccl_channel("00/0 : 2[2] -> 3[3] via SHM/device/direct"));
}

TEST(NcclChannel, CutOffOrUnknownIsUnrecognised) {
  for (const char* bad :
       {"00/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDR", "00/0 : 0[0] -> 1",
        "00/0 : 0[0] -> 1[0] [send] via NET/", "00/0 : 0[0] -> 1[0] [send] via NET/IB/",
        "00/0 : 0[0] -> 1[0] via P2P/CUMEM/rea", "00/0 : 0[0] -> 1[0] via SHM/direct",
        "00/0 : 0[0] -> 1[0] via CollNet/x", "00/0 : 0[zz] -> 1[0] via P2P/IPC", "",
        "00/0 :", "99999999999999999999/0 : 0[0] -> 1[0] via P2P/IPC"}) {
    EXPECT_FALSE(parse_nccl_channel(bad)) << bad;
  }
}

TEST(NcclLog, IbWithGdrAcrossTwoNodesOneFilePerRank) {
  NcclLog log =
      read_nccl_logs({fixture("ib_gdr.node-a.1201.log"), fixture("ib_gdr.node-a.1202.log"),
                      fixture("ib_gdr.node-b.2201.log"), fixture("ib_gdr.node-b.2202.log")});
  NcclTransportSummary s = summarise_nccl_transports(log);
  EXPECT_EQ(s.connections, 11u);
  EXPECT_EQ(s.net_ib, 6u);
  EXPECT_EQ(s.net_ib_gdr, 6u);
  EXPECT_EQ(s.p2p, 5u);
  EXPECT_EQ(s.net_socket, 0u);
  EXPECT_EQ(s.shm, 0u);
  EXPECT_EQ(s.intra_node_non_p2p, 0u);
  EXPECT_EQ(log.unrecognised, 0u);  // ring listings "Channel 00/02 : 0 1 2 3" are not connections
  EXPECT_EQ(s.networks, std::vector<std::string>{"IB"});
  EXPECT_EQ(s.devices, (std::vector<std::string>{"mlx5_0:1/IB", "mlx5_1:1/IB"}));
  EXPECT_EQ(s.hosts, (std::vector<std::string>{"node-a", "node-b"}));
  EXPECT_EQ(log.init_complete, 4u);

  NcclTransportExpectations strict{"IB", true, true};
  auto findings = judge_nccl_transports(log, strict, "nccl-log", "job");
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::pass);
  EXPECT_NE(findings[0].message.find("6 NET/IB (6 with GDRDMA)"), std::string::npos);
}

TEST(NcclLog, IbWithoutGdrFailsOnlyWhenGdrIsExpected) {
  NcclLog log = read_nccl_logs({fixture("ib_no_gdr.log")});
  NcclTransportSummary s = summarise_nccl_transports(log);
  EXPECT_EQ(s.net_ib, 3u);
  EXPECT_EQ(s.net_ib_gdr, 1u);

  auto relaxed = judge_nccl_transports(log, {"IB", false, false}, "nccl-log", "job");
  EXPECT_TRUE(of_severity(relaxed, Severity::fail).empty());

  auto findings = judge_nccl_transports(log, {"IB", true, false}, "nccl-log", "job");
  auto fails = of_severity(findings, Severity::fail);
  ASSERT_EQ(fails.size(), 1u);
  EXPECT_EQ(fails[0].metric, "ib_channels_without_gdr");
  EXPECT_EQ(fails[0].observed, 2.0);
  EXPECT_NE(fails[0].evidence.find("ib_no_gdr.log:4: node-a:3301:3310 [0] NCCL INFO Channel 00/0 : "
                                   "1[0] -> 0[0] [receive] via NET/IB/0"),
            std::string::npos);
}

TEST(NcclLog, SocketFallbackFailsWhereIbIsExpected) {
  NcclLog log = read_nccl_logs({fixture("socket_fallback.log")});
  NcclTransportSummary s = summarise_nccl_transports(log);
  EXPECT_EQ(s.net_socket, 4u);
  EXPECT_EQ(s.networks, std::vector<std::string>{"Socket"});
  EXPECT_EQ(s.devices, std::vector<std::string>{"eth0:10.0.0.1<0>"});
  ASSERT_EQ(log.ib_no_device.size(), 1u);

  auto findings = judge_nccl_transports(log, {"IB", false, false}, "nccl-log", "job");
  auto fails = of_severity(findings, Severity::fail);
  ASSERT_EQ(fails.size(), 1u);
  EXPECT_EQ(fails[0].metric, "socket_channels");
  EXPECT_EQ(fails[0].observed, 4.0);
  EXPECT_NE(fails[0].message.find("No device found"), std::string::npos);
  EXPECT_NE(fails[0].evidence.find("socket_fallback.log:3:"), std::string::npos);
  EXPECT_NE(fails[0].evidence.find("Using network Socket"), std::string::npos);
  EXPECT_NE(fails[0].remedy.find("NCCL_IB_HCA"), std::string::npos);

  auto any = judge_nccl_transports(log, {"any", false, false}, "nccl-log", "job");
  EXPECT_TRUE(of_severity(any, Severity::fail).empty());
}

TEST(NcclLog, SingleNodeP2pKindsAndShm) {
  NcclLog log = read_nccl_logs({fixture("single_node_p2p_shm.log")});
  NcclTransportSummary s = summarise_nccl_transports(log);
  EXPECT_EQ(s.connections, 6u);
  EXPECT_EQ(s.p2p, 5u);
  EXPECT_EQ(s.shm, 1u);
  EXPECT_EQ(s.intra_node_non_p2p, 1u);
  EXPECT_EQ(s.hosts, std::vector<std::string>{"node-c"});

  auto findings = judge_nccl_transports(log, {"any", false, true}, "nccl-log", "job");
  auto fails = of_severity(findings, Severity::fail);
  ASSERT_EQ(fails.size(), 1u);
  EXPECT_EQ(fails[0].metric, "intra_node_non_p2p_channels");
  EXPECT_NE(fails[0].evidence.find("via SHM/direct/direct"), std::string::npos);
}

TEST(NcclLog, InterleavedRanksInOneFileWithOldFormatAndPxn) {
  NcclLog log = read_nccl_logs({fixture("interleaved_ranks.log")});
  EXPECT_EQ(log.lines, 15u);
  EXPECT_EQ(log.nccl_lines, 12u);
  NcclTransportSummary s = summarise_nccl_transports(log);
  EXPECT_EQ(s.connections, 4u);
  EXPECT_EQ(s.net_ib_gdr, 4u);
  EXPECT_EQ(s.intra_node_non_p2p, 0u);
  EXPECT_EQ(s.hosts, (std::vector<std::string>{"node-e", "node-d"}));
  EXPECT_EQ(s.devices, std::vector<std::string>{"mlx5_2:1/RoCE"});
  ASSERT_EQ(log.warnings.size(), 1u);
  EXPECT_EQ(log.warnings[0].line, 14u);
  auto findings = judge_nccl_transports(log, {"IB", true, true}, "nccl-log", "job");
  EXPECT_TRUE(of_severity(findings, Severity::fail).empty());
}

TEST(NcclLog, TruncatedLinesAreCountedNotTrusted) {
  NcclLog log = read_nccl_logs({fixture("truncated.log")});
  NcclTransportSummary s = summarise_nccl_transports(log);
  EXPECT_EQ(s.connections, 3u);  // channels 00, 04 (header cut) and 05 (no final newline)
  EXPECT_EQ(s.net_socket, 1u);
  EXPECT_EQ(log.unrecognised, 3u);
  auto findings = judge_nccl_transports(log, {"IB", false, false}, "nccl-log", "job");
  EXPECT_EQ(of_severity(findings, Severity::fail).size(), 1u);
  auto warns = of_severity(findings, Severity::warn);
  ASSERT_EQ(warns.size(), 1u);
  EXPECT_EQ(warns[0].metric, "unrecognised_lines");
  EXPECT_NE(warns[0].evidence.find("truncated.log:4:"), std::string::npos);
}

TEST(NcclLog, NonNcclLogIsAnErrorNotAPass) {
  NcclLog log = read_nccl_logs({fixture("not_nccl.log")});
  EXPECT_EQ(log.nccl_lines, 0u);
  auto findings = judge_nccl_transports(log, {"IB", false, false}, "nccl-log", "job");
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::error);
  EXPECT_NE(findings[0].message.find("no NCCL debug lines"), std::string::npos);
}

TEST(NcclLog, MissingFileIsAConfigErrorNamingIt) {
  try {
    read_nccl_logs({fixture("no-such.log")});
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("no-such.log"), std::string::npos);
  }
}

TEST(NcclLog, MeasurementsCarryTheCounts) {
  NcclLog log = read_nccl_logs({fixture("socket_fallback.log")});
  auto records = nccl_transport_measurements(log, "fabric.nccl_transport", "coll.all_reduce");
  auto find = [&](const std::string& metric) {
    return std::find_if(records.begin(), records.end(),
                        [&](const Measurement& m) { return m.metric == metric; });
  };
  ASSERT_NE(find("socket_channels"), records.end());
  EXPECT_EQ(find("socket_channels")->value, 4.0);
  EXPECT_EQ(find("socket_channels")->params.at("network"), "Socket");
  EXPECT_NE(find("socket_channels")->message.find("via NET/Socket/0"), std::string::npos);
  EXPECT_EQ(find("ib_channels")->value, 0.0);
}

// Defaults from evidence: no expectation given. The fixtures socket_ib_disabled.log,
// ib_gdr_no_module.log and ib_gdr_distance.log are synthetic, written from the format strings in
// interfaces.md and NCCL's net_ib / graph/paths.cc INFO lines.
const NcclTransportExpectations kFromEvidence{};

TEST(NcclDefaults, SocketFallbackAfterLookingForIbIsAFail) {
  NcclLog log = read_nccl_logs({fixture("socket_fallback.log")});
  auto fails =
      of_severity(judge_nccl_transports(log, kFromEvidence, "nccl-log", "job"), Severity::fail);
  ASSERT_EQ(fails.size(), 1u);
  EXPECT_EQ(fails[0].metric, "inter_node_socket_channels");
  EXPECT_EQ(fails[0].observed, 4.0);
  EXPECT_NE(fails[0].message.find("fell back to TCP sockets for inter-node traffic"),
            std::string::npos)
      << fails[0].message;
  EXPECT_NE(fails[0].message.find("inferred from NCCL's own search for IB devices: \"NET/IB : No "
                                  "device found.\""),
            std::string::npos)
      << fails[0].message;
  EXPECT_NE(fails[0].source.find("inferred"), std::string::npos);
  EXPECT_NE(fails[0].evidence.find("socket_fallback.log:3:"), std::string::npos);
}

TEST(NcclDefaults, SocketsWithoutAnySignOfIbAreAWarn) {
  NcclLog log = read_nccl_logs({fixture("socket_ib_disabled.log")});
  auto findings = judge_nccl_transports(log, kFromEvidence, "nccl-log", "job");
  EXPECT_TRUE(of_severity(findings, Severity::fail).empty());
  auto warns = of_severity(findings, Severity::warn);
  ASSERT_EQ(warns.size(), 1u);
  EXPECT_NE(warns[0].message.find("NCCL_IB_DISABLE set by environment to 1."), std::string::npos)
      << warns[0].message;
}

TEST(NcclDefaults, SocketsOnANodeWithActivePortsAreAFail) {
  NcclLog log = read_nccl_logs({fixture("socket_ib_disabled.log")});
  NcclNodeEvidence node;
  node.active_rdma_ports = 8;
  node.ports_evidence = "node-a: 8 of 8 RDMA ports active";
  auto fails = of_severity(judge_nccl_transports(log, kFromEvidence, "nccl-log", "job", node),
                           Severity::fail);
  ASSERT_EQ(fails.size(), 1u);
  EXPECT_NE(fails[0].message.find("inferred from the node's 8 active RDMA port(s)"),
            std::string::npos)
      << fails[0].message;
}

TEST(NcclDefaults, ExplicitExpectationsWin) {
  NcclLog log = read_nccl_logs({fixture("socket_fallback.log")});
  NcclTransportExpectations any;
  any.network = "any";
  EXPECT_TRUE(problems_of(judge_nccl_transports(log, any, "nccl-log", "job")).empty());
  NcclTransportExpectations sockets;
  sockets.network = "Socket";
  EXPECT_TRUE(problems_of(judge_nccl_transports(log, sockets, "nccl-log", "job")).empty());
  NcclLog shm = read_nccl_logs({fixture("single_node_p2p_shm.log")});
  NcclTransportExpectations no_p2p;
  no_p2p.intra_node_p2p = false;
  EXPECT_TRUE(problems_of(judge_nccl_transports(shm, no_p2p, "nccl-log", "job")).empty());
}

TEST(NcclDefaults, IbWithoutGdrAndNoEvidencePasses) {
  NcclLog log = read_nccl_logs({fixture("ib_no_gdr.log")});
  auto findings = judge_nccl_transports(log, kFromEvidence, "nccl-log", "job");
  EXPECT_TRUE(problems_of(findings).empty());
}

TEST(NcclDefaults, IbWithoutGdrWhereNcclSaysTheHcaCannotIsAWarn) {
  NcclLog log = read_nccl_logs({fixture("ib_gdr_no_module.log")});
  auto warns =
      of_severity(judge_nccl_transports(log, kFromEvidence, "nccl-log", "job"), Severity::warn);
  ASSERT_EQ(warns.size(), 1u);
  EXPECT_EQ(warns[0].metric, "ib_channels_without_gdr");
  EXPECT_NE(warns[0].message.find("(no module)"), std::string::npos) << warns[0].message;
}

TEST(NcclDefaults, IbWithoutGdrWhereGpuAndHcaShareASwitchIsAFail) {
  NcclLog log = read_nccl_logs({fixture("ib_gdr_distance.log")});
  // NCCL's own distance verdict alone, no connection with GDR: a WARN (no GDR anywhere), citing
  // NCCL's line.
  auto alone =
      of_severity(judge_nccl_transports(log, kFromEvidence, "nccl-log", "job"), Severity::warn);
  ASSERT_EQ(alone.size(), 1u);
  EXPECT_NE(alone[0].evidence.find("distance 8 > 5"), std::string::npos) << alone[0].evidence;
  // The topology says GDR was possible: a FAIL.
  NcclNodeEvidence node;
  node.gpu_hca_share_path = true;
  node.placement_evidence = "GPU 0000:18:00.0 and mlx5_0 share a PCIe switch (4 hops)";
  auto fails = of_severity(judge_nccl_transports(log, kFromEvidence, "nccl-log", "job", node),
                           Severity::fail);
  ASSERT_EQ(fails.size(), 1u);
  EXPECT_NE(fails[0].message.find("inferred from the topology"), std::string::npos);
  EXPECT_NE(fails[0].message.find("share a PCIe switch"), std::string::npos);
  EXPECT_NE(fails[0].evidence.find("distance 8 > 5"), std::string::npos);
}

// Synthetic logs (the line formats of ../shared/reference/interfaces.md), not recorded ones.
TEST(NcclDefaults, NoConnectionWithGdrIsAWarnNamingTheCausesAndHowToConfirm) {
  NcclLog log = read_nccl_logs({fixture("ib_gdr_nowhere.log")});
  auto findings = judge_nccl_transports(log, kFromEvidence, "nccl-log", "job");
  auto warns = of_severity(findings, Severity::warn);
  ASSERT_EQ(warns.size(), 1u) << findings.size();
  EXPECT_TRUE(of_severity(findings, Severity::fail).empty());
  const Finding& warn = warns[0];
  EXPECT_EQ(warn.metric, "ib_channels_without_gdr");
  EXPECT_EQ(warn.observed, 4.0);
  EXPECT_NE(warn.message.find("4 of 4 NET/IB connections without GDRDMA"), std::string::npos)
      << warn.message;
  EXPECT_NE(warn.message.find("no NET/IB connection of the job used it"), std::string::npos);
  EXPECT_NE(warn.message.find("NCCL read \"NCCL_NET_GDR_LEVEL set by environment to LOC.\""),
            std::string::npos)
      << warn.message;
  EXPECT_EQ(warn.source.rfind("inferred: ", 0), 0u) << warn.source;
  // The evidence: the environment line first, then the channels.
  const std::string first = warn.evidence.substr(0, warn.evidence.find('\n'));
  EXPECT_NE(first.find("ib_gdr_nowhere.log:1: node-a:4101:4101 [0] NCCL INFO NCCL_NET_GDR_LEVEL"),
            std::string::npos)
      << warn.evidence;
  EXPECT_NE(warn.evidence.find("ib_gdr_nowhere.log:5: "), std::string::npos) << warn.evidence;
  // The causes in order, each with how to confirm it.
  const std::size_t peermem = warn.remedy.find("lsmod | grep nvidia_peermem");
  const std::size_t level = warn.remedy.find("env | grep NCCL_NET_GDR");
  const std::size_t placement = warn.remedy.find("nvidia-smi topo -m");
  ASSERT_NE(peermem, std::string::npos) << warn.remedy;
  ASSERT_NE(level, std::string::npos) << warn.remedy;
  ASSERT_NE(placement, std::string::npos) << warn.remedy;
  EXPECT_LT(peermem, level);
  EXPECT_LT(level, placement);
  // A site without GDR says so, and it is quiet; a profile or flag expecting it makes a FAIL.
  NcclTransportExpectations no_gdr;
  no_gdr.gdr = false;
  EXPECT_TRUE(problems_of(judge_nccl_transports(log, no_gdr, "nccl-log", "job")).empty());
  NcclTransportExpectations gdr;
  gdr.gdr = true;
  EXPECT_EQ(of_severity(judge_nccl_transports(log, gdr, "nccl-log", "job"), Severity::fail).size(),
            1u);
}

TEST(NcclDefaults, GdrOnEveryIbConnectionIsQuiet) {
  NcclLog log =
      read_nccl_logs({fixture("ib_gdr.node-a.1201.log"), fixture("ib_gdr.node-a.1202.log"),
                      fixture("ib_gdr.node-b.2201.log"), fixture("ib_gdr.node-b.2202.log")});
  NcclTransportSummary s = summarise_nccl_transports(log);
  ASSERT_GT(s.net_ib, 0u);
  ASSERT_EQ(s.net_ib_gdr, s.net_ib);
  EXPECT_TRUE(problems_of(judge_nccl_transports(log, kFromEvidence, "nccl-log", "job")).empty());
}

TEST(NcclDefaults, EveryGpuPairOfANodeOverShmIsAWarnAndAFailWhereTheGpusHaveNvlink) {
  NcclLog log = read_nccl_logs({fixture("single_node_all_shm.log")});
  auto findings = judge_nccl_transports(log, kFromEvidence, "nccl-log", "job");
  auto warns = of_severity(findings, Severity::warn);
  ASSERT_EQ(warns.size(), 1u);
  EXPECT_TRUE(of_severity(findings, Severity::fail).empty());
  const Finding& warn = warns[0];
  EXPECT_EQ(warn.metric, "intra_node_non_p2p_channels");
  EXPECT_EQ(warn.observed, 4.0);
  EXPECT_NE(warn.message.find("4 connections between GPUs of one node went over SHM or NET"),
            std::string::npos)
      << warn.message;
  EXPECT_NE(warn.message.find("4 of them on a node where no GPU pair used P2P at all"),
            std::string::npos)
      << warn.message;
  EXPECT_NE(warn.message.find("NCCL read \"NCCL_P2P_DISABLE set by environment to 1.\""),
            std::string::npos)
      << warn.message;
  const std::string first = warn.evidence.substr(0, warn.evidence.find('\n'));
  EXPECT_NE(
      first.find("single_node_all_shm.log:1: node-d:6101:6101 [0] NCCL INFO NCCL_P2P_DISABLE"),
      std::string::npos)
      << warn.evidence;
  EXPECT_NE(warn.evidence.find("0[0] -> 1[1] via SHM/direct/direct"), std::string::npos);
  EXPECT_NE(warn.remedy.find("NCCL_P2P_DISABLE"), std::string::npos);
  EXPECT_NE(warn.remedy.find("ACS"), std::string::npos);
  // The node's GPUs have NVLink (gpu.health): a FAIL, saying so.
  NcclNodeEvidence node;
  node.gpus_have_nvlink = true;
  node.nvlink_evidence = "gpu.health on node-d: gpu0 (0000:18:00.0) has 18 NVLinks";
  auto fails = of_severity(judge_nccl_transports(log, kFromEvidence, "nccl-log", "job", node),
                           Severity::fail);
  ASSERT_EQ(fails.size(), 1u);
  EXPECT_NE(fails[0].message.find("inferred from the topology: gpu.health on node-d: gpu0 "
                                  "(0000:18:00.0) has 18 NVLinks"),
            std::string::npos)
      << fails[0].message;
  // GPUs without NVLink (NVML says 0): still the WARN.
  node.gpus_have_nvlink = false;
  EXPECT_TRUE(of_severity(judge_nccl_transports(log, kFromEvidence, "nccl-log", "job", node),
                          Severity::fail)
                  .empty());
  // P2P not expected: quiet.
  NcclTransportExpectations no_p2p;
  no_p2p.intra_node_p2p = false;
  EXPECT_TRUE(problems_of(judge_nccl_transports(log, no_p2p, "nccl-log", "job")).empty());
}

TEST(NcclDefaults, EveryGpuPairOfANodeOverP2pIsQuiet) {
  NcclLog log = read_nccl_logs({fixture("single_node_p2p.log")});
  NcclNodeEvidence node;
  node.gpus_have_nvlink = true;
  node.nvlink_evidence = "gpu.health on node-d: gpu0 has 18 NVLinks";
  auto findings = judge_nccl_transports(log, kFromEvidence, "nccl-log", "job", node);
  EXPECT_TRUE(problems_of(findings).empty());
  ASSERT_FALSE(findings.empty());
  EXPECT_NE(findings.back().message.find("4 P2P, 0 SHM"), std::string::npos)
      << findings.back().message;
}

TEST(NcclDefaults, ShmWhereOtherGpusOfTheNodeUseP2pIsAWarn) {
  NcclLog log = read_nccl_logs({fixture("single_node_p2p_shm.log")});
  auto findings = judge_nccl_transports(log, kFromEvidence, "nccl-log", "job");
  auto warns = of_severity(findings, Severity::warn);
  ASSERT_EQ(warns.size(), 1u);
  EXPECT_EQ(warns[0].metric, "intra_node_non_p2p_channels");
  EXPECT_NE(warns[0].message.find("inferred from other GPUs of the same node"), std::string::npos);
  EXPECT_NE(warns[0].evidence.find("via SHM/direct/direct"), std::string::npos);
}

TEST(NcclDefaults, HealthyLogsPass) {
  for (const std::vector<std::string>& files :
       {std::vector<std::string>{
            fixture("ib_gdr.node-a.1201.log"), fixture("ib_gdr.node-a.1202.log"),
            fixture("ib_gdr.node-b.2201.log"), fixture("ib_gdr.node-b.2202.log")},
        std::vector<std::string>{fixture("interleaved_ranks.log")}}) {
    auto findings = judge_nccl_transports(read_nccl_logs(files), kFromEvidence, "nccl-log", "job");
    EXPECT_TRUE(problems_of(findings).empty()) << problems_of(findings).front().message;
  }
}

TEST(NcclDefaults, MeasurementsCarryTheFactsToTheRunsJudge) {
  // The run's path: log -> measurements -> facts -> findings, same verdicts as the log's own.
  for (const char* name : {"socket_fallback.log", "socket_ib_disabled.log", "ib_gdr_no_module.log",
                           "single_node_p2p_shm.log", "ib_no_gdr.log", "ib_gdr_nowhere.log",
                           "single_node_all_shm.log"}) {
    NcclLog log = read_nccl_logs({fixture(name)});
    auto records = nccl_transport_measurements(log, "fabric.nccl_transport", "coll.all_reduce");
    for (auto& m : records) m.host = "node-a";
    std::vector<const Measurement*> group;
    for (const auto& m : records) group.push_back(&m);
    auto direct = judge_nccl_transports(log, kFromEvidence, "fabric.nccl_transport", "x");
    auto rebuilt = judge_nccl_transport_facts(nccl_transport_facts_from(group), kFromEvidence, {},
                                              "fabric.nccl_transport", "x");
    ASSERT_EQ(direct.size(), rebuilt.size()) << name;
    for (std::size_t i = 0; i < direct.size(); ++i) {
      EXPECT_EQ(direct[i].severity, rebuilt[i].severity) << name;
      EXPECT_EQ(direct[i].metric, rebuilt[i].metric) << name;
      EXPECT_EQ(direct[i].message, rebuilt[i].message) << name;
    }
  }
}

int run_command(const std::vector<std::string>& files, const NcclLogOptions& options,
                std::string& text) {
  std::FILE* out = std::tmpfile();
  int code = nccl_log_command(files, options, out);
  std::rewind(out);
  char buffer[4096];
  std::size_t n;
  text.clear();
  while ((n = std::fread(buffer, 1, sizeof buffer, out)) > 0) text.append(buffer, n);
  std::fclose(out);
  return code;
}

int run_command(const std::vector<std::string>& files, const std::string& network, bool gdr,
                std::string& text) {
  NcclLogOptions options;
  options.expectations.network = network;
  options.expectations.gdr = gdr;
  return run_command(files, options, text);
}

TEST(NcclLogCommand, TheNodesSysfsIsEvidence) {
  // Sockets with NCCL_IB_DISABLE set: a WARN by the log alone, a FAIL on a node whose sysfs has 8
  // active RDMA ports (the synthetic healthy tree).
  NcclLogOptions from_log;
  std::string text;
  EXPECT_EQ(run_command({fixture("socket_ib_disabled.log")}, from_log, text), 0);
  EXPECT_NE(text.find("WARN   nccl-log"), std::string::npos) << text;
  NcclLogOptions with_node;
  with_node.sysfs_root = std::string(FABCHECK_FIXTURES_DIR) + "/fabric/sysfs/healthy";
  EXPECT_EQ(run_command({fixture("socket_ib_disabled.log")}, with_node, text), 1);
  EXPECT_NE(text.find("inferred from the node's 8 active RDMA port(s)"), std::string::npos) << text;
  EXPECT_NE(text.find("8 of 8 RDMA ports active"), std::string::npos) << text;
  // IB partly without GDR: passes by the log alone; a FAIL where GPU and HCA share a PCIe switch.
  EXPECT_EQ(run_command({fixture("ib_no_gdr.log")}, from_log, text), 0);
  EXPECT_EQ(text.find("WARN"), std::string::npos) << text;
  EXPECT_EQ(run_command({fixture("ib_no_gdr.log")}, with_node, text), 1);
  EXPECT_NE(text.find("GPUDirect RDMA not in effect"), std::string::npos) << text;
  EXPECT_NE(text.find("share a PCIe switch (4 hops)"), std::string::npos) << text;
}

TEST(NcclLogCommand, ExitCodes) {
  std::string text;
  EXPECT_EQ(run_command({fixture("socket_fallback.log")}, "IB", false, text), 1);
  EXPECT_NE(text.find("NET/Socket 4"), std::string::npos) << text;
  EXPECT_NE(text.find("0 -> 1    [send]    NET/Socket/0"), std::string::npos) << text;
  EXPECT_NE(text.find("verdict: FAIL (0 pass, 0 warn, 1 fail, 0 waived, 0 error); exit code 1"),
            std::string::npos)
      << text;
  EXPECT_EQ(run_command({fixture("socket_fallback.log")}, "any", false, text), 0);
  // No flags: the fallback is a FAIL by the log's own evidence.
  EXPECT_EQ(run_command({fixture("socket_fallback.log")}, "", false, text), 1);
  EXPECT_NE(text.find("FAIL   nccl-log"), std::string::npos) << text;
  EXPECT_NE(text.find("inferred from NCCL's own search for IB devices"), std::string::npos) << text;
  EXPECT_EQ(run_command({fixture("ib_gdr.node-a.1201.log"), fixture("ib_gdr.node-b.2202.log")},
                        "IB", true, text),
            0);
  EXPECT_EQ(run_command({fixture("not_nccl.log")}, "IB", false, text), 3);
  EXPECT_EQ(run_command({fixture("no-such.log")}, "IB", false, text), 2);
  EXPECT_EQ(run_command({FABCHECK_FIXTURES_DIR}, "IB", false, text), 2);  // a directory
  EXPECT_EQ(run_command({}, "IB", false, text), 2);
}

}  // namespace
}  // namespace fabcheck
