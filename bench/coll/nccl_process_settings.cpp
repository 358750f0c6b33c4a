// The once-read NCCL settings of this process, as the first communicator that forced them left.
#include "bench/coll/nccl_process_settings.hpp"

#include <mutex>

namespace fabcheck {
namespace {

// NCCL's parameters it caches at first use (NCCL_PARAM; graph/paths.cc, transport/shm.cc,
// init.cc of NCCL 2.28).
constexpr const char* kReadOnce[] = {"NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE", "NCCL_NET_GDR_LEVEL",
                                     "NCCL_RUNTIME_CONNECT"};

std::mutex& settings_mutex() {
  static std::mutex mutex;
  return mutex;
}

std::string& forced_reason() {
  static std::string reason;
  return reason;
}

}  // namespace

void note_nccl_process_settings(const EnvironmentMap& forced, const std::string& probe_id) {
  std::string settings;
  for (const char* name : kReadOnce) {
    const auto it = forced.find(name);
    if (it != forced.end()) settings += (settings.empty() ? "" : ", ") + it->first + "=" + it->second;
  }
  if (settings.empty()) return;
  const std::lock_guard lock(settings_mutex());
  if (!forced_reason().empty()) return;
  forced_reason() = probe_id + " made NCCL read " + settings +
                    " in this process, and NCCL keeps them for the process's life (it reads them "
                    "once), so this probe's traffic would take " +
                    probe_id + "'s transports: run " + probe_id +
                    " in a fabcheck run of its own";
}

std::string nccl_transports_forced_reason() {
  const std::lock_guard lock(settings_mutex());
  return forced_reason();
}

void reset_nccl_process_settings_for_tests() {
  const std::lock_guard lock(settings_mutex());
  forced_reason().clear();
}

}  // namespace fabcheck
