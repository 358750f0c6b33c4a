// Tests of RunWriter and read_measurements: files appear as records are appended, an existing run
// is never written over, and bad lines are reported with their line number.
#include "results/run_writer.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <signal.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/sys/config_error.hpp"
#include "results/hdf5_writer.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// A fresh, not yet existing directory under the test temp dir, removed afterwards.
class RunWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    base_ = fs::path(::testing::TempDir()) /
            (std::string("fabcheck_run_writer_") + info->name() + "_" + std::to_string(::getpid()));
    fs::remove_all(base_);
  }
  void TearDown() override { fs::remove_all(base_); }

  static std::string read_file(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  static Measurement measurement(const std::string& metric, double value) {
    Measurement m;
    m.probe = "coll.all_reduce";
    m.metric = metric;
    m.value = value;
    m.unit = "GB/s";
    m.size_bytes = 1024;
    return m;
  }

  fs::path base_;
};

TEST_F(RunWriterTest, CreatesParentsAndWritesEachRecordAsItComes) {
  const fs::path dir = base_ / "nested" / "run1";
  RunWriter writer(dir);
  EXPECT_TRUE(fs::is_directory(dir));
  EXPECT_EQ(read_file(dir / "measurements.jsonl"), "");
  EXPECT_EQ(read_file(dir / "findings.jsonl"), "");

  writer.append(measurement("busbw", 1.5));
  // Flushed: visible to another reader before the writer is closed.
  const std::string first = read_file(dir / "measurements.jsonl");
  EXPECT_EQ(std::count(first.begin(), first.end(), '\n'), 1);
  EXPECT_THAT(first, HasSubstr(R"("metric":"busbw")"));

  writer.append(measurement("algbw", 0.75));
  Finding finding;
  finding.severity = Severity::fail;
  finding.probe = "coll.all_reduce";
  finding.message = "too slow";
  writer.append(finding);
  EXPECT_THAT(read_file(dir / "findings.jsonl"), HasSubstr(R"("severity":"fail")"));

  ASSERT_EQ(writer.measurements().size(), 2u);
  EXPECT_EQ(writer.measurements()[1].metric, "algbw");
  ASSERT_EQ(writer.findings().size(), 1u);

  const std::vector<Measurement> back = read_measurements(dir);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].metric, "busbw");
  EXPECT_EQ(back[0].value, 1.5);
  EXPECT_EQ(back[1].value, 0.75);
  EXPECT_EQ(back[1].size_bytes, 1024u);
}

TEST_F(RunWriterTest, RefusesAnExistingEmptyDirectory) {
  // Someone else's directory (in /tmp, say) could hold links planted for the files a run writes.
  fs::create_directories(base_);
  try {
    RunWriter writer(base_);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& error) {
    EXPECT_THAT(error.what(), StartsWith(base_.string() + ": run directory exists"));
  }
  EXPECT_TRUE(fs::is_empty(base_));
}

TEST_F(RunWriterTest, RefusesALinkToADirectory) {
  fs::create_directories(base_ / "elsewhere");
  fs::create_directory_symlink(base_ / "elsewhere", base_ / "run");
  EXPECT_THROW(RunWriter(base_ / "run"), ConfigError);
  EXPECT_TRUE(fs::is_empty(base_ / "elsewhere"));
}

TEST_F(RunWriterTest, RefusesANonEmptyDirectoryAndLeavesItUntouched) {
  fs::create_directories(base_);
  std::ofstream(base_ / "measurements.jsonl") << "earlier run\n";
  try {
    RunWriter writer(base_);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& error) {
    EXPECT_THAT(error.what(), StartsWith(base_.string() + ": run directory exists"));
  }
  EXPECT_EQ(read_file(base_ / "measurements.jsonl"), "earlier run\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(base_), fs::directory_iterator()), 1);
}

TEST_F(RunWriterTest, RefusesAFile) {
  fs::create_directories(base_);
  std::ofstream(base_ / "file") << "x";
  EXPECT_THROW(RunWriter(base_ / "file"), ConfigError);
  EXPECT_EQ(read_file(base_ / "file"), "x");
}

TEST_F(RunWriterTest, SummaryIsReplacedWhole) {
  RunWriter writer(base_);
  writer.write_summary({{"verdict", "incomplete"}});
  EXPECT_EQ(nlohmann::json::parse(read_file(base_ / "summary.json")).at("verdict"), "incomplete");
  writer.write_summary({{"verdict", "pass"}, {"exit_code", 0}});
  const auto summary = nlohmann::json::parse(read_file(base_ / "summary.json"));
  EXPECT_EQ(summary.at("verdict"), "pass");
  EXPECT_EQ(summary.at("exit_code"), 0);
  // Only summary.json and the run's own files: no temporary file left behind.
  for (const auto& entry : fs::directory_iterator(base_))
    EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos) << entry.path();
}

