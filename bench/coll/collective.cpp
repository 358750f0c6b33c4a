// Collective names, nccl-tests' bus factors and buffer shapes.
#include "bench/coll/collective.hpp"

namespace fabcheck {

const std::vector<Collective>& all_collectives() {
  static const std::vector<Collective> collectives{
      Collective::all_reduce, Collective::all_gather, Collective::reduce_scatter,
      Collective::broadcast,  Collective::alltoall,   Collective::sendrecv};
  return collectives;
}

const char* collective_name(Collective collective) {
  switch (collective) {
    case Collective::all_reduce:
      return "all_reduce";
    case Collective::all_gather:
      return "all_gather";
    case Collective::reduce_scatter:
      return "reduce_scatter";
    case Collective::broadcast:
      return "broadcast";
    case Collective::alltoall:
      return "alltoall";
    case Collective::sendrecv:
      return "sendrecv";
  }
  return "unknown";
}

std::optional<Collective> collective_from_name(const std::string& name) {
  for (Collective collective : all_collectives()) {
    if (name == collective_name(collective)) return collective;
  }
  return std::nullopt;
}

double bus_factor(Collective collective, int nranks) {
  const double n = nranks;
  switch (collective) {
    case Collective::all_reduce:
      return 2.0 * (n - 1) / n;
    case Collective::all_gather:
    case Collective::reduce_scatter:
    case Collective::alltoall:
      return (n - 1) / n;
    case Collective::broadcast:
    case Collective::sendrecv:
      return 1.0;
  }
  return 0;
}

double algbw_gbps(std::uint64_t size_bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(size_bytes) / seconds / 1e9 : 0;
}

CollectiveShape collective_shape(Collective collective, std::uint64_t size_bytes, int nranks,
                                 std::size_t element_size) {
  const auto n = static_cast<std::uint64_t>(nranks);
  const std::uint64_t elements = size_bytes / element_size;
  CollectiveShape shape;
  switch (collective) {
    case Collective::all_reduce:
    case Collective::broadcast:
    case Collective::sendrecv:
      shape.count = elements;
      shape.send_count = elements;
      shape.recv_count = elements;
      break;
    case Collective::all_gather: {
      const std::uint64_t per_rank = elements / n;
      shape.count = per_rank * n;
      shape.send_count = per_rank;
      shape.recv_count = per_rank * n;
      break;
    }
    case Collective::reduce_scatter: {
      const std::uint64_t per_rank = elements / n;
      shape.count = per_rank * n;
      shape.send_count = per_rank * n;
      shape.recv_count = per_rank;
      break;
    }
    case Collective::alltoall: {
      const std::uint64_t per_peer = elements / n;
      shape.count = per_peer * n;
      shape.send_count = per_peer * n;
      shape.recv_count = per_peer * n;
      break;
    }
  }
  shape.size_bytes = shape.count * element_size;
  if (shape.size_bytes == 0) shape = CollectiveShape{};
  return shape;
}

}  // namespace fabcheck
