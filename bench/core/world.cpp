// World's shared parts: layout from host names, rank descriptions, the local host name.
#include "bench/core/world.hpp"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <stdexcept>

#include "bench/core/rank_status.hpp"

namespace fabcheck {

World::World() : progress_(&rank_status().progress) {}

void World::set_layout(int rank, std::vector<std::string> hosts) {
  rank_ = rank;
  hosts_ = std::move(hosts);
  std::tie(local_rank_, local_size_) = local_rank_of(hosts_, rank_);
}

std::vector<std::string> World::distinct_hosts() const {
  std::vector<std::string> result;
  for (const auto& host : hosts_) {
    if (std::find(result.begin(), result.end(), host) == result.end()) result.push_back(host);
  }
  return result;
}

std::string World::joined_hosts() const {
  std::string joined;
  for (const auto& host : distinct_hosts()) joined += (joined.empty() ? "" : ",") + host;
  return joined;
}

std::string World::describe_rank(int rank) const {
  if (rank < 0 || rank >= size()) return "rank " + std::to_string(rank);
  return "rank " + std::to_string(rank) + " (" + hosts_[static_cast<std::size_t>(rank)] + ")";
}

std::unique_ptr<World> World::split(int, int) {
  throw std::logic_error("this World cannot be split into sub-worlds");
}

std::string local_hostname() {
  char name[HOST_NAME_MAX + 1] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "unknown-host";
  return name;
}

}  // namespace fabcheck
