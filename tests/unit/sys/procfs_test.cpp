// /proc as the sentinel and the runner read it (a process's state, environment and age, the pids
// there are), and the launcher's rank and job read from another process's environment block.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

#include "bench/sys/launcher.hpp"
#include "bench/sys/procfs.hpp"

namespace fabcheck {
namespace {

// A child that sleeps with exactly `environment` (NAME=VALUE entries); killed when the test ends.
class SleepingChild {
 public:
  explicit SleepingChild(std::vector<std::string> environment) {
    pid_ = ::fork();
    if (pid_ == 0) {
      std::vector<char*> env;
      for (auto& entry : environment) env.push_back(entry.data());
      env.push_back(nullptr);
      char sleep[] = "sleep";
      char seconds[] = "30";
      char* argv[] = {sleep, seconds, nullptr};
      ::execve("/bin/sleep", argv, env.data());
      ::_exit(127);
    }
    // Until the exec is done the child's environ is still the test's.
    for (int i = 0; i < 200 && process_environment(pid_).find("FABCHECK_TEST") == std::string::npos;
         ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ~SleepingChild() {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

TEST(Procfs, StateOfARunningAndAStoppedProcess) {
  SleepingChild child({"FABCHECK_TEST=1"});
  EXPECT_FALSE(is_stopped_state(process_state(child.pid())));
  ::kill(child.pid(), SIGSTOP);
  int status = 0;
  ::waitpid(child.pid(), &status, WUNTRACED);
  EXPECT_TRUE(is_stopped_state(process_state(child.pid())));
  EXPECT_EQ(process_state(0), '?') << "pid 0 has no /proc entry";
}

TEST(Procfs, EnvironmentBlocksAndTheListOfPids) {
  SleepingChild child({"FABCHECK_TEST=yes", "OTHER=a b"});
  const std::string block = process_environment(child.pid());
  EXPECT_EQ(environment_value(block, "FABCHECK_TEST"), "yes");
  EXPECT_EQ(environment_value(block, "OTHER"), "a b");
  EXPECT_FALSE(own_environment().empty());
  const auto pids = process_ids();
  EXPECT_NE(std::find(pids.begin(), pids.end(), child.pid()), pids.end());
  EXPECT_NE(std::find(pids.begin(), pids.end(), ::getpid()), pids.end());
}

TEST(Procfs, ThisProcessHasBeenRunningAWhileButNotForever) {
  // /proc counts in hundredths of a second: a process just started may read as 0.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const double age = process_age_s();
  EXPECT_GT(age, 0.2);
  EXPECT_LT(age, 24 * 3600);
}

TEST(Launcher, OneListOfRankVariablesForThisProcessAndAnother) {
  // Each launcher's variable alone names the rank; MPICH's PMI_RANK too.
  for (const char* variable : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}) {
    const std::string block = std::string("A=1") + '\0' + variable + "=7" + '\0';
    EXPECT_EQ(launcher_rank_of(block), "7") << variable;
  }
  EXPECT_EQ(launcher_rank_of(std::string("A=1") + '\0'), "");
}

TEST(Launcher, TheProcessesOfAJobOnThisHost) {
  SleepingChild first({"FABCHECK_TEST=1", "PMIX_NAMESPACE=fabcheck-test-job", "PMIX_RANK=3"});
  SleepingChild other_job({"FABCHECK_TEST=1", "PMIX_NAMESPACE=another-job", "PMIX_RANK=4"});
  const auto processes = job_processes_on_this_host("fabcheck-test-job");
  ASSERT_EQ(processes.size(), 1u);
  EXPECT_EQ(processes[0].pid, first.pid());
  EXPECT_EQ(processes[0].rank, "3");
  EXPECT_TRUE(job_processes_on_this_host("").empty());
}

}  // namespace
}  // namespace fabcheck
