// NCCL_* environment of NCCL probes: debug log settings, the user's own variables, scoped setting.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "bench/coll/nccl_environment.hpp"

namespace fabcheck {
namespace {

TEST(NcclEnvironment, DebugLogGoesToThePerProbeFileInTheRunDirectory) {
  const EnvironmentMap env = nccl_probe_environment({}, "/runs/r1", "coll.all_reduce", {});
  EXPECT_EQ(env,
            (EnvironmentMap{{"NCCL_DEBUG", "INFO"},
                            {"NCCL_DEBUG_SUBSYS", "INIT,NET,GRAPH,ENV"},
                            {"NCCL_DEBUG_FILE", "/runs/r1/nccl-logs/coll.all_reduce.%h.%p.log"},
                            {"NCCL_COMM_BLOCKING", "0"}}));
  EXPECT_EQ(nccl_log_dir("/runs/r1"), std::filesystem::path("/runs/r1/nccl-logs"));
}

TEST(NcclEnvironment, TheUsersOwnDebugSettingsWin) {
  const EnvironmentMap user{{"NCCL_DEBUG", "WARN"}, {"NCCL_IB_HCA", "mlx5_0"}};
  const EnvironmentMap env = nccl_probe_environment(user, "/r", "coll.all_gather", {});
  EXPECT_EQ(env.count("NCCL_DEBUG"), 0u);
  EXPECT_EQ(env.at("NCCL_DEBUG_SUBSYS"), "INIT,NET,GRAPH,ENV");
  EXPECT_EQ(env.at("NCCL_DEBUG_FILE"), "/r/nccl-logs/coll.all_gather.%h.%p.log");
  EXPECT_EQ(env.count("NCCL_IB_HCA"), 0u);  // left as the user set it, not re-set
}

// A user's NCCL_COMM_BLOCKING=1 would make NCCL block in init and launches, past the backend's
// timeout: every NCCL probe keeps its communicators non-blocking.
TEST(NcclEnvironment, CommunicatorsStayNonBlockingWhateverTheUserSet) {
  const EnvironmentMap env =
      nccl_probe_environment({{"NCCL_COMM_BLOCKING", "1"}}, "/r", "coll.all_reduce", {});
  EXPECT_EQ(env.at("NCCL_COMM_BLOCKING"), "0");
}

// coll.nic_loopback's settings win over the user's, its own INFO log included (the log is its
// proof), and every connection is made at init (NCCL_RUNTIME_CONNECT=0).
TEST(NcclEnvironment, ForcedSettingsWinOverTheUsers) {
  const EnvironmentMap user{{"NCCL_P2P_DISABLE", "0"}, {"NCCL_DEBUG", "WARN"}};
  const EnvironmentMap env = nccl_probe_environment(
      user, "/r", "coll.nic_loopback", nic_loopback_environment("/r", "coll.nic_loopback"));
  EXPECT_EQ(env.at("NCCL_P2P_DISABLE"), "1");
  EXPECT_EQ(env.at("NCCL_SHM_DISABLE"), "1");
  EXPECT_EQ(env.at("NCCL_NET_GDR_LEVEL"), "5");
  EXPECT_EQ(env.at("NCCL_RUNTIME_CONNECT"), "0");
  EXPECT_EQ(env.at("NCCL_DEBUG"), "INFO");
  EXPECT_EQ(env.at("NCCL_DEBUG_FILE"), "/r/nccl-logs/coll.nic_loopback.%h.%p.log");
  EXPECT_EQ(env.size(), 8u);  // and NCCL_COMM_BLOCKING=0
}

TEST(NcclEnvironment, ScopedEnvironmentRestoresWhatWasThere) {
  ::unsetenv("FABCHECK_TEST_UNSET");
  ::setenv("FABCHECK_TEST_SET", "before", 1);
  {
    const ScopedEnvironment scope({{"FABCHECK_TEST_UNSET", "x"}, {"FABCHECK_TEST_SET", "during"}});
    EXPECT_STREQ(std::getenv("FABCHECK_TEST_UNSET"), "x");
    EXPECT_STREQ(std::getenv("FABCHECK_TEST_SET"), "during");
  }
  EXPECT_EQ(std::getenv("FABCHECK_TEST_UNSET"), nullptr);
  EXPECT_STREQ(std::getenv("FABCHECK_TEST_SET"), "before");
  ::unsetenv("FABCHECK_TEST_SET");
}

TEST(NcclEnvironment, UserEnvironmentHoldsOnlyNcclVariables) {
  ::setenv("NCCL_FABCHECK_TEST", "a=b", 1);
  ::setenv("XNCCL_FABCHECK_TEST", "no", 1);
  const EnvironmentMap env = user_nccl_environment();
  EXPECT_EQ(env.at("NCCL_FABCHECK_TEST"), "a=b");
  EXPECT_EQ(env.count("XNCCL_FABCHECK_TEST"), 0u);
  for (const auto& [name, value] : env) EXPECT_EQ(name.rfind("NCCL_", 0), 0u) << name;
  ::unsetenv("NCCL_FABCHECK_TEST");
  ::unsetenv("XNCCL_FABCHECK_TEST");
}

// Backends built on threads of one process (the thread-rank double) set and read the environment
// at once; unguarded, setenv moving environ under a reader crashed CI (a SEGFAULT in the NCCL
// backend's multi-rank test). Many threads doing both at once must finish with environ intact.
TEST(NcclEnvironment, ThreadsSettingAndReadingAtOnceLeaveTheEnvironmentIntact) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < 400; ++i) {
        const std::string name =
            "NCCL_FABCHECK_RACE_" + std::to_string(t) + "_" + std::to_string(i);
        const ScopedEnvironment scoped({{name, "x"}});
        const EnvironmentMap seen = user_nccl_environment();
        ASSERT_EQ(seen.count(name), 1u) << name;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (const auto& [name, value] : user_nccl_environment())
    EXPECT_NE(name.rfind("NCCL_FABCHECK_RACE_", 0), 0u) << name << " was left behind";
}

}  // namespace
}  // namespace fabcheck
