// NcclRuntime: the CUDA and NCCL entry points the NCCL backend uses, behind one interface so the
// backend's host-side logic (mapping, id exchange, polling, timeout and abort, results) runs in
// tests with a test double. The real one is nccl_cuda_runtime.cuda.cpp; it drives "members": the
// GPUs of this process, each with its communicator, stream, spin gate, events and buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/coll/backend.hpp"
#include "bench/coll/nccl_error.hpp"
#include "bench/coll/nccl_unique_id.hpp"

namespace fabcheck {

struct GpuIdentity {
  std::string bus_id;  // "0000:17:00.0"
  std::string model;   // "NVIDIA H200"
};

// A communicator as a poll found it. `error` holds NCCL's own text (ncclGetErrorString and
// ncclGetLastError) when failed.
enum class NcclCommState { ready, in_progress, failed };
struct NcclPoll {
  NcclCommState state = NcclCommState::ready;
  std::string error;
};

struct NcclMemberSpec {
  int device_ordinal = 0;
  int rank = 0;  // in the communicator
};

// One operation shape, as every member runs it.
struct NcclOperation {
  const Collective* collective = nullptr;  // the entry (collective.hpp)
  Placement placement = Placement::out_of_place;
  CollectiveShape shape;
  int nranks = 1;
  verify::Element element{};  // the type, and a reducing collective's operation
};

class NcclRuntime {
 public:
  virtual ~NcclRuntime() = default;

  // Visible CUDA devices; throws NcclError with CUDA's text when the runtime cannot tell.
  virtual int device_count() = 0;
  virtual GpuIdentity identify(int device_ordinal) = 0;
  // "2.28.9"
  virtual std::string library_version() = 0;
  // NCCL reads NCCL_DEBUG* once a process; asks it to read them again (set per probe).
  virtual void reread_debug_environment() = 0;
  virtual NcclUniqueIdBytes new_unique_id() = 0;

  // Starts creating one non-blocking communicator per member (a group call when several); then
  // poll() each until ready. Members are indexed in the order given.
  virtual NcclPoll start_init(const std::vector<NcclMemberSpec>& members, int nranks,
                              const NcclUniqueIdBytes& id) = 0;
  virtual NcclPoll poll(std::size_t member) = 0;
  // Whether the member's stream has finished everything queued so far.
  virtual bool stream_idle(std::size_t member) = 0;
  // ncclCommAbort on every communicator (never blocks on the GPU); the runtime is unusable after.
  virtual void abort_all() = 0;

  // Device buffers for `op` (kept while big enough); inputs written, outputs poisoned,
  // synchronously.
  virtual void prepare(std::size_t member, const NcclOperation& op) = 0;
  virtual void fill(std::size_t member, const NcclOperation& op, std::uint32_t seed) = 0;
  // Elements of the member's output that differ from verify::expected_bits, synchronously.
  virtual std::uint64_t count_wrong(std::size_t member, const NcclOperation& op,
                                    std::uint32_t seed) = 0;

  // A timed sample, in this order (NcclCollectiveBackend::queue_sample / complete_sample):
  // close_gates, record_start, enqueue x N, record_stop, then open_gates once every rank has queued
  // its sample. Between close_gates and open_gates nothing queued on a member's stream runs: the
  // events bracket only GPU work, never the host's launch and polling.
  // Holds every member's stream behind a spin gate (a kernel spinning on host-mapped memory).
  virtual void close_gates() = 0;
  // Lets the held streams run. Idempotent; the runtime also opens them when destroyed, so no
  // stream stays held after an exception.
  virtual void open_gates() = 0;
  // An event on every member's stream before and after the operations.
  virtual void record_start() = 0;
  virtual void record_stop() = 0;
  // Queues one operation on every member (grouped); ready, in_progress (poll until ready before
  // queueing more) or failed.
  virtual NcclPoll enqueue(const NcclOperation& op) = 0;
  // Seconds between the member's start and stop events (both must have completed).
  virtual double elapsed_s(std::size_t member) = 0;

  // Starts ncclCommSplit on every member's communicator (non-blocking): members of a process that
  // passes color >= 0 join the communicator of that color, ordered by key (then by their rank
  // here). Returns a runtime whose members are the new communicators (the same GPUs with streams,
  // events and buffers of their own, ranks `new_ranks`), to poll() until ready; nullptr for
  // color < 0, after taking part (poll this runtime until the split is done). `started` says
  // whether the calls were accepted. Runtimes that cannot split throw NcclError.
  virtual std::unique_ptr<NcclRuntime> start_split(int color, int key,
                                                   const std::vector<int>& new_ranks,
                                                   NcclPoll& started);
};

inline std::unique_ptr<NcclRuntime> NcclRuntime::start_split(int, int, const std::vector<int>&,
                                                             NcclPoll&) {
  throw NcclError("nccl: this runtime cannot split communicators");
}

}  // namespace fabcheck
