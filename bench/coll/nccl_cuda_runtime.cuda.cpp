// CudaNcclRuntime: NcclRuntime on cudart and NCCL (loaded on demand: nccl_library.hpp) —
// non-blocking communicators, one stream and a pair of timing events per GPU, one spin gate holding
// every stream during a timed sample, device buffers, and the verification kernels.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>

#include "bench/coll/buffer_layout.hpp"
#include "bench/coll/nccl_call.hpp"
#include "bench/coll/nccl_cuda_runtime.hpp"
#include "bench/coll/nccl_error.hpp"
#include "bench/coll/nccl_verify_kernels.hpp"
#include "bench/core/world.hpp"
#include "bench/cuda/cuda_availability.hpp"
#include "bench/cuda/spin_gate.hpp"

static_assert(sizeof(ncclUniqueId) == fabcheck::kNcclUniqueIdBytes);

namespace fabcheck {

namespace {

std::atomic<bool> communicator_started{false};

std::string cuda_text(cudaError_t error) {
  return std::string(cudaGetErrorName(error)) + ": " + cudaGetErrorString(error);
}

std::string nccl_text(ncclResult_t result, ncclComm_t comm) {
  std::string text = nccl_functions().get_error_string(result);
  const char* last = nccl_functions().get_last_error(comm);
  if (last != nullptr && *last != '\0') text += " (" + std::string(last) + ")";
  return text;
}

NcclPoll poll_from(ncclResult_t result, ncclComm_t comm) {
  if (result == ncclSuccess) return {};
  if (result == ncclInProgress) return {NcclCommState::in_progress, {}};
  return {NcclCommState::failed, nccl_text(result, comm)};
}

struct DeviceMember {
  int ordinal = 0;
  int rank = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  std::byte* send = nullptr;
  std::byte* recv = nullptr;
  std::uint64_t send_capacity = 0;  // bytes
  std::uint64_t recv_capacity = 0;
  unsigned long long* wrong = nullptr;
};

class CudaNcclRuntime : public NcclRuntime {
 public:
  ~CudaNcclRuntime() override { release(); }

  int device_count() override {
    int count = 0;
    const cudaError_t error = cudaGetDeviceCount(&count);
    if (error != cudaSuccess) {
      (void)cudaGetLastError();
      throw NcclError("no CUDA device (" + std::string(cudaGetErrorString(error)) + ")");
    }
    return count;
  }

  GpuIdentity identify(int device_ordinal) override {
    GpuIdentity identity;
    char bus_id[32] = {};
    check(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device_ordinal), "cudaDeviceGetPCIBusId",
          device_ordinal);
    identity.bus_id = bus_id;
    cudaDeviceProp properties{};
    check(cudaGetDeviceProperties(&properties, device_ordinal), "cudaGetDeviceProperties",
          device_ordinal);
    identity.model = properties.name;
    return identity;
  }

  std::string library_version() override { return nccl_library_version(); }

  void reread_debug_environment() override {
    // Optional: an NCCL without it reads its debug variables once, at its first call.
    if (const auto reset = nccl_functions().reset_debug_init) reset();
  }

  NcclUniqueIdBytes new_unique_id() override {
    ncclUniqueId id;
    const ncclResult_t result = nccl_functions().get_unique_id(&id);
    if (result != ncclSuccess) {
      throw NcclError("nccl: ncclGetUniqueId on " + local_hostname() +
                      " failed: " + nccl_text(result, nullptr));
    }
    NcclUniqueIdBytes bytes{};
    std::memcpy(bytes.data(), id.internal, bytes.size());
    return bytes;
  }

