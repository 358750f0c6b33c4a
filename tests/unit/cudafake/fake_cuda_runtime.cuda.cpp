// The recording CUDA runtime test double (see fake_cuda.hpp): the cuda* entry points the GPU probes
// call and fabcheck's kernel launches, defined in this test binary so they take the place of
// cudart's and kernels.cu's. Work really moves bytes (host memory stands in for every device), so
// the probes' own verification runs too.
#include <cuda_fp8.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>

#include "bench/cuda/spin_gate.hpp"
#include "fake_cuda.hpp"
#include "kernels/kernels.cuh"
#include "kernels/random_pattern.hpp"

namespace fabcheck::fake_cuda {
namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct FakeEvent;

// A write or read that the host does not yet know to be complete.
struct Pending {
  std::uintptr_t begin;
  std::uintptr_t end;
  bool write;
  std::string what;
};

struct FakeStream {
  int device = 0;
  bool legacy = false;
  struct Op {
    enum Kind { gate, record, wait, work } kind = work;
    const volatile int* flag = nullptr;
    FakeEvent* event = nullptr;
    std::uint64_t generation = 0;
    std::function<void()> run;
    double duration_s = 0;
  };
  std::deque<Op> queue;
  std::set<std::uint64_t> unsynced;      // Pending ids queued here
  std::set<std::uint64_t> predecessors;  // Pending ids ordered before this stream's later work
  bool held = false;                     // at a gate that has not opened
};

struct FakeEvent {
  int device = 0;
  FakeStream* stream = nullptr;
  std::uint64_t recorded = 0;  // generation of the last record queued
  std::uint64_t done = 0;      // generation reached
  double time = 0;             // logical seconds when reached
};

struct Allocation {
  int device;  // -1: pinned host memory
  std::size_t bytes;
};

struct State {
  std::mutex mutex;
  Config config;
  std::map<std::uintptr_t, Allocation> allocations;
  std::set<FakeStream*> streams;
  std::map<int, std::unique_ptr<FakeStream>> legacy;
  std::map<std::uint64_t, Pending> pending;
  std::uint64_t next_pending = 1;
  std::vector<Copy> copies;
  std::vector<Window> windows;
  std::map<int, double> open_windows;  // device -> opened
  std::vector<std::string> races;
  std::vector<std::string> deadlocks;
  std::vector<const volatile int*> gates;
  std::set<std::pair<int, std::string>> loaded;  // (device, kernel): loaded, as CUDA loads lazily
  std::vector<std::string> lazy_loads;
  double logical_time = 0;
};

State& state() {
  static State s;
  return s;
}

thread_local int current_device = 0;
thread_local std::vector<int> thread_contexts;

void touch_context(int device) {
  if (std::find(thread_contexts.begin(), thread_contexts.end(), device) == thread_contexts.end()) {
    thread_contexts.push_back(device);
  }
}

int device_of(const void* pointer) {
  State& s = state();
  const auto address = reinterpret_cast<std::uintptr_t>(pointer);
  auto it = s.allocations.upper_bound(address);
  if (it == s.allocations.begin()) return -1;
  --it;
  if (address < it->first + it->second.bytes) return it->second.device;
  return -1;
}

FakeStream* stream_of(cudaStream_t stream) {
  State& s = state();
  if (stream == nullptr) {
    auto& legacy = s.legacy[current_device];
    if (!legacy) {
      legacy = std::make_unique<FakeStream>();
      legacy->device = current_device;
      legacy->legacy = true;
    }
    return legacy.get();
  }
  return reinterpret_cast<FakeStream*>(stream);
}

std::string describe(const FakeStream* stream) {
  return stream->legacy ? "the legacy stream of device " + std::to_string(stream->device)
                        : "a stream of device " + std::to_string(stream->device);
}

// Checks `range` against pending work of other streams not ordered before `on`, then leaves it
// pending on `on` until the host synchronizes.
void access(FakeStream* on, const void* pointer, std::size_t bytes, bool write,
            const std::string& what) {
  State& s = state();
  const auto begin = reinterpret_cast<std::uintptr_t>(pointer);
  const auto end = begin + bytes;
  for (const auto& [id, p] : s.pending) {
    if (on->unsynced.count(id) || on->predecessors.count(id)) continue;
    if (p.end <= begin || end <= p.begin || (!p.write && !write)) continue;
    s.races.push_back(p.what + " not ordered before " + what + " on " + describe(on));
  }
  const std::uint64_t id = s.next_pending++;
  s.pending[id] = {begin, end, write, what + " on " + describe(on)};
  on->unsynced.insert(id);
}

void forget(const std::set<std::uint64_t>& ids) {
  for (std::uint64_t id : ids) state().pending.erase(id);
}

// The host knows everything queued on `stream` so far (and what it waited for) is complete.
void synchronized(FakeStream* stream) {
  forget(stream->unsynced);
  forget(stream->predecessors);
  stream->unsynced.clear();
  stream->predecessors.clear();
}

bool runnable(const FakeStream::Op& op) {
  switch (op.kind) {
    case FakeStream::Op::gate:
      return *op.flag != 0;
    case FakeStream::Op::wait:
      return op.event->done >= op.generation;
    default:
      return true;
  }
}

// Runs every stream's work as far as gates and waits allow.
void pump() {
  State& s = state();
  bool progress = true;
  while (progress) {
    progress = false;
    std::vector<FakeStream*> all(s.streams.begin(), s.streams.end());
    for (auto& [device, legacy] : s.legacy) all.push_back(legacy.get());
    for (FakeStream* stream : all) {
      while (!stream->queue.empty() && runnable(stream->queue.front())) {
        FakeStream::Op op = std::move(stream->queue.front());
        stream->queue.pop_front();
        progress = true;
        switch (op.kind) {
          case FakeStream::Op::gate:
            stream->held = false;
            if (!s.open_windows.count(stream->device)) s.open_windows[stream->device] = now_s();
            break;
          case FakeStream::Op::record:
            op.event->done = op.generation;
            op.event->time = s.logical_time;
            break;
          case FakeStream::Op::wait:
            break;
          case FakeStream::Op::work:
            op.run();
            s.logical_time += op.duration_s;
            break;
        }
      }
      if (!stream->queue.empty() && stream->queue.front().kind == FakeStream::Op::gate) {
        stream->held = true;
      }
    }
  }
}

void enqueue(FakeStream* stream, FakeStream::Op op) {
  stream->queue.push_back(std::move(op));
  pump();
}

void enqueue_work(FakeStream* stream, std::function<void()> run, std::size_t bytes) {
  FakeStream::Op op;
  op.run = std::move(run);
  op.duration_s = 2e-6 + static_cast<double>(bytes) * 1e-11;  // 100 GB/s
  enqueue(stream, std::move(op));
}

// Waits as the host would for `done`, letting other threads (ranks) open their gates; a stream a
// closed gate keeps holding is a deadlock on a GPU: recorded, and an error here.
cudaError_t host_wait(std::unique_lock<std::mutex>& lock, const std::function<bool()>& done,
                      const std::string& what) {
  const double give_up = now_s() + 0.5;
  while (true) {
    pump();
    if (done()) return cudaSuccess;
    if (now_s() > give_up) {
      state().deadlocks.push_back(what);
      return cudaErrorLaunchTimeout;
    }
    lock.unlock();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    lock.lock();
  }
}

void record_copy(const std::string& api, const FakeStream* stream, const void* dst, const void* src,
                 std::size_t bytes) {
  state().copies.push_back({api, current_device, stream->legacy ? -1 : stream->device,
                            device_of(dst), device_of(src), bytes});
}

}  // namespace

