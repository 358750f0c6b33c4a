// Host-pair figures grouped into node x node matrices.
#include "results/host_pair_matrix.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <tuple>

namespace fabcheck {

std::string HostPairMatrix::name() const {
  return probe + ":" + metric + ":" + std::to_string(size_bytes) + ":" +
         (pass.empty() ? "-" : pass);
}

bool is_host_pair_figure(const Measurement& m) {
  if (m.rank != -1 || m.host.empty() || m.peer.empty() || m.host == m.peer) return false;
  if (m.status != MeasurementStatus::ok) return false;
  const auto& [low, high] = std::minmax(m.host, m.peer);
  return m.subject == low + "--" + high;
}

std::vector<HostPairMatrix> host_pair_matrices(const std::vector<Measurement>& measurements) {
  using Key = std::tuple<std::string, std::string, std::uint64_t, std::string>;
  std::vector<Key> order;
  std::map<Key, std::vector<const Measurement*>> groups;
  for (const auto& m : measurements) {
    if (!is_host_pair_figure(m)) continue;
    const auto pass = m.params.find("pass");
    Key key{m.probe, m.metric, m.size_bytes.value_or(0),
            pass == m.params.end() ? std::string() : pass->second};
    auto [it, added] = groups.try_emplace(key);
    if (added) order.push_back(key);
    it->second.push_back(&m);
  }
  std::vector<HostPairMatrix> matrices;
  for (const auto& key : order) {
    const auto& group = groups.at(key);
    HostPairMatrix matrix;
    std::tie(matrix.probe, matrix.metric, matrix.size_bytes, matrix.pass) = key;
    matrix.unit = group.front()->unit;
    std::set<std::string> hosts;
    for (const auto* m : group) {
      hosts.insert(m->host);
      hosts.insert(m->peer);
    }
    matrix.hosts.assign(hosts.begin(), hosts.end());
    const std::size_t n = matrix.hosts.size();
    matrix.values.assign(n * n, std::numeric_limits<double>::quiet_NaN());
    auto index = [&](const std::string& host) {
      return static_cast<std::size_t>(
          std::lower_bound(matrix.hosts.begin(), matrix.hosts.end(), host) - matrix.hosts.begin());
    };
    for (const auto* m : group) {
      const std::size_t a = index(m->host);
      const std::size_t b = index(m->peer);
      matrix.values[a * n + b] = m->value;
      matrix.values[b * n + a] = m->value;
    }
    matrices.push_back(std::move(matrix));
  }
  return matrices;
}

}  // namespace fabcheck
