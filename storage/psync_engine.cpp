// PsyncEngine: each request is one pread(2), pwrite(2) or fsync(2) call.
#include "storage/psync_engine.hpp"

#include <unistd.h>

#include <cerrno>

namespace fabcheck {

namespace {

std::int64_t perform(int fd, const IoRequest& request) {
  ssize_t result = 0;
  switch (request.op) {
    case IoOp::read:
      result = ::pread(fd, request.buffer, request.length, static_cast<off_t>(request.offset));
      break;
    case IoOp::write:
      result = ::pwrite(fd, request.buffer, request.length, static_cast<off_t>(request.offset));
      break;
    case IoOp::fsync:
      result = ::fsync(fd);
      break;
  }
  return result < 0 ? -static_cast<std::int64_t>(errno) : static_cast<std::int64_t>(result);
}

}  // namespace

void PsyncEngine::submit(std::span<const IoRequest> requests) {
  for (const IoRequest& request : requests) {
    done_.push_back({request.tag, perform(files_.fd(request.file), request)});
  }
}

std::size_t PsyncEngine::reap(std::size_t /*min_completions*/, std::span<IoCompletion> out) {
  std::size_t stored = 0;
  while (stored < out.size() && !done_.empty()) {
    out[stored++] = done_.front();
    done_.pop_front();
  }
  return stored;
}

}  // namespace fabcheck