void reset(const Config& config) {
  State& s = state();
  const std::lock_guard lock(s.mutex);
  s.config = config;
  s.copies.clear();
  s.windows.clear();
  s.open_windows.clear();
  s.races.clear();
  s.deadlocks.clear();
  s.gates.clear();
  s.loaded.clear();
  s.lazy_loads.clear();
  s.pending.clear();
  thread_contexts.clear();
  current_device = 0;
}

std::vector<Copy> copies() {
  const std::lock_guard lock(state().mutex);
  return state().copies;
}
std::vector<Window> windows() {
  const std::lock_guard lock(state().mutex);
  return state().windows;
}
std::vector<std::string> races() {
  const std::lock_guard lock(state().mutex);
  return state().races;
}
std::vector<std::string> deadlocks() {
  const std::lock_guard lock(state().mutex);
  return state().deadlocks;
}
std::vector<std::string> lazy_loads() {
  const std::lock_guard lock(state().mutex);
  return state().lazy_loads;
}
std::vector<int> devices_with_context_on_this_thread() { return thread_contexts; }
std::vector<const volatile int*> gates() {
  const std::lock_guard lock(state().mutex);
  return state().gates;
}

}  // namespace fabcheck::fake_cuda

using namespace fabcheck::fake_cuda;

// ---- the cudart entry points
// ---------------------------------------------------------------------

