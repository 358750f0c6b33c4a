// NCCL loaded at run time (dlopen of libnccl.so.2 when a collective first needs it): the entry
// points fabcheck calls, so a node without NCCL starts, runs every other probe, and waives the NCCL
// ones naming what is missing. CUDA builds only (nccl.h at build time).
#pragma once

#include <nccl.h>

#include <memory>
#include <string>

namespace fabcheck {

// Exactly the NCCL functions fabcheck calls; all required but reset_debug_init.
struct NcclFunctions {
  decltype(&::ncclGetVersion) get_version = nullptr;
  decltype(&::ncclGetErrorString) get_error_string = nullptr;
  decltype(&::ncclGetLastError) get_last_error = nullptr;
  decltype(&::ncclGetUniqueId) get_unique_id = nullptr;
  decltype(&::ncclGroupStart) group_start = nullptr;
  decltype(&::ncclGroupEnd) group_end = nullptr;
  decltype(&::ncclCommInitRankConfig) comm_init_rank_config = nullptr;
  decltype(&::ncclCommGetAsyncError) comm_get_async_error = nullptr;
  decltype(&::ncclCommAbort) comm_abort = nullptr;
  decltype(&::ncclCommSplit) comm_split = nullptr;
  decltype(&::ncclAllReduce) all_reduce = nullptr;
  decltype(&::ncclAllGather) all_gather = nullptr;
  decltype(&::ncclBroadcast) broadcast = nullptr;
  decltype(&::ncclReduceScatter) reduce_scatter = nullptr;
  decltype(&::ncclSend) send = nullptr;
  decltype(&::ncclRecv) recv = nullptr;
  // Optional (NCCL 2.24.3 on; absent in a later one is fine): re-reads NCCL_DEBUG and friends.
  using ResetDebugInit = void (*)();
  ResetDebugInit reset_debug_init = nullptr;
};

// NCCL loaded, or why not: "libnccl.so.2 not found (NCCL not installed, or not on the library
// path)", "libnccl.so.2 lacks ncclCommSplit (NCCL older than 2.18)".
struct NcclLibrary {
  std::shared_ptr<const NcclFunctions> api;  // null when NCCL could not load
  std::string reason;
  std::string path;  // the file loaded, links resolved (SharedLibrary::path); "" when not loaded

  bool ok() const { return api != nullptr; }
};

// Opens `library` (a soname or a path) with dlopen and resolves every entry point. Never throws.
NcclLibrary load_nccl(const std::string& library);

// This process's NCCL: loaded once, on first use, from libnccl.so.2 (or the file named by
// FABCHECK_NCCL_LIBRARY, for tests), and kept for the process's lifetime.
const NcclLibrary& process_nccl();

// process_nccl()'s functions; throws std::runtime_error("nccl: <reason>") when it did not load
// (a probe reaching this has been let through its requirement: a bug worth a clear error).
const NcclFunctions& nccl_functions();

}  // namespace fabcheck
