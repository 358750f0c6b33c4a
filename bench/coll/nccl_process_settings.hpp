// What NCCL keeps for the life of this process: NCCL_P2P_DISABLE, NCCL_SHM_DISABLE,
// NCCL_NET_GDR_LEVEL and NCCL_RUNTIME_CONNECT are read once (at the first communicator) and never
// again, so a probe that forces them (coll.nic_loopback) decides the transports of every later
// communicator of the process; restoring the environment after it changes nothing.
#pragma once

#include <string>

#include "bench/coll/nccl_environment.hpp"

namespace fabcheck {

// Called as a communicator is made with `forced` settings (empty: none) by `probe_id`; the first
// one that forces a once-read setting is kept.
void note_nccl_process_settings(const EnvironmentMap& forced, const std::string& probe_id);

// "" while no communicator of this process was made under forced once-read settings; else why a
// later NCCL probe of the process cannot measure what it says ("coll.nic_loopback made NCCL read
// NCCL_P2P_DISABLE=1, ... in this process ...").
std::string nccl_transports_forced_reason();

// For tests: forgets what was noted.
void reset_nccl_process_settings_for_tests();

}  // namespace fabcheck