  NcclPoll start_init(const std::vector<NcclMemberSpec>& members, int nranks,
                      const NcclUniqueIdBytes& id_bytes) override {
    for (const auto& spec : members) {
      // Kept in members_ at once so release() frees whatever a failing step leaves behind.
      DeviceMember& member = members_.emplace_back();
      member.ordinal = spec.device_ordinal;
      member.rank = spec.rank;
      select(member);
      check(cudaStreamCreateWithFlags(&member.stream, cudaStreamNonBlocking), "cudaStreamCreate",
            member.ordinal);
      check(cudaEventCreate(&member.start), "cudaEventCreate", member.ordinal);
      check(cudaEventCreate(&member.stop), "cudaEventCreate", member.ordinal);
      check(cudaMalloc(&member.wrong, sizeof(unsigned long long)), "cudaMalloc", member.ordinal);
    }
    // Made with a member's device current (pinned memory needs a context; never device 0's when
    // this process drives another GPU) and portable, so every member's stream can wait on it.
    try {
      gate_ = std::make_unique<SpinGate>();
    } catch (const std::exception& error) {
      throw NcclError("cuda: the spin gate on " + local_hostname() + ": " + error.what());
    }
    ncclUniqueId id;
    std::memcpy(id.internal, id_bytes.data(), id_bytes.size());
    communicator_started = true;
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    ncclResult_t result = nccl_functions().group_start();
    for (auto& member : members_) {
      if (result != ncclSuccess) break;
      select(member);
      result =
          nccl_functions().comm_init_rank_config(&member.comm, nranks, id, member.rank, &config);
      if (result == ncclInProgress) result = ncclSuccess;
    }
    const ncclResult_t ended = nccl_functions().group_end();
    if (result != ncclSuccess) return {NcclCommState::failed, nccl_text(result, nullptr)};
    return poll_from(ended, nullptr);
  }

  NcclPoll poll(std::size_t index) override {
    const DeviceMember& member = members_.at(index);
    if (member.comm == nullptr) return {NcclCommState::failed, "no communicator"};
    ncclResult_t state = ncclSuccess;
    const ncclResult_t result = nccl_functions().comm_get_async_error(member.comm, &state);
    if (result != ncclSuccess) return {NcclCommState::failed, nccl_text(result, member.comm)};
    return poll_from(state, member.comm);
  }

  bool stream_idle(std::size_t index) override {
    const DeviceMember& member = members_.at(index);
    const cudaError_t status = cudaStreamQuery(member.stream);
    if (status == cudaErrorNotReady) return false;
    check(status, "the operations' stream", member.ordinal);
    return true;
  }

  void abort_all() override {
    for (auto& member : members_) {
      if (member.comm != nullptr) (void)nccl_functions().comm_abort(member.comm);
      member.comm = nullptr;
    }
  }

  void prepare(std::size_t index, const NcclOperation& op) override {
    DeviceMember& member = members_.at(index);
    select(member);
    const BufferLayout layout = layout_of(op, member);
    const std::uint64_t size = verify::element_bytes(op.element.type);
    reserve(member, member.send, member.send_capacity, layout.send_elements * size);
    reserve(member, member.recv, member.recv_capacity, layout.recv_elements * size);
  }

  void fill(std::size_t index, const NcclOperation& op, std::uint32_t seed) override {
    DeviceMember& member = members_.at(index);
    select(member);
    const BufferLayout layout = layout_of(op, member);
    const std::uint64_t size = verify::element_bytes(op.element.type);
    std::byte* output = layout.in_place ? member.send : member.recv;
    const std::uint64_t output_size = layout.in_place ? layout.send_elements : layout.recv_elements;
    check(launch_poison(output, output_size, op.element.type, member.stream),
          "poisoning the output", member.ordinal);
    check(launch_fill_input(member.send + layout.input_offset * size, layout.input_count,
                            op.element, op.nranks, member.rank, seed, member.stream),
          "filling the input", member.ordinal);
    check(cudaStreamSynchronize(member.stream), "filling the input", member.ordinal);
  }

