// MpiCommWorld: collectives over one communicator, host names, and sub-worlds by MPI_Comm_split.
#include "bench/core/mpi_comm_world.hpp"

#include <algorithm>
#include <cstring>

namespace fabcheck {
namespace {

constexpr std::size_t kHostNameBytes = 256;

// A sub-world: checkpoints are the parent's business; progress marks go to this process's page
// like the parent's.
class MpiSubWorld final : public MpiCommWorld {
 public:
  MpiSubWorld(MPI_Comm comm, std::vector<std::string> hosts) { adopt(comm, std::move(hosts)); }
  void checkpoint(const std::string&, double) override {}
};

}  // namespace

MpiCommWorld::~MpiCommWorld() { release(); }

void MpiCommWorld::release() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void MpiCommWorld::adopt(MPI_Comm comm, std::vector<std::string> hosts) {
  comm_ = comm;
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  set_layout(rank, std::move(hosts));
}

void MpiCommWorld::adopt_with_host_names(MPI_Comm comm) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<char> mine(kHostNameBytes, '\0');
  const std::string host = local_hostname();
  std::memcpy(mine.data(), host.data(), std::min(host.size(), kHostNameBytes - 1));
  std::vector<char> all(kHostNameBytes * static_cast<std::size_t>(size));
  MPI_Allgather(mine.data(), static_cast<int>(kHostNameBytes), MPI_CHAR, all.data(),
                static_cast<int>(kHostNameBytes), MPI_CHAR, comm);
  std::vector<std::string> hosts;
  for (int r = 0; r < size; ++r)
    hosts.emplace_back(all.data() + kHostNameBytes * static_cast<std::size_t>(r));
  adopt(comm, std::move(hosts));
}

void MpiCommWorld::barrier() { MPI_Barrier(comm_); }

void MpiCommWorld::max_in_place(std::vector<double>& values) {
  MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_MAX,
                comm_);
}

void MpiCommWorld::sum_in_place(std::vector<double>& values) {
  MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_SUM,
                comm_);
}

std::vector<std::string> MpiCommWorld::gather_to_root(const std::string& mine) {
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(size()));
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm_);
  std::vector<int> offsets(lengths.size(), 0);
  std::size_t total = 0;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    offsets[r] = static_cast<int>(total);
    total += static_cast<std::size_t>(lengths[r]);
  }
  std::vector<char> buffer(std::max<std::size_t>(total, 1));
  MPI_Gatherv(mine.data(), length, MPI_CHAR, buffer.data(), lengths.data(), offsets.data(),
              MPI_CHAR, 0, comm_);
  if (!is_root()) return {};
  std::vector<std::string> result;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    result.emplace_back(buffer.data() + offsets[r], static_cast<std::size_t>(lengths[r]));
  }
  return result;
}

std::string MpiCommWorld::broadcast_from_root(const std::string& value) {
  unsigned long long length = value.size();
  MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, comm_);
  std::string result = is_root() ? value : std::string(length, '\0');
  MPI_Bcast(result.data(), static_cast<int>(length), MPI_CHAR, 0, comm_);
  return result;
}

std::unique_ptr<World> MpiCommWorld::split(int color, int key) {
  // MPI orders equal keys by the rank here.
  MPI_Comm sub = MPI_COMM_NULL;
  MPI_Comm_split(comm_, color < 0 ? MPI_UNDEFINED : color, key, &sub);
  if (sub == MPI_COMM_NULL) return nullptr;
  // The sub-world's hosts, from this world's: each member's rank here, in the sub-world's order.
  int sub_size = 0;
  MPI_Comm_size(sub, &sub_size);
  std::vector<int> parent_ranks(static_cast<std::size_t>(sub_size));
  const int mine = rank();
  MPI_Allgather(&mine, 1, MPI_INT, parent_ranks.data(), 1, MPI_INT, sub);
  std::vector<std::string> sub_hosts;
  for (int r : parent_ranks) sub_hosts.push_back(hosts()[static_cast<std::size_t>(r)]);
  return std::make_unique<MpiSubWorld>(sub, std::move(sub_hosts));
}

MPI_Comm mpi_communicator(const World& world) {
  const auto* mpi = dynamic_cast<const MpiCommWorld*>(&world);
  return mpi ? mpi->communicator() : MPI_COMM_NULL;
}

}  // namespace fabcheck
