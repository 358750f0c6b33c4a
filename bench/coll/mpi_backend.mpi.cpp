// MPI backend: the six collectives on host float buffers with MPI's own calls, timed on the host.
#include <mpi.h>

#include <cstring>
#include <stdexcept>
#include <vector>

#include "bench/coll/mpi_backend.hpp"
#include "bench/coll/verification.hpp"
#include "bench/core/timer.hpp"

namespace fabcheck {
namespace {

void check_mpi(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(std::string(call) + " failed: " + text);
}

constexpr float kPoison = -1.0f;

class MpiBackend final : public CollectiveBackend {
 public:
  explicit MpiBackend(const World& world) : host_(world.host()) {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  ~MpiBackend() override { MPI_Comm_free(&comm_); }

  std::string name() const override { return "mpi"; }
  int comm_size() const override { return size_; }
  bool supports(Collective collective, Placement placement) const override {
    // MPI_Bcast has one buffer: it is in-place by nature.
    return !(collective == Collective::broadcast && placement == Placement::out_of_place) ||
           size_ == 1;
  }
  std::vector<std::string> member_descriptions() const override {
    return {"rank " + std::to_string(rank_) + " " + host_ + " host memory"};
  }

  void prepare(Collective collective, Placement placement, const CollectiveShape& shape) override {
    collective_ = collective;
    placement_ = placement;
    shape_ = shape;
    // In place, the input lives inside the output buffer, which must hold the larger of the two.
    const std::size_t output =
        std::max(shape.recv_count, placement == Placement::in_place ? shape.send_count : 0);
    send_.assign(placement == Placement::in_place ? 0 : shape.send_count, 0.0f);
    recv_.assign(output, kPoison);
  }

  void fill_inputs(std::uint32_t seed) override {
    std::fill(recv_.begin(), recv_.end(), kPoison);
    float* input = input_buffer();
    for (std::uint64_t i = 0; i < input_count(); ++i) {
      input[i] = verify::input_value(rank_, i, seed);
    }
  }

  double run_timed(int count) override {
    const double start = now_seconds();
    for (int i = 0; i < count; ++i) run_once();
    return now_seconds() - start;
  }

  std::vector<std::uint64_t> count_wrong(std::uint32_t seed) override {
    std::uint64_t wrong = 0;
    for (std::uint64_t i = 0; i < shape_.recv_count; ++i) {
      const float expected = verify::expected_output(collective_, rank_, size_, shape_.send_count,
                                                     shape_.recv_count, i, seed);
      if (recv_[i] != expected) ++wrong;
    }
    return {wrong};
  }

 private:
  bool in_place() const { return placement_ == Placement::in_place; }

  // Where this rank's input is, and how many elements: out of place, the send buffer; in place, the
  // output buffer (all-gather: this rank's block of it).
  float* input_buffer() {
    if (!in_place()) return send_.data();
    return recv_.data() + input_offset();
  }
  std::uint64_t input_offset() const {
    if (in_place() && collective_ == Collective::all_gather) {
      return static_cast<std::uint64_t>(rank_) * shape_.send_count;
    }
    return 0;
  }
  std::uint64_t input_count() const {
    if (collective_ == Collective::broadcast) return rank_ == verify::kRoot ? shape_.send_count : 0;
    return shape_.send_count;
  }

  void run_once() {
    const int send_count = static_cast<int>(shape_.send_count);
    const int recv_count = static_cast<int>(shape_.recv_count);
    const void* send = in_place() ? MPI_IN_PLACE : send_.data();
    float* recv = recv_.data();
    switch (collective_) {
      case Collective::all_reduce:
        check_mpi(MPI_Allreduce(send, recv, recv_count, MPI_FLOAT, MPI_SUM, comm_),
                  "MPI_Allreduce");
        break;
      case Collective::all_gather:
        check_mpi(MPI_Allgather(send, send_count, MPI_FLOAT, recv, send_count, MPI_FLOAT, comm_),
                  "MPI_Allgather");
        break;
      case Collective::reduce_scatter:
        check_mpi(MPI_Reduce_scatter_block(send, recv, recv_count, MPI_FLOAT, MPI_SUM, comm_),
                  "MPI_Reduce_scatter_block");
        break;
      case Collective::broadcast:
        check_mpi(MPI_Bcast(recv, recv_count, MPI_FLOAT, verify::kRoot, comm_), "MPI_Bcast");
        break;
      case Collective::alltoall: {
        const int per_peer = recv_count / size_;
        check_mpi(MPI_Alltoall(send, per_peer, MPI_FLOAT, recv, per_peer, MPI_FLOAT, comm_),
                  "MPI_Alltoall");
        break;
      }
      case Collective::sendrecv: {
        const int next = (rank_ + 1) % size_;
        const int previous = (rank_ + size_ - 1) % size_;
        if (in_place()) {
          check_mpi(MPI_Sendrecv_replace(recv, recv_count, MPI_FLOAT, next, 0, previous, 0, comm_,
                                         MPI_STATUS_IGNORE),
                    "MPI_Sendrecv_replace");
        } else {
          check_mpi(MPI_Sendrecv(send_.data(), send_count, MPI_FLOAT, next, 0, recv, recv_count,
                                 MPI_FLOAT, previous, 0, comm_, MPI_STATUS_IGNORE),
                    "MPI_Sendrecv");
        }
        break;
      }
    }
  }

  std::string host_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  Collective collective_ = Collective::all_reduce;
  Placement placement_ = Placement::out_of_place;
  CollectiveShape shape_;
  std::vector<float> send_;
  std::vector<float> recv_;
};

}  // namespace

std::unique_ptr<CollectiveBackend> make_mpi_backend(const World& world) {
  if (!world.is_mpi()) return nullptr;
  return std::make_unique<MpiBackend>(world);
}

}  // namespace fabcheck
