// NCCL_* environment of NCCL probes: user settings, per-probe debug logs, scoped setting.
#include "bench/coll/nccl_environment.hpp"

#include <cstdlib>
#include <cstring>
#include <mutex>

extern char** environ;

namespace fabcheck {
namespace {

// setenv/unsetenv and a walk of environ must not overlap: backends built on several threads of
// one process (the thread-rank test double; several engines of one run) would corrupt environ.
std::mutex& environment_mutex() {
  static std::mutex mutex;
  return mutex;
}

}  // namespace

EnvironmentMap user_nccl_environment() {
  const std::lock_guard lock(environment_mutex());
  EnvironmentMap result;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string text = *entry;
    if (text.rfind("NCCL_", 0) != 0) continue;
    const auto equals = text.find('=');
    if (equals == std::string::npos) continue;
    result[text.substr(0, equals)] = text.substr(equals + 1);
  }
  return result;
}

EnvironmentMap nccl_probe_environment(const EnvironmentMap& user,
                                      const std::filesystem::path& run_dir,
                                      const std::string& probe_id, const EnvironmentMap& forced) {
  const EnvironmentMap debug{
      {"NCCL_DEBUG", "INFO"},
      {"NCCL_DEBUG_SUBSYS", "INIT,NET,GRAPH,ENV"},
      {"NCCL_DEBUG_FILE", (nccl_log_dir(run_dir) / (probe_id + ".%h.%p.log")).string()},
  };
  EnvironmentMap result;
  for (const auto& [name, value] : debug) {
    if (user.count(name) == 0) result[name] = value;
  }
  const EnvironmentMap non_blocking{{"NCCL_COMM_BLOCKING", "0"}};
  for (const auto& [name, value] : non_blocking) result[name] = value;
  for (const auto& [name, value] : forced) result[name] = value;
  return result;
}

EnvironmentMap nic_loopback_environment(const std::filesystem::path& run_dir,
                                        const std::string& probe_id) {
  return {{"NCCL_P2P_DISABLE", "1"},
          {"NCCL_SHM_DISABLE", "1"},
          {"NCCL_NET_GDR_LEVEL", "5"},
          {"NCCL_RUNTIME_CONNECT", "0"},
          {"NCCL_DEBUG", "INFO"},
          {"NCCL_DEBUG_SUBSYS", "INIT,NET,GRAPH,ENV"},
          {"NCCL_DEBUG_FILE", (nccl_log_dir(run_dir) / (probe_id + ".%h.%p.log")).string()}};
}

ScopedEnvironment::ScopedEnvironment(const EnvironmentMap& values) {
  const std::lock_guard lock(environment_mutex());
  for (const auto& [name, value] : values) {
    const char* old = std::getenv(name.c_str());
    previous_[name] = old != nullptr ? std::optional<std::string>(old) : std::nullopt;
    ::setenv(name.c_str(), value.c_str(), 1);
  }
}

ScopedEnvironment::~ScopedEnvironment() {
  const std::lock_guard lock(environment_mutex());
  for (const auto& [name, old] : previous_) {
    if (old) {
      ::setenv(name.c_str(), old->c_str(), 1);
    } else {
      ::unsetenv(name.c_str());
    }
  }
}

}  // namespace fabcheck