TEST_F(RunWriterTest, ATemporaryNamePlantedBeforehandIsNeitherFollowedNorWrittenInto) {
  // A replaced file is written through a temporary of its own (mkostemp), never through a fixed
  // name that a link could occupy.
  RunWriter writer(base_);
  const fs::path victim = base_.string() + "-victim";
  std::ofstream(victim) << "keep";
  fs::create_symlink(victim, base_ / "summary.json.tmp");
  writer.write_summary({{"verdict", "pass"}});
  EXPECT_EQ(read_file(victim), "keep");
  EXPECT_EQ(nlohmann::json::parse(read_file(base_ / "summary.json")).at("verdict"), "pass");
  fs::remove(victim);
}

TEST_F(RunWriterTest, InvalidUtf8IsReplacedNotLost) {
  RunWriter writer(base_);
  Measurement m = measurement("busbw", 1);
  m.subject = "dev\xff";
  writer.append(m);
  const std::vector<Measurement> back = read_measurements(base_);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].subject, "dev\xEF\xBF\xBD");  // U+FFFD
}

TEST_F(RunWriterTest, ReadMeasurementsNamesTheBadLine) {
  {
    RunWriter writer(base_);
    writer.append(measurement("busbw", 1));
    writer.append(measurement("busbw", 2));
  }
  std::ofstream(base_ / "measurements.jsonl", std::ios::app) << "\n{\"truncated\": \n";
  const std::string path = (base_ / "measurements.jsonl").string();
  try {
    read_measurements(base_);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& error) {
    EXPECT_THAT(error.what(), StartsWith(path + ":4: invalid JSON: "));
  }
}

TEST_F(RunWriterTest, ReadMeasurementsNamesTheBadField) {
  fs::create_directories(base_);
  std::ofstream(base_ / "measurements.jsonl") << R"({"schema_version":1,"kind":"measurement"})"
                                              << "\n";
  try {
    read_measurements(base_);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()),
              (base_ / "measurements.jsonl").string() + ":1: missing field \"probe\"");
  }
}

TEST_F(RunWriterTest, ReadMeasurementsWithoutTheFile) {
  try {
    read_measurements(base_);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& error) {
    EXPECT_EQ(std::string(error.what()),
              (base_ / "measurements.jsonl").string() + ": cannot open measurements file");
  }
}

TEST_F(RunWriterTest, Hdf5IsWrittenWhenAvailable) {
  RunWriter writer(base_);
  writer.append(measurement("busbw", 1.5));
  const bool written = writer.write_hdf5();
  EXPECT_EQ(written, hdf5_available());
  if (!hdf5_available()) {
    EXPECT_FALSE(fs::exists(base_ / "run.h5"));
    GTEST_SKIP() << "built without HDF5";
  }
  // Every HDF5 file starts with this signature.
  EXPECT_EQ(read_file(base_ / "run.h5").substr(0, 8), std::string("\x89HDF\r\n\x1a\n", 8));
}

// The file size limit makes the next write fail part-way (EFBIG), as a full disk does (ENOSPC):
// the line is cut back, the error says which file, and the records before stay whole.
TEST_F(RunWriterTest, ALineThatCannotBeWrittenWholeIsCutBack) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    int status = 0;
    try {
      RunWriter writer(base_);
      writer.append(measurement("busbw", 1));
      const auto size = fs::file_size(base_ / "measurements.jsonl");
      const rlimit limit{size + 40, size + 40};
      ::setrlimit(RLIMIT_FSIZE, &limit);
      try {
        writer.append(measurement("busbw", 2));
        status = 10;  // no error
      } catch (const ResultsWriteError& error) {
        if (std::string(error.what()).find("measurements.jsonl") == std::string::npos) status = 11;
        if (error.out_of_space()) status = 12;  // EFBIG is not a full disk
      }
      if (fs::file_size(base_ / "measurements.jsonl") != size) status = 13;
      if (writer.measurements().size() != 2) status = 14;  // still judged
    } catch (...) {
      status = 15;
    }
    ::_exit(status);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  const std::vector<Measurement> back = read_measurements(base_);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].value, 1);
}