  std::uint64_t count_wrong(std::size_t index, const NcclOperation& op,
                            std::uint32_t seed) override {
    DeviceMember& member = members_.at(index);
    select(member);
    const BufferLayout layout = layout_of(op, member);
    const std::uint64_t size = verify::element_bytes(op.element.type);
    const std::byte* output =
        (layout.in_place ? member.send : member.recv) + layout.output_offset * size;
    unsigned long long wrong = 0;
    check(cudaMemsetAsync(member.wrong, 0, sizeof wrong, member.stream), "cudaMemsetAsync",
          member.ordinal);
    check(launch_count_wrong(output, layout.output_count, op.collective->expected, op.element,
                             member.rank, op.nranks, op.shape.send_count, op.shape.recv_count, seed,
                             member.wrong, member.stream),
          "counting wrong elements", member.ordinal);
    check(
        cudaMemcpyAsync(&wrong, member.wrong, sizeof wrong, cudaMemcpyDeviceToHost, member.stream),
        "cudaMemcpyAsync", member.ordinal);
    check(cudaStreamSynchronize(member.stream), "counting wrong elements", member.ordinal);
    return wrong;
  }

  void close_gates() override {
    if (!gate_) throw NcclError("cuda: no spin gate on " + local_hostname() + " (no communicator)");
    gate_->close();
    for (auto& member : members_) {
      select(member);
      check(gate_->hold(member.stream), "holding the stream behind the spin gate", member.ordinal);
    }
  }

  void open_gates() override {
    if (gate_) gate_->open();
  }

  void record_start() override {
    for (auto& member : members_) {
      select(member);
      check(cudaEventRecord(member.start, member.stream), "cudaEventRecord", member.ordinal);
    }
  }

  void record_stop() override {
    for (auto& member : members_) {
      select(member);
      check(cudaEventRecord(member.stop, member.stream), "cudaEventRecord", member.ordinal);
    }
  }

  NcclPoll enqueue(const NcclOperation& op) override {
    ncclResult_t result = nccl_functions().group_start();
    ncclComm_t failed_comm = nullptr;
    for (auto& member : members_) {
      if (result != ncclSuccess) break;
      select(member);
      result = enqueue_one(member, op);
      if (result == ncclInProgress) result = ncclSuccess;
      if (result != ncclSuccess) failed_comm = member.comm;
    }
    const ncclResult_t ended = nccl_functions().group_end();
    if (result != ncclSuccess) return {NcclCommState::failed, nccl_text(result, failed_comm)};
    return poll_from(ended, members_.empty() ? nullptr : members_.front().comm);
  }

  std::unique_ptr<NcclRuntime> start_split(int color, int key, const std::vector<int>& new_ranks,
                                           NcclPoll& started) override {
    auto child = std::make_unique<CudaNcclRuntime>();
    if (color >= 0) {
      for (std::size_t m = 0; m < members_.size(); ++m) {
        // Kept in the child at once so its release() frees whatever a failing step leaves behind.
        DeviceMember& member = child->members_.emplace_back();
        member.ordinal = members_[m].ordinal;
        member.rank = new_ranks.at(m);
        select(member);
        check(cudaStreamCreateWithFlags(&member.stream, cudaStreamNonBlocking), "cudaStreamCreate",
              member.ordinal);
        check(cudaEventCreate(&member.start), "cudaEventCreate", member.ordinal);
        check(cudaEventCreate(&member.stop), "cudaEventCreate", member.ordinal);
        check(cudaMalloc(&member.wrong, sizeof(unsigned long long)), "cudaMalloc", member.ordinal);
      }
      // Its samples are gated like the parent's (close_gates holds every stream behind it).
      try {
        child->gate_ = std::make_unique<SpinGate>();
      } catch (const std::exception& error) {
        throw NcclError("cuda: the spin gate on " + local_hostname() + ": " + error.what());
      }
    }
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    const bool grouped = members_.size() > 1;
    ncclResult_t result = grouped ? nccl_functions().group_start() : ncclSuccess;
    ncclComm_t failed_comm = nullptr;
    for (std::size_t m = 0; m < members_.size() && result == ncclSuccess; ++m) {
      select(members_[m]);
      ncclComm_t unused = nullptr;
      ncclComm_t* target = color >= 0 ? &child->members_[m].comm : &unused;
      result = nccl_functions().comm_split(
          members_[m].comm, color >= 0 ? color : NCCL_SPLIT_NOCOLOR, key, target, &config);
      if (result == ncclInProgress) result = ncclSuccess;
      if (result != ncclSuccess) failed_comm = members_[m].comm;
    }
    const ncclResult_t ended = grouped ? nccl_functions().group_end() : ncclSuccess;
    if (result != ncclSuccess) {
      started = {NcclCommState::failed, nccl_text(result, failed_comm)};
    } else {
      started = poll_from(ended, nullptr);
    }
    if (color < 0) return nullptr;
    return child;
  }

