// IoEngine: how a storage pattern reaches a file (psync, io_uring, null), reduced to open, submit,
// reap and close. The engine never takes timestamps: the caller times submissions and completions.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bench/sys/dir_handle.hpp"

namespace fabcheck {

enum class IoOp { read, write, fsync };

// What an engine can do, so patterns pick a queue depth and buffers that make sense for it.
struct IoEngineCaps {
  bool asynchronous = false;  // more than one request in flight at a time
  bool touches_files = true;  // false for the null engine: nothing is read or written
};

enum class OpenAccess { read_only, write_only, read_write };

struct OpenOptions {
  OpenAccess access = OpenAccess::read_only;
  bool direct = false;  // O_DIRECT: buffers, offsets and lengths must be aligned to 4 KiB
};

// The open(2) flags of `options` (access mode, O_DIRECT).
int open_flags(const OpenOptions& options);

// One request. `tag` comes back in its completion; the caller uses it to find its buffer and the
// time it submitted it.
struct IoRequest {
  IoOp op = IoOp::read;
  int file = -1;  // a handle from IoEngine::open
  void* buffer = nullptr;
  std::uint32_t length = 0;
  std::uint64_t offset = 0;
  std::uint64_t tag = 0;
};

struct IoCompletion {
  std::uint64_t tag = 0;
  std::int64_t result = 0;  // bytes transferred (0 for fsync), or -errno
};

class IoEngine {
 public:
  virtual ~IoEngine() = default;
  virtual std::string name() const = 0;
  virtual IoEngineCaps caps() const = 0;
  // Takes a file already open (engines never open or create one by path: ScratchDir::open_file
  // opens it relative to the folder it made). Returns a handle for requests.
  virtual int adopt(UniqueFd file) = 0;
  // Queues the requests and hands them to the kernel. At most queue_depth() may be in flight.
  virtual void submit(std::span<const IoRequest> requests) = 0;
  // Waits until at least `min_completions` (not more than in flight) have completed and stores up
  // to out.size() of them; returns how many it stored.
  virtual std::size_t reap(std::size_t min_completions, std::span<IoCompletion> out) = 0;
  virtual void close(int file) = 0;
  virtual std::uint32_t queue_depth() const = 0;
};

// Engines this build has, in order of preference: "io_uring" (when built with liburing), "psync",
// "null".
std::vector<std::string> available_io_engines();
// The engine a pattern uses when none is asked for: io_uring where this build and kernel have it,
// else psync.
std::string default_io_engine();
// Throws ConfigError naming the engine and the available ones when `name` is not one of them.
std::unique_ptr<IoEngine> make_io_engine(const std::string& name, std::uint32_t queue_depth);

}  // namespace fabcheck