TEST_F(RunWriterTest, TheSpaceReserveLastsAsLongAsTheWriter) {
  {
    RunWriter writer(base_);
    EXPECT_TRUE(fs::exists(base_ / ".space-reserve"));
    EXPECT_GE(fs::file_size(base_ / ".space-reserve"), 8u * 1024);
    writer.release_reserve();
    EXPECT_FALSE(fs::exists(base_ / ".space-reserve"));
  }
  fs::remove_all(base_);
  { RunWriter writer(base_); }
  EXPECT_FALSE(fs::exists(base_ / ".space-reserve"));
}

TEST_F(RunWriterTest, MarkRunIncompleteFromOutsideKeepsEveryLineWhole) {
  FileIdentity made;
  {
    RunWriter writer(base_);
    made = writer.identity();
    writer.append(measurement("busbw", 1));
    writer.write_summary({{"verdict", "incomplete"},
                          {"exit_code", 3},
                          {"incomplete_reason", kRunInProgress},
                          {"counts", {{"error", 0}, {"pass", 1}}},
                          {"finished_utc", nullptr}});
  }
  std::ofstream(base_ / "findings.jsonl", std::ios::app) << R"({"severity":"pass","mess)";
  std::ofstream(base_ / "measurements.jsonl", std::ios::app) << R"({"probe":"coll.)";
  mark_run_incomplete(base_, made, "rank 0 (node-a) was killed by SIGKILL", true);

  const std::string findings = read_file(base_ / "findings.jsonl");
  EXPECT_EQ(std::count(findings.begin(), findings.end(), '\n'), 1) << findings;
  const auto finding = nlohmann::json::parse(findings);
  EXPECT_EQ(finding.at("severity"), "error");
  EXPECT_EQ(finding.at("message"), "rank 0 (node-a) was killed by SIGKILL");
  EXPECT_EQ(read_measurements(base_).size(), 1u);  // the half line is gone

  auto summary = nlohmann::json::parse(read_file(base_ / "summary.json"));
  EXPECT_EQ(summary.at("verdict"), "incomplete");
  EXPECT_EQ(summary.at("exit_code"), 3);
  EXPECT_EQ(summary.at("incomplete_reason"), "rank 0 (node-a) was killed by SIGKILL");
  EXPECT_EQ(summary.at("counts").at("error"), 1);
  EXPECT_EQ(summary.at("counts").at("pass"), 1);

  // A second reason is recorded as a finding, but the first reason stays.
  mark_run_incomplete(base_, made, "interrupted by SIGTERM", false);
  summary = nlohmann::json::parse(read_file(base_ / "summary.json"));
  EXPECT_EQ(summary.at("incomplete_reason"), "rank 0 (node-a) was killed by SIGKILL");
  EXPECT_EQ(summary.at("counts").at("error"), 1);
}

// Issue 22: a rank stopped after its last probe, once the final summary said every node passed.
// The run is incomplete, so each node a FAIL does not drain is held with the reason: the answer
// names every node (it named none, and the prolog said "no answer").
TEST_F(RunWriterTest, MarkRunIncompleteHoldsEveryNodeAFailDoesNotDrain) {
  FileIdentity made;
  {
    RunWriter writer(base_);
    made = writer.identity();
    writer.write_summary(
        {{"verdict", "fail"},
         {"exit_code", 1},
         {"incomplete_reason", nullptr},
         {"hosts", {"node-a", "node-b", "node-c"}},
         {"nodes",
          {{{"host", "node-a"}, {"verdict", "pass"}},
           {{"host", "node-b"}, {"verdict", "fail"}},
           {{"host", "node-c"}, {"verdict", "warn"}}}},
         {"drain", {{{"host", "node-b"}, {"reason", "fabcheck: GPU 3 at Gen4 x8"}}}},
         {"hold", nlohmann::json::array()},
         {"finished_utc", "20261202T120000Z"}});
  }
  mark_run_incomplete(base_, made, "rank 1 (node-c) stopped: no heartbeat for 5 s", true);
  const auto summary = nlohmann::json::parse(read_file(base_ / "summary.json"));
  EXPECT_EQ(summary.at("verdict"), "fail");  // a FAIL stays the verdict
  EXPECT_EQ(summary.at("exit_code"), 3);
  EXPECT_EQ(summary.at("drain"), nlohmann::json::parse(
                                     R"([{"host":"node-b","reason":"fabcheck: GPU 3 at Gen4 x8"}])"));
  const std::string why = "fabcheck: incomplete: rank 1 (node-c) stopped: no heartbeat for 5 s";
  EXPECT_EQ(summary.at("hold"),
            nlohmann::json::parse(
                R"([{"host":"node-a","reason":")" + why +
                R"(","code":"incomplete","repair":"rerun"},{"host":"node-c","reason":")" + why +
                R"(","code":"incomplete","repair":"rerun"}])"));
  EXPECT_EQ(summary.at("nodes").at(0).at("verdict"), "incomplete");
  EXPECT_EQ(summary.at("nodes").at(1).at("verdict"), "fail");
  EXPECT_EQ(summary.at("nodes").at(2).at("verdict"), "incomplete");
}