  double elapsed_s(std::size_t index) override {
    const DeviceMember& member = members_.at(index);
    float ms = 0;
    check(cudaEventElapsedTime(&ms, member.start, member.stop), "cudaEventElapsedTime",
          member.ordinal);
    return static_cast<double>(ms) / 1e3;
  }

 private:
  void check(cudaError_t error, const std::string& what, int ordinal) const {
    if (error == cudaSuccess) return;
    throw NcclError("cuda: " + what + " failed on " + local_hostname() + " gpu ordinal " +
                    std::to_string(ordinal) + ": " + cuda_text(error));
  }

  void select(const DeviceMember& member) const {
    check(cudaSetDevice(member.ordinal), "cudaSetDevice", member.ordinal);
  }

  void reserve(const DeviceMember& member, std::byte*& buffer, std::uint64_t& capacity,
               std::uint64_t bytes) const {
    if (bytes <= capacity) return;
    if (buffer != nullptr) check(cudaFree(buffer), "cudaFree", member.ordinal);
    buffer = nullptr;
    capacity = 0;
    check(cudaMalloc(&buffer, bytes), "cudaMalloc of " + std::to_string(bytes) + " bytes",
          member.ordinal);
    capacity = bytes;
  }

  static BufferLayout layout_of(const NcclOperation& op, const DeviceMember& member) {
    return buffer_layout(*op.collective, op.collective->nccl_layout, op.placement, op.shape,
                         member.rank);
  }

  // The entry's own NCCL call, on this member's buffers where its NCCL layout puts them.
  static ncclResult_t enqueue_one(DeviceMember& member, const NcclOperation& op) {
    const BufferLayout layout = layout_of(op, member);
    const std::uint64_t size = verify::element_bytes(op.element.type);
    NcclCall call;
    call.input = member.send + layout.input_offset * size;
    call.output = (layout.in_place ? member.send : member.recv) + layout.output_offset * size;
    call.shape = op.shape;
    call.datatype = nccl_data_type(op.element.type);
    call.op = nccl_red_op(op.element.op);
    call.element_bytes = size;
    call.rank = member.rank;
    call.nranks = op.nranks;
    call.comm = member.comm;
    call.stream = member.stream;
    return static_cast<ncclResult_t>(op.collective->nccl_call(call));
  }

  // Every operation has completed (or the communicators were aborted) by the time the runtime is
  // destroyed, so ncclCommAbort frees what ncclCommDestroy would, with no path that blocks.
  void release() noexcept {
    open_gates();
    abort_all();
    for (auto& member : members_) {
      if (cudaSetDevice(member.ordinal) != cudaSuccess) continue;
      if (member.send != nullptr) (void)cudaFree(member.send);
      if (member.recv != nullptr) (void)cudaFree(member.recv);
      if (member.wrong != nullptr) (void)cudaFree(member.wrong);
      if (member.start != nullptr) (void)cudaEventDestroy(member.start);
      if (member.stop != nullptr) (void)cudaEventDestroy(member.stop);
      if (member.stream != nullptr) (void)cudaStreamDestroy(member.stream);
    }
    members_.clear();
    gate_.reset();
  }

  std::vector<DeviceMember> members_;
  std::unique_ptr<SpinGate> gate_;  // one flag for every member: they start together
};

}  // namespace

std::unique_ptr<NcclRuntime> make_cuda_nccl_runtime() {
  return std::make_unique<CudaNcclRuntime>();
}

bool cuda_nccl_communicator_started() { return communicator_started; }

}  // namespace fabcheck
