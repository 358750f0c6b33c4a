// A recording test double of the CUDA runtime (fake_cuda_runtime.cuda.cpp defines the cuda* entry
// points and fabcheck's kernel launches this test binary uses, so the real probe code runs against
// it): devices are host memory, streams queue work that runs in order, a spin gate holds a stream
// until its host-mapped flag is set, events order streams and carry a logical time. It records
// what a test asserts: which device issued each copy on which device's stream, races between work
// on streams that nothing orders, and a host waiting on a stream a closed gate still holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace fabcheck::fake_cuda {

// One copy as the probe issued it (cudaMemcpy*, cudaMemcpyPeerAsync, or the SM copy kernel).
struct Copy {
  std::string api;     // "cudaMemcpyPeerAsync", "sm_copy", "cudaMemcpyAsync", "cudaMemcpy"
  int issuing_device;  // the device current when it was queued
  int stream_device;   // the device of the stream it was queued on (-1: legacy stream)
  int dst_device;      // -1: host memory
  int src_device;
  std::size_t bytes;
};

// A timed window: from the moment a held stream's gate opened to the host's wait for the stop.
struct Window {
  int device;
  double opened;  // steady clock seconds
  double closed;
};

struct Config {
  int devices = 2;
  std::vector<std::string> bus_ids;  // default "0000:<10+d>:00.0"
  bool peer_access = true;
  double event_sync_seconds = 0;  // how long cudaEventSynchronize takes (widens windows)
  int sms = 4;                    // multiProcessorCount; block b of a launch runs on SM b % sms
  // Planted faults: this SM's FP32 chain result of every lane gets bit 7 flipped (-1: none)...
  int wrong_sm = -1;
  // ...and the SDC pattern check finds this word of the buffer with bit 3 flipped (-1: none)...
  long long wrong_word = -1;
  // ...and gpu.sdc's L2 pattern reads this word of its buffer with bit 5 flipped (-1: none).
  long long wrong_l2_word = -1;
  int l2_bytes = 1 << 20;  // l2CacheSize
  int compute_major = 9;   // compute capability (9.0: FP8 tensor cores)
  int compute_minor = 0;
  std::size_t free_memory = std::size_t{64} << 20;  // cudaMemGetInfo's free bytes
};

// Forget everything; `config` for what follows. Not thread-safe against running work.
void reset(const Config& config = {});

std::vector<Copy> copies();
std::vector<Window> windows();
// "memset of 0x... on the legacy stream of device 1 not ordered before cudaMemcpyPeerAsync on a
// stream of device 1", one entry per race.
std::vector<std::string> races();
// A host wait on a stream held by a closed gate (it would never return on a GPU).
std::vector<std::string> deadlocks();
// A kernel launched for the first time on a device (not preloaded: kernels::preload) while a spin
// gate was closed: with CUDA's lazy loading its module load would wait for the gate's timeout.
std::vector<std::string> lazy_loads();
// Devices on which a CUDA context was created (cudaSetDevice, allocations, streams, events), per
// thread that created it, in order: "thread <n> device <d>".
std::vector<int> devices_with_context_on_this_thread();
// The spin gate flags launched so far (host addresses), to check a gate was opened.
std::vector<const volatile int*> gates();

}  // namespace fabcheck::fake_cuda