// A summary that names no node yet (the run stopped before its first one): the hosts it lists
// are held.
TEST_F(RunWriterTest, MarkRunIncompleteHoldsTheListedHostsWhenNoNodeWasJudged) {
  FileIdentity made;
  {
    RunWriter writer(base_);
    made = writer.identity();
    writer.write_summary({{"verdict", "incomplete"},
                          {"incomplete_reason", kRunInProgress},
                          {"hosts", {"gpu,07"}}});
  }
  mark_run_incomplete(base_, made, "interrupted by SIGTERM", false);
  const auto summary = nlohmann::json::parse(read_file(base_ / "summary.json"));
  EXPECT_EQ(summary.at("hold"),
            nlohmann::json::parse(
                R"([{"host":"gpu,07","reason":"fabcheck: incomplete: interrupted by SIGTERM",)"
                R"("code":"incomplete","repair":"rerun"}])"));
  EXPECT_EQ(summary.at("drain"), nlohmann::json::array());
}

// The attack of issue 23 (2): whoever owns --out's parent renames the new run directory aside and
// puts a folder of links in its place. Every later write still goes into the directory made; the
// attacker's folder gets nothing (on main: evidence/ was accepted as it was and written through).
TEST_F(RunWriterTest, AFolderOfLinksPutInPlaceOfTheRunDirectoryGetsNothing) {
  const fs::path theirs = base_.string() + "-theirs";
  const fs::path aside = base_.string() + "-aside";
  fs::remove_all(theirs);
  fs::remove_all(aside);
  fs::create_directories(theirs);
  std::ofstream(theirs / "victim") << "line one\nline two";
  RunWriter writer(base_);
  fs::rename(base_, aside);
  fs::create_directories(base_);
  fs::create_directory_symlink(theirs, base_ / "evidence");
  for (const char* name : {"summary.json", "findings.jsonl", "measurements.jsonl", "junit.xml",
                           "metrics.prom", "run.h5"})
    fs::create_symlink(theirs / "victim", base_ / name);

  writer.append(measurement("busbw", 2));
  Finding finding;
  finding.severity = Severity::fail;
  finding.message = "slow";
  writer.append(finding);
  writer.write_summary({{"verdict", "fail"}, {"exit_code", 1}});
  writer.write_evidence("node-a", {{"kernel-log.txt", "NVRM: Xid 79\n"}});
  writer.write_junit({{"verdict", "fail"}});
  writer.write_prometheus({{"verdict", "fail"}});
  writer.write_hdf5();

  EXPECT_EQ(read_file(theirs / "victim"), "line one\nline two");
  EXPECT_EQ(std::distance(fs::directory_iterator(theirs), fs::directory_iterator()), 1);
  EXPECT_EQ(read_file(aside / "evidence" / "node-a" / "kernel-log.txt"), "NVRM: Xid 79\n");
  EXPECT_THAT(read_file(aside / "summary.json"), HasSubstr("\"fail\""));
  EXPECT_EQ(read_measurements(aside).size(), 1u);
  fs::remove_all(theirs);
  fs::remove_all(aside);
}

