// NCCL's entry points resolved from libnccl.so.2 at run time, with a reason when they cannot be.
#include "bench/cuda/nccl_library.hpp"

#include <stdexcept>

#include "bench/sys/shared_library.hpp"

namespace fabcheck {
namespace {

constexpr const char* kNcclSoname = "libnccl.so.2";

}  // namespace

NcclLibrary load_nccl(const std::string& library) {
  NcclLibrary loaded;
  const SharedLibrary opened = open_shared_library(library, {FABCHECK_CUDA_LIBRARY_DIR});
  if (opened.handle == nullptr) {
    loaded.reason = opened.reason + " (NCCL not installed, or not on the library path)";
    return loaded;
  }
  auto api = std::make_shared<NcclFunctions>();
  std::string missing;
  void* h = opened.handle;
  resolve_symbol(h, "ncclGetVersion", api->get_version, missing);
  resolve_symbol(h, "ncclGetErrorString", api->get_error_string, missing);
  resolve_symbol(h, "ncclGetLastError", api->get_last_error, missing);
  resolve_symbol(h, "ncclGetUniqueId", api->get_unique_id, missing);
  resolve_symbol(h, "ncclGroupStart", api->group_start, missing);
  resolve_symbol(h, "ncclGroupEnd", api->group_end, missing);
  resolve_symbol(h, "ncclCommInitRankConfig", api->comm_init_rank_config, missing);
  resolve_symbol(h, "ncclCommGetAsyncError", api->comm_get_async_error, missing);
  resolve_symbol(h, "ncclCommAbort", api->comm_abort, missing);
  resolve_symbol(h, "ncclCommSplit", api->comm_split, missing);
  resolve_symbol(h, "ncclAllReduce", api->all_reduce, missing);
  resolve_symbol(h, "ncclAllGather", api->all_gather, missing);
  resolve_symbol(h, "ncclBroadcast", api->broadcast, missing);
  resolve_symbol(h, "ncclReduceScatter", api->reduce_scatter, missing);
  resolve_symbol(h, "ncclSend", api->send, missing);
  resolve_symbol(h, "ncclRecv", api->recv, missing);
  if (!missing.empty()) {
    loaded.reason = library_file_name(library) + " lacks " + missing +
                    " (NCCL older than 2.18, which fabcheck needs)";
    return loaded;
  }
  std::string optional_missing;
  resolve_symbol(h, "ncclResetDebugInit", api->reset_debug_init, optional_missing);
  loaded.api = std::move(api);
  loaded.path = opened.path;
  return loaded;
}

const NcclLibrary& process_nccl() {
  static const NcclLibrary library =
      load_nccl(library_to_open("FABCHECK_NCCL_LIBRARY", kNcclSoname));
  return library;
}

const NcclFunctions& nccl_functions() {
  const NcclLibrary& library = process_nccl();
  if (!library.ok()) throw std::runtime_error("nccl: " + library.reason);
  return *library.api;
}

}  // namespace fabcheck
