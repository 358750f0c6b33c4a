// MPI backend: every collective on host buffers of the sweep's element type (MPI_INT8_T ..
// MPI_UINT64_T, MPI_FLOAT, MPI_DOUBLE; MPI_SUM, MPI_PROD, MIN, MAX) with the MPI calls of its
// entry's plan (in pieces where a count exceeds `int`, mpi_call_plan.hpp), timed on the host.
// Buffers are bytes: elements are written and checked as the bits verification.hpp gives
// (host_elements.hpp).
#include <mpi.h>

#include <cstddef>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

#include "bench/coll/buffer_layout.hpp"
#include "bench/coll/host_elements.hpp"
#include "bench/coll/known_mpi_faults.hpp"
#include "bench/coll/mpi_backend.hpp"
#include "bench/coll/mpi_call_plan.hpp"
#include "bench/coll/verification.hpp"
#include "bench/core/mpi_comm_world.hpp"
#include "bench/core/world.hpp"
#include "bench/sys/timer.hpp"

namespace fabcheck {
namespace {

void check_mpi(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(std::string(call) + " failed: " + text);
}

// The MPI type of an element type; MPI has no standard half or bfloat16 (data_types.cpp refuses
// them before a backend is asked).
MPI_Datatype mpi_type(verify::DataType type) {
  switch (type) {
    case verify::DataType::int8:
      return MPI_INT8_T;
    case verify::DataType::uint8:
      return MPI_UINT8_T;
    case verify::DataType::int32:
      return MPI_INT32_T;
    case verify::DataType::uint32:
      return MPI_UINT32_T;
    case verify::DataType::int64:
      return MPI_INT64_T;
    case verify::DataType::uint64:
      return MPI_UINT64_T;
    case verify::DataType::float32:
      return MPI_FLOAT;
    case verify::DataType::float64:
      return MPI_DOUBLE;
    default:
      throw std::logic_error("the MPI backend has no 16-bit floating type");
  }
}

// MPI has no average reduction (refused before, as above).
MPI_Op mpi_op(verify::ReduceOp op) {
  switch (op) {
    case verify::ReduceOp::sum:
      return MPI_SUM;
    case verify::ReduceOp::prod:
      return MPI_PROD;
    case verify::ReduceOp::min:
      return MPI_MIN;
    case verify::ReduceOp::max:
      return MPI_MAX;
    default:
      throw std::logic_error("the MPI backend has no average operation");
  }
}

class MpiBackend final : public CollectiveBackend {
 public:
  MpiBackend(const World& world, std::uint64_t max_count)
      : host_(world.host()), max_count_(max_count) {
    MPI_Comm_dup(mpi_communicator(world), &comm_);
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  ~MpiBackend() override {
    free_block_types();
    MPI_Comm_free(&comm_);
  }

  std::string name() const override { return "mpi"; }
  std::string known_fault(const std::string& type, const std::string& redop) const override {
    return known_mpi_fault(mpi_library_version(), std::getenv("OMPI_MCA_op"), type, redop);
  }
  int comm_size() const override { return size_; }
  bool supports(const Collective& collective, Placement placement) const override {
    return collective.mpi_layout.supports(placement);
  }
  std::vector<std::string> member_descriptions() const override {
    return {"rank " + std::to_string(rank_) + " " + host_ + " host memory"};
  }

  void prepare(const Collective& collective, Placement placement, const CollectiveShape& shape,
               const verify::Element& element) override {
    collective_ = &collective;
    placement_ = placement;
    shape_ = shape;
    element_ = element;
    element_size_ = verify::element_bytes(element.type);
    type_ = mpi_type(element.type);
    op_ = collective.expected.reduced ? mpi_op(element.op) : MPI_OP_NULL;
    // In place, the input lives inside the output buffer, which holds the larger of the two.
    layout_ = buffer_layout(collective, collective.mpi_layout, placement, shape, rank_);
    send_.assign((layout_.in_place ? 0 : layout_.send_elements) * element_size_, std::byte{0});
    recv_.assign((layout_.in_place ? layout_.send_elements : layout_.recv_elements) * element_size_,
                 std::byte{0});
    calls_ = plan_mpi_calls(collective, placement, shape, rank_, size_, max_count_);
    free_block_types();
    for (const MpiCall& call : calls_) {
      if (call.block_stride != 0 && call.block_stride != static_cast<std::uint64_t>(call.count)) {
        block_type(call);
      }
    }
  }

  void fill_inputs(std::uint32_t seed) override {
    poison_elements(recv_.data(), recv_.size() / element_size_, element_.type);
    fill_input_elements(input_buffer(), layout_.input_count, element_, size_, rank_, seed);
  }

  // One operation per sample: the host clock resolves one, and on a CPU shared with other work
  // (an oversubscribed node, CI) a longer sample is preempted more often, so the median of 4-op
  // samples degrades where single operations stay clean (bench/compare_mpi.sh: 1 MiB median
  // 6.6-12.7 ms per operation with 4-op samples against 0.4-0.7 ms with one, interleaved runs).
  // The ranks are still aligned by the engine's barrier before each sample.
  int preferred_ops_per_sample() const override { return 1; }

  void run_untimed(int count) override {
    for (int i = 0; i < count; ++i) run_once();
  }
  // Host calls cannot be queued ahead: the sample is run, on the host clock, by complete_sample
  // (right after the engine's barrier).
  void queue_sample(int count) override { queued_ = count; }
  double complete_sample() override {
    const int count = std::exchange(queued_, 0);
    const double start = now_seconds();
    for (int i = 0; i < count; ++i) run_once();
    return now_seconds() - start;
  }

  std::unique_ptr<CollectiveBackend> split(World* sub_world, int /*color*/, int /*key*/) override {
    return sub_world ? make_mpi_backend(*sub_world, max_count_) : nullptr;
  }

  std::vector<std::uint64_t> count_wrong(std::uint32_t seed) override {
    return {count_wrong_elements(recv_.data() + layout_.output_offset * element_size_,
                                 layout_.output_count, collective_->expected, element_, rank_,
                                 size_, shape_.send_count, shape_.recv_count, seed)};
  }

 private:
  bool in_place() const { return placement_ == Placement::in_place; }

  // Where this rank's input is: out of place, the send buffer; in place, the output buffer (at the
  // offset the entry's MPI layout gives: the all-gather's is this rank's block).
  std::byte* input_buffer() {
    if (!in_place()) return send_.data();
    return recv_.data() + layout_.input_offset * element_size_;
  }

  void run_once() {
    for (const MpiCall& call : calls_) run_call(call);
  }

  // A derived type of `count` elements whose extent is `block_stride` elements: one rank's piece
  // of a block too large for one call (made in prepare(), outside any timed interval).
  MPI_Datatype block_type(const MpiCall& call) {
    const auto key = std::make_pair(call.count, call.block_stride);
    const auto found = block_types_.find(key);
    if (found != block_types_.end()) return found->second;
    MPI_Datatype piece = MPI_DATATYPE_NULL;
    MPI_Datatype resized = MPI_DATATYPE_NULL;
    check_mpi(MPI_Type_contiguous(call.count, type_, &piece), "MPI_Type_contiguous");
    check_mpi(MPI_Type_create_resized(
                  piece, 0, static_cast<MPI_Aint>(call.block_stride * element_size_), &resized),
              "MPI_Type_create_resized");
    MPI_Type_free(&piece);
    check_mpi(MPI_Type_commit(&resized), "MPI_Type_commit");
    block_types_[key] = resized;
    return resized;
  }

  void free_block_types() {
    for (auto& [key, type] : block_types_) MPI_Type_free(&type);
    block_types_.clear();
  }

  void run_call(const MpiCall& call) {
    std::byte* output = recv_.data();
    const std::byte* input = in_place() ? recv_.data() : send_.data();
    const void* send = call.in_place ? MPI_IN_PLACE : input + call.send_offset * element_size_;
    std::byte* recv = output + call.recv_offset * element_size_;
    // A whole block is `count` elements; a piece of a block is one derived type with the block's
    // stride (allgather, alltoall).
    const bool piece_of_block =
        call.block_stride != 0 && call.block_stride != static_cast<std::uint64_t>(call.count);
    const int block_count = piece_of_block ? 1 : call.count;
    const MPI_Datatype block =
        piece_of_block ? block_types_.at({call.count, call.block_stride}) : type_;
    const int next = (rank_ + 1) % size_;
    const int previous = (rank_ + size_ - 1) % size_;
    switch (call.kind) {
      case MpiCallKind::allreduce:
        check_mpi(MPI_Allreduce(send, recv, call.count, type_, op_, comm_), "MPI_Allreduce");
        break;
      case MpiCallKind::allgather:
        check_mpi(MPI_Allgather(send, call.count, type_, recv, block_count, block, comm_),
                  "MPI_Allgather");
        break;
      case MpiCallKind::reduce_scatter_block:
        check_mpi(MPI_Reduce_scatter_block(send, recv, call.count, type_, op_, comm_),
                  "MPI_Reduce_scatter_block");
        break;
      case MpiCallKind::reduce:
        check_mpi(MPI_Reduce(send, recv, call.count, type_, op_, call.root, comm_), "MPI_Reduce");
        break;
      case MpiCallKind::bcast:
        check_mpi(MPI_Bcast(recv, call.count, type_, call.root, comm_), "MPI_Bcast");
        break;
      case MpiCallKind::alltoall:
        check_mpi(MPI_Alltoall(send, block_count, block, recv, block_count, block, comm_),
                  "MPI_Alltoall");
        break;
      case MpiCallKind::sendrecv:
        check_mpi(MPI_Sendrecv(send, call.count, type_, next, 0, recv, call.count, type_, previous,
                               0, comm_, MPI_STATUS_IGNORE),
                  "MPI_Sendrecv");
        break;
      case MpiCallKind::sendrecv_replace:
        check_mpi(MPI_Sendrecv_replace(recv, call.count, type_, next, 0, previous, 0, comm_,
                                       MPI_STATUS_IGNORE),
                  "MPI_Sendrecv_replace");
        break;
    }
  }

  std::string host_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  const Collective* collective_ = nullptr;
  Placement placement_ = Placement::out_of_place;
  CollectiveShape shape_;
  BufferLayout layout_;
  verify::Element element_;
  unsigned element_size_ = 4;
  MPI_Datatype type_ = MPI_FLOAT;
  MPI_Op op_ = MPI_SUM;
  std::vector<std::byte> send_;
  std::vector<std::byte> recv_;
  std::uint64_t max_count_;
  std::vector<MpiCall> calls_;  // one operation, as MPI calls
  std::map<std::pair<int, std::uint64_t>, MPI_Datatype> block_types_;
  int queued_ = 0;
};

}  // namespace

std::unique_ptr<CollectiveBackend> make_mpi_backend(const World& world, std::uint64_t max_count) {
  if (mpi_communicator(world) == MPI_COMM_NULL) return nullptr;
  return std::make_unique<MpiBackend>(world, max_count);
}

}  // namespace fabcheck
