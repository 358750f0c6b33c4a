// NcclError: an NCCL backend failure (device setup, an NCCL or CUDA error, a timeout) whose message
// names the host, the GPU and the operation; the runner records it as an ERROR (exit code 3).
#pragma once

#include <stdexcept>
#include <string>

namespace fabcheck {

class NcclError : public std::runtime_error {
 public:
  explicit NcclError(const std::string& message, bool timed_out = false)
      : std::runtime_error(message), timed_out_(timed_out) {}
  // True when an operation outlived the probe's timeout and the communicators were aborted.
  bool timed_out() const { return timed_out_; }

 private:
  bool timed_out_;
};

}  // namespace fabcheck