cudaError_t cudaGetDeviceCount(int* count) {
  *count = state().config.devices;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  *device = current_device;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  if (device < 0 || device >= state().config.devices) return cudaErrorInvalidDevice;
  current_device = device;
  touch_context(device);  // CUDA 12+: cudaSetDevice initializes the device's primary context
  return cudaSuccess;
}

cudaError_t cudaGetLastError() { return cudaSuccess; }
const char* cudaGetErrorString(cudaError_t error) {
  return error == cudaSuccess ? "no error" : "fake CUDA error";
}
const char* cudaGetErrorName(cudaError_t error) {
  return error == cudaSuccess ? "cudaSuccess" : "cudaErrorFake";
}

cudaError_t cudaDeviceGetPCIBusId(char* bus_id, int length, int device) {
  const auto& ids = state().config.bus_ids;
  const std::string id = static_cast<std::size_t>(device) < ids.size()
                             ? ids[static_cast<std::size_t>(device)]
                             : "0000:" + std::to_string(10 + device) + ":00.0";
  std::snprintf(bus_id, static_cast<std::size_t>(length), "%s", id.c_str());
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* properties, int device) {
  *properties = cudaDeviceProp{};
  std::snprintf(properties->name, sizeof properties->name, "Fake GPU %d", device);
  properties->multiProcessorCount = state().config.sms;
  properties->l2CacheSize = state().config.l2_bytes;
  properties->major = state().config.compute_major;
  properties->minor = state().config.compute_minor;
  return cudaSuccess;
}

cudaError_t cudaMemGetInfo(std::size_t* free, std::size_t* total) {
  *free = state().config.free_memory;
  *total = 2 * state().config.free_memory;
  return cudaSuccess;
}

