// Tests of evidence on FAIL: the devices a failure names, kernel-log lines matched in every form a
// bus id is printed, NCCL lines kept, files cut with a note, and a gathering against stand-in tools
// on PATH (real child processes): a missing tool noted, a hung one stopped at its limit, the
// node's time and size limits kept.
#include "bench/cli/evidence.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "bench/core/world.hpp"
#include "bench/sys/timer.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

Finding failure(const std::string& subject, const std::string& message) {
  Finding f;
  f.severity = Severity::fail;
  f.probe = "fabric.pcie_links";
  f.host = "node07";
  f.subject = subject;
  f.message = message;
  return f;
}

TEST(EvidenceTargets, BusIdsAndKnownDevicesNamedByTheFailures) {
  const auto targets = evidence_targets(
      {failure("GPU 3 (0000:9A:00.0)", "GPU 3 at Gen4 x8"),
       failure("mlx5_1 port 1", "mlx5_1 port 1 at 200 Gb/s, siblings 400; ib1 flapped"),
       failure("mlx5_10 port 1", "also 0000:9a:00.0 again")},
      {"eth0", "ib1", "mlx5_1", "mlx5_10", "mlx5_2"});
  EXPECT_THAT(targets.bus_ids, ElementsAre("0000:9a:00.0"));
  EXPECT_THAT(targets.devices, ElementsAre("ib1", "mlx5_1", "mlx5_10"));
}

TEST(EvidenceTargets, KernelLinesMatchEveryFormOfABusIdAndWholeDeviceNames) {
  const EvidenceTargets targets{{"0000:9a:00.0"}, {"mlx5_1"}};
  EXPECT_TRUE(
      mentions_target("NVRM: Xid (PCI:0000:9a:00): 79, GPU has fallen off the bus.", targets));
  EXPECT_TRUE(mentions_target("pcieport 0000:98:01.0: AER: device 0000:9A:00.0 error", targets));
  EXPECT_TRUE(mentions_target("nvidia 9a:00.0: 63.008 Gb/s available PCIe bandwidth", targets));
  EXPECT_TRUE(mentions_target("mlx5_core 0000:3b:00.1 mlx5_1: Port module event", targets));
  EXPECT_FALSE(mentions_target("mlx5_core mlx5_10: Port module event", targets));
  EXPECT_FALSE(mentions_target("nvidia 1a:00.0: something else", targets));
  EXPECT_FALSE(mentions_target("nvidia 19a:00.0: a longer bus number", targets));
}

TEST(EvidenceFiles, NcclLinesWorthReadingFirst) {
  const std::string log =
      "node-a:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
      "node-a:1:1 [0] NCCL INFO NET/IB : No device found.\n"
      "node-a:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n"
      "node-a:1:1 [0] NCCL INFO cudaDriverVersion 13000\n"
      "node-a:1:1 [0] NCCL WARN Call to ibv_open_device failed\n"
      "node-a:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via NET/Socket/0\n";
  const std::string kept = nccl_evidence_lines(log);
  EXPECT_THAT(kept, HasSubstr("NET/IB : No device found"));
  EXPECT_THAT(kept, HasSubstr("NCCL WARN Call to ibv_open_device failed"));
  EXPECT_THAT(kept, HasSubstr("via NET/Socket/0"));
  EXPECT_THAT(kept, Not(HasSubstr("cudaDriverVersion")));
  EXPECT_THAT(kept, Not(HasSubstr("Bootstrap")));
}

TEST(EvidenceFiles, CutWithANoteSayingHowMuchWasLeftOut) {
  EXPECT_EQ(bounded("short", 10), "short");
  const std::string cut = bounded(std::string(100, 'x'), 40);
  EXPECT_EQ(cut.substr(0, 40), std::string(40, 'x'));
  EXPECT_THAT(cut, HasSubstr("cut at 40 bytes: 60 more bytes not kept"));
  EXPECT_THAT(bounded(std::string(100, 'x'), 40, true), HasSubstr("at least 60 more bytes"));
  EXPECT_THAT(bounded("all", 10, true), HasSubstr("the source stopped here"));
}

// Stand-in tools in a folder put first on PATH for one test, PATH restored afterwards.
class EvidenceGathering : public ::testing::Test {
 protected:
  void SetUp() override {
    tools_ = fs::path(::testing::TempDir()) / ("fabcheck_evidence_" + std::to_string(::getpid()));
    fs::remove_all(tools_);
    fs::create_directories(tools_ / "run" / "nccl-logs");
    const char* path = std::getenv("PATH");
    old_path_ = path ? path : "";
    // Only the stand-ins and the shell's own folder: the real nvidia-smi, lspci, ... are hidden.
    ::setenv("PATH", (tools_.string() + ":/nonexistent").c_str(), 1);
    ::unsetenv("NCCL_TOPO_DUMP_FILE");
  }
  void TearDown() override {
    ::setenv("PATH", old_path_.c_str(), 1);
    fs::remove_all(tools_);
  }
  void tool(const std::string& name, const std::string& body) {
    const fs::path file = tools_ / name;
    std::ofstream(file) << "#!/bin/sh\n" << body << "\n";
    fs::permissions(file, fs::perms::owner_all);
  }
  static const EvidenceFile* file(const std::vector<EvidenceFile>& files, const std::string& name) {
    for (const auto& f : files)
      if (f.name == name) return &f;
    return nullptr;
  }

