// What every collective's entry shares: placement names, the bus factor and shape read from the
// entry, algbw.
#include "bench/coll/collective.hpp"

namespace fabcheck {

const char* placement_name(Placement placement) {
  return placement == Placement::in_place ? "in" : "out";
}

const char* placement_title(Placement placement) {
  return placement == Placement::in_place ? "in-place" : "out-of-place";
}

const char* placement_title(const std::string& name) {
  return name == "in" ? "in-place" : name == "out" ? "out-of-place" : "";
}

std::string Collective::name() const {
  const std::string whole = id;
  return whole.rfind("coll.", 0) == 0 ? whole.substr(5) : whole;
}

double bus_factor(const Collective& collective, int nranks) {
  return collective.bus_factor(static_cast<double>(nranks));
}

double algbw_gbps(std::uint64_t size_bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(size_bytes) / seconds / 1e9 : 0;
}

CollectiveShape collective_shape(const Collective& collective, std::uint64_t size_bytes, int nranks,
                                 std::size_t element_size) {
  CollectiveShape shape =
      collective.shape(size_bytes / element_size, static_cast<std::uint64_t>(nranks));
  shape.size_bytes = shape.count * element_size;
  if (shape.size_bytes == 0) shape = CollectiveShape{};
  return shape;
}

}  // namespace fabcheck