cudaError_t cudaDeviceCanAccessPeer(int* can, int, int) {
  *can = state().config.peer_access ? 1 : 0;
  return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess(int, unsigned int) {
  touch_context(current_device);
  return cudaSuccess;
}

cudaError_t cudaMalloc(void** pointer, std::size_t bytes) {
  const std::lock_guard lock(state().mutex);
  touch_context(current_device);
  *pointer = std::malloc(bytes == 0 ? 1 : bytes);
  state().allocations[reinterpret_cast<std::uintptr_t>(*pointer)] = {current_device, bytes};
  return cudaSuccess;
}

cudaError_t cudaFree(void* pointer) {
  const std::lock_guard lock(state().mutex);
  state().allocations.erase(reinterpret_cast<std::uintptr_t>(pointer));
  std::free(pointer);
  return cudaSuccess;
}

cudaError_t cudaHostAlloc(void** pointer, std::size_t bytes, unsigned int) {
  const std::lock_guard lock(state().mutex);
  touch_context(current_device);
  *pointer = std::calloc(1, bytes == 0 ? 1 : bytes);
  state().allocations[reinterpret_cast<std::uintptr_t>(*pointer)] = {-1, bytes};
  return cudaSuccess;
}

cudaError_t cudaFreeHost(void* pointer) { return cudaFree(pointer); }

cudaError_t cudaHostGetDevicePointer(void** device, void* host, unsigned int) {
  *device = host;  // unified addressing: the same address
  return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int) {
  const std::lock_guard lock(state().mutex);
  touch_context(current_device);
  auto* created = new FakeStream;
  created->device = current_device;
  state().streams.insert(created);
  *stream = reinterpret_cast<cudaStream_t>(created);
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  const std::lock_guard lock(state().mutex);
  auto* fake = reinterpret_cast<FakeStream*>(stream);
  pump();
  state().streams.erase(fake);
  delete fake;
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  std::unique_lock lock(state().mutex);
  FakeStream* fake = stream_of(stream);
  const cudaError_t waited = host_wait(
      lock, [&] { return fake->queue.empty(); },
      "cudaStreamSynchronize on " + describe(fake) + " held by a closed spin gate");
  if (waited == cudaSuccess) synchronized(fake);
  return waited;
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
  const std::lock_guard lock(state().mutex);
  pump();
  return stream_of(stream)->queue.empty() ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaDeviceSynchronize() {
  std::unique_lock lock(state().mutex);
  const int device = current_device;
  std::vector<FakeStream*> mine;
  for (FakeStream* stream : state().streams) {
    if (stream->device == device) mine.push_back(stream);
  }
  mine.push_back(stream_of(nullptr));
  const cudaError_t waited = host_wait(
      lock,
      [&] {
        return std::all_of(mine.begin(), mine.end(),
                           [](FakeStream* s) { return s->queue.empty(); });
      },
      "cudaDeviceSynchronize on device " + std::to_string(device) + " held by a closed spin gate");
  if (waited == cudaSuccess) {
    for (FakeStream* stream : mine) synchronized(stream);
  }
  return waited;
}

cudaError_t cudaEventCreate(cudaEvent_t* event) {
  touch_context(current_device);
  auto* created = new FakeEvent;
  created->device = current_device;
  *event = reinterpret_cast<cudaEvent_t>(created);
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  delete reinterpret_cast<FakeEvent*>(event);
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  const std::lock_guard lock(state().mutex);
  auto* fake = reinterpret_cast<FakeEvent*>(event);
  FakeStream* on = stream_of(stream);
  if (on->device != fake->device) return cudaErrorInvalidResourceHandle;  // as on a GPU
  fake->stream = on;
  FakeStream::Op op;
  op.kind = FakeStream::Op::record;
  op.event = fake;
  op.generation = ++fake->recorded;
  enqueue(on, std::move(op));
  return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int) {
  const std::lock_guard lock(state().mutex);
  auto* fake = reinterpret_cast<FakeEvent*>(event);
  FakeStream* on = stream_of(stream);
  if (fake->stream != nullptr) {
    on->predecessors.insert(fake->stream->unsynced.begin(), fake->stream->unsynced.end());
    on->predecessors.insert(fake->stream->predecessors.begin(), fake->stream->predecessors.end());
  }
  FakeStream::Op op;
  op.kind = FakeStream::Op::wait;
  op.event = fake;
  op.generation = fake->recorded;
  enqueue(on, std::move(op));
  return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  std::unique_lock lock(state().mutex);
  auto* fake = reinterpret_cast<FakeEvent*>(event);
  const cudaError_t waited = host_wait(
      lock, [&] { return fake->done >= fake->recorded; },
      "cudaEventSynchronize on an event of device " + std::to_string(fake->device) +
          " behind a closed spin gate");
  if (waited != cudaSuccess) return waited;
  if (fake->stream != nullptr) synchronized(fake->stream);
  const double pause = state().config.event_sync_seconds;
  if (pause > 0) {
    lock.unlock();
    std::this_thread::sleep_for(std::chrono::duration<double>(pause));
    lock.lock();
  }
  auto open = state().open_windows.find(fake->device);
  if (open != state().open_windows.end()) {
    state().windows.push_back({fake->device, open->second, now_s()});
    state().open_windows.erase(open);
  }
  return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t stop) {
  const auto* a = reinterpret_cast<FakeEvent*>(start);
  const auto* b = reinterpret_cast<FakeEvent*>(stop);
  if (a->device != b->device) return cudaErrorInvalidResourceHandle;
  if (a->done < a->recorded || b->done < b->recorded) return cudaErrorNotReady;
  *ms = static_cast<float>((b->time - a->time) * 1e3);
  return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind,
                            cudaStream_t stream) {
  const std::lock_guard lock(state().mutex);
  touch_context(current_device);
  FakeStream* on = stream_of(stream);
  record_copy("cudaMemcpyAsync", on, dst, src, bytes);
  access(on, src, bytes, false, "cudaMemcpyAsync");
  access(on, dst, bytes, true, "cudaMemcpyAsync");
  enqueue_work(
      on, [=] { std::memmove(dst, src, bytes); }, bytes);
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  cudaError_t queued = cudaSuccess;
  {
    const std::lock_guard lock(state().mutex);
    touch_context(current_device);
    FakeStream* on = stream_of(nullptr);
    record_copy("cudaMemcpy", on, dst, src, bytes);
    access(on, src, bytes, false, "cudaMemcpy");
    access(on, dst, bytes, true, "cudaMemcpy");
    enqueue_work(
        on, [=] { std::memmove(dst, src, bytes); }, bytes);
  }
  (void)kind;
  if (queued == cudaSuccess) queued = cudaStreamSynchronize(nullptr);
  return queued;
}

cudaError_t cudaMemcpyPeerAsync(void* dst, int, const void* src, int, std::size_t bytes,
                                cudaStream_t stream) {
  const std::lock_guard lock(state().mutex);
  touch_context(current_device);
  FakeStream* on = stream_of(stream);
  record_copy("cudaMemcpyPeerAsync", on, dst, src, bytes);
  access(on, src, bytes, false, "cudaMemcpyPeerAsync");
  access(on, dst, bytes, true, "cudaMemcpyPeerAsync");
  enqueue_work(
      on, [=] { std::memmove(dst, src, bytes); }, bytes);
  return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* pointer, int value, std::size_t bytes, cudaStream_t stream) {
  const std::lock_guard lock(state().mutex);
  touch_context(current_device);
  FakeStream* on = stream_of(stream);
  access(on, pointer, bytes, true, "cudaMemset");
  enqueue_work(
      on, [=] { std::memset(pointer, value, bytes); }, bytes);
  return cudaSuccess;
}

// cudaMemset of device memory is asynchronous with respect to the host, on the legacy stream.
cudaError_t cudaMemset(void* pointer, int value, std::size_t bytes) {
  return cudaMemsetAsync(pointer, value, bytes, nullptr);
}

// ---- fabcheck's kernel launches --------------------------------------------------------------

namespace fabcheck {

cudaError_t launch_spin_gate(const volatile int* open, long long, cudaStream_t stream) {
  const std::lock_guard lock(state().mutex);
  touch_context(current_device);
  state().gates.push_back(open);
  FakeStream::Op op;
  op.kind = FakeStream::Op::gate;
  op.flag = open;
  enqueue(stream_of(stream), std::move(op));
  return cudaSuccess;
}

namespace kernels {

namespace {

cudaError_t launch(cudaStream_t stream, const std::string& what,
                   const std::vector<std::tuple<const void*, std::size_t, bool>>& accesses,
                   std::function<void()> run, std::size_t bytes) {
  const std::lock_guard lock(state().mutex);
  touch_context(current_device);
  // CUDA loads a kernel's module at its first launch on a device (lazy loading); behind a closed
  // spin gate that load would wait for the gate's timeout.
  if (state().loaded.insert({current_device, what}).second) {
    for (const volatile int* gate : state().gates) {
      if (*gate != 0) continue;
      state().lazy_loads.push_back("kernel " + what + " first loaded on device " +
                                   std::to_string(current_device) + " behind a closed gate");
      break;
    }
  }
  FakeStream* on = stream_of(stream);
  for (const auto& [pointer, size, write] : accesses) access(on, pointer, size, write, what);
  enqueue_work(on, std::move(run), bytes);
  return cudaSuccess;
}

}  // namespace

cudaError_t preload() {
  const std::lock_guard lock(state().mutex);
  touch_context(current_device);
  for (const char* kernel :
       {"empty", "fill_pattern", "count_pattern", "count_triad", "sm_copy", "byte_copy", "triad",
        "fill_gemm_input", "fill_fp8_input", "sdc_l2_write", "sdc_chains", "fill_hbm_pattern",
        "check_hbm_pattern", "hash_words"})
    state().loaded.insert({current_device, kernel});
  return cudaSuccess;
}

cudaError_t launch_empty(cudaStream_t stream) {
  return launch(
      stream, "empty", {}, [] {}, 0);
}

cudaError_t launch_fill_pattern(std::uint64_t* data, std::size_t count, std::uint64_t seed,
                                cudaStream_t stream) {
  return launch(
      stream, "fill_pattern", {{data, count * 8, true}},
      [=] {
        for (std::size_t i = 0; i < count; ++i) data[i] = pattern_value(seed, i);
      },
      count * 8);
}

cudaError_t launch_count_pattern_mismatches(const std::uint64_t* data, std::size_t count,
                                            std::uint64_t seed, unsigned long long* wrong,
                                            cudaStream_t stream) {
  return launch(
      stream, "count_pattern", {{data, count * 8, false}, {wrong, 8, true}},
      [=] {
        for (std::size_t i = 0; i < count; ++i) *wrong += data[i] != pattern_value(seed, i);
      },
      count * 8);
}

cudaError_t launch_count_triad_mismatches(const std::uint64_t* a, std::size_t count,
                                          std::uint64_t seed_b, std::uint64_t seed_c,
                                          std::uint64_t scalar, unsigned long long* wrong,
                                          cudaStream_t stream) {
  return launch(
      stream, "count_triad", {{a, count * 8, false}, {wrong, 8, true}},
      [=] {
        for (std::size_t i = 0; i < count; ++i) {
          *wrong += a[i] != triad_value(seed_b, seed_c, scalar, i);
        }
      },
      count * 8);
}

cudaError_t launch_sm_copy(void* dst, const void* src, std::size_t bytes, cudaStream_t stream,
                           int) {
  {
    const std::lock_guard lock(state().mutex);
    record_copy("sm_copy", stream_of(stream), dst, src, bytes);
  }
  return launch(
      stream, "sm_copy", {{src, bytes, false}, {dst, bytes, true}},
      [=] { std::memmove(dst, src, bytes); }, bytes);
}

cudaError_t launch_triad(std::uint64_t* a, const std::uint64_t* b, const std::uint64_t* c,
                         std::uint64_t scalar, std::size_t count, cudaStream_t stream) {
  return launch(
      stream, "triad", {{b, count * 8, false}, {c, count * 8, false}, {a, count * 8, true}},
      [=] {
        for (std::size_t i = 0; i < count; ++i) a[i] = b[i] + scalar * c[i];
      },
      3 * count * 8);
}

cudaError_t launch_fill_gemm_input(void*, std::size_t, std::uint64_t, bool, cudaStream_t) {
  return cudaErrorNotSupported;  // gpu.gemm's bf16 and tf32 GEMMs are not run on this double
}

// The FP8 hash's inputs (kernels/fp8_gemm.hpp), converted as the device converts them.
cudaError_t launch_fill_fp8_input(void* data, std::size_t count, std::uint64_t seed,
                                  cudaStream_t stream) {
  auto* bytes = static_cast<__nv_fp8_storage_t*>(data);
  return launch(
      stream, "fill_fp8_input", {{data, count, true}},
      [=] {
        for (std::size_t i = 0; i < count; ++i)
          bytes[i] = __nv_cvt_float_to_fp8(pattern_float(seed, i), __NV_SATFINITE, __NV_E4M3);
      },
      count);
}

// The L2 pattern's writes as the device makes them, block b on SM b % sms; the planted word
// (Config::wrong_l2_word) is read back with bit 5 flipped.
cudaError_t launch_sdc_l2_write(std::uint64_t seed, std::uint64_t first_block,
                                const sdc::ChainShape& shape, unsigned blocks, unsigned lanes,
                                const sdc::L2Traffic& l2, cudaStream_t stream) {
  const unsigned sms = static_cast<unsigned>(state().config.sms);
  const long long planted = state().config.wrong_l2_word;
  const std::size_t words = static_cast<std::size_t>(blocks) * lanes * shape.l2_words;
  return launch(
      stream, "sdc_l2_write",
      {{l2.buffer, words * 8, true}, {l2.writer_sm, sizeof(unsigned) * blocks, true}},
      [=] {
        for (unsigned block = 0; block < blocks; ++block) {
          l2.writer_sm[block] = block % sms;
          for (unsigned lane = 0; lane < lanes; ++lane) {
            const std::uint64_t s = sdc::block_seed(seed, first_block + lane);
            for (std::uint32_t i = 0; i < shape.l2_words; ++i) {
              l2.buffer[sdc::l2_offset(block, lane, i, lanes, shape.l2_words)] =
                  sdc::l2_written_word(s, block, i);
            }
          }
        }
        if (planted >= 0 && static_cast<std::size_t>(planted) < words)
          l2.buffer[planted] ^= 1u << 5;
      },
      words * 8);
}

// The chains as the device computes them (crc_unit by the table), block b on SM b % sms, each
// block's L2 word read from its partner's slice (sdc::l2_partner, sdc::l2_read_lane).
cudaError_t launch_sdc_chains(std::uint64_t seed, std::uint64_t first_block,
                              const sdc::ChainShape& shape, unsigned blocks, unsigned lanes,
                              sdc::BlockDigest* out, unsigned* sm_of_block,
                              const sdc::L2Traffic& l2, cudaStream_t stream) {
  const int sms = state().config.sms;
  const int wrong_sm = state().config.wrong_sm;
  const std::size_t digest_bytes = sizeof(sdc::BlockDigest) * blocks * lanes;
  const std::size_t l2_words = static_cast<std::size_t>(blocks) * lanes * shape.l2_words;
  return launch(
      stream, "sdc_chains",
      {{out, digest_bytes, true},
       {sm_of_block, sizeof(unsigned) * blocks, true},
       {l2.buffer, l2_words * 8, false},
       {l2.writer_sm, sizeof(unsigned) * blocks, false},
       {l2.partner_of_block, sizeof(unsigned) * blocks, true},
       {l2.reads, sizeof(sdc::L2Read) * blocks * lanes, true}},
      [=] {
        std::uint32_t table[256];
        for (std::uint32_t n = 0; n < 256; ++n) table[n] = sdc::crc32c_table_entry(n);
        std::vector<sdc::BlockDigest> lane_digests(lanes);
        for (unsigned lane = 0; lane < lanes; ++lane) {
          const std::uint64_t s = sdc::block_seed(seed, first_block + lane);
          lane_digests[lane] = sdc::chains_of_block(s, shape);
          lane_digests[lane].words[sdc::crc_unit_word] =
              sdc::crc32c_of_stream_by_table(s, shape.crc_words, table);
        }
        for (unsigned block = 0; block < blocks; ++block) {
          const unsigned sm = block % static_cast<unsigned>(sms);
          sm_of_block[block] = sm;
          const unsigned partner = sdc::l2_partner(block, blocks, l2.writer_sm, sm);
          l2.partner_of_block[block] = partner;
          for (unsigned lane = 0; lane < lanes; ++lane) {
            sdc::BlockDigest digest = lane_digests[lane];
            if (static_cast<int>(sm) == wrong_sm) digest.words[sdc::fp32_chain_word] ^= 1u << 7;
            const std::size_t at = static_cast<std::size_t>(block) * lanes + lane;
            sdc::L2Read read;
            digest.words[sdc::l2_word] =
                sdc::l2_read_lane(l2.buffer, sdc::block_seed(seed, first_block + lane), partner,
                                  lane, lanes, shape.l2_words, read);
            l2.reads[at] = read;
            out[at] = digest;
          }
        }
      },
      digest_bytes);
}

cudaError_t launch_fill_hbm_pattern(std::uint64_t* data, std::size_t count, int pattern,
                                    std::uint64_t seed, bool inverted, cudaStream_t stream) {
  return launch(
      stream, "fill_hbm_pattern", {{data, count * 8, true}},
      [=] {
        const auto base = reinterpret_cast<std::uintptr_t>(data);
        for (std::size_t i = 0; i < count; ++i) {
          data[i] = sdc::hbm_pattern_word(pattern, base, i, seed, inverted);
        }
        const long long planted = state().config.wrong_word;
        if (planted >= 0 && static_cast<std::size_t>(planted) < count) data[planted] ^= 1u << 3;
      },
      count * 8);
}

cudaError_t launch_check_hbm_pattern(const std::uint64_t* data, std::size_t count, int pattern,
                                     std::uint64_t seed, bool inverted, sdc::HbmCheck* check,
                                     cudaStream_t stream) {
  return launch(
      stream, "check_hbm_pattern", {{data, count * 8, false}, {check, sizeof *check, true}},
      [=] {
        const auto base = reinterpret_cast<std::uintptr_t>(data);
        for (std::size_t i = 0; i < count; ++i) {
          if (data[i] == sdc::hbm_pattern_word(pattern, base, i, seed, inverted)) continue;
          ++check->wrong;
          check->first_index = std::min<unsigned long long>(check->first_index, i);
        }
      },
      count * 8);
}

cudaError_t launch_hash_words(const std::uint32_t* words, std::size_t count,
                              unsigned long long* hash, cudaStream_t stream) {
  return launch(
      stream, "hash_words", {{words, count * 4, false}, {hash, 8, true}},
      [=] { *hash += sdc::output_hash(words, count); }, count * 4);
}

}  // namespace kernels
}  // namespace fabcheck
