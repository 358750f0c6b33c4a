// GatedTimer: times work on CUDA streams, of one GPU or several, with CUDA events, the work queued
// behind a spin gate that holds the streams until everything is queued (nvbandwidth's approach), so
// launch and queuing cost stay out of the interval. Streams are grouped in lanes: a lane's streams
// start together and its interval ends when all of them are done, on its first stream's device
// clock; several lanes start together (one gate) and are timed apart (one interval each). Queueing
// and completing are separate steps so ranks can be aligned in between; the gate opens on every way
// out, an exception included, so no stream is left held. Built only with CUDA.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "bench/cuda/cuda_stream.hpp"
#include "bench/cuda/spin_gate.hpp"

namespace fabcheck {

// A stream and the device it was created on.
struct DeviceStream {
  int device = 0;
  cudaStream_t stream = nullptr;
};

// Streams timed as one interval: lane[0] carries the gate and the events; the others, of any
// device, start when it starts and are joined before its stop event.
using Lane = std::vector<DeviceStream>;

class GatedTimer {
 public:
  GatedTimer() = default;
  GatedTimer(const GatedTimer&) = delete;
  GatedTimer& operator=(const GatedTimer&) = delete;

  // Closes the gate, holds every lane behind it, records the events around what `enqueue` queues
  // (asynchronously; it makes each stream's device current while it queues on it). Nothing runs
  // until complete(). On an exception the gate is opened and the exception passed on.
  void queue(const std::vector<Lane>& lanes, const std::function<void()>& enqueue);
  // Opens the gate, waits for every lane, returns each lane's milliseconds.
  std::vector<float> complete();

  // queue + complete of one lane.
  float time_ms(const Lane& lane, const std::function<void()>& enqueue);

 private:
  Event& event_on(int device, std::size_t slot);

  SpinGate gate_;
  // Per device, reused: the start, stop and join events of the lanes queued on it.
  std::map<int, std::vector<std::unique_ptr<Event>>> events_;
  std::set<int> preloaded_;  // devices whose kernels are loaded (before the gate first closes)
  struct Interval {
    int device;
    Event* start;
    Event* stop;
  };
  std::vector<Interval> queued_;
};

// `warmup` untimed runs of `enqueue` on `lane`, then `iters` timed ones (at least one): seconds.
std::vector<double> gated_samples_s(GatedTimer& timer, const Lane& lane, int warmup, int iters,
                                    const std::function<void()>& enqueue);

}  // namespace fabcheck
