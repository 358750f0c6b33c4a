// GatedTimer: CUDA events behind a spin gate; the work starts when the host opens the gate.
#include "kernels/gated_timer.hpp"

#include <stdexcept>

#include "bench/cuda/scoped_device.hpp"
#include "kernels/kernels.cuh"

namespace fabcheck {

Event& GatedTimer::event_on(int device, std::size_t slot) {
  auto& events = events_[device];
  if (events.size() <= slot) {
    ScopedDevice current(device);
    while (events.size() <= slot) events.push_back(std::make_unique<Event>());
  }
  return *events[slot];
}

void GatedTimer::queue(const std::vector<Lane>& lanes, const std::function<void()>& enqueue) {
  if (!queued_.empty()) throw std::logic_error("GatedTimer: queue() twice without complete()");
  // Every kernel loaded on each lane's devices while the gate is still open (kernels.cuh: preload).
  for (const Lane& lane : lanes) {
    for (const DeviceStream& member : lane) {
      if (!preloaded_.insert(member.device).second) continue;
      ScopedDevice device(member.device);
      FABCHECK_CUDA(kernels::preload());
    }
  }
  gate_.close();
  try {
    std::map<int, std::size_t> next_slot;
    auto next_event = [&](int device) -> Event& { return event_on(device, next_slot[device]++); };
    std::vector<std::vector<Event*>> joins(lanes.size());
    for (const Lane& lane : lanes) {
      const DeviceStream& primary = lane.front();
      Interval interval{primary.device, &next_event(primary.device), &next_event(primary.device)};
      {
        ScopedDevice device(primary.device);
        FABCHECK_CUDA(gate_.hold(primary.stream));
        FABCHECK_CUDA(cudaEventRecord(interval.start->get(), primary.stream));
      }
      for (std::size_t i = 1; i < lane.size(); ++i) {
        ScopedDevice device(lane[i].device);
        FABCHECK_CUDA(cudaStreamWaitEvent(lane[i].stream, interval.start->get(), 0));
      }
      queued_.push_back(interval);
    }
    enqueue();
    for (std::size_t l = 0; l < lanes.size(); ++l) {
      const Lane& lane = lanes[l];
      const DeviceStream& primary = lane.front();
      for (std::size_t i = 1; i < lane.size(); ++i) {
        Event& join = next_event(lane[i].device);
        {
          ScopedDevice device(lane[i].device);
          FABCHECK_CUDA(cudaEventRecord(join.get(), lane[i].stream));
        }
        ScopedDevice device(primary.device);
        FABCHECK_CUDA(cudaStreamWaitEvent(primary.stream, join.get(), 0));
      }
      ScopedDevice device(primary.device);
      FABCHECK_CUDA(cudaEventRecord(queued_[l].stop->get(), primary.stream));
    }
  } catch (...) {
    gate_.open();
    queued_.clear();
    throw;
  }
}

std::vector<float> GatedTimer::complete() {
  gate_.open();
  const std::vector<Interval> intervals = std::move(queued_);
  queued_.clear();
  std::vector<float> elapsed;
  for (const Interval& interval : intervals) {
    ScopedDevice device(interval.device);
    FABCHECK_CUDA(cudaEventSynchronize(interval.stop->get()));
    float ms = 0;
    FABCHECK_CUDA(cudaEventElapsedTime(&ms, interval.start->get(), interval.stop->get()));
    elapsed.push_back(ms);
  }
  return elapsed;
}

float GatedTimer::time_ms(const Lane& lane, const std::function<void()>& enqueue) {
  queue({lane}, enqueue);
  return complete().front();
}

std::vector<double> gated_samples_s(GatedTimer& timer, const Lane& lane, int warmup, int iters,
                                    const std::function<void()>& enqueue) {
  for (int i = 0; i < warmup; ++i) timer.time_ms(lane, enqueue);
  std::vector<double> samples;
  for (int i = 0; i < (iters > 0 ? iters : 1); ++i) {
    samples.push_back(static_cast<double>(timer.time_ms(lane, enqueue)) * 1e-3);
  }
  return samples;
}

}  // namespace fabcheck
