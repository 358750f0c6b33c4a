// SpinGate: holds CUDA streams (of any devices) behind a one-thread kernel that spins on
// host-mapped memory until the host opens the gate, so work queued behind it starts together and
// the host's launch cost stays out of an event-timed interval (nvbandwidth's stream blocker). Used
// by the NCCL backend's timed samples and by kernels/gated_timer. Built only with CUDA.
#pragma once

#include <cuda_runtime_api.h>

namespace fabcheck {

// Launches the spin kernel on `stream` (spin_gate.cu): it returns once *open is non-zero, or after
// `timeout_cycles` GPU clock cycles, so a gate the host never opens lets go by itself.
cudaError_t launch_spin_gate(const volatile int* open, long long timeout_cycles,
                             cudaStream_t stream);

class SpinGate {
 public:
  // About 10 s at 2 GHz.
  static constexpr long long kTimeoutCycles = 20'000'000'000LL;

  // Page-locked, mapped into every device's address space (portable). Throws std::runtime_error
  // with CUDA's text.
  SpinGate();
  ~SpinGate();  // opens the gate first
  SpinGate(const SpinGate&) = delete;
  SpinGate& operator=(const SpinGate&) = delete;

  // Closes the gate: streams held from now on wait until open().
  void close() noexcept;
  // Holds `stream` (its device must be current) until the gate opens. The gate must be closed.
  cudaError_t hold(cudaStream_t stream) const;
  void open() noexcept;
  bool is_open() const noexcept;

  // Closed while alive, opened when destroyed, also by an exception: never a stream left held.
  class Closed {
   public:
    explicit Closed(SpinGate& gate) : gate_(gate) { gate_.close(); }
    ~Closed() { gate_.open(); }
    Closed(const Closed&) = delete;
    Closed& operator=(const Closed&) = delete;

   private:
    SpinGate& gate_;
  };

 private:
  int* flag_ = nullptr;         // host address
  int* device_flag_ = nullptr;  // the same memory as the devices see it
};

}  // namespace fabcheck