  fs::path tools_;
  std::string old_path_;
};

TEST_F(EvidenceGathering, MissingToolsAreNotedAHungToolIsStoppedAndBigOutputIsCut) {
  tool("nvidia-smi",
       "i=0; while [ $i -lt 3000 ]; do echo \"GPU 00000000:9A:00.0 line $i\"; "
       "i=$((i+1)); done");
  tool("lspci", "echo \"$4: 3D controller: NVIDIA\"; echo \"args: $*\"");
  tool("ibstat", "exec /bin/sleep 30");
  // ibv_devinfo: not installed.
  std::ofstream(tools_ / "run" / "nccl-logs" / ("coll.all_reduce." + local_hostname() + ".7.log"))
      << "h:7:7 [0] NCCL INFO NET/IB : No device found.\nh:7:7 [0] NCCL INFO other\n";
  EvidenceLimits limits;
  limits.command_timeout_s = 0.5;
  limits.total_s = 5;
  limits.file_bytes = 4096;
  Stopwatch took;
  const auto files = gather_evidence({failure("GPU 3 (0000:9a:00.0)", "GPU 3 at Gen4 x8")},
                                     tools_ / "run", limits);
  EXPECT_LT(took.elapsed_s(), 5.0);
  ASSERT_FALSE(files.empty());
  EXPECT_EQ(files.front().name, "index.txt");
  const std::string& index = files.front().text;
  EXPECT_THAT(index, HasSubstr("devices they name: 0000:9a:00.0"));
  EXPECT_THAT(index, HasSubstr("ibv_devinfo.txt: not gathered, ibv_devinfo is not installed"));
  EXPECT_THAT(index, HasSubstr("ibstat.txt: `ibstat`, stopped after its limit of 0.5 s"));
  EXPECT_THAT(index, HasSubstr("nccl-topology.xml: NCCL_TOPO_DUMP_FILE is not set"));

  const auto* lspci = file(files, "lspci-0000_9a_00.0.txt");
  ASSERT_NE(lspci, nullptr);
  EXPECT_THAT(lspci->text, HasSubstr("args: -vv -s 0000:9a:00.0"));  // an argument vector
  const auto* smi = file(files, "nvidia-smi-q.txt");
  ASSERT_NE(smi, nullptr);
  EXPECT_LE(smi->text.size(), 4096u + 100);
  EXPECT_THAT(smi->text, HasSubstr("[fabcheck: cut at 4096 bytes"));
  const auto* nccl = file(files, "nccl.txt");
  ASSERT_NE(nccl, nullptr);
  EXPECT_THAT(nccl->text, HasSubstr("NET/IB : No device found"));
  EXPECT_THAT(nccl->text, Not(HasSubstr("other")));
  const auto* failures = file(files, "failures.txt");
  ASSERT_NE(failures, nullptr);
  EXPECT_THAT(failures->text, HasSubstr("GPU 3 at Gen4 x8"));
}

TEST_F(EvidenceGathering, TheNodesTimeAndSizeLimitsHold) {
  tool("nvidia-smi", "exec /bin/sleep 30");
  tool("ibstat", "exec /bin/sleep 30");
  tool("ibv_devinfo", "i=0; while [ $i -lt 500 ]; do echo \"port $i\"; i=$((i+1)); done");
  EvidenceLimits limits;
  limits.command_timeout_s = 0.6;
  limits.total_s = 1.0;  // nvidia-smi -q takes 0.6, topo the rest, ibstat and ibv_devinfo none
  Stopwatch took;
  const auto files =
      gather_evidence({failure("mlx5_9 port 1", "no bus id here")}, tools_ / "run", limits);
  EXPECT_LT(took.elapsed_s(), 2.0);
  const std::string& index = files.front().text;
  EXPECT_THAT(index, HasSubstr("ibv_devinfo.txt: not gathered, the evidence time of this node"));
  EXPECT_THAT(index, HasSubstr("kernel-log.txt: not gathered, the failures name no device"));

  limits.total_s = 10;
  limits.total_bytes = 200;  // failures.txt fits; nothing big does
  const auto small =
      gather_evidence({failure("mlx5_9 port 1", "no bus id here")}, tools_ / "run", limits);
  EXPECT_THAT(small.front().text, HasSubstr("ibv_devinfo.txt: left out, the evidence of this "
                                            "node reached 200 bytes"));
  EXPECT_EQ(file(small, "ibv_devinfo.txt"), nullptr);
}

}  // namespace
}  // namespace fabcheck
