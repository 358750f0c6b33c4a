// NullEngine: requests complete immediately with their full length.
#include "storage/null_engine.hpp"

#include <stdexcept>

namespace fabcheck {

int NullEngine::adopt(UniqueFd /*file*/) {
  ++open_files_;
  return next_handle_++;
}

void NullEngine::submit(std::span<const IoRequest> requests) {
  for (const IoRequest& request : requests) {
    if (request.file < 0 || request.file >= next_handle_) {
      throw std::invalid_argument("NullEngine: request on a file that was never opened");
    }
    const std::int64_t length = request.op == IoOp::fsync ? 0 : request.length;
    done_.push_back({request.tag, length});
    ++submitted_;
  }
}

std::size_t NullEngine::reap(std::size_t /*min_completions*/, std::span<IoCompletion> out) {
  std::size_t stored = 0;
  while (stored < out.size() && !done_.empty()) {
    out[stored++] = done_.front();
    done_.pop_front();
  }
  return stored;
}

void NullEngine::close(int /*file*/) {
  if (open_files_ > 0) --open_files_;
}

}  // namespace fabcheck