// The sentinel's last words (issue 23, 2): into the directory made or nowhere. On main, the
// swapped folder's links made root cut a file back to its last newline and append a line to
// another.
TEST_F(RunWriterTest, LastWordsAreNeverWrittenThroughAReplacedRunDirectory) {
  const fs::path theirs = base_.string() + "-theirs";
  const fs::path aside = base_.string() + "-aside";
  fs::remove_all(theirs);
  fs::remove_all(aside);
  fs::create_directories(theirs);
  std::ofstream(theirs / "cut-me") << "line one\nline two";
  std::ofstream(theirs / "append-me") << "line one\n";
  FileIdentity made;
  {
    RunWriter writer(base_);
    made = writer.identity();
  }
  fs::rename(base_, aside);
  fs::create_directories(base_);
  fs::create_symlink(theirs / "cut-me", base_ / "measurements.jsonl");
  fs::create_symlink(theirs / "append-me", base_ / "findings.jsonl");
  EXPECT_THROW(mark_run_incomplete(base_, made, "rank 0 was killed", true), std::runtime_error);
  // A link in place of the directory itself is refused too.
  fs::remove_all(base_);
  fs::create_directory_symlink(aside, base_);
  EXPECT_THROW(mark_run_incomplete(base_, made, "rank 0 was killed", true), std::runtime_error);
  EXPECT_EQ(read_file(theirs / "cut-me"), "line one\nline two");
  EXPECT_EQ(read_file(theirs / "append-me"), "line one\n");
  // Back under its name, the directory made takes them.
  fs::remove(base_);
  fs::rename(aside, base_);
  mark_run_incomplete(base_, made, "rank 0 was killed", true);
  EXPECT_THAT(read_file(base_ / "findings.jsonl"), HasSubstr("rank 0 was killed"));
  fs::remove_all(theirs);
}

// Issue 23 (15): kernel-log lines under kernel.dmesg_restrict are root's: evidence is no more
// readable than its sources (folders 0700, files 0600); on main 0755 folders and 0644 files.
TEST_F(RunWriterTest, EvidenceIsReadableByItsOwnerOnly) {
  RunWriter writer(base_);
  writer.write_evidence("node-a", {{"kernel-log.txt", "NVRM: Xid 79\n"}, {"index.txt", "x\n"}});
  auto mode = [](const fs::path& path) {
    struct stat info {};
    ::stat(path.c_str(), &info);
    return info.st_mode & 07777;
  };
  EXPECT_EQ(mode(base_ / "evidence"), 0700u);
  EXPECT_EQ(mode(base_ / "evidence" / "node-a"), 0700u);
  EXPECT_EQ(mode(base_ / "evidence" / "node-a" / "kernel-log.txt"), 0600u);
  EXPECT_EQ(mode(base_ / "evidence" / "node-a" / "index.txt"), 0600u);
}

// Noticed with issue 23: `--out r` (no folder part) failed with "No such file or directory"
// (the error code of the existence check was taken for the parent's creation).
TEST_F(RunWriterTest, ARelativeNameWithoutAFolderIsMadeInTheWorkingDirectory) {
  fs::create_directories(base_);
  const fs::path here = fs::current_path();
  fs::current_path(base_);
  try {
    RunWriter writer("r");
    EXPECT_EQ(writer.dir(), fs::path("r"));
    writer.append(measurement("busbw", 1));
  } catch (...) {
    fs::current_path(here);
    throw;
  }
  fs::current_path(here);
  EXPECT_EQ(read_measurements(base_ / "r").size(), 1u);
}

// Issue 23 (17): the default name, taken by another run of the same second, is numbered.
TEST_F(RunWriterTest, TheDefaultNameTakenIsNumbered) {
  RunWriter first(base_ / "20261202T101500Z-node-a", true);
  RunWriter second(base_ / "20261202T101500Z-node-a", true);
  EXPECT_EQ(first.dir(), base_ / "20261202T101500Z-node-a");
  EXPECT_EQ(second.dir(), base_ / "20261202T101500Z-node-a-2");
  // A name the user gave is theirs: taken, it is refused.
  EXPECT_THROW(RunWriter(base_ / "20261202T101500Z-node-a"), ConfigError);
}

// Issue 23 (1-4): an --out parent that another user could change is a configuration error.
TEST_F(RunWriterTest, RefusesAParentOthersCanWriteWithoutTheStickyBit) {
  fs::create_directories(base_ / "shared");
  ::chmod((base_ / "shared").c_str(), 0777);
  try {
    RunWriter writer(base_ / "shared" / "run");
    FAIL() << "accepted";
  } catch (const ConfigError& error) {
    EXPECT_THAT(error.what(), HasSubstr("writable by others without the sticky bit"));
  }
  EXPECT_FALSE(fs::exists(base_ / "shared" / "run"));
}

}  // namespace
}  // namespace fabcheck
