// A shared library opened at run time (dlopen by soname), with the reason when it cannot be: how
// fabcheck loads NCCL and cuBLAS only when a GPU probe needs them, so the binary starts anywhere.
#pragma once

#include <string>
#include <vector>

namespace fabcheck {

struct SharedLibrary {
  void* handle = nullptr;  // never closed: kept for the process's lifetime
  std::string reason;      // when handle is null: "libnccl.so.2 not found", or dlerror's text
  // The file the loader opened, links resolved ("/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.9"):
  // which of several installed copies this process uses. Empty when none was opened.
  std::string path;
};

// dlopen of `name` (a soname searched on the library path, or a path), then of each
// `fallback_dirs`/name in turn. Never throws.
SharedLibrary open_shared_library(const std::string& name,
                                  const std::vector<std::string>& fallback_dirs = {});

// `library` without its folder ("libnccl.so.2" of "/opt/nccl/lib/libnccl.so.2"), for messages.
std::string library_file_name(const std::string& library);

// What to open: the path in environment variable `override_variable` when set and not empty (a
// site's copy, a test double), else `soname`.
std::string library_to_open(const char* override_variable, const std::string& soname);

// The address of `symbol` in an opened library, nullptr when it has none.
void* shared_library_symbol(void* handle, const char* symbol);

// Resolves `symbol` into the function pointer `slot`; when absent, leaves it null and keeps the
// first missing name in `first_missing` (for "libnccl.so.2 lacks ncclCommSplit").
template <typename Pointer>
void resolve_symbol(void* handle, const char* symbol, Pointer& slot, std::string& first_missing) {
  void* address = shared_library_symbol(handle, symbol);
  if (address == nullptr) {
    if (first_missing.empty()) first_missing = symbol;
    return;
  }
  slot = reinterpret_cast<Pointer>(address);
}

}  // namespace fabcheck
